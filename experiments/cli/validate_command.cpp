#include "experiments/cli/validate_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/input_error.hpp"
#include "common/run_outputs.hpp"
#include "engine/chrome_trace_reader.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "experiments/calibration/accuracy.hpp"
#include "experiments/calibration/calibration.hpp"
#include "experiments/calibration/interleaved_validation.hpp"
#include "experiments/calibration/validation.hpp"
#include "experiments/cli/calibrate_command.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/progress_bar.hpp"
#include "experiments/cli/text_table.hpp"
#include "hw_models/units.hpp"
#include "sim/isolated_run.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

namespace fs = std::filesystem;
using calibration::ValidationResult;

constexpr const char* kDefaultProfile = "calibrated.yaml";

std::string percent(double error, bool signed_value = true) {
  if (!std::isfinite(error)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, signed_value ? "%+.1f%%" : "%.1f%%", error * 100);
  return buf;
}

Machine resolve_profile(const ValidateCommandOptions& o) {
  if (!o.profile_path.empty()) return load_topology_file(o.profile_path);
  if (fs::exists(kDefaultProfile)) {
    std::cerr << "opsim validate: using the profile " << kDefaultProfile << "\n";
    return load_topology_file(kDefaultProfile);
  }
  std::cerr << "opsim validate: no --profile and no ./" << kDefaultProfile
            << ": calibrating quickly first (opsim calibrate writes one)\n";
  return calibrate_with_progress(true, 0, o.scratch_dir, statistic_option(o.statistic));
}

void print_one(const ValidationResult& r, const std::string& format, const std::string& statistic,
               const std::vector<fs::path>& traces) {
  if (format == "json") {
    std::cout << calibration::to_json(r).dump(2) << "\n";
    return;
  }
  std::cout << r.workload << ": real " << format_seconds(r.real_s) << " (" << statistic << " of "
            << r.real_samples_s.size() << ", run-to-run IQR " << percent(r.real_iqr, false)
            << "), simulated " << format_seconds(r.simulated_s) << ", makespan error "
            << percent(r.makespan_error) << "\n";
  if (!r.rounds.empty()) {
    std::cout << "interleaved: the median of " << r.rounds.size()
              << " round(s) of real runs between calibration passes; each round's error:";
    for (const auto& round : r.rounds) std::cout << " " << percent(round.error);
    std::cout << "\n";
    if (const int way = calibration::rounds_one_way(r); way != 0)
      std::cout << "every round's simulation came out " << (way < 0 ? "short" : "long")
                << ", each by more than the run-to-run IQR: the calibration and the workload "
                   "meet the machine differently (a model gap, or a host state the calibration "
                   "does not see), not noise between them\n";
  }
  std::cout << "\n";
  TextTable table({"op class", "real busy", "simulated busy", "error"}, {false, true, true, true});
  for (const auto& c : r.by_op_class)
    table.add_row(
        {c.op_class, format_seconds(c.real_s), format_seconds(c.simulated_s), percent(c.error)});
  std::cout << table.render();
  if (!r.disk_note.empty()) std::cout << "disk: " << r.disk_note << "\n";
  if (!traces.empty()) {
    std::cout << "\nTraces:";
    for (const auto& p : traces) std::cout << " " << p.string();
    std::cout << "\n";
  }
}

// Each round's error, lowest to highest ("-1.2% … +3.4%"); empty without rounds.
std::string round_range(const ValidationResult& r) {
  if (r.rounds.empty()) return "";
  double lo = r.rounds.front().error, hi = lo;
  for (const auto& round : r.rounds) lo = std::min(lo, round.error), hi = std::max(hi, round.error);
  return percent(lo) + " … " + percent(hi) + (calibration::rounds_one_way(r) != 0 ? " *" : "");
}

