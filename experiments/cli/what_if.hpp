// What-if edits on a machine, from the command line or the GUI: scale every link's
// bandwidth, or set one parameter of one device or link by its topology-file key
// ("gpu0-sw0.bandwidth=8GB/s", "gpu0.fp32_peak=30TFLOPS", "cpu0.dram.first_access=200ns",
// a list as in a file: "cpu0.core_pass_speeds=1.1,0.9"). Applied before any route is computed.
#pragma once

#include <string>
#include <vector>

#include "hw_models/machine.hpp"

namespace opsim {

struct WhatIf {
  double link_bandwidth_scale = 1.0;
  std::vector<std::string> assignments;  ///< "NAME.KEY=VALUE", KEY as in a topology file

  bool empty() const { return link_bandwidth_scale == 1.0 && assignments.empty(); }
};

/// Returns a copy of `machine` with the edits applied. Throws InputError naming the
/// assignment and what is wrong (unknown device/link/key, with the closest valid key;
/// a value the topology file would refuse).
Machine apply_what_if(const Machine& machine, const WhatIf& what_if);

/// The keys `--set` understands, by kind, for --help and error messages.
std::string what_if_fields_help();

}  // namespace opsim
