// NCCL-style ring channels over a set of GPUs, and the GPUs' grouping by server and switch.
#include <algorithm>
#include <limits>
#include <map>

#include "experiments/collectives/collective_common.hpp"
#include "experiments/sync/nvlink_cycles.hpp"

namespace opsim::collectives {

namespace {

// Ring r over servers of g GPUs: even servers from local r up to r-1, odd ones from r-1 down
// to r, so that each crossing joins two GPUs of one rail.
std::vector<Channel> rail_channels(const std::vector<std::vector<DeviceId>>& nodes) {
  const std::size_t g = nodes.front().size();
  std::vector<Channel> channels;
  for (std::size_t r = 0; r < g; ++r) {
    Channel channel;
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t j = 0; j < g; ++j) {
        const std::size_t local = s % 2 == 0 ? (r + j) % g : (r + 2 * g - 1 - j) % g;
        channel.order.push_back(nodes[s][local]);
      }
    channels.push_back(std::move(channel));
  }
  return channels;
}

std::vector<Channel> nvlink_channels(const Machine& machine, const std::vector<DeviceId>& given) {
  const std::size_t n = given.size();
  const std::vector<sync::Cycle> cycles =
      sync::find_disjoint_hamiltonian_cycles(sync::GpuLinkGraph(machine, given));
  if (cycles.empty()) return {Channel{given, 1.0, 0}};
  std::vector<Channel> channels;
  for (const sync::Cycle& cycle : cycles) {
    std::vector<DeviceId> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = given[cycle[i]];
    channels.push_back({order, 0, 0});
    if (n > 2) {  // the same cycle the other way round (links are full duplex)
      std::reverse(order.begin() + 1, order.end());
      channels.push_back({order, 0, 0});
    }
  }
  return channels;
}

}  // namespace

std::vector<Channel> ring_channels(const Machine& machine, std::span<const DeviceId> gpus) {
  const std::vector<DeviceId> given(gpus.begin(), gpus.end());
  const std::size_t n = given.size();
  const std::vector<std::vector<DeviceId>> nodes = gpus_by_node(machine, gpus);
  bool rails = nodes.size() >= 2 && nodes.front().size() >= 2;
  for (const auto& node : nodes) rails = rails && node.size() == nodes.front().size();
  std::vector<Channel> channels = rails ? rail_channels(nodes) : nvlink_channels(machine, given);
  // Each directed ring gets, on each hop, the route's rate over the rings crossing it.
  std::map<std::pair<DeviceId, DeviceId>, int> uses;
  for (const Channel& c : channels)
    for (std::size_t i = 0; i < n; ++i) ++uses[{c.order[i], c.order[(i + 1) % n]}];
  double total = 0;
  for (Channel& c : channels) {
    double width = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      const DeviceId from = c.order[i];
      const DeviceId to = c.order[(i + 1) % n];
      width = std::min(width, machine.route_bytes_per_s(from, to) / uses[{from, to}]);
    }
    c.bytes_per_s = width;
    total += width;
  }
  for (Channel& c : channels) c.share = c.bytes_per_s / total;
  return channels;
}

std::vector<std::vector<DeviceId>> gpus_by_node(const Machine& machine,
                                                std::span<const DeviceId> gpus) {
  std::vector<std::vector<DeviceId>> nodes;
  std::map<std::uint32_t, std::size_t> index;
  for (DeviceId gpu : gpus) {
    const std::uint32_t node = machine.device(gpu).node;
    auto [it, added] = index.emplace(node, nodes.size());
    if (added) nodes.emplace_back();
    nodes[it->second].push_back(gpu);
  }
  return nodes;
}

DeviceId shared_switch(const Machine& machine, std::span<const DeviceId> gpus, bool reducing) {
  for (LinkId link : machine.links_of(gpus.front())) {
    const Link& l = machine.link(link);
    const DeviceId other = l.a == gpus.front() ? l.b : l.a;
    const Device& device = machine.device(other);
    if (device.kind != DeviceKind::kSwitch || (reducing && !device.reduces_in_switch)) continue;
    const bool reaches_all = std::all_of(gpus.begin(), gpus.end(), [&](DeviceId gpu) {
      for (LinkId own : machine.links_of(gpu)) {
        const Link& o = machine.link(own);
        if (o.a == other || o.b == other) return true;
      }
      return false;
    });
    if (reaches_all) return other;
  }
  return kNoDevice;
}

}  // namespace opsim::collectives