// Under a table with rounds, when some workload's rounds all missed one way.
void print_one_way_legend(const std::vector<ValidationResult>& results, bool markdown) {
  bool any = false;
  for (const auto& r : results) any = any || calibration::rounds_one_way(r) != 0;
  if (!any) return;
  std::cout << (markdown ? "\n" : "")
            << "* every round missed the same way, each by more than the run-to-run IQR: the "
               "calibration and the workload meet the machine differently (a model gap, or a "
               "host state the calibration does not see), not noise between them\n";
}

// `interleave`: the rounds per workload when interleaved ("" otherwise): the table then
// shows each workload's median round and the range of its rounds' errors.
int print_suite(const std::vector<ValidationResult>& results, const std::string& profile_name,
                int repeats, const std::string& statistic, const std::string& format,
                const std::string& interleave = "") {
  std::vector<double> errors;
  for (const auto& r : results) errors.push_back(r.makespan_error);
  const double med = calibration::median_abs(errors);
  const double worst = calibration::worst_abs(errors);
  if (format == "json") {
    nlohmann::json out = {
        {"profile", profile_name}, {"median_abs_error", med}, {"worst_abs_error", worst}};
    if (!interleave.empty()) out["interleave_rounds"] = std::stoi(interleave);
    out["workloads"] = nlohmann::json::array();
    for (const auto& r : results) out["workloads"].push_back(calibration::to_json(r));
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  const bool rounds = !interleave.empty();
  if (format == "markdown") {
    std::cout << "| workload | real runs | real (" << (rounds ? "median round" : "median")
              << ") | run-to-run IQR | simulated | error |" << (rounds ? " rounds' errors |" : "")
              << "\n|---|---:|---:|---:|---:|---:|" << (rounds ? "---:|" : "") << "\n";
    for (const auto& r : results)
      std::cout << "| " << r.workload << " | " << r.real_samples_s.size() << " | "
                << format_seconds(r.real_s) << " | " << percent(r.real_iqr, false) << " | "
                << format_seconds(r.simulated_s) << " | " << percent(r.makespan_error) << " |"
                << (rounds ? " " + round_range(r) + " |" : "") << "\n";
    char buf[64];
    const char* tail = rounds ? " |" : "";
    std::snprintf(buf, sizeof buf, "%.1f%%", med * 100);
    std::cout << "| **median abs error** | | | | | " << buf << " |" << tail << "\n";
    std::snprintf(buf, sizeof buf, "%.1f%%", worst * 100);
    std::cout << "| **worst abs error** | | | | | " << buf << " |" << tail << "\n";
    if (rounds) print_one_way_legend(results, true);
    return 0;
  }
  std::cout << "Validation on " << profile_name << " (real: " << statistic << " of at least "
            << repeats << " runs; IQR: their run-to-run spread)\n";
  if (rounds)
    std::cout << "Interleaved: " << interleave
              << " rounds of real runs between calibration passes; each row is the workload's "
                 "median round\n";
  std::cout << "\n";
  std::vector<std::string> header = {"workload", "runs", "real", "IQR", "simulated", "error"};
  std::vector<bool> right = {false, true, true, true, true, true};
  if (rounds) header.push_back("rounds' errors"), right.push_back(true);
  TextTable table(header, right);
  for (const auto& r : results) {
    std::vector<std::string> row = {r.workload,
                                    std::to_string(r.real_samples_s.size()),
                                    format_seconds(r.real_s),
                                    percent(r.real_iqr, false),
                                    format_seconds(r.simulated_s),
                                    percent(r.makespan_error)};
    if (rounds) row.push_back(round_range(r));
    table.add_row(row);
  }
  std::cout << table.render();
  char buf[96];
  std::snprintf(buf, sizeof buf, "median |error| %.1f%%, worst %.1f%%\n", med * 100, worst * 100);
  std::cout << "\n" << buf;
  if (rounds) print_one_way_legend(results, false);
  return 0;
}

calibration::ValidationOptions validation_options(const ValidateCommandOptions& o) {
  calibration::ValidationOptions vo;
  vo.repeats = o.repeats;
  vo.min_real_s = o.min_real_s;
  vo.max_in_flight = o.max_in_flight;
  vo.scratch_dir = o.scratch_dir;
  vo.statistic = statistic_option(o.statistic);
  return vo;
}

// A workload's three traces into --trace-dir, each noted in `traces` as it is complete, so
// that a run that fails later removes them; none without --trace-dir.
std::vector<fs::path> write_traces(const ValidationResult& r, RunOutputs& traces) {
  if (traces.directory().empty()) return {};
  traces.prepare();
  return calibration::write_validation_traces(r, traces.directory(),
                                              [&](const fs::path& p) { traces.wrote(p); });
}

// Each workload's real runs in rounds between calibration passes over what its ops use,
// each round simulated on the samples beside it (interleaved_validation.hpp).
ValidationResult validate_interleaved(const ValidateCommandOptions& o, const WorkloadFile& workload,
                                      const Machine& base, ProgressBar& bar) {
  calibration::InterleavedOptions io;
  io.rounds = o.interleave;
  io.validation = validation_options(o);
  io.on_progress = [&bar](std::size_t, std::size_t) { bar.advance(); };
  return calibration::validate_interleaved(workload, base, io);
}

std::size_t interleave_steps(const ValidateCommandOptions& o) {
  return 2 * static_cast<std::size_t>(o.interleave) + 1;
}

// The suite once on `profile`: simulations first, one child each, before the real runs start
// threads; then each workload's real runs.
std::vector<ValidationResult> validate_suite_once(const ValidateCommandOptions& o,
                                                  const std::vector<WorkloadFile>& workloads,
                                                  const Machine& profile, RunOutputs& traces) {
  std::vector<std::function<std::string()>> jobs;
  for (const auto& w : workloads) {
    const std::uint32_t window = calibration::effective_max_in_flight(w, o.max_in_flight);
    jobs.push_back([&w, &profile, window] {
      std::ostringstream out;
      write_chrome_trace(calibration::simulate_workload(w, profile, window), out);
      return out.str();
    });
  }
  const std::vector<ChildOutcome> sims = run_isolated_jobs(jobs, 1);
  ProgressBar bar(workloads.size(), "workloads");
  std::vector<ValidationResult> results;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    throw_if_failed(sims[i], workloads[i].source + ": simulation: ");
    const calibration::ValidationOptions vo = validation_options(o);
    std::string note;
    const auto real = calibration::run_workload_real(workloads[i], profile, vo, &note);
    results.push_back(calibration::compare_runs(
        workloads[i].name, real, parse_chrome_trace(sims[i].text, workloads[i].source),
        vo.statistic));
    results.back().disk_note = note;
    write_traces(results.back(), traces);
    bar.advance();
  }
  bar.finish();
  return results;
}

