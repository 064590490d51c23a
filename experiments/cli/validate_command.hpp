// `opsim validate`: runs a workload file for real and simulated on a calibrated profile and
// reports the makespan error and real vs simulated busy time per op class; `--suite DIR`
// does it for every *.json in DIR and prints the accuracy table (median and worst error).
#pragma once

#include <cstdint>
#include <string>

#include "experiments/cli/command.hpp"

namespace opsim {

struct ValidateCommandOptions {
  std::string workload_path;  ///< one workload (or empty with --suite)
  std::string suite_dir;      ///< every *.json workload in this directory
  /// Profile YAML; empty: ./calibrated.yaml when it exists, else a quick calibration.
  std::string profile_path;
  std::string format = "table";  ///< table, json or markdown (suite table)
  bool markdown = false;         ///< --markdown: same as --format markdown
  std::string trace_dir;         ///< <workload>.real/.sim/.overlay.json written here
  std::uint32_t max_in_flight = 0;
  int repeats = 5;          ///< timed real runs per workload (after a warm-up), at least
  double min_real_s = 1.0;  ///< and more until their makespans add up to this
  std::string scratch_dir;
  /// N > 0: each workload's real runs in N rounds, each between two calibration passes over
  /// the parameters its ops use; each round simulated on the samples beside it; the median
  /// round reported. A shared machine's changing speed then hits both sides alike.
  int interleave = 0;
  /// median: the median real run (and median calibration samples for quick calibrations);
  /// best: the fastest run and the best samples, the least disturbed by other work.
  std::string statistic = "median";
  /// Suite: this many rounds, each a fresh calibration (as `opsim calibrate`; with --profile,
  /// that profile every round) and then the suite; reports each workload's error over the
  /// rounds (median and range). 1: one suite run, its table.
  int rounds = 1;
};

int run_validate_command(const ValidateCommandOptions& options);

/// Adds `opsim validate` and its options to `opsim`.
Command register_validate_command(CLI::App& opsim);

}  // namespace opsim
