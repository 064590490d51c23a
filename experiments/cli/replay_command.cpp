#include "experiments/cli/replay_command.hpp"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "experiments/calibration/validation.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/text_table.hpp"
#include "replay/gpu_timeline.hpp"
#include "replay/replay_run.hpp"
#include "replay/replay_trace.hpp"
#include "topologies/topology_catalog.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

using namespace replay;

// "all", "K" or "K..M" (step numbers of ProfilerStep#N).
StepSelection parse_steps(const std::string& text) {
  if (text == "all") return {};
  auto number = [&](const std::string& part) {
    std::size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || value < 0)
      throw InputError("--steps: '" + text + "' is not all, K or K..M (step numbers >= 0)");
    return static_cast<std::int64_t>(value);
  };
  const std::size_t dots = text.find("..");
  if (dots == std::string::npos) return {number(text), number(text)};
  StepSelection s{number(text.substr(0, dots)), number(text.substr(dots + 2))};
  if (s.first > s.last) throw InputError("--steps: '" + text + "' runs backwards");
  return s;
}

Machine replay_machine(const ReplayCommandOptions& o, const std::vector<KinetoTrace>& traces) {
  if (!o.profile.empty()) return apply_what_if(load_topology_file(o.profile), o.what_if);
  std::size_t gpus = 0;
  for (const KinetoTrace& t : traces) gpus += distinct_gpu_devices(t).size();
  const std::string topology =
      o.topology.empty() ? "pcie-switch:" + std::to_string(std::max<std::size_t>(1, gpus)) : o.topology;
  return apply_what_if(resolve_topology(topology), o.what_if);
}

// A --steps range that names no step of any trace is refused before the simulation runs. A
// trace without step markers is one step, whatever the range.
void check_steps_exist(const ReplayCommandOptions& o, const std::vector<KinetoTrace>& traces,
                       const StepSelection& selection) {
  if (o.steps == "all") return;
  std::string have;
  for (const KinetoTrace& t : traces) {
    if (t.steps.empty()) return;
    for (const StepSpan& s : t.steps)
      if (s.number >= selection.first && s.number <= selection.last) return;
    have = std::to_string(t.steps.front().number) + ".." + std::to_string(t.steps.back().number);
  }
  throw InputError(traces.front().path + ": --steps " + o.steps +
                   ": no ProfilerStep#N of the trace is in that range (it has " + have + ")");
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.2f %%", 100 * fraction);
  return text;
}

nlohmann::json breakdown_json(const StepBreakdown& b) {
  return {{"compute_s", b.compute_s},
          {"communication_exposed_s", b.communication_exposed_s},
          {"copy_exposed_s", b.copy_exposed_s},
          {"host_bound_idle_s", b.host_bound_idle_s},
          {"communication_s", b.communication_s}};
}

nlohmann::json counts_json(const ReplayCounts& c) {
  return {{"host_ops", c.host_ops},
          {"gpu_ops", c.gpu_ops},
          {"collectives_joined", c.collectives},
          {"blocking_calls", c.blocking_calls},
          {"polling_loops", c.polling_loops},
          {"graph_launches", c.graph_launches},
          {"cross_stream_waits", c.cross_stream_edges},
          {"inferred_cross_stream_waits", c.inferred_cross_stream_edges},
          {"launches_without_gpu_op", c.launches_without_gpu_op},
          {"gpu_ops_without_launch", c.gpu_ops_without_launch},
          {"kernels_from_shapes", c.kernels_from_shapes},
          {"kernels_scaled", c.kernels_scaled},
          {"kernels_recorded", c.kernels_recorded}};
}

std::map<std::string, std::int64_t> ignored_events(const std::vector<KinetoTrace>& traces) {
  std::map<std::string, std::int64_t> all;
  for (const KinetoTrace& t : traces)
    for (const auto& [kind, count] : t.ignored_events) all[kind] += count;
  return all;
}

void print_json(const ReplayCommandOptions& o, const ReplayGraph& g,
                const std::vector<KinetoTrace>& traces, const ReplayResult& r) {
  nlohmann::json out = {{"traces", o.trace_paths},
                        {"machine", g.machine.name()},
                        {"profile", o.profile},
                        {"kernels", o.kernels},
                        {"collectives", o.collectives}};
  out["steps"] = nlohmann::json::array();
  for (const StepResult& s : r.steps)
    out["steps"].push_back({{"rank", s.rank},
                            {"name", s.name},
                            {"recorded_s", s.recorded_s},
                            {"replayed_s", s.replayed_s},
                            {"error", s.error},
                            {"recorded_breakdown", breakdown_json(s.recorded_breakdown)},
                            {"breakdown", breakdown_json(s.replayed_breakdown)}});
  out["median_abs_error"] = r.median_abs_error;
  out["worst_abs_error"] = r.worst_abs_error;
  out["breakdown"] = breakdown_json(r.breakdown);
  out["graph"] = counts_json(g.counts);
  out["ignored_events"] = ignored_events(traces);
  std::cout << out.dump(2) << "\n";
}

std::string ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

