// A GPU: peak flops per data type, device memory bandwidth and size, kernel launch latency
// and the number of DMA copy engines (one per direction on most parts).
#pragma once

#include <vector>

namespace opsim {

/// SGEMM's rate measured on a square GEMM of side `n` (2 n^3 flops).
struct GemmRate {
  double n = 0;
  double flops_per_s = 0;
};

struct GpuModel {
  double fp32_flops_per_s = 15.7e12;  ///< V100 SXM2 fp32 peak
  double fp16_flops_per_s = 125e12;   ///< V100 tensor-core peak
  double memory_bytes_per_s = 900e9;  ///< HBM2
  double memory_bytes = 16e9;         ///< device memory size
  double launch_s = 5e-6;             ///< kernel launch latency
  /// Before each copy this GPU's engines drive: the executor's launch of a copy op after its
  /// dependencies completed (calibrated profiles); 0 in the presets, whose copies cost their
  /// links' latency alone.
  double copy_launch_s = 0;
  /// The shortest a dependent op takes, from the end of what it waited for to its own end:
  /// the completion reaching the host, the op's enqueue, its end event (calibrated: 15 us on
  /// an H100 host, where a 64 KB kernel's work is nothing); 0: no floor (presets).
  double dependent_op_min_s = 0;
  /// The shortest an op takes that waited behind its busy stream, which a real stream already
  /// held (the host enqueued it meanwhile): the host's enqueue per op, the pace of a queue of
  /// small kernels (calibrated: 9.7 us there); 0: no floor (presets).
  double queued_op_min_s = 0;
  /// DMA engines; engine 0 drives outbound copies, engine 1 inbound, more serve peer copies
  /// with a stream hint (one per NCCL-style ring). V100-SXM2 reports 6 (asyncEngineCount;
  /// from memory of deviceQuery output, not re-measured here).
  int copy_engines = 6;
  int compute_streams = 1;  ///< in-order compute streams the scheduler uses
  double efficiency = 0.8;  ///< fraction of peak reached by real kernels
  /// SGEMM's rate by size, at increasing n (calibrated profiles, efficiency 1): a small GEMM
  /// does not fill the GPU (an H100 host: 10 TFLOP/s at 512, 35 at 1024, 49 at
  /// 2048). The fp32 peak an fp32 GEMM sees, scaled by efficiency as the peaks are. Empty:
  /// fp32_flops_per_s for every size.
  std::vector<GemmRate> sgemm_rates;

  /// The fp32 peak a GEMM of `flops` sees: the rate of the square GEMM of as many flops,
  /// interpolated in log n between sgemm_rates (the end rates beyond them).
  double sgemm_peak_flops_per_s(double flops) const;
};

}  // namespace opsim
