#include "replay/replay_graph.hpp"

#include <algorithm>
#include <map>

#include "common/input_error.hpp"
#include "replay/gpu_timeline.hpp"
#include "replay/host_timeline.hpp"

namespace opsim::replay {
namespace {

// GPU ops of every rank first (host calls need them as wait targets), then each rank's
// host threads, then the joins between ranks.
void check_machine(const std::vector<KinetoTrace>& traces, const Machine& machine) {
  std::size_t gpus_needed = 0;
  std::string per_trace;  // "a.json.gz 1 GPU, b.json.gz 1 GPU"
  for (const KinetoTrace& trace : traces) {
    const std::size_t gpus = distinct_gpu_devices(trace).size();
    gpus_needed += gpus;
    per_trace += (per_trace.empty() ? "" : ", ") + trace.path + " " + std::to_string(gpus) +
                 (gpus == 1 ? " GPU" : " GPUs");
  }
  const std::size_t gpus_there = machine.gpus().size();
  if (gpus_there < gpus_needed)
    throw InputError("machine '" + machine.name() + "' has " + std::to_string(gpus_there) +
                     (gpus_there == 1 ? " GPU" : " GPUs") + "; the traces need " +
                     std::to_string(gpus_needed) + " (" + per_trace + ")");
  if (machine.cpus().empty())
    throw InputError("machine '" + machine.name() + "' has no CPU to run the host threads on");
}

// The name a collective is matched by across ranks: its process group, then its kind.
std::string collective_key(const Collective& c) {
  std::string group = c.group_name;
  if (group.empty())
    for (std::int64_t r : c.group_ranks) group += std::to_string(r) + ",";
  return group + "/" + c.name;
}

// Every rank's k-th collective of a group is one collective: each rank's part starts when
// every rank has reached it and lasts as long as the shortest recorded part (the others
// include their wait for the last rank to arrive).
void join_collectives(ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                      const std::vector<RankGpuOps>& ranks) {
  if (traces.size() < 2) return;
  std::map<std::string, std::vector<std::vector<OpId>>> by_key;  // key -> rank -> ops
  for (std::uint32_t r = 0; r < traces.size(); ++r)
    for (std::uint32_t e = 0; e < traces[r].gpu_events.size(); ++e) {
      const auto& collective = traces[r].gpu_events[e].collective;
      if (!collective) continue;
      auto& per_rank = by_key[collective_key(*collective)];
      per_rank.resize(traces.size());
      per_rank[r].push_back(ranks[r].op_of_event[e]);
    }
  const auto predecessors = g.graph.predecessor_lists();
  for (const auto& [key, per_rank] : by_key) {
    std::vector<std::size_t> counts;
    for (const auto& ops : per_rank) counts.push_back(ops.size());
    const std::size_t n = counts.front();
    const bool all_present = std::all_of(counts.begin(), counts.end(), [](auto c) { return c > 0; });
    if (!all_present) continue;  // a group of some ranks only: each keeps its recorded time
    if (std::any_of(counts.begin(), counts.end(), [n](auto c) { return c != n; }))
      throw InputError("collective '" + key + "' appears " + std::to_string(counts[0]) +
                       " times in " + traces[0].path + " but " +
                       std::to_string(*std::find_if(counts.begin(), counts.end(),
                                                    [n](auto c) { return c != n; })) +
                       " times in another trace of the job: the traces are not of one run");
    for (std::size_t k = 0; k < n; ++k) {
      double shortest_s = g.graph.op(per_rank[0][k]).seconds;
      for (const auto& ops : per_rank) shortest_s = std::min(shortest_s, g.graph.op(ops[k]).seconds);
      for (const auto& ops : per_rank) {
        g.graph.mutable_op(ops[k]).seconds = shortest_s;
        for (const auto& others : per_rank)
          if (&others != &ops)
            for (OpId before : predecessors[others[k]]) g.graph.add_dependency(before, ops[k]);
      }
      ++g.counts.collectives;
    }
  }
}

}  // namespace

OpId ReplayGraph::add(const Op& op, std::string_view name, std::uint32_t rank,
                      std::uint32_t lane, TraceNs start_ns, TraceNs end_ns) {
  rank_of_op.push_back(rank);
  lane_of_op.push_back(lane);
  recorded_start_ns.push_back(start_ns);
  recorded_end_ns.push_back(end_ns);
  return graph.add(op, name);
}

std::uint32_t ReplayGraph::add_lane(TraceLane lane) {
  lanes.push_back(std::move(lane));
  return static_cast<std::uint32_t>(lanes.size() - 1);
}

ReplayGraph build_replay_graph(const std::vector<KinetoTrace>& traces, Machine machine,
                               const ReplayOptions& options) {
  if (traces.empty()) throw InputError("replay needs at least one trace");
  check_machine(traces, machine);
  ReplayGraph g;
  g.machine = std::move(machine);
  std::vector<RankGpuOps> ranks;
  std::size_t next_gpu = 0;
  for (std::uint32_t r = 0; r < traces.size(); ++r) {
    ranks.push_back(add_gpu_ops(g, traces[r], r, next_gpu, options));
    next_gpu += ranks.back().gpus.size();
  }
  std::uint32_t next_thread = 0;
  for (std::uint32_t r = 0; r < traces.size(); ++r)
    next_thread += add_host_threads(g, traces[r], r, ranks[r], next_thread, options);
  g.host_threads = std::max<std::uint32_t>(1, next_thread);
  join_collectives(g, traces, ranks);
  if (g.graph.size() == 0)
    throw InputError(traces.front().path +
                     ": nothing to replay: no GPU events, and no host thread with CUDA runtime "
                     "calls or ProfilerStep markers");
  g.graph.validate(g.machine, "replay");
  return g;
}

}  // namespace opsim::replay
