#include "hw_models/cpu_model.hpp"

#include <cmath>

namespace opsim {

double CpuModel::memory_pass_bytes_per_s(double bytes) const {
  const auto& r = memory_pass_rates;
  if (r.empty()) return dram.bytes_per_s() * efficiency;
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

}  // namespace opsim
