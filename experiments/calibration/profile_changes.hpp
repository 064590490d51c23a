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
  std::string name;  ///< as `--set` names it: "cpu0.clock", "disk0.read_iops",
                     ///< "cpu0.memory_pass_rates 8 MiB"
  std::string unit;  ///< "flop/s", "bytes/s", "s", "Hz", "" (a count or a fraction)
  double previous = 0;
  double now = 0;
  double change() const { return previous != 0 ? now / previous - 1 : (now != 0 ? 1 : 0); }
  bool differs() const { return change() > kRepeatableWithin || change() < -kRepeatableWithin; }
};

/// Every calibrated parameter (a table row with a measurement) of the devices and links
/// both profiles have, in table order; list entries by size or core where both have them, a
/// figure that is off (0) in one of them left out. Throws std::invalid_argument for a profile
/// that has no cpu0 and disk0.
std::vector<ParameterChange> profile_changes(const Machine& previous, const Machine& now);

}  // namespace opsim::calibration
