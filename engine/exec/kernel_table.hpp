// The side table that gives ops real data. engine/op.hpp stays compact for the simulator
// (two million ops for a 1024-GPU ring); a real run attaches, per OpId, a kernel closure
// that captures its buffers: a Kernel for an op on the host, a StreamKernel for one on a
// GPU stream. The backend moves the closure out when the op launches, so the table only
// ever holds work not yet started.
//
//   KernelTable kernels;
//   OpId id = graph.add(gemm_op, "gemm0");
//   kernels.set(id, [a, b, c] { cpu_sgemm(*a, *b, *c); });
//   RealBackend backend(&kernels);
#pragma once

#include <functional>
#include <vector>

#include "engine/op.hpp"

namespace opsim {

/// Runs on a backend worker thread; must only touch the data it captured.
using Kernel = std::function<void()>;
/// An op's real work on a GPU: enqueue it on `gpu_stream` (a cudaStream_t whose device is
/// current); never synchronize. Runs on the thread that launches the op.
using StreamKernel = std::function<void(void* gpu_stream)>;

class KernelTable {
 public:
  /// Attaches `kernel` to `op`; replaces any kernel attached before. Not thread-safe: while
  /// ops run, call under the scheduler's lock() (backends take() kernels under it).
  void set(OpId op, Kernel kernel) {
    if (kernels_.size() <= op) kernels_.resize(static_cast<std::size_t>(op) + 1);
    kernels_[op] = std::move(kernel);
  }
  /// Removes and returns the kernel of `op` (empty when none was attached).
  Kernel take(OpId op) {
    Kernel kernel;
    if (op < kernels_.size()) kernel.swap(kernels_[op]);
    return kernel;
  }
  bool has(OpId op) const { return op < kernels_.size() && static_cast<bool>(kernels_[op]); }

  /// Attaches GPU work to `op`; as set().
  void set_stream_kernel(OpId op, StreamKernel kernel) {
    if (stream_kernels_.size() <= op) stream_kernels_.resize(static_cast<std::size_t>(op) + 1);
    stream_kernels_[op] = std::move(kernel);
  }
  bool has_stream_kernel(OpId op) const {
    return op < stream_kernels_.size() && static_cast<bool>(stream_kernels_[op]);
  }
  StreamKernel take_stream_kernel(OpId op) {
    StreamKernel kernel;
    if (op < stream_kernels_.size()) kernel.swap(stream_kernels_[op]);
    return kernel;
  }

 private:
  std::vector<Kernel> kernels_;
  std::vector<StreamKernel> stream_kernels_;
};

}  // namespace opsim
