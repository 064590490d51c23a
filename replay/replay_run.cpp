#include "replay/replay_run.hpp"

#include <algorithm>
#include <cmath>

#include "common/input_error.hpp"

namespace opsim::replay {
namespace {

enum class GpuWork : std::uint8_t { kCompute, kCommunication, kCopy };
constexpr int kWorkKinds = 3;

struct Interval {
  TimeNs start_ns;
  TimeNs end_ns;
  GpuWork work;
};

// A stretch of a rank's GPU timeline with the most important work running in it
// (compute before communication before copies), or what else ran beside it.
struct Stretch {
  TimeNs start_ns;
  TimeNs end_ns;
  int running[kWorkKinds];
};

GpuWork work_of(const GpuEvent& event) {
  if (event.kind != GpuEventKind::kKernel) return GpuWork::kCopy;
  return event.collective ? GpuWork::kCommunication : GpuWork::kCompute;
}

// Sweeps the intervals into stretches over which the set of running work kinds is constant.
std::vector<Stretch> sweep(std::vector<Interval> intervals) {
  struct Edge {
    TimeNs at_ns;
    int delta;
    GpuWork work;
  };
  std::vector<Edge> edges;
  edges.reserve(intervals.size() * 2);
  for (const Interval& i : intervals) {
    if (i.end_ns <= i.start_ns) continue;
    edges.push_back({i.start_ns, +1, i.work});
    edges.push_back({i.end_ns, -1, i.work});
  }
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return a.at_ns < b.at_ns; });
  std::vector<Stretch> stretches;
  int running[kWorkKinds] = {0, 0, 0};
  for (std::size_t i = 0; i < edges.size(); ++i) {
    running[static_cast<int>(edges[i].work)] += edges[i].delta;
    if (i + 1 < edges.size() && edges[i + 1].at_ns > edges[i].at_ns &&
        (running[0] > 0 || running[1] > 0 || running[2] > 0))
      stretches.push_back(
          {edges[i].at_ns, edges[i + 1].at_ns, {running[0], running[1], running[2]}});
  }
  return stretches;
}

StepBreakdown breakdown(const std::vector<Stretch>& stretches, TimeNs from_ns, TimeNs to_ns) {
  StepBreakdown b;
  double busy_s = 0;
  auto it = std::partition_point(stretches.begin(), stretches.end(),
                                 [&](const Stretch& s) { return s.end_ns <= from_ns; });
  for (; it != stretches.end() && it->start_ns < to_ns; ++it) {
    const double s = ns_to_seconds(std::min(it->end_ns, to_ns) - std::max(it->start_ns, from_ns));
    busy_s += s;
    if (it->running[1] > 0) b.communication_s += s;
    if (it->running[0] > 0)
      b.compute_s += s;
    else if (it->running[1] > 0)
      b.communication_exposed_s += s;
    else
      b.copy_exposed_s += s;
  }
  b.host_bound_idle_s = std::max(0.0, ns_to_seconds(to_ns - from_ns) - busy_s);
  return b;
}

struct RankTimelines {
  std::vector<Stretch> recorded;
  std::vector<Stretch> replayed;
  TimeNs recorded_end_ns = 0;
  TimeNs replayed_end_ns = 0;
};

std::vector<RankTimelines> rank_timelines(const ReplayGraph& g,
                                          const std::vector<KinetoTrace>& traces,
                                          const SimulationResult& sim) {
  const std::size_t ranks = g.trace_of_rank.size();
  std::vector<std::vector<Interval>> recorded(ranks), replayed(ranks);
  for (const GpuOpInfo& info : g.gpu_ops) {
    const GpuEvent& event = traces[g.trace_of_rank[info.rank]].gpu_events[info.event];
    const GpuWork work = work_of(event);
    recorded[info.rank].push_back({event.start_ns, event.start_ns + event.duration_ns, work});
    replayed[info.rank].push_back(
        {sim.start_ns[info.op] + info.lead_ns, sim.end_ns[info.op], work});
  }
  // Modelled collectives: their ring's transfers (the graph's only copies) are the
  // communication time of the rank whose GPU sends.
  for (OpId op = 0; op < g.graph.size(); ++op)
    if (g.graph.op(op).kind == OpKind::kCopy)
      replayed[g.rank_of_op[op]].push_back(
          {sim.start_ns[op], sim.end_ns[op], GpuWork::kCommunication});
  std::vector<RankTimelines> out(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    out[r].recorded = sweep(std::move(recorded[r]));
    out[r].replayed = sweep(std::move(replayed[r]));
  }
  for (OpId op = 0; op < g.graph.size(); ++op) {
    RankTimelines& t = out[g.rank_of_op[op]];
    t.recorded_end_ns = std::max(t.recorded_end_ns, g.recorded_end_ns[op]);
    t.replayed_end_ns = std::max(t.replayed_end_ns, sim.end_ns[op]);
  }
  return out;
}

