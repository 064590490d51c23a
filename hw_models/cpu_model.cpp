#include "hw_models/cpu_model.hpp"

#include <cmath>

namespace opsim {

double rate_at_size(const std::vector<MemoryPassRate>& r, double bytes) {
  if (r.empty()) return 0;
  if (bytes <= r.front().working_set_bytes) return r.front().bytes_per_s;
  if (bytes >= r.back().working_set_bytes) return r.back().bytes_per_s;
  std::size_t i = 1;
  while (r[i].working_set_bytes < bytes) ++i;
  const MemoryPassRate& lo = r[i - 1];
  const MemoryPassRate& hi = r[i];
  const double t = std::log(bytes / lo.working_set_bytes) /
                   std::log(hi.working_set_bytes / lo.working_set_bytes);
  return lo.bytes_per_s + t * (hi.bytes_per_s - lo.bytes_per_s);
}

double CpuModel::memory_pass_bytes_per_s(double bytes) const {
  if (memory_pass_rates.empty()) return dram.bytes_per_s() * efficiency;
  return rate_at_size(memory_pass_rates, bytes);
}

double CpuModel::copy_stream_bytes_per_s_for(double bytes) const {
  if (copy_stream_rates.empty()) return copy_stream_bytes_per_s;
  return rate_at_size(copy_stream_rates, bytes);
}

}  // namespace opsim
