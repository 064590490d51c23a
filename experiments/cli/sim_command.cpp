#include "experiments/cli/sim_command.hpp"

#include <iostream>
#include <map>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/csv_trace_writer.hpp"
#include "engine/link_traffic.hpp"
#include "engine/peak_memory_observer.hpp"
#include "engine/trace_recorder.hpp"
#include "engine/workload_file.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/text_table.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {

int run_sim_command(const SimCommandOptions& options) {
  const WorkloadFile workload = load_workload_file(options.workload_path);
  std::string topology = options.topology;
  if (topology.empty()) {
    if (!workload.topology)
      throw InputError(options.workload_path +
                       ": no \"topology\" in the file; pass --topology NAME|FILE");
    topology = *workload.topology;
  }
  const Machine machine = apply_what_if(resolve_topology(topology), options.what_if);
  const OpGraph graph = build_workload_graph(workload, machine);
  if (!options.dot_path.empty()) write_file_atomically(options.dot_path, graph.to_dot(machine));

  const StreamTable streams(machine);
  TraceRecorder recorder(machine, graph, streams, workload.name + " on " + machine.name(), "sim");
  PeakMemoryObserver peak_memory;
  std::vector<SchedulerObserver*> observers = {&recorder, &peak_memory};
  SimulateOptions sim_options;
  sim_options.scheduler.max_in_flight = options.max_in_flight;
  const SimulationResult result = simulate(machine, graph, sim_options, observers);
  const Trace trace = recorder.finish();
  if (!options.trace_path.empty()) write_chrome_trace(trace, options.trace_path);
  if (!options.csv_path.empty()) write_csv_trace(trace, options.csv_path);

  // Busy time per op class: where the time goes.
  std::map<std::string, std::pair<std::size_t, double>> by_class;
  for (const TraceOp& op : trace.ops) {
    auto& entry = by_class[op.op_class];
    ++entry.first;
    entry.second += ns_to_seconds(op.end_ns - op.start_ns);
  }
  const LinkTraffic traffic = compute_link_traffic(machine, graph);
  const BusiestLink busiest = busiest_link(machine, traffic, result.makespan_s);
  if (options.format == "json") {
    nlohmann::json out = {{"workload", workload.name},
                          {"topology", machine.name()},
                          {"makespan_s", result.makespan_s},
                          {"ops", graph.size()},
                          {"bytes_moved", traffic.bytes_moved},
                          {"busiest_link", busiest.name},
                          {"busiest_link_utilization", busiest.utilization},
                          {"peak_memory_bytes", peak_memory.peak_bytes()}};
    out["by_op_class"] = nlohmann::json::array();
    for (const auto& [name, entry] : by_class)
      out["by_op_class"].push_back(
          {{"class", name}, {"ops", entry.first}, {"busy_s", entry.second}});
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << workload.name << " on " << machine.name() << ": " << graph.size()
              << " ops, makespan " << format_seconds(result.makespan_s) << "\n";
    if (!busiest.name.empty())
      std::cout << "busiest link: " << busiest.name << " (" << format_bytes(busiest.bytes) << ", "
                << static_cast<int>(busiest.utilization * 100 + 0.5) << "% utilized)\n";
    std::cout << "\n";
    TextTable table({"op class", "ops", "busy time"}, {false, true, true});
    for (const auto& [name, entry] : by_class)
      table.add_row({name, std::to_string(entry.first), format_seconds(entry.second)});
    std::cout << table.render();
    if (!options.trace_path.empty()) std::cout << "\nTrace: " << options.trace_path << "\n";
  }
  return 0;
}

Command register_sim_command(CLI::App& opsim) {
  auto options = std::make_shared<SimCommandOptions>();
  CLI::App* sim = opsim.add_subcommand("sim", "Simulate a workload file (JSON op graph)");
  sim->add_option("workload", options->workload_path, "Workload file")
      ->required()
      ->check(CLI::ExistingFile);
  sim->add_option("--topology", options->topology,
                  "Preset, family or YAML file (default: the workload's)");
  sim->add_option("--trace", options->trace_path, "Write a Chrome trace (Perfetto, opsim-gui)")
      ->check(writable_file("the trace"));
  sim->add_option("--csv", options->csv_path, "Write one CSV row per op")
      ->check(writable_file("the CSV"));
  sim->add_option("--dot", options->dot_path, "Write the op graph as GraphViz DOT")
      ->check(writable_file("the graph"));
  sim->add_option("--max-in-flight", options->max_in_flight, "Bound on ops in flight (0: none)");
  add_format_option(*sim, options->format, {"table", "json"});
  add_what_if_options(*sim, options->what_if);
  return {sim, [options] { return run_sim_command(*options); }};
}

}  // namespace opsim
