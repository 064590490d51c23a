// Validation: runs a workload file for real on this machine (Scheduler + RealBackend: real
// OpenBLAS GEMM, elementwise loops, memcpy, O_DIRECT disk I/O, busy host dispatch) and
// simulated on a calibrated profile (SimGrid, in a forked child), and compares them: the
// makespan and the busy time per op class (gemm, elementwise, copy, disk_read, ...).
//
//   ValidationOptions options;                       // 3 timed real runs after a warm-up
//   ValidationResult r = validate_workload(workload, profile, options);
//   std::cout << to_json(r).dump(2);                 // {"workload", "real_s", ...}
//   write_validation_traces(r, "traces/");           // <name>.real.json, .sim.json, .overlay.json
//
// The real run reuses one RealBackend for the warm-up and the timed runs, so scratch buffers
// and disk scratch files exist before timing starts; the run with the median makespan is
// reported (with its trace). The executor runs a GEMM of flops F as a square sgemm of side
// cbrt(F / 2), so non-square shapes are timed as the square of equal flops.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/op_graph.hpp"
#include "engine/scheduler.hpp"
#include "engine/trace.hpp"
#include "engine/workload_file.hpp"
#include "experiments/calibration/accuracy.hpp"
#include "hw_models/machine.hpp"

namespace opsim {
class RealBackend;
}

namespace opsim::calibration {

/// Most timed real runs a validation makes, whatever min_real_s asks.
constexpr int kMaxRealRuns = 200;

struct ValidationOptions {
  int repeats = 3;  ///< timed real runs (after one warm-up), at least
  /// More timed runs until their makespans add up to this much (kMaxRealRuns at most): a
  /// 12 ms workload gets ~80 runs, so an occasional 4 ms preemption does not move its median.
  double min_real_s = 0;
  Statistic statistic = Statistic::kMedian;  ///< median run, or the fastest (kBest)
  std::uint32_t max_in_flight = 0;           ///< 0: the workload's "max_in_flight", else none
  std::string scratch_dir;  ///< disk scratch files; empty: the system temp directory
};

struct ClassComparison {
  std::string op_class;
  double real_s = 0;       ///< busy time of the class's ops in the real run, summed
  double simulated_s = 0;  ///< the same in the simulation
  double error = 0;        ///< relative_error(real_s, simulated_s)
};

/// One round of an interleaved validation: its real runs (reduced by the statistic) and the
/// simulation on the calibration samples taken right before and after them.
struct RoundComparison {
  double real_s = 0;
  double simulated_s = 0;
  double error = 0;
  /// The calibration values the round was simulated with (measurement name → value in its
  /// unit), so a round that misses can be traced to what the machine measured then.
  std::vector<std::pair<std::string, double>> measured;
};

struct ValidationResult {
  std::string workload;
  double real_s = 0;       ///< real makespan: the median run's (or the fastest's)
  double simulated_s = 0;  ///< simulated makespan
  double makespan_error = 0;
  std::vector<double> real_samples_s;  ///< every timed real makespan
  /// Run-to-run noise of the real makespans: interquartile range / median. An error below it
  /// is within what the machine itself varies.
  double real_iqr = 0;
  std::vector<ClassComparison> by_op_class;
  Trace real_trace;
  Trace sim_trace;
  std::string disk_note;  ///< non-empty when disk ops could not bypass the page cache
  /// Interleaved validation: every round (the result's own figures are the median round's).
  std::vector<RoundComparison> rounds;
  /// Interleaved validation: all real runs against the simulation on all passes' samples.
  RoundComparison pooled;
};

/// Interleaved validation: -1 or +1 when at least three rounds all missed the same way
/// (simulation short or long), each by more than the real runs' run-to-run IQR; else 0.
/// Noise between the calibration and the runs scatters the rounds' errors around the
/// median; a one-way miss is a difference in how the calibration and the workload meet the
/// machine (a gap in the model, or a host state that the calibration does not see).
int rounds_one_way(const ValidationResult& result);

/// The window a run uses: `option` when non-zero, else the workload's "max_in_flight"
/// (an InputError when it is not a non-negative integer), else 0.
std::uint32_t effective_max_in_flight(const WorkloadFile& workload, std::uint32_t option);

/// Simulates the workload on `profile` in a forked child and returns its trace.
Trace simulate_workload(const WorkloadFile& workload, const Machine& profile,
                        std::uint32_t max_in_flight);
/// Runs a workload for real, again and again on one backend (its scratch memory and disk
/// files made by the first run stay for the next).
class RealWorkloadRunner {
 public:
  RealWorkloadRunner(const WorkloadFile& workload, const Machine& profile,
                     const ValidationOptions& options);
  ~RealWorkloadRunner();
  RealWorkloadRunner(const RealWorkloadRunner&) = delete;
  RealWorkloadRunner& operator=(const RealWorkloadRunner&) = delete;
  Trace run();                    ///< one run, its trace
  std::string disk_note() const;  ///< the executor's O_DIRECT note

 private:
  OpGraph graph_;
  Machine profile_;
  std::string title_;
  SchedulerOptions scheduler_options_;
  std::unique_ptr<RealBackend> backend_;
};

/// Runs the workload for real: a warm-up and `repeats` timed runs; returns every run's
/// trace (the warm-up left out). `disk_note` receives the executor's O_DIRECT note.
std::vector<Trace> run_workload_real(const WorkloadFile& workload, const Machine& profile,
                                     const ValidationOptions& options, std::string* disk_note);
/// Compares a real trace (the median of `real_runs`, or the fastest by `statistic`) with a
/// simulated one.
ValidationResult compare_runs(const std::string& workload, const std::vector<Trace>& real_runs,
                              Trace sim_trace, Statistic statistic = Statistic::kMedian);
/// simulate_workload + run_workload_real + compare_runs. The simulation runs first, before
/// the real run starts its threads, because it forks.
ValidationResult validate_workload(const WorkloadFile& workload, const Machine& profile,
                                   const ValidationOptions& options);

/// Real and simulated lanes interleaved on one time axis: "real <lane>", then "sim <lane>".
Trace overlay_traces(const Trace& real, const Trace& sim);
/// {"workload", "real_s", "simulated_s", "makespan_error", "by_op_class": [{"class",
/// "real_s", "simulated_s", "error"}]}.
nlohmann::json to_json(const ValidationResult& result);
/// Writes <stem>.real.json, <stem>.sim.json and <stem>.overlay.json (Chrome traces) into
/// `dir` (created when missing); stem defaults to the workload name with unsafe characters
/// replaced. Returns the three paths; `on_written(path)` is called as each is complete.
std::vector<std::filesystem::path> write_validation_traces(
    const ValidationResult& result, const std::filesystem::path& dir,
    const std::function<void(const std::filesystem::path&)>& on_written = {});

}  // namespace opsim::calibration
