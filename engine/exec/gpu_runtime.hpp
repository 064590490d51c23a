// GPUs for the real executor, with no CUDA type in sight: the real backend and the frontend
// build the same with or without the CUDA toolkit, and ask gpu_runtime() at run time. The
// CUDA implementation (cuda_runtime.cpp) gives device memory from a pool, stream-ordered
// kernels (cuBLAS SGEMM, elementwise, sum, fill, copies between any two memories) and
// GpuStreams, which runs a scheduler's GPU streams as CUDA streams and reports each op's
// start and end from CUDA events, on a thread of its own. It is a plug-in (libopsim_cuda.so)
// that gpu_runtime() loads only where an NVIDIA driver is installed: loading cuBLAS costs
// ~0.1 s per process, which every run on a host without a GPU would otherwise pay.
//
//   std::string why;
//   std::shared_ptr<GpuRuntime> gpus = gpu_runtime(&why);  // null: why says what is missing
//   if (!gpus) std::puts(why.c_str());
//
// The i-th GPU of a Machine is CUDA device i.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/exec/kernel_table.hpp"
#include "engine/op.hpp"
#include "engine/stream_table.hpp"  // StreamIndex

namespace opsim {

/// No usable GPU: the message says why (no CUDA in this build, no driver, no device).
class NoGpu : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Receives a GPU op's completion: its start and end on std::chrono::steady_clock (ns since
/// that clock's epoch), and what went wrong if it failed.
using GpuCompletion = std::function<void(OpId op, std::int64_t start_steady_ns,
                                         std::int64_t end_steady_ns, std::exception_ptr error)>;

/// Where a scheduler's streams and a machine's devices are in CUDA terms: the CUDA device of
/// each StreamIndex and of each DeviceId (-1: not a GPU).
struct GpuPlacement {
  std::vector<int> stream_gpu;
  std::vector<int> device_gpu;
};

/// A scheduler's GPU streams as CUDA streams (created on first use). Destroying it waits for
/// every enqueued op to complete and be reported.
class GpuStreams {
 public:
  virtual ~GpuStreams() = default;
  /// Enqueues `op` (device resolved) on the CUDA stream for `stream`: `kernel`, or, when it
  /// is empty, scratch work the size of the op (a GEMM of flops = 2n^3, a pass over `bytes`,
  /// a copy of `bytes` between the op's two devices). The completion comes later, on the
  /// runtime's thread; `kernel` is kept alive until then (it may own the op's buffers).
  /// Throws when the op cannot be enqueued; nothing is reported for it then.
  virtual void enqueue(OpId id, const Op& op, StreamIndex stream, StreamKernel kernel) = 0;
};

class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;
  virtual int device_count() const = 0;
  /// "NVIDIA H100 80GB HBM3", as the driver names device `gpu`.
  virtual std::string device_name(int gpu) const = 0;
  /// Device memory of `gpu`, bytes.
  virtual double memory_bytes(int gpu) const = 0;

  // --- memory: pooled; returned to the pool when the last shared_ptr copy is dropped ----
  virtual std::shared_ptr<float> allocate_device(int gpu, std::size_t floats) = 0;
  /// Page-locked host memory, so that copies to and from GPUs are asynchronous DMA.
  virtual std::shared_ptr<float> allocate_pinned_host(std::size_t floats) = 0;
  /// Blocking copy between any two memories (unified addressing), e.g. a finished GPU array
  /// to the host.
  virtual void copy_now(float* dst, const float* src, std::size_t floats) = 0;

  // --- stream-ordered work, enqueued on `stream` (a StreamKernel's argument) -------------
  /// The values cpu::fill_random gives for the same seed.
  virtual void fill_random(float* out, std::size_t n, std::uint64_t seed, void* stream) = 0;
  virtual void fill(float* out, std::size_t n, float value, void* stream) = 0;
  /// Row-major c[m x n] = op(a)[m x k] * op(b)[k x n] with cuBLAS on device `gpu`.
  virtual void sgemm(int gpu, const float* a, const float* b, float* c, std::size_t m,
                     std::size_t n, std::size_t k, bool transpose_a, bool transpose_b,
                     void* stream) = 0;
  virtual void add(const float* a, const float* b, float* out, std::size_t n, void* stream) = 0;
  virtual void mul(const float* a, const float* b, float* out, std::size_t n, void* stream) = 0;
  /// y += alpha * x.
  virtual void axpy(float alpha, const float* x, float* y, std::size_t n, void* stream) = 0;
  /// out[0] = the sum of x[0..n).
  virtual void sum(const float* x, std::size_t n, float* out, void* stream) = 0;
  /// Between any two memories: host (pinned or not), this GPU, a peer GPU.
  virtual void copy(float* dst, const float* src, std::size_t floats, void* stream) = 0;

  // --- execution ---------------------------------------------------------------------------
  /// Runs the GPU streams of `placement`; every completion goes to `done`.
  virtual std::unique_ptr<GpuStreams> open_streams(GpuPlacement placement, GpuCompletion done) = 0;
};

/// The process's GPU runtime (opened once): CUDA when this build has it and a GPU is usable;
/// otherwise null, with the reason in `why`.
std::shared_ptr<GpuRuntime> gpu_runtime(std::string* why = nullptr);

}  // namespace opsim

/// What the plug-in exports: a new runtime, or null with the reason in `why`.
extern "C" opsim::GpuRuntime* opsim_open_cuda_runtime(std::string* why);

namespace opsim {}  // namespace opsim
