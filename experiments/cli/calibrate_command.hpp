// `opsim calibrate`: measures this machine (GEMM, memcpy, DRAM latency, O_DIRECT disk,
// dispatch cost) and writes a profile YAML that --topology / --profile accept.
#pragma once

#include <string>
#include <vector>

#include "experiments/calibration/accuracy.hpp"
#include "experiments/cli/command.hpp"
#include "hw_models/machine.hpp"

namespace opsim {

struct CalibrateCommandOptions {
  std::string out_path = "calibrated.yaml";  ///< profile written here (atomically)
  bool quick = false;                        ///< ~10 s: smaller sizes, 3 repeats
  int repeats = 0;                           ///< 0: 5 (3 with --quick)
  std::string format = "table";              ///< table or json
  std::string scratch_dir;                   ///< disk scratch; empty: temp directory
  std::string statistic = "median";          ///< median or best sample per measurement
  /// A previous profile of this machine: each parameter is compared with it and those more
  /// than 5 % apart are named (repeatability). Empty: none.
  std::string against;
};

int run_calibrate_command(const CalibrateCommandOptions& options);

/// Calibrates (quick or not) with a progress bar on stderr and returns the profile.
Machine calibrate_with_progress(bool quick, int repeats, const std::string& scratch_dir,
                                calibration::Statistic statistic);
/// `base` with the calibration groups in `groups` measured again (full sizes and repeats),
/// with a progress bar on stderr.
Machine calibrate_groups(const Machine& base, const std::vector<std::string>& groups,
                         const std::string& scratch_dir, calibration::Statistic statistic);
/// Parses --statistic; throws InputError naming the flag.
calibration::Statistic statistic_option(const std::string& text);

/// Adds `opsim calibrate` and its options to `opsim`.
Command register_calibrate_command(CLI::App& opsim);

}  // namespace opsim
