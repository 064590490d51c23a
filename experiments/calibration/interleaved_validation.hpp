// Validation with the calibration interleaved: on a shared machine the host's speed moves
// over seconds (other tenants, sibling hyperthreads), so a profile measured minutes before a
// run describes another machine. Here a workload's real runs come in rounds, each between
// two calibration passes over the parameters its ops use; each round is simulated on the
// samples taken beside it, and the result is the round with the median error.
//
//   InterleavedOptions options;              // 5 rounds; options.validation: repeats, ...
//   ValidationResult r = validate_interleaved(workload, base_profile, options);
//   r.rounds;                                // every round's real, simulated and error
//
// `base_profile` gives what the workload does not use (and the machine its real runs are
// scheduled on); the samples are machine measurements (calibrate's), never fitted to the
// workload's times.
#pragma once

#include <cstddef>
#include <functional>

#include "experiments/calibration/validation.hpp"

namespace opsim::calibration {

/// Untimed real runs at the start of each round add up to this much at least (one run where
/// a run is longer): as long as a full calibration pass warms each core before timing it.
inline constexpr double kRoundWarmUpS = 0.1;

struct InterleavedOptions {
  int rounds = 5;  ///< slices of real runs, each between two calibration passes
  /// repeats and min_real_s count over all rounds (spread evenly); statistic reduces a
  /// round's runs and its two calibration samples.
  ValidationOptions validation;
  bool quick_calibration = false;  ///< the calibration's quick sizes (tests)
  /// After each calibration pass and each round of real runs: (done, total) steps.
  std::function<void(std::size_t, std::size_t)> on_progress;
};

/// Throws std::invalid_argument when rounds < 1.
ValidationResult validate_interleaved(const WorkloadFile& workload, const Machine& base_profile,
                                      const InterleavedOptions& options);

}  // namespace opsim::calibration
