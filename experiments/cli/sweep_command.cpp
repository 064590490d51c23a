#include "experiments/cli/sweep_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "common/input_error.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/plot_command.hpp"
#include "experiments/cli/sweep_journal.hpp"
#include "experiments/cli/sweep_merge.hpp"
#include "experiments/cli/sweep_mpi.hpp"
#include "experiments/cli/sweep_run.hpp"

namespace opsim {
namespace {

constexpr int kInterruptedExitBase = 128;  // as a shell reports a signal: 130 SIGINT, 143 SIGTERM

SweepShard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  char* end = nullptr;
  const unsigned long index = std::strtoul(text.c_str(), &end, 10);
  const bool index_ok = slash != std::string::npos && end == text.c_str() + slash;
  const unsigned long count = index_ok ? std::strtoul(text.c_str() + slash + 1, &end, 10) : 0;
  if (!index_ok || *end != '\0' || count < 1 || count > 1'000'000 || index < 1 || index > count)
    throw InputError("--shard: '" + text + "' is not I/N with 1 <= I <= N <= 1000000 (e.g. 2/8)");
  return {index - 1, count};
}

int finish_local_sweep(const SweepOptions& options, SweepJournal& journal, const SweepTally& tally,
                       int stop_signal) {
  const std::string summary = tally.summary(journal);
  if (stop_signal != 0) {
    std::cerr << "opsim: sweep stopped by signal " << stop_signal << ": " << summary
              << (options.out_path.empty() ? "\n" : "; rerun the same command to resume\n");
    if (options.out_path.empty()) journal.finish();  // stdout: what finished, in grid order
    return kInterruptedExitBase + stop_signal;
  }
  journal.finish();
  plot_sweep(options);  // failed points are rows too: the chart skips and counts them
  tally.throw_first_failure(journal);  // one line: the first failure, then the summary
  std::cerr << "sweep: " << summary
            << (options.out_path.empty() ? "" : "; wrote " + options.out_path) << "\n";
  return 0;
}

PlotOptions plot_options(const SweepOptions& options) {
  PlotOptions plot;
  plot.csv_path = options.out_path;
  plot.out_path = options.plot_path;
  return plot;
}

}  // namespace

void plot_sweep(const SweepOptions& options) {
  if (!options.plot_path.empty()) run_plot(plot_options(options));
}

void report_resume(const SweepPlan& plan, const std::vector<std::size_t>& todo) {
  const std::size_t done = plan.selected.size() - todo.size();
  if (done > 0)
    std::cerr << "sweep: " << done << " of " << plan.selected.size() << " points done, resuming\n";
}

bool mpi_launch_detected() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

int run_sweep(const SweepOptions& options) {
  const SweepShard shard = parse_shard(options.shard);
  if (!options.plot_path.empty()) {  // refused before the work, not after it
    if (options.out_path.empty())
      throw InputError("--plot needs --out: the chart is drawn from that CSV");
    try {
      check_plot_options(plot_options(options));
    } catch (const InputError& e) {  // opsim plot names its image --out; here it is --plot
      std::string what = e.what();
      if (what.rfind("--out ", 0) == 0) what.replace(0, 5, "--plot");
      throw InputError(what);
    }
  }
  const SweepPlan plan = plan_sweep(load_sweep_spec(options.spec_path), shard);
  if (mpi_launch_detected()) {
#ifdef OPSIM_HAVE_MPI
    return run_sweep_mpi(plan, options);
#else
    throw InputError(
        "this opsim was built without MPI (CMake found no MPI); run the sweep "
        "without mpirun, or rebuild with libopenmpi-dev installed");
#endif
  }
  return run_sweep_locally(plan, options);
}

int run_sweep_locally(const SweepPlan& plan, const SweepOptions& options) {
  StopOnSignal stop_on_signal;
  SweepJournal journal(options.out_path, plan.header, plan.keys, plan.fingerprint, options.restart);
  const std::vector<std::size_t> todo = points_to_run(plan, journal);
  report_resume(plan, todo);
  SweepTally tally(plan);
  const int stop_signal =
      run_points_locally(plan, todo, journal, tally, options.parallel, options.grace_s);
  return finish_local_sweep(options, journal, tally, stop_signal);
}

Command register_sweep_command(CLI::App& opsim) {
  auto options = std::make_shared<SweepOptions>();
  auto merge = std::make_shared<SweepMergeOptions>();
  CLI::App* sweep = opsim.add_subcommand(
      "sweep", "Run every point of a sweep spec (one process each) to CSV; rerun to resume");
  sweep->add_option("spec", options->spec_path, "Sweep spec (YAML)")->check(CLI::ExistingFile);
  sweep->add_option("--out,-o", options->out_path, "CSV file (default: stdout, no resume)")
      ->check(writable_file("the results"));
  CLI::Option* jobs = add_jobs_option(*sweep, options->parallel);
  sweep->add_flag("--restart", options->restart,
                  "Start over: replace the rows --out holds (another sweep's too)");
  sweep
      ->add_option("--shard", options->shard,
                   "I/N: run every N-th point from the I-th (1-based) into its own --out")
      ->capture_default_str();
  sweep
      ->add_option("--grace", options->grace_s,
                   "Seconds running points may finish after SIGINT/SIGTERM before they are "
                   "killed")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  sweep->add_option("--plot", options->plot_path,
                    "At the end, draw --out's results into this PNG or SVG (as `opsim plot`)");
  CLI::App* merge_command = sweep->add_subcommand(
      "merge", "Join the CSVs of one sweep's shards into one, reporting missing points");
  merge_command->add_option("files", merge->inputs, "Shard CSVs")
      ->required()
      ->check(CLI::ExistingFile);
  merge_command->add_option("--out,-o", merge->out_path, "Merged CSV")
      ->required()
      ->check(writable_file("the merged results"));
  sweep->require_subcommand(0, 1);
  return {sweep, [options, merge, merge_command, jobs] {
            options->jobs_given = jobs->count() > 0;
            if (merge_command->parsed()) return run_sweep_merge(*merge);
            if (options->spec_path.empty())
              throw InputError("sweep: a SPEC is required (opsim sweep SPEC -o FILE)");
            return run_sweep(*options);
          }};
}

}  // namespace opsim
