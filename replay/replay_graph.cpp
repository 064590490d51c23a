#include "replay/replay_graph.hpp"

#include <algorithm>
#include <map>

#include "common/input_error.hpp"
#include "replay/collective_model.hpp"
#include "replay/gpu_timeline.hpp"
#include "replay/host_timeline.hpp"

namespace opsim::replay {
namespace {

std::vector<std::uint32_t> traces_of_ranks(std::size_t traces, std::uint32_t ranks) {
  if (ranks == 0) ranks = static_cast<std::uint32_t>(traces);
  if (ranks < traces)
    throw InputError("--ranks " + std::to_string(ranks) + " is fewer than the " +
                     std::to_string(traces) + " traces given");
  std::vector<std::uint32_t> trace_of_rank(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) trace_of_rank[r] = r % traces;
  return trace_of_rank;
}

void check_machine(const std::vector<KinetoTrace>& traces,
                   const std::vector<std::uint32_t>& trace_of_rank, const Machine& machine) {
  std::size_t gpus_needed = 0;
  std::string per_trace;  // "a.json.gz 1 GPU, b.json.gz 1 GPU"
  for (const KinetoTrace& trace : traces) {
    const std::size_t gpus = distinct_gpu_devices(trace).size();
    per_trace += (per_trace.empty() ? "" : ", ") + trace.path + " " + std::to_string(gpus) +
                 (gpus == 1 ? " GPU" : " GPUs");
  }
  for (std::uint32_t t : trace_of_rank) gpus_needed += distinct_gpu_devices(traces[t]).size();
  const std::size_t gpus_there = machine.gpus().size();
  if (gpus_there < gpus_needed)
    throw InputError("machine '" + machine.name() + "' has " + std::to_string(gpus_there) +
                     (gpus_there == 1 ? " GPU" : " GPUs") + "; the " +
                     (trace_of_rank.size() > traces.size()
                          ? std::to_string(trace_of_rank.size()) + " ranks need "
                          : std::string(traces.size() > 1 ? "traces need " : "trace needs ")) +
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

// Every rank's k-th collective of a group is one collective.
std::vector<CollectiveInstance> match_collectives(const ReplayGraph& g,
                                                  const std::vector<KinetoTrace>& traces,
                                                  const std::vector<RankGpuOps>& ranks) {
  const std::size_t n = ranks.size();
  std::map<std::string, std::vector<std::vector<std::uint32_t>>> by_key;  // rank -> events
  for (std::uint32_t r = 0; r < n; ++r) {
    const KinetoTrace& trace = traces[g.trace_of_rank[r]];
    for (std::uint32_t e = 0; e < trace.gpu_events.size(); ++e) {
      const auto& collective = trace.gpu_events[e].collective;
      if (!collective) continue;
      auto& per_rank = by_key[collective_key(*collective)];
      per_rank.resize(n);
      per_rank[r].push_back(e);
    }
  }
  std::vector<CollectiveInstance> instances;
  for (const auto& [key, per_rank] : by_key) {
    std::vector<std::uint32_t> members;
    for (std::uint32_t r = 0; r < n; ++r)
      if (!per_rank[r].empty()) members.push_back(r);
    const std::size_t count = per_rank[members.front()].size();
    for (std::uint32_t r : members)
      if (per_rank[r].size() != count)
        throw InputError("collective '" + key + "' appears " + std::to_string(count) +
                         " times on rank " + std::to_string(members.front()) + " but " +
                         std::to_string(per_rank[r].size()) + " times on rank " +
                         std::to_string(r) + ": the traces are not of one run");
    for (std::size_t k = 0; k < count; ++k) {
      CollectiveInstance c;
      for (std::uint32_t r : members) {
        const std::uint32_t e = per_rank[r][k];
        c.members.push_back({r, e, ranks[r].op_of_event[e]});
      }
      instances.push_back(std::move(c));
    }
  }
  return instances;
}

}  // namespace

OpId ReplayGraph::add(const Op& op, std::string_view name, std::uint32_t rank, std::uint32_t lane,
                      TraceNs start_ns, TraceNs end_ns) {
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
  ReplayGraph g;
  g.trace_of_rank = traces_of_ranks(traces.size(), options.ranks);
  check_machine(traces, g.trace_of_rank, machine);
  g.machine = std::move(machine);
  // GPU ops of every rank first (host calls need them as wait targets), then each rank's
  // host threads, then the collectives across ranks.
  std::vector<RankGpuOps> ranks;
  std::size_t next_gpu = 0;
  for (std::uint32_t r = 0; r < g.trace_of_rank.size(); ++r) {
    ranks.push_back(add_gpu_ops(g, traces[g.trace_of_rank[r]], r, next_gpu, options));
    next_gpu += ranks.back().gpus.size();
  }
  std::uint32_t next_thread = 0;
  for (std::uint32_t r = 0; r < g.trace_of_rank.size(); ++r)
    next_thread +=
        add_host_threads(g, traces[g.trace_of_rank[r]], r, ranks[r], next_thread, options);
  g.host_threads = std::max<std::uint32_t>(1, next_thread);
  connect_collectives(g, traces, match_collectives(g, traces, ranks), options);
  if (g.graph.size() == 0)
    throw InputError(traces.front().path +
                     ": nothing to replay: no GPU events, and no host thread with CUDA runtime "
                     "calls or ProfilerStep markers");
  g.graph.validate(g.machine, "replay");
  return g;
}

}  // namespace opsim::replay
