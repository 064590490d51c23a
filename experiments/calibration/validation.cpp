#include "experiments/calibration/validation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "common/input_error.hpp"
#include "engine/chrome_trace_reader.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/exec/real_backend.hpp"
#include "engine/scheduler.hpp"
#include "engine/trace_recorder.hpp"
#include "experiments/calibration/accuracy.hpp"
#include "sim/isolated_run.hpp"
#include "sim/simulate.hpp"

namespace opsim::calibration {

std::uint32_t effective_max_in_flight(const WorkloadFile& workload, std::uint32_t option) {
  if (option > 0) return option;
  const auto it = workload.document.find("max_in_flight");
  if (it == workload.document.end()) return 0;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 ||
      it->get<std::int64_t>() > UINT32_MAX)
    throw InputError(workload.source + ": \"max_in_flight\" must be a non-negative integer");
  return static_cast<std::uint32_t>(it->get<std::int64_t>());
}

namespace {
bool single_stream_cpus(const Machine& machine) {
  for (DeviceId cpu : machine.cpus())
    if (machine.device(cpu).cpu.compute_streams > 1) return false;
  return true;
}
}  // namespace

Trace simulate_workload(const WorkloadFile& workload, const Machine& profile,
                        std::uint32_t max_in_flight) {
  const OpGraph graph = build_workload_graph(workload, profile);
  const std::string text = run_isolated([&] {
    TraceRecorder recorder(profile, graph, workload.name + " on " + profile.name(), "sim");
    std::vector<SchedulerObserver*> observers = {&recorder};
    SimulateOptions options;
    options.scheduler.max_in_flight = max_in_flight;
    options.record_op_times = false;
    // The executor's host-dispatch thread competes with its compute threads for the cores.
    options.backend.dispatch_on_compute_cores = true;
    // With one compute stream a CPU's compute host stands for all its cores, so a memcpy
    // thread takes its time from the compute ops (and from other memcpys, which on this
    // kind of host do not add up either). With more streams a core per memcpy would
    // overstate DRAM, so copies stay flows over the memory bus.
    options.backend.cpu_copies_on_compute_cores = single_stream_cpus(profile);
    simulate(profile, graph, options, observers);
    std::ostringstream out;
    write_chrome_trace(recorder.finish(), out);
    return out.str();
  });
  return parse_chrome_trace(text, workload.name + " (simulated)");
}

RealWorkloadRunner::RealWorkloadRunner(const WorkloadFile& workload, const Machine& profile,
                                       const ValidationOptions& options)
    : graph_(build_workload_graph(workload, profile)),
      profile_(profile),
      title_(workload.name + " on " + profile.name()) {
  scheduler_options_.max_in_flight = effective_max_in_flight(workload, options.max_in_flight);
  RealBackendOptions backend_options;
  backend_options.scratch_dir = options.scratch_dir;
  // Where each stream runs, as the simulator assumes (pinned_core): each core's own speed.
  backend_options.pin_streams = true;
  backend_ = std::make_unique<RealBackend>(nullptr, backend_options);
}

RealWorkloadRunner::~RealWorkloadRunner() = default;

Trace RealWorkloadRunner::run() {
  Scheduler scheduler(profile_, graph_, *backend_, scheduler_options_);
  TraceRecorder recorder(profile_, graph_, scheduler.streams(), title_, "real");
  scheduler.add_observer(recorder);
  scheduler.submit_all();
  scheduler.run();
  return recorder.finish();
}

std::string RealWorkloadRunner::disk_note() const {
  return backend_->disk_note();
}

std::vector<Trace> run_workload_real(const WorkloadFile& workload, const Machine& profile,
                                     const ValidationOptions& options, std::string* disk_note) {
  // One backend for all runs: the warm-up allocates scratch memory and disk files.
  RealWorkloadRunner runner(workload, profile, options);
  (void)runner.run();  // warm-up
  std::vector<Trace> runs;
  double timed_s = 0;
  const int at_least = std::max(1, options.repeats);
  while (static_cast<int>(runs.size()) < at_least ||
         (timed_s < options.min_real_s && static_cast<int>(runs.size()) < kMaxRealRuns)) {
    runs.push_back(runner.run());
    timed_s += ns_to_seconds(runs.back().makespan_ns());
  }
  if (disk_note != nullptr) *disk_note = runner.disk_note();
  return runs;
}

namespace {
std::map<std::string, double> busy_by_class(const Trace& trace) {
  std::map<std::string, double> busy;
  for (const TraceOp& op : trace.ops) busy[op.op_class] += ns_to_seconds(op.end_ns - op.start_ns);
  return busy;
}
}  // namespace

ValidationResult compare_runs(const std::string& workload, const std::vector<Trace>& real_runs,
                              Trace sim_trace, Statistic statistic) {
  ValidationResult r;
  r.workload = workload;
  if (real_runs.empty()) throw std::invalid_argument("compare_runs: no real run");
  std::vector<std::size_t> order(real_runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
    r.real_samples_s.push_back(ns_to_seconds(real_runs[i].makespan_ns()));
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return real_runs[a].makespan_ns() < real_runs[b].makespan_ns();
  });
  r.real_trace =
      real_runs[statistic == Statistic::kBest ? order.front() : order[(order.size() - 1) / 2]];
  r.sim_trace = std::move(sim_trace);
  r.real_s = statistic == Statistic::kBest ? ns_to_seconds(r.real_trace.makespan_ns())
                                           : median(r.real_samples_s);
  r.simulated_s = ns_to_seconds(r.sim_trace.makespan_ns());
  r.makespan_error = relative_error(r.real_s, r.simulated_s);
  r.real_iqr = interquartile_spread(r.real_samples_s);
  const auto real_busy = busy_by_class(r.real_trace);
  const auto sim_busy = busy_by_class(r.sim_trace);
  std::map<std::string, ClassComparison> classes;
  for (const auto& [name, s] : real_busy) classes[name].real_s = s;
  for (const auto& [name, s] : sim_busy) classes[name].simulated_s = s;
  for (auto& [name, c] : classes) {
    c.op_class = name;
    c.error = relative_error(c.real_s, c.simulated_s);
    r.by_op_class.push_back(c);
  }
  return r;
}