// Rounds of (calibrate, suite): each workload's makespan error in every round, then the
// median per workload, so that one lucky or unlucky round on a shared host is not the answer.
// `first`: round 1's profile (the given one, or the first fresh calibration).
int run_suite_rounds(const ValidateCommandOptions& o, const std::string& format,
                     const std::vector<WorkloadFile>& workloads, const Machine& first,
                     RunOutputs& traces) {
  std::vector<std::vector<double>> errors(workloads.size());
  std::string profile_name = first.name();
  for (int round = 1; round <= o.rounds; ++round) {
    std::cerr << "opsim validate: round " << round << " of " << o.rounds << "\n";
    const Machine profile =
        round > 1 && o.profile_path.empty()
            ? calibrate_with_progress(false, 0, o.scratch_dir, statistic_option(o.statistic))
            : first;
    profile_name = profile.name();
    const std::vector<ValidationResult> results =
        validate_suite_once(o, workloads, profile, traces);
    for (std::size_t i = 0; i < results.size(); ++i) errors[i].push_back(results[i].makespan_error);
  }
  std::vector<double> medians, all;
  for (const auto& e : errors) {
    medians.push_back(calibration::median(e));
    all.insert(all.end(), e.begin(), e.end());
  }
  const double med = calibration::median_abs(medians);
  const double worst = calibration::worst_abs(medians);
  const double worst_round = calibration::worst_abs(all);
  const std::string how = o.profile_path.empty() ? "a fresh calibration then the suite"
                                                 : "the suite on " + o.profile_path;
  if (format == "json") {
    nlohmann::json out = {{"profile", profile_name},
                          {"rounds", o.rounds},
                          {"median_abs_error", med},
                          {"worst_abs_error", worst},
                          {"worst_abs_error_any_round", worst_round}};
    out["workloads"] = nlohmann::json::array();
    for (std::size_t i = 0; i < workloads.size(); ++i)
      out["workloads"].push_back(
          {{"workload", workloads[i].name}, {"errors", errors[i]}, {"median_error", medians[i]}});
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  auto range = [](const std::vector<double>& e) {
    const auto [lo, hi] = std::minmax_element(e.begin(), e.end());
    return percent(*lo) + " … " + percent(*hi);
  };
  char summary[160];
  std::snprintf(summary, sizeof summary,
                "median |error| %.1f%%, worst %.1f%% (of the per-workload medians); worst in any "
                "round %.1f%%",
                med * 100, worst * 100, worst_round * 100);
  if (format == "markdown") {
    std::cout << "| workload | rounds | median error | range |\n|---|---:|---:|---:|\n";
    for (std::size_t i = 0; i < workloads.size(); ++i)
      std::cout << "| " << workloads[i].name << " | " << errors[i].size() << " | "
                << percent(medians[i]) << " | " << range(errors[i]) << " |\n";
    std::cout << "\n" << summary << "\n";
    return 0;
  }
  std::cout << "Validation over " << o.rounds << " rounds, each " << how << "\n\n";
  TextTable table({"workload", "rounds", "median error", "range"}, {false, true, true, true});
  for (std::size_t i = 0; i < workloads.size(); ++i)
    table.add_row({workloads[i].name, std::to_string(errors[i].size()), percent(medians[i]),
                   range(errors[i])});
  std::cout << table.render() << "\n" << summary << "\n";
  return 0;
}

int run_suite(const ValidateCommandOptions& o, const std::string& format, RunOutputs& traces) {
  std::error_code ec;
  if (!fs::is_directory(o.suite_dir, ec))
    throw InputError(o.suite_dir + ": --suite needs a directory of workload files");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(o.suite_dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(o.suite_dir + ": no *.json workload files");
  std::vector<WorkloadFile> workloads;
  for (const auto& f : files) workloads.push_back(load_workload_file(f.string()));

  if (o.rounds > 1) {
    // Every round calibrates afresh, unless --profile names the profile to use throughout.
    const Machine first =
        o.profile_path.empty()
            ? calibrate_with_progress(false, 0, o.scratch_dir, statistic_option(o.statistic))
            : load_topology_file(o.profile_path);
    for (const auto& w : workloads) (void)build_workload_graph(w, first);  // errors first
    return run_suite_rounds(o, format, workloads, first, traces);
  }
  const Machine profile = resolve_profile(o);
  for (const auto& w : workloads) (void)build_workload_graph(w, profile);  // errors first
  if (o.interleave > 0) {
    ProgressBar bar(workloads.size() * interleave_steps(o), "steps (calibration passes, rounds)");
    std::vector<ValidationResult> results;
    for (const WorkloadFile& w : workloads) {
      results.push_back(validate_interleaved(o, w, profile, bar));
      write_traces(results.back(), traces);
    }
    bar.finish();
    return print_suite(results, profile.name(), o.repeats, o.statistic, format,
                       std::to_string(o.interleave));
  }
  return print_suite(validate_suite_once(o, workloads, profile, traces), profile.name(), o.repeats,
                     o.statistic, format);
}

int validate(const ValidateCommandOptions& o, RunOutputs& traces) {
  // Each option's own range is checked as it is parsed; here, how they go together.
  std::string format = o.markdown ? "markdown" : o.format;
  if (!(o.min_real_s >= 0) || o.min_real_s > 3600)
    throw InputError("--min-time: must be between 0 and 3600 seconds");
  if (o.rounds > 1 && o.suite_dir.empty()) throw InputError("--rounds goes with --suite");
  if (o.rounds > 1 && o.interleave > 0)
    throw InputError("--rounds and --interleave: choose one way to recalibrate");
  if (!o.suite_dir.empty()) {
    if (!o.workload_path.empty()) throw InputError("give either WORKLOAD or --suite DIR, not both");
    return run_suite(o, format, traces);
  }
  if (o.workload_path.empty()) throw InputError("give a WORKLOAD file or --suite DIR");
  if (format == "markdown") throw InputError("--markdown goes with --suite");
  const WorkloadFile workload = load_workload_file(o.workload_path);
  const Machine profile = resolve_profile(o);
  (void)build_workload_graph(workload, profile);  // bad input: InputError before any run
  ValidationResult r;
  if (o.interleave > 0) {
    ProgressBar bar(interleave_steps(o), "steps (calibration passes, rounds)");
    r = validate_interleaved(o, workload, profile, bar);
    bar.finish();
  } else {
    r = calibration::validate_workload(workload, profile, validation_options(o));
  }
  print_one(r, format, o.statistic, write_traces(r, traces));
  return 0;
}

}  // namespace

int run_validate_command(const ValidateCommandOptions& o) {
  // A run that fails removes the traces it wrote (run_outputs.hpp).
  RunOutputs traces(o.trace_dir);
  const int code = validate(o, traces);
  traces.keep();
  return code;
}

Command register_validate_command(CLI::App& opsim) {
  auto o = std::make_shared<ValidateCommandOptions>();
  CLI::App* validate = opsim.add_subcommand(
      "validate", "Run a workload for real and simulated on a calibrated profile; compare");
  validate->add_option("workload", o->workload_path, "Workload file (JSON op graph)")
      ->check(CLI::ExistingFile);
  validate->add_option("--suite", o->suite_dir,
                       "Validate every *.json workload in this directory (accuracy table)");
  validate
      ->add_option("--profile", o->profile_path,
                   "Profile YAML (default: ./calibrated.yaml, else a quick calibration)")
      ->check(CLI::ExistingFile);
  add_format_option(*validate, o->format, {"table", "json", "markdown"});
  validate->add_flag("--markdown", o->markdown, "Suite table as Markdown");
  validate
      ->add_option("--trace-dir", o->trace_dir,
                   "Write <workload>.real/.sim/.overlay.json Chrome traces here")
      ->check(writable_directory("traces"));
  validate->add_option("--max-in-flight", o->max_in_flight,
                       "Bound on ops in flight (default: the workload's max_in_flight)");
  validate->add_option("--repeats", o->repeats, "Timed real runs, at least; median reported")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  validate
      ->add_option("--min-time", o->min_real_s,
                   "More timed real runs until they add up to this many seconds")
      ->capture_default_str();
  validate
      ->add_option("--statistic", o->statistic,
                   "median real run, or best (the fastest; quick calibrations take best samples)")
      ->check(CLI::IsMember({"median", "best"}))
      ->capture_default_str();
  validate
      ->add_option("--interleave", o->interleave,
                   "N rounds of real runs, each between two passes measuring what the workload "
                   "uses; each round simulated on the samples beside it; the median round "
                   "reported (0: off)")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  validate
      ->add_option("--rounds", o->rounds,
                   "Suite: N rounds of a fresh calibration then the suite; each workload's "
                   "error over the rounds (median, range)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  validate->add_option("--scratch-dir", o->scratch_dir,
                       "Directory for disk scratch files (default: temp directory)");
  return {validate, [o] { return run_validate_command(*o); }};
}

}  // namespace opsim
