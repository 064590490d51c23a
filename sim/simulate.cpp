#include "sim/simulate.hpp"

#include <nlohmann/json.hpp>

#include "sim/isolated_run.hpp"

namespace opsim {

SimulationResult simulate(const Machine& machine, const OpGraph& graph,
                          const SimulateOptions& options,
                          std::span<SchedulerObserver* const> observers) {
  SimBackend backend(options.backend);
  SchedulerOptions scheduler_options = options.scheduler;
  // Times per op only when the result returns them (16 bytes per op otherwise saved).
  scheduler_options.keep_op_times = scheduler_options.keep_op_times && options.record_op_times;
  Scheduler scheduler(machine, graph, backend, scheduler_options);
  for (SchedulerObserver* observer : observers) scheduler.add_observer(*observer);
  scheduler.submit_all();
  scheduler.run();
  SimulationResult result;
  result.makespan_ns = scheduler.makespan_ns();
  result.makespan_s = ns_to_seconds(result.makespan_ns);
  if (!options.record_op_times) return result;
  result.start_ns.resize(graph.size());
  result.end_ns.resize(graph.size());
  for (OpId id = 0; id < graph.size(); ++id) {
    result.start_ns[id] = scheduler.start_ns(id);
    result.end_ns[id] = scheduler.end_ns(id);
  }
  return result;
}

SimulationResult simulate_isolated(const Machine& machine, const OpGraph& graph,
                                   const SimulateOptions& options) {
  return simulation_result_from_json(
      run_isolated([&] { return to_json(simulate(machine, graph, options)); }));
}

std::string to_json(const SimulationResult& result) {
  nlohmann::json j;
  j["makespan_ns"] = result.makespan_ns;
  j["start_ns"] = result.start_ns;
  j["end_ns"] = result.end_ns;
  return j.dump();
}

SimulationResult simulation_result_from_json(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  SimulationResult result;
  result.makespan_ns = j.at("makespan_ns").get<TimeNs>();
  result.makespan_s = ns_to_seconds(result.makespan_ns);
  result.start_ns = j.at("start_ns").get<std::vector<TimeNs>>();
  result.end_ns = j.at("end_ns").get<std::vector<TimeNs>>();
  return result;
}

}  // namespace opsim