TimeNs replayed_at(const TimelineMark& mark, const SimulationResult& sim) {
  return mark.at_op_end ? sim.end_ns[mark.op] : sim.start_ns[mark.op];
}

StepResult step_result(std::uint32_t rank, std::string name, TimeNs recorded_from_ns,
                       TimeNs recorded_to_ns, TimeNs replayed_from_ns, TimeNs replayed_to_ns,
                       const RankTimelines& t) {
  StepResult s;
  s.rank = rank;
  s.name = std::move(name);
  s.recorded_s = ns_to_seconds(recorded_to_ns - recorded_from_ns);
  s.replayed_s = ns_to_seconds(replayed_to_ns - replayed_from_ns);
  s.error = s.recorded_s > 0 ? (s.replayed_s - s.recorded_s) / s.recorded_s : 0;
  s.recorded_breakdown = breakdown(t.recorded, recorded_from_ns, recorded_to_ns);
  s.replayed_breakdown = breakdown(t.replayed, replayed_from_ns, replayed_to_ns);
  return s;
}

bool selected(const std::string& name, const StepSelection& selection) {
  const std::int64_t number = std::stoll(name.substr(name.find('#') + 1));
  return number >= selection.first && number <= selection.last;
}

void summarize_errors(ReplayResult& result) {
  std::vector<double> errors;
  for (const StepResult& s : result.steps) {
    errors.push_back(std::abs(s.error));
    result.breakdown += s.replayed_breakdown;
  }
  if (errors.empty()) return;
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  result.median_abs_error = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  result.worst_abs_error = errors.back();
}

}  // namespace

StepBreakdown& StepBreakdown::operator+=(const StepBreakdown& other) {
  compute_s += other.compute_s;
  communication_exposed_s += other.communication_exposed_s;
  copy_exposed_s += other.copy_exposed_s;
  host_bound_idle_s += other.host_bound_idle_s;
  communication_s += other.communication_s;
  return *this;
}

ReplayResult read_replay(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                         SimulationResult simulation, const StepSelection& selection) {
  ReplayResult result;
  const auto timelines = rank_timelines(g, traces, simulation);
  for (std::uint32_t r = 0; r < g.trace_of_rank.size(); ++r) {
    const bool has_steps = std::any_of(g.steps.begin(), g.steps.end(),
                                       [r](const ReplayStep& s) { return s.rank == r; });
    if (!has_steps) {
      result.steps.push_back(step_result(r, "whole trace", 0, timelines[r].recorded_end_ns, 0,
                                         timelines[r].replayed_end_ns, timelines[r]));
      continue;
    }
    for (const ReplayStep& step : g.steps)
      if (step.rank == r && selected(step.name, selection))
        result.steps.push_back(step_result(
            r, step.name, step.recorded_start_ns, step.recorded_end_ns,
            replayed_at(step.start, simulation), replayed_at(step.end, simulation), timelines[r]));
  }
  if (result.steps.empty())
    throw InputError("--steps: no profiler step of the trace is in the range given");
  summarize_errors(result);
  result.makespan_s = simulation.makespan_s;
  result.simulation = std::move(simulation);
  return result;
}

namespace {
SimulateOptions replay_simulate_options(const ReplayGraph& g) {
  SimulateOptions options;
  options.scheduler.host_threads = g.host_threads;
  return options;
}
}  // namespace

ReplayResult run_replay_isolated(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                                 const StepSelection& selection) {
  return read_replay(g, traces, simulate_isolated(g.machine, g.graph, replay_simulate_options(g)),
                     selection);
}

ReplayResult run_replay(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                        const StepSelection& selection,
                        std::span<SchedulerObserver* const> observers) {
  return read_replay(g, traces, simulate(g.machine, g.graph, replay_simulate_options(g), observers),
                     selection);
}

}  // namespace opsim::replay
