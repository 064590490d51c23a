#include "experiments/cli/sweep_point_run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/input_error.hpp"
#include "common/sweep_columns.hpp"
#include "engine/csv_trace_writer.hpp"
#include "engine/link_traffic.hpp"
#include "engine/workload_file.hpp"
#include "experiments/cli/strategy_run.hpp"
#include "experiments/collectives/collective.hpp"
#include "replay/gpu_timeline.hpp"
#include "replay/replay_run.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// What a point measured; NaN (or empty) where it does not apply.
struct PointMetrics {
  double makespan_s = kNoValue;
  double lower_bound_s = kNoValue;
  double algbw_bytes_per_s = kNoValue;
  double bus_factor = kNoValue;
  double bytes_moved = kNoValue;
  std::string busiest_link;
  double busiest_link_utilization = kNoValue;
  double ops = kNoValue;
  double gpus_used = kNoValue;
};

std::string cell(double value) {
  if (!std::isfinite(value)) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string cells_of(const PointMetrics& m, double wall_s) {
  const double algbw_GBps = m.algbw_bytes_per_s / 1e9;
  return cell(m.makespan_s) + "," + cell(m.lower_bound_s) + "," + cell(algbw_GBps) + "," +
         cell(algbw_GBps * m.bus_factor) + "," + cell(m.bytes_moved) + "," +
         csv_field(m.busiest_link) + "," + cell(m.busiest_link_utilization) + "," + cell(m.ops) +
         "," + cell(m.gpus_used) + "," + cell(wall_s) + ",";
}

WhatIf what_if_of(const SweepSpec& spec, const SweepPoint& point) {
  WhatIf what_if;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const std::string& column = spec.axes[i].column;
    if (column == "link_bandwidth_scale") what_if.link_bandwidth_scale = std::stod(point.values[i]);
    if (column.find('.') != std::string::npos)
      what_if.assignments.push_back(column + "=" + point.values[i]);
  }
  return what_if;
}

void add_traffic(PointMetrics& m, const Machine& machine, const OpGraph& graph) {
  const LinkTraffic traffic = compute_link_traffic(machine, graph);
  m.bytes_moved = traffic.bytes_moved;
  const BusiestLink busiest = busiest_link(machine, traffic, m.makespan_s);
  m.busiest_link = busiest.name;
  m.busiest_link_utilization = busiest.utilization;
  m.ops = static_cast<double>(graph.size());
}

PointMetrics run_strategy_point(const SweepSpec& spec, const SweepPoint& point) {
  StrategyRunRequest request;
  request.topology = point_value(spec, point, "topology");
  request.strategy = point_value(spec, point, "strategy");
  request.bytes = std::stod(point_value(spec, point, "bytes"));
  request.gpus = std::stoi(point_value(spec, point, "gpus", "0"));
  request.comm_only = point_value(spec, point, "comm_only", "false") == "true";
  request.what_if = what_if_of(spec, point);
  check_strategy_requests({request});
  const StrategyRunResult r = run_strategy(request);
  PointMetrics m;
  m.makespan_s = r.makespan_s;
  m.lower_bound_s = r.lower_bound_s;
  m.algbw_bytes_per_s = algbw_bytes_per_s(request.bytes, r.makespan_s);
  m.bus_factor =
      bus_factor("allreduce", static_cast<std::size_t>(r.gpus));  // every strategy is one
  m.bytes_moved = r.bytes_moved;
  m.busiest_link = r.busiest_link;
  m.busiest_link_utilization = r.busiest_link_utilization;
  m.ops = static_cast<double>(r.ops);
  m.gpus_used = r.gpus;
  return m;
}

// The first `count` GPUs (0: all) of the first `per_server` of every server (0: all of them).
std::vector<DeviceId> first_gpus(const Machine& machine, int count, int per_server = 0) {
  std::vector<DeviceId> gpus =
      per_server > 0 ? first_gpus_per_server(machine, per_server) : machine.gpus();
  if (count <= 0) return gpus;
  if (static_cast<std::size_t>(count) > gpus.size())
    throw InputError("gpus " + std::to_string(count) + ": topology '" + machine.name() +
                     "' has only " + std::to_string(gpus.size()) + " GPUs" +
                     (per_server > 0 ? " at " + std::to_string(per_server) + " per server" : ""));
  gpus.resize(static_cast<std::size_t>(count));
  return gpus;
}

