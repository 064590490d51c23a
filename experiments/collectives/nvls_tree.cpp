// NCCL's NVLS tree allreduce (NCCL_ALGO=NVLSTree) across servers whose GPUs share a reducing
// NVSwitch. Inside each server the switch reduces shard i of S for GPU i (as NVLS does); GPU i
// then joins shard i of the other servers over its rail, a double binary tree of the servers'
// NICs r (each tree half of the shard, up then down); last the switch multicasts every shard
// back to all GPUs of the server. A switch port carries S(n+1)/n each way, as NVLS's own.
// opsim's copies join memories, not switches, so each switch phase is one copy of
// S(g+1)/(2g) per GPU, to the next GPU of the server: every port carries one such copy each
// way per phase, at once, as the switch takes a GPU's whole part. S goes in pieces, one after
// another on each lane, so that a piece crosses the servers while the next is reduced.
#include <algorithm>
#include <cmath>

#include "experiments/collectives/collective_common.hpp"

namespace opsim::collectives {

namespace {

// Channel lanes: three per tree (up, down to the first child, down to the others), then one
// per switch phase.
constexpr int kTreeLane = 0;
constexpr int kReduceLane = 6;
constexpr int kMulticastLane = 7;

// Per server and local GPU: ops.
using ServerOps = std::vector<std::vector<std::vector<OpId>>>;

ServerOps empty_server_ops(const std::vector<std::vector<DeviceId>>& nodes) {
  ServerOps ops(nodes.size());
  for (std::size_t s = 0; s < nodes.size(); ++s) ops[s].resize(nodes[s].size());
  return ops;
}

// One switch phase of one piece in every server: a copy of `bytes` from every GPU to the
// next, each after what its source waits for; returns the copy into each GPU.
ServerOps add_switch_phase(StepBuilder& builder, const std::vector<std::vector<DeviceId>>& nodes,
                           double bytes, int lane, const ServerOps& after, bool first,
                           std::string_view label) {
  ServerOps into = empty_server_ops(nodes);
  sync::NameBuffer name;
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const std::size_t g = nodes[s].size();
    for (std::size_t i = 0; i < g; ++i) {
      const std::size_t j = (i + 1) % g;
      name.clear().text(label).number(i).text("→").number(j);
      const OpId copy = builder.copy(nodes[s][i], nodes[s][j], bytes, name.view(), lane, first);
      for (OpId before : after[s][i]) builder.after(before, copy);
      into[s][j].push_back(copy);
    }
  }
  return into;
}

// One tree of rail r for one piece: up (each server after its children and its own reduced
// shard), then down from the root; adds to `result` the ops after which each server's GPU r
// holds this tree's half of the reduced shard.
void add_rail_tree(StepBuilder& builder, const std::vector<std::vector<DeviceId>>& nodes,
                   std::size_t r, const Tree& tree, int index, double bytes,
                   const ServerOps& reduced, bool head_piece, ServerOps& result) {
  const std::size_t servers = nodes.size();
  const int lane = kTreeLane + 3 * index;
  std::vector<OpId> up(servers, 0), down(servers, 0);
  sync::NameBuffer name;
  for (std::size_t v : tree.bottom_up) {
    if (tree.parent[v] == kRoot) continue;
    name.clear().text(index == 0 ? "nt0 up r" : "nt1 up r").number(r);
    const OpId send = builder.copy(nodes[v][r], nodes[tree.parent[v]][r], bytes, name.view(), lane,
                                   false, head_piece);
    for (OpId before : reduced[v][r]) builder.after(before, send);
    for (std::size_t child : tree.children[v]) builder.after(up[child], send);
    up[v] = send;
  }
  // The root holds the sum once its own shard and its children's halves are in.
  std::vector<OpId> at_root = reduced[tree.bottom_up.back()][r];
  for (std::size_t child : tree.children[tree.bottom_up.back()]) at_root.push_back(up[child]);
  for (auto it = tree.bottom_up.rbegin(); it != tree.bottom_up.rend(); ++it) {
    const std::size_t v = *it;
    if (tree.parent[v] == kRoot)
      result[v][r].insert(result[v][r].end(), at_root.begin(), at_root.end());
    for (std::size_t j = 0; j < tree.children[v].size(); ++j) {
      const std::size_t child = tree.children[v][j];
      name.clear().text(index == 0 ? "nt0 dn r" : "nt1 dn r").number(r);
      const OpId send = builder.copy(nodes[v][r], nodes[child][r], bytes, name.view(),
                                     lane + (j == 0 ? 1 : 2), false, head_piece);
      if (tree.parent[v] == kRoot) {
        for (OpId before : at_root) builder.after(before, send);
      } else {
        builder.after(down[v], send);
      }
      down[child] = send;
      result[child][r].push_back(send);
    }
  }
}

std::vector<Tree> rail_trees(std::size_t servers) {
  std::vector<std::vector<std::size_t>> one_per_server(servers);
  for (std::size_t s = 0; s < servers; ++s) one_per_server[s] = {s};
  return {build_tree(one_per_server, 0, 0), build_tree(one_per_server, 1, 0)};
}

}  // namespace

