// The real executor on NVIDIA GPUs: one CUDA stream per scheduler stream of each GPU (compute
// streams and the copy engines), cuBLAS SGEMM and elementwise kernels for compute ops,
// cudaMemcpyAsync from pinned host memory and peer copies for copy ops, and CUDA events for
// start/end times. Completions come back through cudaLaunchHostFunc to a queue that
// run_until_idle() drains on the calling thread.
//
//   std::string why;
//   if (CudaBackend::device_count(&why) == 0) { std::puts(why.c_str()); return; }
//   CudaBackend backend;                 // throws NoGpu when none can be used
//   Scheduler scheduler(machine, graph, backend);
//
// Machine GPUs map to CUDA devices in order (the i-th GPU of the machine is device i). Ops
// run on scratch device memory sized from the op (flops = 2 n^3 for a GEMM, `bytes` for
// the rest); ops with a CudaKernel attached run that instead.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/backend.hpp"

namespace opsim {

/// No usable GPU: the message says why (no driver, no device, CUDA error text).
class NoGpu : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Real work for one op on a GPU: enqueue it on `cuda_stream` (a cudaStream_t) of the
/// current device; do not synchronize.
using CudaKernel = std::function<void(void* cuda_stream)>;

class CudaBackend final : public Backend {
 public:
  /// GPUs the CUDA runtime can use; 0 with the reason in `why` when there are none.
  static int device_count(std::string* why = nullptr);

  /// Throws NoGpu when device_count() is 0.
  CudaBackend();
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  /// Attaches real work to an op (replaces the scratch-memory default).
  void set_kernel(OpId op, CudaKernel kernel);

  std::string_view name() const override { return "real"; }
  void prepare(const Machine& machine, const OpGraph& graph, const StreamTable& streams,
               CompletionSink& sink) override;
  void launch(const OpLaunch& launch) override;
  void run_until_idle() override;
  void run_until(const std::function<bool()>& done) override;
  TimeNs now_ns() const override;
  bool queues_streams_in_order() const override { return true; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace opsim