PointMetrics run_collective_point(const SweepSpec& spec, const SweepPoint& point) {
  const Machine machine = apply_what_if(resolve_topology(point_value(spec, point, "topology")),
                                        what_if_of(spec, point));
  const std::string op = point_value(spec, point, "op");
  CollectiveOptions options;
  options.gpus = first_gpus(machine, std::stoi(point_value(spec, point, "gpus", "0")),
                            std::stoi(point_value(spec, point, "gpus_per_server", "0")));
  // As `opsim collective`: the size nccl-tests runs for these bytes.
  options.bytes =
      nccl_tests_size(op, std::stod(point_value(spec, point, "bytes")), options.gpus.size()).bytes;
  if (options.bytes == 0)
    throw InputError("bytes " + point_value(spec, point, "bytes") + ": " +
                     nccl_tests_least_size(op, options.gpus.size()).why);
  options.algorithm = point_value(spec, point, "algorithm");
  options.protocol = point_value(spec, point, "protocol", "auto");
  const CollectivePlan plan = make_collective(op, machine, options);
  SimulateOptions sim_options;
  sim_options.record_op_times = false;
  PointMetrics m;
  m.makespan_s = simulate(machine, plan.graph, sim_options).makespan_s;
  m.algbw_bytes_per_s = algbw_bytes_per_s(options.bytes, m.makespan_s);
  m.bus_factor = bus_factor(op, options.gpus.size());
  m.gpus_used = static_cast<double>(options.gpus.size());
  add_traffic(m, machine, plan.graph);
  return m;
}

PointMetrics run_workload_point(const SweepSpec& spec, const SweepPoint& point) {
  const std::string path = point_value(spec, point, "workload");
  const WorkloadFile workload = load_workload_file(path);
  std::string topology = point_value(spec, point, "topology");
  if (topology.empty()) {
    if (!workload.topology)
      throw InputError(path + ": no \"topology\" in the file; give the sweep a topologies axis");
    topology = *workload.topology;
  }
  const Machine machine = apply_what_if(resolve_topology(topology), what_if_of(spec, point));
  const OpGraph graph = build_workload_graph(workload, machine);
  SimulateOptions sim_options;
  sim_options.record_op_times = false;
  PointMetrics m;
  m.makespan_s = simulate(machine, graph, sim_options).makespan_s;
  m.gpus_used = static_cast<double>(machine.gpus().size());
  add_traffic(m, machine, graph);
  return m;
}

PointMetrics run_replay_point(const SweepSpec& spec, const SweepPoint& point) {
  std::vector<replay::KinetoTrace> traces;
  std::stringstream paths(point_value(spec, point, "trace"));
  std::size_t gpus = 0;
  for (std::string path; std::getline(paths, path, ';');) {
    traces.push_back(replay::read_kineto_trace(path));
    gpus += replay::distinct_gpu_devices(traces.back()).size();
  }
  // As `opsim replay`: without a topology, a PCIe switch with the GPUs the traces use.
  std::string topology = point_value(spec, point, "topology");
  if (topology.empty()) topology = "pcie-switch:" + std::to_string(std::max<std::size_t>(1, gpus));
  replay::ReplayOptions options;
  if (point_value(spec, point, "kernels") == "modelled")
    options.kernels = replay::KernelTiming::kModelled;
  if (point_value(spec, point, "replay_collectives") == "modelled")
    options.collectives = replay::CollectiveTiming::kModelled;
  const replay::ReplayGraph g = build_replay_graph(
      traces, apply_what_if(resolve_topology(topology), what_if_of(spec, point)), options);
  PointMetrics m;
  m.makespan_s = replay::run_replay(g, traces).makespan_s;
  m.ops = static_cast<double>(g.graph.size());
  m.gpus_used = static_cast<double>(g.machine.gpus().size());
  return m;
}

}  // namespace

const std::vector<std::string>& sweep_metric_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names(kSweepResultColumns.begin(), kSweepResultColumns.end());
    names.emplace_back("error");
    return names;
  }();
  return columns;
}

std::string run_sweep_point(const SweepSpec& spec, const SweepPoint& point) {
  const auto start = std::chrono::steady_clock::now();
  PointMetrics metrics;
  switch (spec.kind) {
    case SweepKind::kStrategy:
      metrics = run_strategy_point(spec, point);
      break;
    case SweepKind::kCollective:
      metrics = run_collective_point(spec, point);
      break;
    case SweepKind::kWorkload:
      metrics = run_workload_point(spec, point);
      break;
    case SweepKind::kReplay:
      metrics = run_replay_point(spec, point);
      break;
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return cells_of(metrics, wall_s);
}

std::string failed_point_cells(const std::string& error) {
  std::string line = error;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  return std::string(sweep_metric_columns().size() - 1, ',') + csv_field(line);
}

}  // namespace opsim
