#include "experiments/cli/strategy_run.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "common/input_error.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/csv_trace_writer.hpp"
#include "engine/link_traffic.hpp"
#include "engine/peak_memory_observer.hpp"
#include "engine/trace_recorder.hpp"
#include "experiments/sync/sync_strategy.hpp"
#include "sim/simulate.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {

namespace {
/// A strategy's chunks of a smaller gradient are fractions of a byte, moved in under 1 ns.
constexpr double kSmallestGradientBytes = 1024;
/// What one op costs at the least while it is built and simulated (the op, its name, edge,
/// scheduler state and simulated times): the up-front estimate errs low, the child's
/// out-of-memory report catches the rest.
constexpr double kLeastBytesPerOp = 64;

// How many ops the strategy's graph has at the least: ring, split and multi-ring move
// n(n-1) chunks each way (and reduce one per pair); the others a few ops per GPU.
double least_ops(std::string_view strategy, double gpus, bool reductions) {
  const double per_pair = reductions ? 3 : 2;
  if (strategy == "ring" || strategy == "split" || strategy == "multi-ring")
    return per_pair * gpus * (gpus - 1);
  return per_pair * gpus;
}

// Refuses a run whose graph alone would not fit in this machine's memory, before any work.
void check_fits_in_memory(const StrategyRunRequest& request, const Machine& machine) {
  const double gpus = static_cast<double>(request.gpus > 0 ? static_cast<std::size_t>(request.gpus)
                                                           : machine.gpus().size());
  const double ops = least_ops(request.strategy, gpus, !request.comm_only);
  const double needed_bytes = ops * kLeastBytesPerOp;
  const double physical_bytes =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (physical_bytes > 0 && needed_bytes > physical_bytes)
    throw InputError(request.strategy + " on " + machine.name() + ": about " +
                     std::to_string(static_cast<long long>(ops / 1e6)) +
                     " million ops need at least " + format_bytes(needed_bytes) +
                     " of memory, more than the " + format_bytes(physical_bytes) +
                     " this machine has; simulate fewer GPUs");
}
}  // namespace

namespace {
nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}
double number_or_nan(const nlohmann::json& value) {
  return value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
}
}  // namespace

nlohmann::json to_json(const StrategyRunResult& r) {
  return {
      {"strategy", r.strategy},
      {"makespan_s", r.makespan_s},
      {"lower_bound_s", number_or_null(r.lower_bound_s)},
      {"bytes_moved", r.bytes_moved},
      {"busiest_link", r.busiest_link},
      {"busiest_link_utilization", r.busiest_link_utilization},
      {"peak_memory_bytes", r.peak_memory_bytes},
      {"ops", r.ops},
      {"transfers", r.transfers},
      {"gpus", r.gpus},
      {"trace_file", r.trace_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.trace_file)},
      {"wall_s", r.wall_s}};
}

StrategyRunResult strategy_result_from_json(const nlohmann::json& j) {
  StrategyRunResult r;
  r.strategy = j.at("strategy").get<std::string>();
  r.makespan_s = j.at("makespan_s").get<double>();
  r.lower_bound_s = number_or_nan(j.at("lower_bound_s"));
  r.bytes_moved = j.at("bytes_moved").get<double>();
  r.busiest_link = j.at("busiest_link").get<std::string>();
  r.busiest_link_utilization = j.at("busiest_link_utilization").get<double>();
  r.peak_memory_bytes = j.at("peak_memory_bytes").get<double>();
  r.ops = j.at("ops").get<std::size_t>();
  r.transfers = j.at("transfers").get<std::size_t>();
  r.gpus = j.at("gpus").get<int>();
  if (j.at("trace_file").is_string()) r.trace_file = j.at("trace_file").get<std::string>();
  r.wall_s = j.at("wall_s").get<double>();
  return r;
}

