#include "experiments/cli/collective_simulation.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/chrome_trace_writer.hpp"
#include "engine/trace_recorder.hpp"
#include "sim/simulate.hpp"

namespace opsim {

double simulate_collective_s(const Machine& machine, std::string_view op,
                             const CollectiveOptions& options, const std::string& trace_path) {
  const CollectivePlan plan = make_collective(op, machine, options);
  SimulateOptions sim_options;
  sim_options.record_op_times = false;
  std::unique_ptr<TraceRecorder> recorder;
  std::vector<SchedulerObserver*> observers;
  if (!trace_path.empty()) {
    recorder = std::make_unique<TraceRecorder>(
        machine, plan.graph, std::string(op) + " (" + options.algorithm + ") on " + machine.name(),
        "sim");
    observers.push_back(recorder.get());
  }
  const SimulationResult result = simulate(machine, plan.graph, sim_options, observers);
  if (recorder) write_chrome_trace(recorder->finish(), std::filesystem::path(trace_path));
  return result.makespan_s;
}

std::string makespan_text(double seconds) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", seconds);
  return text;
}

}  // namespace opsim