void print_table(const ReplayCommandOptions& o, const ReplayGraph& g,
                 const std::vector<KinetoTrace>& traces, const ReplayResult& r) {
  std::cout << "Replay of " << traces.size() << " trace" << (traces.size() > 1 ? "s" : "")
            << " on " << g.machine.name() << " (kernels " << o.kernels << ", collectives "
            << o.collectives << ")\n\n";
  TextTable table({"rank", "step", "recorded", "replayed", "error", "compute", "comm exposed",
                   "copy exposed", "GPU idle"},
                  {true, false, true, true, true, true, true, true, true});
  for (const StepResult& s : r.steps) {
    const StepBreakdown& b = s.replayed_breakdown;
    table.add_row({std::to_string(s.rank), s.name, ms(s.recorded_s), ms(s.replayed_s),
                   percent(s.error), ms(b.compute_s), ms(b.communication_exposed_s),
                   ms(b.copy_exposed_s), ms(b.host_bound_idle_s)});
  }
  std::cout << table.render();
  char line[128];
  std::snprintf(line, sizeof line, "\nmedian |error| %.2f %%, worst %.2f %%\n",
                100 * r.median_abs_error, 100 * r.worst_abs_error);
  std::cout << line;
  const ReplayCounts& c = g.counts;
  std::cout << "graph: " << c.host_ops << " host ops, " << c.gpu_ops << " GPU ops, "
            << c.blocking_calls << " blocking calls, " << c.polling_loops << " polling loops, "
            << c.cross_stream_edges + c.inferred_cross_stream_edges << " cross-stream waits ("
            << c.inferred_cross_stream_edges << " read off start times), " << c.collectives
            << " collectives joined across ranks, " << c.graph_launches << " CUDA graph launches\n";
  if (o.kernels == "modelled")
    std::cout << "GPU ops modelled: " << c.kernels_from_shapes << " timed from shapes, "
              << c.kernels_scaled << " scaled by peak ratios, " << c.kernels_recorded
              << " as recorded (collectives, host copies)\n";
  std::string ignored;
  for (const auto& [kind, count] : ignored_events(traces))
    ignored += (ignored.empty() ? "" : ", ") + kind + " " + std::to_string(count);
  if (!ignored.empty()) std::cout << "events not used: " << ignored << "\n";
}

void write_traces(const ReplayCommandOptions& o, const ReplayGraph& g,
                  const std::vector<KinetoTrace>& traces, const ReplayResult& r) {
  std::filesystem::create_directories(o.trace_dir);
  std::string stem = std::filesystem::path(o.trace_paths.front()).filename().string();
  for (const char* suffix : {".gz", ".json"})
    if (stem.ends_with(suffix)) stem.resize(stem.size() - std::string_view(suffix).size());
  const Trace recorded = replay_trace(g, traces, nullptr);
  const Trace replayed = replay_trace(g, traces, &r.simulation);
  const std::filesystem::path dir = o.trace_dir;
  write_chrome_trace(replayed, dir / (stem + ".replayed.json"));
  write_chrome_trace(calibration::overlay_traces(recorded, replayed), dir / (stem + ".overlay.json"));
  if (o.format != "json")
    std::cout << "Traces: " << (dir / (stem + ".replayed.json")).string() << ", "
              << (dir / (stem + ".overlay.json")).string() << " (recorded vs replayed)\n";
}

}  // namespace

int run_replay_command(const ReplayCommandOptions& o) {
  const StepSelection selection = parse_steps(o.steps);
  std::vector<KinetoTrace> traces;
  for (const std::string& path : o.trace_paths) traces.push_back(read_kineto_trace(path));
  check_steps_exist(o, traces, selection);
  ReplayOptions options;
  if (o.kernels == "modelled") options.kernels = KernelTiming::kModelled;
  const ReplayGraph g = build_replay_graph(traces, replay_machine(o, traces), options);
  const ReplayResult r = run_replay(g, traces, selection);
  if (o.format == "json")
    print_json(o, g, traces, r);
  else
    print_table(o, g, traces, r);
  if (!o.trace_dir.empty()) write_traces(o, g, traces, r);
  return 0;
}

Command register_replay_command(CLI::App& opsim) {
  auto o = std::make_shared<ReplayCommandOptions>();
  CLI::App* cmd = opsim.add_subcommand(
      "replay", "Replay recorded PyTorch profiler traces (one per rank) and check each step");
  cmd->add_option("traces", o->trace_paths, "Kineto trace files (.json or .json.gz), one per rank")
      ->required();
  CLI::Option* topology =
      cmd->add_option("--topology", o->topology,
                      "Machine to replay on: preset, family or YAML (default: pcie-switch:N)");
  cmd->add_option("--profile", o->profile,
                  "Calibrated profile YAML (opsim calibrate) to replay on, instead of --topology")
      ->check(CLI::ExistingFile)
      ->excludes(topology);
  cmd->add_option("--kernels", o->kernels,
                  "GPU op times: recorded, or modelled on the target GPU (from shapes, else "
                  "scaled by peak ratios)")
      ->check(CLI::IsMember({"recorded", "modelled"}))
      ->capture_default_str();
  cmd->add_option("--collectives", o->collectives, "Collective times: recorded")
      ->check(CLI::IsMember({"recorded"}));
  cmd->add_option("--steps", o->steps, "Steps to report: all, K or K..M (ProfilerStep#K)");
  cmd->add_option("--trace-dir", o->trace_dir,
                  "Write <trace>.replayed.json and <trace>.overlay.json (recorded vs replayed)")
      ->check(writable_directory("the trace directory"));
  add_format_option(*cmd, o->format, {"table", "json"});
  add_what_if_options(*cmd, o->what_if);
  return {cmd, [o] { return run_replay_command(*o); }};
}

}  // namespace opsim
