// Kernel time from a roofline: launch latency plus the larger of compute time and
// memory time, both at `efficiency` of peak.
#pragma once

#include <algorithm>

namespace opsim {

inline double roofline_time_s(double flops, double bytes, double peak_flops_per_s,
                              double memory_bytes_per_s, double launch_s, double efficiency) {
  const double compute_s = flops / (peak_flops_per_s * efficiency);
  const double memory_s = bytes / (memory_bytes_per_s * efficiency);
  return launch_s + std::max(compute_s, memory_s);
}

}  // namespace opsim
