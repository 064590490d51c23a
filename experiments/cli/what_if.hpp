// What-if edits on a machine, from the command line or the GUI: scale every link's
// bandwidth, or set one field of one device or link ("gpu0-sw0.bandwidth=8GB/s",
// "gpu0.flops=30TFLOPS", a CPU's per-core factors as a list: "cpu0.core_pass_speeds=1.1,0.9").
// Applied before any route is computed.
#pragma once

#include <string>
#include <vector>

#include "hw_models/machine.hpp"

namespace opsim {

struct WhatIf {
  double link_bandwidth_scale = 1.0;
  std::vector<std::string> assignments;  ///< "NAME.FIELD=VALUE"

  bool empty() const { return link_bandwidth_scale == 1.0 && assignments.empty(); }
};

/// Returns a copy of `machine` with the edits applied. Throws InputError naming the
/// assignment and what is wrong (unknown device/link/field, unreadable value).
Machine apply_what_if(const Machine& machine, const WhatIf& what_if);

/// The fields `--set` understands, for --help and error messages.
std::string what_if_fields_help();

}  // namespace opsim
