// NCCL's double binary tree allreduce. Within a server the GPUs form a chain; across servers
// the chains' heads form a binary tree (heap order: children of position p at 2p+1, 2p+2),
// and a second tree maps position p to server N-1-p, so that the servers interior to one
// tree are leaves of the other. Each tree carries half of S in k pieces, pipelined: a GPU
// sends piece c up once its children's piece c arrived (the reduction fused in the copy),
// the root then sends it down and every GPU forwards it to its children. Each tree's chain
// starts at a different GPU of the server (so at a different NIC). On one server both trees
// are chains of all its GPUs, the second starting half way along.
#include <algorithm>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

namespace {

struct Tree {
  std::vector<std::size_t> parent;  // by GPU index; kRoot for the root
  std::vector<std::vector<std::size_t>> children;
  std::vector<std::size_t> bottom_up;  // every GPU after all its children
};

constexpr std::size_t kRoot = static_cast<std::size_t>(-1);

Tree build_tree(const std::vector<std::vector<std::size_t>>& nodes, int which) {
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
    std::rotate(chain.begin(), chain.begin() + (which == 0 ? 0 : chain.size() / 2), chain.end());
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

void add_one_tree(StepBuilder& builder, std::span<const DeviceId> gpus, const Tree& tree, int which,
                  double bytes, std::size_t chunks) {
  const std::size_t n = gpus.size();
  const double piece = bytes / static_cast<double>(chunks);
  // Three copy streams per tree: up, down to the first child, down to the others (a chain
  // head's children across servers share one), so both trees fit six copy engines.
  const int up_stream = 3 * which;
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

}  // namespace

void add_tree(StepBuilder& builder, std::string_view /*op*/, std::span<const DeviceId> gpus,
              double bytes, std::size_t chunks) {
  const auto nodes = node_indices(builder.machine(), gpus);
  for (int which = 0; which < 2; ++which)
    add_one_tree(builder, gpus, build_tree(nodes, which), which, bytes / 2, chunks);
}

double tree_transfer_s(const Machine& machine, std::span<const DeviceId> gpus, double bytes,
                       Protocol protocol) {
  const auto nodes = node_indices(machine, gpus);
  sync::LinkLoad load(machine);
  for (int which = 0; which < 2; ++which) {
    const Tree tree = build_tree(nodes, which);
    for (std::size_t v = 0; v < gpus.size(); ++v) {
      if (tree.parent[v] == kRoot) continue;
      const DeviceId child = gpus[v];
      const DeviceId parent = gpus[tree.parent[v]];
      const double eff =
          efficiency(machine.collectives(), protocol, link_class(machine, child, parent));
      load.add(child, parent, bytes / 2 / eff);  // up
      load.add(parent, child, bytes / 2 / eff);  // down
    }
  }
  return load.seconds();
}

}  // namespace opsim::collectives