ValidationResult validate_workload(const WorkloadFile& workload, const Machine& profile,
                                   const ValidationOptions& options) {
  Trace sim = simulate_workload(workload, profile,
                                effective_max_in_flight(workload, options.max_in_flight));
  std::string note;
  const std::vector<Trace> real = run_workload_real(workload, profile, options, &note);
  ValidationResult r = compare_runs(workload.name, real, std::move(sim), options.statistic);
  r.disk_note = note;
  return r;
}

Trace overlay_traces(const Trace& real, const Trace& sim) {
  Trace out;
  out.title = real.title + ": real vs simulated";
  out.backend = "real+sim";
  out.machine = real.machine;
  std::vector<std::uint32_t> real_lane(real.lanes.size()), sim_lane(sim.lanes.size());
  std::vector<bool> sim_placed(sim.lanes.size(), false);
  auto add_lane = [&](const TraceLane& lane, const char* prefix) {
    TraceLane l = lane;
    l.name = prefix + l.name;
    out.lanes.push_back(l);
    return static_cast<std::uint32_t>(out.lanes.size() - 1);
  };
  for (std::size_t i = 0; i < real.lanes.size(); ++i) {
    real_lane[i] = add_lane(real.lanes[i], "real ");
    for (std::size_t j = 0; j < sim.lanes.size(); ++j) {
      if (!sim_placed[j] && sim.lanes[j].name == real.lanes[i].name) {
        sim_lane[j] = add_lane(sim.lanes[j], "sim ");
        sim_placed[j] = true;
        break;
      }
    }
  }
  for (std::size_t j = 0; j < sim.lanes.size(); ++j)
    if (!sim_placed[j]) sim_lane[j] = add_lane(sim.lanes[j], "sim ");

  auto append = [&](const Trace& t, const std::vector<std::uint32_t>& lanes, const char* prefix) {
    const auto base = static_cast<std::uint32_t>(out.ops.size());
    for (TraceOp op : t.ops) {
      op.lane = lanes[op.lane];
      op.name = prefix + op.name;
      out.ops.push_back(std::move(op));
    }
    for (TraceSpan s : t.link_spans) {
      s.op += base;
      s.lane = lanes[s.lane];
      out.link_spans.push_back(s);
    }
    for (const auto& [a, b] : t.dependencies) out.dependencies.emplace_back(a + base, b + base);
    for (TraceCounter c : t.counters) {
      c.name = prefix + c.name;
      out.counters.push_back(std::move(c));
    }
  };
  append(real, real_lane, "real ");
  append(sim, sim_lane, "sim ");
  return out;
}

nlohmann::json to_json(const ValidationResult& r) {
  nlohmann::json out = {{"workload", r.workload},
                        {"real_s", r.real_s},
                        {"simulated_s", r.simulated_s},
                        {"makespan_error", r.makespan_error},
                        {"real_samples_s", r.real_samples_s},
                        {"real_iqr", r.real_iqr}};
  out["by_op_class"] = nlohmann::json::array();
  for (const ClassComparison& c : r.by_op_class)
    out["by_op_class"].push_back({{"class", c.op_class},
                                  {"real_s", c.real_s},
                                  {"simulated_s", c.simulated_s},
                                  {"error", c.error}});
  if (!r.disk_note.empty()) out["disk_note"] = r.disk_note;
  if (!r.rounds.empty()) {
    out["rounds"] = nlohmann::json::array();
    for (const RoundComparison& round : r.rounds) {
      nlohmann::json measured = nlohmann::json::object();
      for (const auto& [name, value] : round.measured) measured[name] = value;
      out["rounds"].push_back({{"real_s", round.real_s},
                               {"simulated_s", round.simulated_s},
                               {"error", round.error},
                               {"measured", measured}});
    }
    out["pooled"] = {{"real_s", r.pooled.real_s},
                     {"simulated_s", r.pooled.simulated_s},
                     {"error", r.pooled.error}};
    out["rounds_one_way"] = rounds_one_way(r);
  }
  return out;
}

int rounds_one_way(const ValidationResult& result) {
  if (result.rounds.size() < 3) return 0;
  int sign = 0;
  for (const RoundComparison& round : result.rounds) {
    if (!(std::abs(round.error) > result.real_iqr)) return 0;
    const int s = round.error < 0 ? -1 : 1;
    if (sign != 0 && s != sign) return 0;
    sign = s;
  }
  return sign;
}

std::vector<std::filesystem::path> write_validation_traces(
    const ValidationResult& result, const std::filesystem::path& dir,
    const std::function<void(const std::filesystem::path&)>& on_written) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the trace directory: " + ec.message());
  std::string stem = result.workload;
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '-';
  const std::vector<std::filesystem::path> paths = {
      dir / (stem + ".real.json"), dir / (stem + ".sim.json"), dir / (stem + ".overlay.json")};
  const Trace* traces[] = {&result.real_trace, &result.sim_trace, nullptr};
  const Trace overlay = overlay_traces(result.real_trace, result.sim_trace);
  traces[2] = &overlay;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    write_chrome_trace(*traces[i], paths[i]);
    if (on_written) on_written(paths[i]);
  }
  return paths;
}

}  // namespace opsim::calibration
