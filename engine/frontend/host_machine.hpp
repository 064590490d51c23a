// The machine a real run executes on, described for the scheduler: this host's CPU (cores
// from the OS), its GPUs when the CUDA backend sees any, and a local disk for disk ops.
#pragma once

#include "hw_models/machine.hpp"

namespace opsim::frontend {

struct HostMachineOptions {
  /// In-order compute streams on the CPU: ops that run at once, each with
  /// hardware threads / streams BLAS threads. 2 lets independent ops overlap.
  int cpu_compute_streams = 2;
  /// GPUs to describe; negative: as many as gpu_runtime() can use (0 without CUDA or a GPU).
  int gpus = -1;
};

Machine host_machine(const HostMachineOptions& options = {});

}  // namespace opsim::frontend
