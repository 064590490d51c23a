// "multi-ring": every edge-disjoint Hamiltonian cycle over the GPUs' NVLinks carries a ring
// allreduce in each direction (links are full duplex), all at once, with the gradient split
// across the directed rings in proportion to their bandwidth (Wang et al., 2018; the book's
// DGX-1 example). Directed ring r gets, on each hop, the route's bandwidth divided by the
// number of rings crossing that hop in that direction.
#include <algorithm>
#include <limits>
#include <map>

#include "experiments/sync/nvlink_cycles.hpp"
#include "experiments/sync/sync_common.hpp"
#include "hw_models/units.hpp"

namespace opsim::sync {

namespace {

std::vector<Cycle> rings_or_fail(const SyncInput& input) {
  const std::vector<Cycle> cycles =
      find_disjoint_hamiltonian_cycles(GpuLinkGraph(input.machine, input.gpus));
  if (cycles.empty())
    fail(input, "no Hamiltonian cycle over direct GPU-GPU links (NVLink) through the " +
                    std::to_string(input.gpus.size()) + " GPUs of machine '" +
                    input.machine.name() + "'");
  return cycles;
}

}  // namespace

void check_multi_ring_plan(const SyncInput& input) {
  (void)rings_or_fail(input);
}

SyncPlan make_multi_ring_plan(const SyncInput& input) {
  const Machine& machine = input.machine;
  const std::size_t n = input.gpus.size();
  const std::vector<Cycle> cycles = rings_or_fail(input);

  // Both directions of each cycle; with 2 GPUs the reverse ring is the same ring.
  std::vector<std::vector<DeviceId>> rings;
  for (const Cycle& cycle : cycles) {
    std::vector<DeviceId> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = input.gpus[cycle[i]];
    rings.push_back(order);
    if (n > 2 && input.both_directions) {
      std::reverse(order.begin() + 1, order.end());
      rings.push_back(order);
    }
  }
  std::map<std::pair<DeviceId, DeviceId>, int> uses;
  for (const auto& ring : rings)
    for (std::size_t i = 0; i < n; ++i) ++uses[{ring[i], ring[(i + 1) % n]}];
  std::vector<double> ring_bytes_per_s;
  double total_bytes_per_s = 0;
  for (const auto& ring : rings) {
    double width = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      const DeviceId from = ring[i];
      const DeviceId to = ring[(i + 1) % n];
      width = std::min(width, machine.route_bytes_per_s(from, to) / uses[{from, to}]);
    }
    ring_bytes_per_s.push_back(width);
    total_bytes_per_s += width;
  }

  SyncPlan plan;
  const std::size_t per_ring = 2 * (n - 1) * n + (input.include_reductions ? (n - 1) * n : 0);
  plan.graph.reserve(per_ring * rings.size());
  SyncGraphBuilder builder(input, plan.graph);
  LinkLoad load(machine);
  const double steps_share = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n);
  for (std::size_t r = 0; r < rings.size(); ++r) {
    const double bytes = input.bytes * ring_bytes_per_s[r] / total_bytes_per_s;
    add_ring_allreduce(builder, rings[r], bytes, static_cast<int>(r));
    for (std::size_t i = 0; i < n; ++i)
      load.add(rings[r][i], rings[r][(i + 1) % n], steps_share * bytes);
  }
  plan.lower_bound_s = load.seconds();
  const std::string detail = std::to_string(cycles.size()) + " disjoint NVLink cycles, " +
                             std::to_string(rings.size()) + " directed rings, " +
                             format_bytes_per_s(total_bytes_per_s) + " in all";
  plan.summary = describe(input, plan.graph, plan.lower_bound_s, detail);
  return plan;
}

}  // namespace opsim::sync
