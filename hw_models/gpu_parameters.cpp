#include "hw_models/model_parameters.hpp"

namespace opsim {
namespace {

using enum ParameterUnit;
using M = MeasurementId;
using G = GpuModel;

const GpuParameter kGpuParameters[] = {
    {.key = "fp32_peak",
     .member = &G::fp32_flops_per_s,
     .unit = kComputeRate,
     .doc = "fp32 peak (sgemm_rates keep their shape when `--set` changes it)",
     .measured_by = M::kGpuDependentGemm},
    {.key = "fp16_peak",
     .member = &G::fp16_flops_per_s,
     .unit = kComputeRate,
     .doc = "fp16 (tensor-core) peak"},
    {.key = "memory_bandwidth",
     .member = &G::memory_bytes_per_s,
     .unit = kBandwidth,
     .doc = "device memory bandwidth",
     .measured_by = M::kGpuElementwise},
    {.key = "memory_size",
     .member = &G::memory_bytes,
     .unit = kSize,
     .doc = "device memory: a buffer larger than this is refused"},
    {.key = "launch_latency",
     .member = &G::launch_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "kernel launch latency before each op",
     .measured_by = M::kGpuDependentPasses},
    {.key = "copy_launch_latency",
     .member = &G::copy_launch_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "launch of a copy op this GPU's engines drive",
     .measured_by = M::kGpuCopyLatency,
     .written_unless = 0.0},
    {.key = "min_dependent_op",
     .member = &G::dependent_op_min_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "shortest a dependent op takes from its dependency's end",
     .measured_by = M::kGpuDependentSmallKernels,
     .written_unless = 0.0},
    {.key = "min_queued_op",
     .member = &G::queued_op_min_s,
     .unit = kDuration,
     .zero_allowed = true,
     .doc = "shortest an op takes that queued behind its busy stream",
     .measured_by = M::kGpuQueuedSmallKernels,
     .written_unless = 0.0},
    {.key = "copy_engines",
     .member = &G::copy_engines,
     .unit = kCount,
     .min = 1,
     .max = 64,
     .doc = "DMA engines: 0 outbound, 1 inbound, more for peer copies"},
    {.key = "compute_streams",
     .member = &G::compute_streams,
     .unit = kCount,
     .min = 1,
     .max = 1024,
     .doc = "in-order compute streams the scheduler uses"},
    {.key = "efficiency",
     .member = &G::efficiency,
     .unit = kFraction,
     .doc = "fraction of peak real kernels reach"},
    {.key = "sgemm_rates",
     .member = &G::sgemm_rates,
     .unit = kGemmRates,
     .doc = "SGEMM's rate by square size n",
     .measured_by = M::kGpuDependentGemm},
};

}  // namespace

std::span<const GpuParameter> gpu_parameters() {
  return kGpuParameters;
}

}  // namespace opsim
