// "ring": chunked ring allreduce. The gradient is cut into n chunks; in 2(n-1) steps every
// GPU sends one chunk to its successor: n-1 reduce-scatter steps (the receiver adds the
// chunk to its own) then n-1 all-gather steps. Every directed ring hop carries
// 2(n-1)/n * S, so the time is 2(n-1)/n * S/B for the narrowest hop B. The ring follows
// direct GPU-GPU links (NVLink) when they form a Hamiltonian cycle, else the given order.
#include <algorithm>
#include <limits>

#include "experiments/sync/nvlink_cycles.hpp"
#include "experiments/sync/sync_common.hpp"
#include "hw_models/units.hpp"

namespace opsim::sync {

void add_ring_allreduce(SyncGraphBuilder& builder, std::span<const DeviceId> order, double bytes,
                        int ring) {
  add_ring_steps(builder, order, bytes, ring, 0, 2 * (order.size() - 1));
}

void add_ring_steps(SyncGraphBuilder& builder, std::span<const DeviceId> order, double bytes,
                    int ring, std::size_t first_step, std::size_t end_step) {
  const std::size_t n = order.size();
  const double chunk_bytes = bytes / static_cast<double>(n);
  NameBuffer name;
  // gate[i]: the op GPU i's next send waits for (last step's receive, or its reduction).
  std::vector<OpId> gate(n, 0);
  std::vector<OpId> next_gate(n, 0);
  for (std::size_t step = first_step; step < end_step; ++step) {
    const bool scatter = step < n - 1;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = i + 1 == n ? 0 : i + 1;
      const std::size_t chunk = (i + 2 * n - step) % n;
      name.clear();
      if (ring >= 0) name.text("r").number(static_cast<std::uint64_t>(ring)).text(" ");
      // Source and destination are the copy's device and peer (traces show them); the
      // name carries the role, which keeps two million names small.
      name.text(scatter ? "rs s" : "ag s").number(step).text(" c").number(chunk);
      const OpId send = builder.copy(order[i], order[to], chunk_bytes, name.view(), ring);
      if (step > first_step) builder.after(gate[i], send);
      OpId arrived = send;
      if (scatter) {
        // Without reductions reduce_one adds no op (only the receive buffer): skip the name.
        if (builder.reductions()) {
          name.clear();
          if (ring >= 0) name.text("r").number(static_cast<std::uint64_t>(ring)).text(" ");
          name.text("red s").number(step).text(" c").number(chunk);
        }
        arrived = builder.reduce_one(order[to], 2, chunk_bytes, send, name.view(), ring);
      }
      next_gate[to] = arrived;
    }
    gate.swap(next_gate);
  }
}

SyncPlan make_ring_plan(const SyncInput& input) {
  const Machine& machine = input.machine;
  const std::size_t n = input.gpus.size();
  std::vector<DeviceId> order = input.gpus;
  std::string detail = "ring in the given order";
  bool gave_up = false;
  const Cycle cycle = find_widest_hamiltonian_cycle(GpuLinkGraph(machine, input.gpus), &gave_up);
  if (gave_up) detail += " (NVLink cycle search hit its limit)";
  if (!cycle.empty()) {
    for (std::size_t i = 0; i < n; ++i) order[i] = input.gpus[cycle[i]];
    detail = "ring over direct GPU-GPU links";
  }

  SyncPlan plan;
  const std::size_t copies = 2 * (n - 1) * n;
  // Names stay within 32 characters; each op depends on at most about one other.
  const std::size_t ops = copies + (input.include_reductions ? (n - 1) * n : 0);
  plan.graph.reserve(ops, ops + 2 * n, 32 * ops);
  SyncGraphBuilder builder(input, plan.graph);
  add_ring_allreduce(builder, order, input.bytes, -1);

  // Each directed hop carries 2(n-1) chunks of S/n: no schedule beats its narrowest hop.
  const double per_hop_bytes =
      2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * input.bytes;
  double narrowest = std::numeric_limits<double>::infinity();
  LinkLoad load(machine);
  for (std::size_t i = 0; i < n; ++i) {
    const DeviceId from = order[i];
    const DeviceId to = order[(i + 1) % n];
    narrowest = std::min(narrowest, machine.route_bytes_per_s(from, to));
    load.add(from, to, per_hop_bytes);
  }
  plan.lower_bound_s = std::max(per_hop_bytes / narrowest, load.seconds());
  detail += ", narrowest hop " + format_bytes_per_s(narrowest);
  plan.summary = describe(input, plan.graph, plan.lower_bound_s, detail);
  return plan;
}

}  // namespace opsim::sync
