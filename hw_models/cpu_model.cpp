#include "hw_models/cpu_model.hpp"

#include <algorithm>

#include "hw_models/log_interpolation.hpp"
#include "hw_models/roofline.hpp"

namespace opsim {

double rate_at_size(const std::vector<MemoryPassRate>& r, double bytes) {
  return rate_interpolated_in_log_size(
      r, bytes, [](const MemoryPassRate& p) { return p.working_set_bytes; },
      [](const MemoryPassRate& p) { return p.bytes_per_s; });
}

double CpuModel::memory_pass_bytes_per_s(double bytes) const {
  if (memory_pass_rates.empty()) return dram.bytes_per_s() * efficiency;
  return rate_at_size(memory_pass_rates, bytes);
}

double CpuModel::op_time_s(double flops, double bytes, double pass_speed, double gemm_speed) const {
  const double streams = std::max(1, compute_streams);
  // Memory-bound passes run at the rate measured for their working set (cache or DRAM); the
  // roofline divides the bandwidth it is given by the efficiency, so undo that here.
  const double memory_bytes_per_s = memory_pass_bytes_per_s(bytes) * pass_speed / efficiency;
  const double roofline_s = roofline_time_s(flops, bytes, peak_flops_per_s() * gemm_speed / streams,
                                            memory_bytes_per_s, 0.0, efficiency);
  if (!(bytes > 0)) return roofline_s;
  const double streaming_s = bytes / (memory_bytes_per_s * efficiency);
  return std::max(roofline_s, dram.first_access_s + streaming_s);
}

double CpuModel::copy_stream_bytes_per_s_for(double bytes) const {
  if (copy_stream_rates.empty()) return copy_stream_bytes_per_s;
  return rate_at_size(copy_stream_rates, bytes);
}

double CpuModel::copy_dram_use_per_byte(double bytes) const {
  if (copies_together_rates.empty()) return 1.0;
  return copies_together_rates.back().bytes_per_s / rate_at_size(copies_together_rates, bytes);
}

}  // namespace opsim
