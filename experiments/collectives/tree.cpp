// NCCL's double binary tree allreduce. Within a server the GPUs form a chain; across servers
// the chains' heads form a binary tree (heap order: children of position p at 2p+1, 2p+2),
// and a second tree maps position p to server N-1-p, so that the servers interior to one
// tree are leaves of the other. Each tree carries half of S in k pieces, pipelined: a GPU
// sends piece c up once its children's piece c arrived (the reduction fused in the copy),
// the root then sends it down and every GPU forwards it to its children. Each tree's chain
// starts at a different GPU of the server (so at a different NIC). On one server both trees
// are chains of all its GPUs, the second starting half way along. Across servers of g GPUs
// there is one such pair per rail, as NCCL builds a tree per channel on its channel's NIC:
// pair r's chains start at local GPUs r and r + g/2, so every NIC carries two trees.
#include <algorithm>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

// `first`: the local index each server's chain starts at (its head, whose NIC joins the
// servers' tree).
Tree build_tree(const std::vector<std::vector<std::size_t>>& nodes, int which, std::size_t first) {
  std::size_t n = 0;
  for (const auto& node : nodes) n += node.size();
  Tree tree{std::vector<std::size_t>(n, kRoot), std::vector<std::vector<std::size_t>>(n), {}};
  const std::size_t servers = nodes.size();
  auto server_at = [&](std::size_t position) {
    return which == 0 ? position : servers - 1 - position;
  };
  std::vector<std::size_t> head(servers);
  for (std::size_t s = 0; s < servers; ++s) {
    std::vector<std::size_t> chain = nodes[s];
    std::rotate(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(first % chain.size()),
                chain.end());
    head[s] = chain.front();
    for (std::size_t j = 1; j < chain.size(); ++j) {
      tree.parent[chain[j]] = chain[j - 1];
      tree.children[chain[j - 1]].push_back(chain[j]);
    }
  }
  for (std::size_t p = 1; p < servers; ++p) {
    const std::size_t child = head[server_at(p)];
    const std::size_t parent = head[server_at((p - 1) / 2)];
    tree.parent[child] = parent;
    tree.children[parent].push_back(child);
  }
  // Breadth first from the root, then reversed: children before parents.
  std::vector<std::size_t> order{head[server_at(0)]};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t child : tree.children[order[i]]) order.push_back(child);
  tree.bottom_up.assign(order.rbegin(), order.rend());
  return tree;
}

namespace {

void add_one_tree(StepBuilder& builder, std::span<const DeviceId> gpus, const Tree& tree,
                  std::size_t index, double bytes, std::size_t chunks) {
  const int which = static_cast<int>(index % 2);
  const std::size_t n = gpus.size();
  const double piece = bytes / static_cast<double>(chunks);
  // Three channel lanes per tree: up, down to the first child, down to the others (a chain
  // head's children across servers share one).
  const int up_stream = 3 * static_cast<int>(index);
  std::vector<OpId> up(n, 0), down(n, 0), last_up(n, 0);
  std::vector<std::vector<OpId>> last_down(n);
  sync::NameBuffer name;
  for (std::size_t c = 0; c < chunks; ++c) {
    const bool head_piece = c == 0;
    for (std::size_t v : tree.bottom_up) {
      if (tree.parent[v] == kRoot) continue;
      name.clear().text(which == 0 ? "t0 up c" : "t1 up c").number(c);
      const OpId send = builder.copy(gpus[v], gpus[tree.parent[v]], piece, name.view(), up_stream,
                                     head_piece && tree.children[v].empty(), head_piece);
      for (std::size_t child : tree.children[v]) builder.after(up[child], send);
      if (c > 0) builder.after(last_up[v], send);
      up[v] = last_up[v] = send;
    }
    // Down, parents before children.
    for (auto it = tree.bottom_up.rbegin(); it != tree.bottom_up.rend(); ++it) {
      const std::size_t v = *it;
      last_down[v].resize(tree.children[v].size(), 0);
      for (std::size_t j = 0; j < tree.children[v].size(); ++j) {
        const std::size_t child = tree.children[v][j];
        name.clear().text(which == 0 ? "t0 dn c" : "t1 dn c").number(c);
        const OpId send = builder.copy(gpus[v], gpus[child], piece, name.view(),
                                       up_stream + (j == 0 ? 1 : 2), false, head_piece);
        if (tree.parent[v] == kRoot)
          for (std::size_t grandchild : tree.children[v]) builder.after(up[grandchild], send);
        else
          builder.after(down[v], send);
        if (c > 0) builder.after(last_down[v][j], send);
        last_down[v][j] = send;
        down[child] = send;
      }
    }
  }
}

// The GPUs' indices in `gpus`, grouped by server.
std::vector<std::vector<std::size_t>> node_indices(const Machine& machine,
                                                   std::span<const DeviceId> gpus) {
  std::vector<std::vector<std::size_t>> nodes;
  std::vector<std::size_t> index_of(machine.devices().size(), 0);
  for (std::size_t i = 0; i < gpus.size(); ++i) index_of[gpus[i]] = i;
  for (const auto& server : gpus_by_node(machine, gpus)) {
    nodes.emplace_back();
    for (DeviceId gpu : server) nodes.back().push_back(index_of[gpu]);
  }
  return nodes;
}

// Pairs of trees: one per rail across servers of as many GPUs each, else one.
std::size_t pairs_of(const std::vector<std::vector<std::size_t>>& nodes) {
  const std::size_t g = nodes.front().size();
  if (nodes.size() < 2 || g < 2) return 1;
  for (const auto& node : nodes)
    if (node.size() != g) return 1;
  return g;
}

// Every tree: pair r's two start their chains at local GPUs r and r + g/2.
std::vector<Tree> build_trees(const std::vector<std::vector<std::size_t>>& nodes) {
  const std::size_t g = nodes.front().size();
  std::vector<Tree> trees;
  for (std::size_t r = 0; r < pairs_of(nodes); ++r)
    for (int which = 0; which < 2; ++which)
      trees.push_back(build_tree(nodes, which, r + (which == 0 ? 0 : g / 2)));
  return trees;
}

}  // namespace

std::size_t tree_count(const Machine& machine, std::span<const DeviceId> gpus) {
  return 2 * pairs_of(node_indices(machine, gpus));
}

void add_tree(StepBuilder& builder, std::string_view /*op*/, std::span<const DeviceId> gpus,
              double bytes, std::size_t chunks) {
  const std::vector<Tree> trees = build_trees(node_indices(builder.machine(), gpus));
  const double share = bytes / static_cast<double>(trees.size());
  for (std::size_t t = 0; t < trees.size(); ++t)
    add_one_tree(builder, gpus, trees[t], t, share, chunks);
}

double tree_transfer_s(const Machine& machine, std::span<const DeviceId> gpus, double bytes,
                       Protocol protocol) {
  const std::vector<Tree> trees = build_trees(node_indices(machine, gpus));
  const double share = bytes / static_cast<double>(trees.size());
  sync::LinkLoad load(machine);
  for (const Tree& tree : trees) {
    for (std::size_t v = 0; v < gpus.size(); ++v) {
      if (tree.parent[v] == kRoot) continue;
      const DeviceId child = gpus[v];
      const DeviceId parent = gpus[tree.parent[v]];
      const double eff =
          efficiency(machine.collectives(), protocol, link_class(machine, child, parent));
      load.add(child, parent, share / eff);  // up
      load.add(parent, child, share / eff);  // down
    }
  }
  return load.seconds();
}

}  // namespace opsim::collectives