namespace {

// The strategy's options on `machine`: the size, reductions or not, the first N GPUs.
SyncOptions sync_options_of(const StrategyRunRequest& request, const Machine& machine) {
  SyncOptions options;
  options.bytes = request.bytes;
  options.include_reductions = !request.comm_only;
  const auto all_gpus = machine.gpus();
  if (request.gpus < 0) throw InputError("--gpus: must be >= 2");
  if (request.gpus > 0) {
    if (static_cast<std::size_t>(request.gpus) > all_gpus.size())
      throw InputError("--gpus " + std::to_string(request.gpus) + ": topology '" + machine.name() +
                       "' has only " + std::to_string(all_gpus.size()) + " GPUs");
    options.gpus.assign(all_gpus.begin(), all_gpus.begin() + request.gpus);
  }
  return options;
}

}  // namespace

void check_strategy_requests(const std::vector<StrategyRunRequest>& requests) {
  if (requests.empty()) return;
  for (const StrategyRunRequest& request : requests)
    if (request.bytes < kSmallestGradientBytes)  // its chunks would move in under 1 ns
      throw InputError("gradient size " + format_bytes(request.bytes) +
                       ": at least 1 KiB (smaller gradients' chunks move in less than the "
                       "simulator's 1 ns step)");
  const Machine machine =
      apply_what_if(resolve_topology(requests.front().topology), requests.front().what_if);
  for (const StrategyRunRequest& request : requests) {
    if (request.topology != requests.front().topology) {
      check_strategy_requests({request});
      continue;
    }
    check_sync_plan(request.strategy, machine, sync_options_of(request, machine));
    check_fits_in_memory(request, machine);
  }
}

StrategyRunResult run_strategy(const StrategyRunRequest& request) {
  const auto wall_start = std::chrono::steady_clock::now();
  const Machine machine = apply_what_if(resolve_topology(request.topology), request.what_if);
  const SyncOptions options = sync_options_of(request, machine);
  SyncPlan plan = make_sync_plan(request.strategy, machine, options);

  StrategyRunResult result;
  result.strategy = request.strategy;
  result.lower_bound_s = plan.lower_bound_s;
  result.ops = plan.graph.size();
  result.gpus =
      static_cast<int>(options.gpus.empty() ? machine.gpus().size() : options.gpus.size());

  const bool want_trace = !request.trace_path.empty() || !request.csv_path.empty();
  const StreamTable streams(machine);
  PeakMemoryObserver peak_memory;
  std::unique_ptr<TraceRecorder> recorder;
  std::vector<SchedulerObserver*> observers = {&peak_memory};
  if (want_trace) {
    recorder = std::make_unique<TraceRecorder>(machine, plan.graph, streams,
                                               request.strategy + " on " + machine.name(), "sim");
    observers.push_back(recorder.get());
  }
  SimulateOptions sim_options;
  sim_options.record_op_times = false;  // the scheduler has them; a copy would cost 16 bytes per op
  const SimulationResult simulation = simulate(machine, plan.graph, sim_options, observers);
  result.makespan_s = simulation.makespan_s;
  result.peak_memory_bytes = peak_memory.peak_bytes();

  const LinkTraffic traffic = compute_link_traffic(machine, plan.graph);
  result.bytes_moved = traffic.bytes_moved;
  const BusiestLink busiest = busiest_link(machine, traffic, result.makespan_s);
  result.busiest_link = busiest.name;
  result.busiest_link_utilization = busiest.utilization;
  for (OpId id = 0; id < plan.graph.size(); ++id)
    if (plan.graph.op(id).kind == OpKind::kCopy) ++result.transfers;

  if (recorder) {
    const Trace trace = recorder->finish();
    if (!request.trace_path.empty()) {
      write_chrome_trace(trace, request.trace_path);
      result.trace_file = request.trace_path;
    }
    if (!request.csv_path.empty()) write_csv_trace(trace, request.csv_path);
  }
  result.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace opsim
