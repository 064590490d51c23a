// How long an op holds a GPU stream, its launch included. An op that became ready only when
// its stream could take it (a dependent op) waits out the launch latency first and takes at
// least the GPU's dependent-op floor. One that waited behind its busy stream was enqueued by
// the host meanwhile, as a real CUDA stream queues it: the wait hides its launch latency, and
// the host's enqueue pace bounds how fast such ops follow each other. Measured on an H100 host
// (one lent H100 80GB HBM3): a chain of 64 KB kernels ran at 15.4 us per kernel, of 32 MB ones at 22.2 (11.4
// of it work), and 200 queued 4 MB kernels at 9.7 us each against 1.4 us of work.
#pragma once

#include <algorithm>

#include "hw_models/gpu_model.hpp"

namespace opsim {

/// What is left of a launch latency of `launch_s` after an op waited `waited_s` for its
/// stream (or copy engine), the host having enqueued it meanwhile. Copies use it alone: their
/// floors are not modelled (a flow's length cannot be bounded from below).
inline double launch_left_s(double launch_s, double waited_s) {
  return std::max(0.0, launch_s - waited_s);
}

/// Seconds a kernel of `work_s` (its roofline time without the launch) holds a stream of
/// `gpu`, having waited `waited_s` for it after becoming ready.
inline double gpu_op_time_s(const GpuModel& gpu, double work_s, double waited_s) {
  if (waited_s > 0)
    return std::max(launch_left_s(gpu.launch_s, waited_s) + work_s, gpu.queued_op_min_s);
  return std::max(gpu.launch_s + work_s, gpu.dependent_op_min_s);
}

}  // namespace opsim
