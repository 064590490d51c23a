// The GPU part of `opsim calibrate`: measures GPU 0 of this host (and the copy to GPU 1 where
// there is one) through the frontend, so with exactly the code a real run uses — arrays in
// pooled device memory, page-locked host arrays, ops on CUDA streams — and times each op
// with the CUDA events the executor records (Scheduler::start_ns/end_ns), not the host clock.
//
// Measured (names start with "gpu", the group CalibrationOptions::only selects):
// - "gpu dependent gemm N": s per cuBLAS SGEMM of N x N x N in a chain of them run as a
//   workload's ops (256 to 4096, 8192 in a full calibration): the profile's SGEMM rate by size
//   is 2 N^3 over this less the launch latency (small GEMMs do not fill the GPU; cuBLAS's host
//   work per call counts as the op's);
// - "gpu elementwise": add over 64 M floats, bytes touched (3 arrays) per second;
// - "gpu launch gap": in a chain of dependent SGEMMs of 4096 (2048 quick), from one's end to
//   the next one's start (completion to scheduler, launch, enqueue), s; reported;
// - "gpu dependent small kernels", "gpu queued small kernels", "gpu dependent 32 MB passes":
//   s per op of 64 KB passes chained / all ready at once, and of chained 32 MB passes, run as
//   a workload's ops (scheduler, executor): the dependent-op floor, the host's enqueue pace,
//   and the launch latency (the 32 MB pass's period less its work at the elementwise rate);
// - "gpu host to device" / "gpu device to host": 64 MiB pinned copies, bytes/s;
// - "gpu copies both directions": one each way at once, each one's bytes/s;
// - "gpu host to device pageable" / "gpu device to host pageable": the same with ordinary
//   host memory (blocking copies, host clock);
// - "gpu copy latency" / "gpu copy latency pageable": a 4-byte copy to the GPU, s;
// - "gpu peer copy" / "gpu peer copy latency": GPU 0 to GPU 1 (two GPUs or more).
// The profile uses the pinned figures (what the executor's arrays use); the pageable ones are
// reported beside them.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/calibration/measurement_key.hpp"
#include "hw_models/machine.hpp"

namespace opsim::calibration {

/// Bytes of the chained passes "gpu dependent 32 MB passes" times: long enough for their work
/// to outlast the host's per-op path, short enough for the launch latency to show.
inline constexpr double kGpuLaunchPassBytes = 32e6;

/// SGEMM's rate at side `n` from a chain's period: 2 n^3 flops over the period less the
/// launch latency, which the model adds to a dependent op itself (the work taken as half the
/// period at least, should a noisy launch latency reach the period).
GemmRate sgemm_rate_from_chain(std::size_t n, double period_s, double launch_s);

/// One parameter to measure: each call of `sample` returns one sample in `unit`.
struct CalibrationItem {
  MeasurementKey key;  ///< what it measures: its name and unit follow from this
  std::function<double()> sample;
};

/// The GPU items for this host, sharing one frontend Context; empty, with the reason in
/// `why`, when no GPU is usable. `quick`: smaller GEMMs; `min_s`: time per sample at least.
std::vector<CalibrationItem> gpu_calibration_items(bool quick, double min_s, std::string* why);

/// What the profile's GPUs are built from (all alike: GPU 0 is measured).
struct GpuInputs {
  int count = 0;                      ///< GPUs of the profile; 0: none
  double gemm_flops_per_s = 0;        ///< the best SGEMM rate over the sizes
  std::vector<GemmRate> sgemm_rates;  ///< each size's SGEMM rate, at increasing n
  double memory_bytes_per_s = 0;      ///< elementwise, bytes touched per second
  double memory_bytes = 0;            ///< device memory
  double launch_s = 0;                ///< a dependent op's launch latency (before its work)
  double dependent_op_min_s = 0;      ///< the shortest a dependent op takes; 0: not measured
  double queued_op_min_s = 0;         ///< the host's enqueue pace per op; 0: not measured
  double host_to_device_bytes_per_s = 0;
  double device_to_host_bytes_per_s = 0;
  double copy_latency_s = 0;
  double both_directions_bytes_per_s = 0;  ///< each way, copies both ways at once; 0: not measured
  double peer_bytes_per_s = 0;             ///< 0: not measured (one GPU)
};

/// Adds `in.count` GPUs to `machine` (unsealed, with cpu0): gpu<i> behind a PCIe switch
/// whose links carry the measured pinned copy rate; with a measured peer rate well above it
/// (NVLink), a direct link between every pair of GPUs.
void add_calibrated_gpus(Machine& machine, const GpuInputs& in);

/// The inverse of add_calibrated_gpus() on a profile (count 0 when it has no GPU).
GpuInputs calibrated_gpu_inputs(const Machine& profile);

}  // namespace opsim::calibration
