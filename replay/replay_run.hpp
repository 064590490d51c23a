// Simulates a replay graph and reads the result the way the recording is read: each
// profiler step's length on its thread, recorded against replayed, and where a step's time
// goes on its rank's GPU.
//
//   ReplayGraph g = build_replay_graph(traces, machine);
//   ReplayResult r = run_replay(g, traces);
//   for (const StepResult& s : r.steps) std::printf("%s %+.1f %%\n", s.name.c_str(), 100 *
//   s.error);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/scheduler_observer.hpp"
#include "replay/replay_graph.hpp"
#include "sim/simulate.hpp"

namespace opsim::replay {

/// A step's time on its rank's GPUs, split so the parts add up to the step: kernels, then
/// collectives not hidden under kernels, then copies and memsets hidden under neither, then
/// the time no GPU op ran (the GPU waited for the host).
struct StepBreakdown {
  double compute_s = 0;
  double communication_exposed_s = 0;
  double copy_exposed_s = 0;
  double host_bound_idle_s = 0;
  double communication_s = 0;  ///< all collective time, hidden or not (not part of the sum)

  StepBreakdown& operator+=(const StepBreakdown& other);
};

struct StepResult {
  std::uint32_t rank = 0;
  std::string name;
  double recorded_s = 0;
  double replayed_s = 0;
  double error = 0;  ///< (replayed - recorded) / recorded
  StepBreakdown recorded_breakdown;
  StepBreakdown replayed_breakdown;
};

struct ReplayResult {
  std::vector<StepResult> steps;
  double median_abs_error = 0;
  double worst_abs_error = 0;
  StepBreakdown breakdown;  ///< the replayed steps' breakdowns added up
  double makespan_s = 0;
  SimulationResult simulation;
};

/// Which steps to report: all, or numbers first..last (ProfilerStep#N).
struct StepSelection {
  std::int64_t first = INT64_MIN;
  std::int64_t last = INT64_MAX;
};

/// Simulates `g` in this process (once per process: SimGrid) with `observers`, and reads
/// the steps. A trace without step markers is one step: the whole trace.
ReplayResult run_replay(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                        const StepSelection& selection = {},
                        std::span<SchedulerObserver* const> observers = {});

/// The same, simulated in a forked child (sim/isolated_run.hpp): any number per process.
ReplayResult run_replay_isolated(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                                 const StepSelection& selection = {});

/// The steps of a finished simulation (run_replay without simulating).
ReplayResult read_replay(const ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                         SimulationResult simulation, const StepSelection& selection = {});

}  // namespace opsim::replay
