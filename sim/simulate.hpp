// One call that simulates a graph on a machine: creates the SimGrid backend and the
// scheduler, runs, and returns the makespan and every op's times. A process holds one
// SimGrid Engine, so call it once per process, or use simulate_isolated().
//
//   SimulationResult r = simulate(machine, graph, {}, {});
//   std::printf("%.3f ms\n", r.makespan_s * 1e3);
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/op_graph.hpp"
#include "engine/scheduler.hpp"
#include "engine/scheduler_observer.hpp"
#include "hw_models/machine.hpp"
#include "sim/sim_backend.hpp"

namespace opsim {

struct SimulateOptions {
  SchedulerOptions scheduler;
  SimBackendOptions backend;
  /// Fill SimulationResult::start_ns / end_ns (16 bytes per op); false: makespan only.
  bool record_op_times = true;
};

struct SimulationResult {
  double makespan_s = 0;
  TimeNs makespan_ns = 0;
  std::vector<TimeNs> start_ns;  ///< per op id (empty unless record_op_times)
  std::vector<TimeNs> end_ns;    ///< per op id (empty unless record_op_times)
};

/// Simulates `graph` on `machine` in this process (which must not have run a simulation
/// before). Observers see every scheduler event. Throws what the scheduler, the backend
/// or graph validation throw.
SimulationResult simulate(const Machine& machine, const OpGraph& graph,
                          const SimulateOptions& options = {},
                          std::span<SchedulerObserver* const> observers = {});

/// The same, in a forked child process (sim/isolated_run.hpp), so that it may be called any
/// number of times in one process — as long as that process has not itself run simulate()
/// (the child would inherit its Engine). Errors come back as run_isolated() throws them: InputError
/// for bad input, ChildProcessFailure otherwise. Observers do not cross the process boundary.
SimulationResult simulate_isolated(const Machine& machine, const OpGraph& graph,
                                   const SimulateOptions& options = {});

/// JSON text of a result ({"makespan_ns":..,"start_ns":[..],"end_ns":[..]}) and back.
std::string to_json(const SimulationResult& result);
SimulationResult simulation_result_from_json(const std::string& text);

}  // namespace opsim
