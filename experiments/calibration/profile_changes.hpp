// Two calibrations of one machine, parameter by parameter: what `opsim calibrate --against
// PREVIOUS` prints, so that repeatability is checked on the profile's own numbers (the
// acceptance of a calibration: two runs agree within 5 % on each parameter, or the tool names
// the ones that do not).
#pragma once

#include <string>
#include <vector>

#include "hw_models/machine.hpp"

namespace opsim::calibration {

/// Relative change beyond which two calibrations of a parameter are said to differ.
inline constexpr double kRepeatableWithin = 0.05;

struct ParameterChange {
  std::string name;  ///< "gemm per stream", "disk random read", "gpu host to device", ...
  std::string unit;  ///< "flop/s", "bytes/s", "s", "" (a count)
  double previous = 0;
  double now = 0;
  double change() const { return previous != 0 ? now / previous - 1 : (now != 0 ? 1 : 0); }
  bool differs() const { return change() > kRepeatableWithin || change() < -kRepeatableWithin; }
};

/// Every parameter the calibrated profiles `previous` and `now` were built from (see
/// profile_inputs()), in a fixed order; memory-pass rates by working set where both have the
/// set, GPU figures where both have GPUs. Throws std::invalid_argument for a profile that
/// has no cpu0 and disk0.
std::vector<ParameterChange> profile_changes(const Machine& previous, const Machine& now);

}  // namespace opsim::calibration
