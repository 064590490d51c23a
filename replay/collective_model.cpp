#include "replay/collective_model.hpp"

#include <algorithm>
#include <cctype>

#include "experiments/sync/sync_strategy.hpp"

namespace opsim::replay {
namespace {

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void join_recorded(ReplayGraph& g, const CollectiveInstance& c,
                   const std::vector<std::vector<OpId>>& predecessors) {
  double shortest_s = g.graph.op(c.members.front().op).seconds;
  for (const auto& m : c.members) shortest_s = std::min(shortest_s, g.graph.op(m.op).seconds);
  for (const auto& m : c.members) {
    g.graph.mutable_op(m.op).seconds = shortest_s;
    for (const auto& other : c.members)
      if (other.op != m.op)
        for (OpId before : predecessors[other.op]) g.graph.add_dependency(before, m.op);
  }
}

std::uint32_t transfers_lane(ReplayGraph& g, std::uint32_t rank, DeviceId gpu) {
  const std::string name = "r" + std::to_string(rank) + " collective transfers (modelled)";
  for (std::uint32_t l = 0; l < g.lanes.size(); ++l)
    if (g.lanes[l].name == name) return l;
  return g.add_lane({.name = name,
                     .node = "rank" + std::to_string(rank),
                     .device = g.machine.device(gpu).name,
                     .kind = LaneKind::kCopy,
                     .capacity_bytes_per_s = 0});
}

// The ring's ops go in before the members: its first sends wait for every member's
// predecessors, and every member (now taking no time of its own) waits for its last
// receives.
void splice_ring(ReplayGraph& g, const CollectiveInstance& c, double bytes,
                 const std::vector<std::vector<OpId>>& predecessors) {
  SyncOptions sync;
  sync.bytes = bytes;
  sync.include_reductions = false;
  for (const auto& m : c.members) sync.gpus.push_back(g.graph.op(m.op).device);
  const SyncPlan plan = make_sync_plan("ring", g.machine, sync);
  const OpId base = static_cast<OpId>(g.graph.size());
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    const Op& op = plan.graph.op(id);
    const auto member =
        std::find(sync.gpus.begin(), sync.gpus.end(), op.device) - sync.gpus.begin();
    const auto& m = c.members[static_cast<std::size_t>(member)];
    g.add(op, plan.graph.name(id), m.rank, transfers_lane(g, m.rank, op.device),
          g.recorded_start_ns[m.op], g.recorded_end_ns[m.op]);
    g.graph.add_memory_effect(base + id, plan.graph.memory_effect(id));
  }
  for (OpId id = 0; id < plan.graph.size(); ++id) {
    bool last = true;
    plan.graph.for_each_successor(id, [&](OpId after) {
      g.graph.add_dependency(base + id, base + after);
      last = false;
    });
    if (plan.graph.in_degree(id) == 0)
      for (const auto& m : c.members)
        for (OpId before : predecessors[m.op]) g.graph.add_dependency(before, base + id);
    if (last)
      for (const auto& m : c.members) g.graph.add_dependency(base + id, m.op);
  }
  for (const auto& m : c.members) g.graph.mutable_op(m.op).seconds = 0;
}

}  // namespace

double ring_equivalent_bytes(const Collective& collective, std::size_t ranks) {
  if (collective.element_bytes <= 0 || ranks < 2) return 0;
  const double elements =
      static_cast<double>(std::max(collective.in_elements, collective.out_elements));
  if (elements <= 0) return 0;
  const double size = elements * static_cast<double>(collective.element_bytes);
  const double n = static_cast<double>(ranks);
  const std::string kind = lower(collective.name);
  if (kind == "allreduce") return size;
  if (kind.find("allgather") != std::string::npos ||
      kind.find("reducescatter") != std::string::npos)
    return size / 2;
  if (kind == "broadcast" || kind == "reduce") return size * n / (2 * (n - 1));
  return 0;
}

void connect_collectives(ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                         const std::vector<CollectiveInstance>& instances,
                         const ReplayOptions& options) {
  if (instances.empty()) return;
  const auto predecessors = g.graph.predecessor_lists();
  for (const CollectiveInstance& c : instances) {
    if (c.members.size() < 2) continue;  // a group of one rank here keeps its recorded time
    ++g.counts.collectives;
    const auto& first = c.members.front();
    const GpuEvent& event = traces[g.trace_of_rank[first.rank]].gpu_events[first.event];
    const double bytes = ring_equivalent_bytes(*event.collective, c.members.size());
    if (options.collectives == CollectiveTiming::kModelled && bytes > 0) {
      splice_ring(g, c, bytes, predecessors);
      ++g.counts.collectives_modelled;
    } else {
      join_recorded(g, c, predecessors);
      if (options.collectives == CollectiveTiming::kModelled) ++g.counts.collectives_kept_recorded;
    }
  }
}

}  // namespace opsim::replay
