#include "experiments/cli/replay_command.hpp"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
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
  if (o.ranks > traces.size()) gpus = gpus * o.ranks / traces.size();
  std::string topology = o.topology;
  if (topology.empty()) topology = "pcie-switch:" + std::to_string(std::max<std::size_t>(1, gpus));
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

std::string signed_percent(double fraction) {
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
          {"thread_wakes", c.thread_wakes},
          {"graph_launches", c.graph_launches},
          {"cross_stream_waits", c.cross_stream_edges},
          {"inferred_cross_stream_waits", c.inferred_cross_stream_edges},
          {"kernels_from_shapes", c.kernels_from_shapes},
          {"kernels_scaled", c.kernels_scaled},
          {"kernels_recorded", c.kernels_recorded},
          {"collectives_modelled", c.collectives_modelled},
          {"collectives_kept_recorded", c.collectives_kept_recorded},
          {"launches_without_gpu_op", c.launches_without_gpu_op},
          {"gpu_ops_without_launch", c.gpu_ops_without_launch}};
}

std::map<std::string, std::int64_t> ignored_events(const std::vector<KinetoTrace>& traces) {
  std::map<std::string, std::int64_t> all;
  for (const KinetoTrace& t : traces)
    for (const auto& [kind, count] : t.ignored_events) all[kind] += count;
  return all;
}

// What `--format json` prints, and --trace-dir writes as <stem>.steps.json.
nlohmann::json replay_json(const ReplayCommandOptions& o, const ReplayGraph& g,
                           const std::vector<KinetoTrace>& traces, const ReplayResult& r) {
  nlohmann::json out = {{"traces", o.trace_paths},      {"machine", g.machine.name()},
                        {"profile", o.profile},         {"kernels", o.kernels},
                        {"collectives", o.collectives}, {"ranks", g.trace_of_rank.size()}};
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
  return out;
}

std::string ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

void print_table(const ReplayCommandOptions& o, const ReplayGraph& g,
                 const std::vector<KinetoTrace>& traces, const ReplayResult& r) {
  std::cout << "Replay of " << traces.size() << " trace" << (traces.size() > 1 ? "s" : "") << " on "
            << g.machine.name() << " (kernels " << o.kernels << ", collectives " << o.collectives
            << ")\n\n";
  TextTable table({"rank", "step", "recorded", "replayed", "error", "compute", "comm exposed",
                   "copy exposed", "GPU idle"},
                  {true, false, true, true, true, true, true, true, true});
  for (const StepResult& s : r.steps) {
    const StepBreakdown& b = s.replayed_breakdown;
    table.add_row({std::to_string(s.rank), s.name, ms(s.recorded_s), ms(s.replayed_s),
                   signed_percent(s.error), ms(b.compute_s), ms(b.communication_exposed_s),
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
            << c.thread_wakes << " threads woken by others, " << c.thread_wakes
            << " threads woken by others, " << c.cross_stream_edges + c.inferred_cross_stream_edges
            << " cross-stream waits (" << c.inferred_cross_stream_edges
            << " read off start times), " << c.collectives << " collectives joined across ranks, "
            << c.graph_launches << " CUDA graph launches\n";
  if (c.launches_without_gpu_op > 0 || c.gpu_ops_without_launch > 0)
    std::cout << "not paired: " << c.launches_without_gpu_op
              << " launches whose GPU op is not in the trace, " << c.gpu_ops_without_launch
              << " GPU ops whose launch is not (outside the profiled window or thread)\n";
  if (o.collectives == "modelled")
    std::cout << "collectives: " << c.collectives_modelled << " simulated as rings, "
              << c.collectives_kept_recorded
              << " kept as recorded (all-to-all, send/recv or no size in the trace)\n";
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
  write_chrome_trace(calibration::overlay_traces(recorded, replayed),
                     dir / (stem + ".overlay.json"));
  // The overlay's step errors, for opsim-gui.
  write_file_atomically(dir / (stem + ".steps.json"), replay_json(o, g, traces, r).dump(2) + "\n");
  if (o.format != "json")
    std::cout << "Traces: " << (dir / (stem + ".replayed.json")).string() << ", "
              << (dir / (stem + ".overlay.json")).string() << " (recorded vs replayed), "
              << (dir / (stem + ".steps.json")).string() << "\n";
}

}  // namespace

int run_replay_command(const ReplayCommandOptions& o) {
  const StepSelection selection = parse_steps(o.steps);
  std::vector<KinetoTrace> traces;
  for (const std::string& path : o.trace_paths) traces.push_back(read_kineto_trace(path));
  check_steps_exist(o, traces, selection);
  ReplayOptions options;
  options.kernels = o.kernels == "modelled" ? KernelTiming::kModelled : KernelTiming::kRecorded;
  options.collectives =
      o.collectives == "modelled" ? CollectiveTiming::kModelled : CollectiveTiming::kRecorded;
  options.ranks = o.ranks;
  const ReplayGraph g = build_replay_graph(traces, replay_machine(o, traces), options);
  const ReplayResult r = run_replay(g, traces, selection);
  if (o.format == "json")
    std::cout << replay_json(o, g, traces, r).dump(2) << "\n";
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
                  "GPU op times: recorded, or modelled on the target GPU (GEMMs and "
                  "convolutions from their shapes, other ops scaled)")
      ->check(CLI::IsMember({"recorded", "modelled"}))
      ->capture_default_str();
  cmd->add_option("--collectives", o->collectives,
                  "Collective times: recorded, or modelled (a ring on the machine's links)")
      ->check(CLI::IsMember({"recorded", "modelled"}))
      ->capture_default_str();
  cmd->add_option("--algorithm", o->algorithm,
                  "Collective algorithm for --collectives modelled: ring")
      ->check(CLI::IsMember({"ring"}));
  cmd->add_option("--ranks", o->ranks,
                  "Ranks to replay (default: one per trace); more replicates the traces, each "
                  "rank on its own GPU, collectives over all")
      ->check(CLI::Range(1, 16384));
  cmd->add_option("--steps", o->steps, "Steps to report: all, K or K..M (ProfilerStep#K)");
  cmd->add_option("--trace-dir", o->trace_dir,
                  "Write <trace>.replayed.json, <trace>.overlay.json (recorded vs replayed) and "
                  "<trace>.steps.json (the --format json report)")
      ->check(writable_directory("the trace directory"));
  add_format_option(*cmd, o->format, {"table", "json"});
  add_what_if_options(*cmd, o->what_if);
  return {cmd, [o] { return run_replay_command(*o); }};
}

}  // namespace opsim