void add_nvls_tree(StepBuilder& builder, std::span<const DeviceId> gpus, double total_bytes,
                   std::size_t pieces) {
  const std::vector<std::vector<DeviceId>> nodes = gpus_by_node(builder.machine(), gpus);
  const double g = static_cast<double>(nodes.front().size());
  const double bytes = total_bytes / static_cast<double>(pieces);
  const double nvls_efficiency =
      builder.protocol() == Protocol::kWire ? 1.0 : builder.machine().collectives().nvls_efficiency;
  const double switch_bytes = bytes * (g + 1) / (2 * g) / nvls_efficiency;
  const std::vector<Tree> trees = rail_trees(nodes.size());
  const double hop_s_per_sqrt_gpu =
      builder.machine().collectives().nvls_tree_network_hop_s_per_sqrt_gpu;
  if (hop_s_per_sqrt_gpu > 0 && builder.protocol() != Protocol::kWire)
    builder.set_network_step_latency(hop_s_per_sqrt_gpu * std::sqrt(g));
  const ServerOps none = empty_server_ops(nodes);
  for (std::size_t piece = 0; piece < pieces; ++piece) {
    const ServerOps reduced =
        add_switch_phase(builder, nodes, switch_bytes, kReduceLane, none, piece == 0, "nvls rs ");
    ServerOps summed = empty_server_ops(nodes);
    for (std::size_t r = 0; r < nodes.front().size(); ++r)
      for (std::size_t t = 0; t < trees.size(); ++t)
        add_rail_tree(builder, nodes, r, trees[t], static_cast<int>(t), bytes / g / 2, reduced,
                      piece == 0, summed);
    add_switch_phase(builder, nodes, switch_bytes, kMulticastLane, summed, false, "nvls mc ");
  }
}

double nvls_tree_transfer_s(const Machine& machine, std::span<const DeviceId> gpus, double bytes,
                            Protocol protocol) {
  const std::vector<std::vector<DeviceId>> nodes = gpus_by_node(machine, gpus);
  const std::vector<DeviceId>& server = nodes.front();
  const double g = static_cast<double>(server.size());
  const CollectiveModel& m = machine.collectives();
  const double port_eff = protocol == Protocol::kWire
                              ? 1.0
                              : efficiency(m, protocol, LinkClass::kNvlink) * m.nvls_efficiency;
  const double inside_s =
      bytes * (g + 1) / g / (machine.route_bytes_per_s(server[0], server[1]) * port_eff);
  std::vector<DeviceId> rail;
  for (const auto& node : nodes) rail.push_back(node.front());
  return std::max(inside_s, tree_transfer_s(machine, rail, bytes / g, protocol));
}

}  // namespace opsim::collectives
