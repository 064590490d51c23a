#include "hw_models/gpu_model.hpp"

#include <cmath>

#include "hw_models/log_interpolation.hpp"

namespace opsim {

double GpuModel::sgemm_peak_flops_per_s(double flops) const {
  if (sgemm_rates.empty()) return fp32_flops_per_s;
  return rate_interpolated_in_log_size(
      sgemm_rates, std::cbrt(flops / 2.0), [](const GemmRate& r) { return r.n; },
      [](const GemmRate& r) { return r.flops_per_s; });
}

}  // namespace opsim
