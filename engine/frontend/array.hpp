// The asynchronous array API: an Array is a handle to a matrix on a device whose value may
// not be computed yet. Every operation on arrays returns at once; the Context records it as
// an op and dispatches it through the shared Scheduler. Blocking calls (wait_to_read,
// waitall, to_host, item) are the only points where the program waits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/op.hpp"

namespace opsim::frontend {

/// A device as a program names it: the i-th CPU or the i-th GPU of the machine.
struct DeviceRef {
  DeviceKind kind = DeviceKind::kCpu;
  std::uint32_t index = 0;
  bool operator==(const DeviceRef&) const = default;
};
inline DeviceRef cpu(std::uint32_t index = 0) {
  return {DeviceKind::kCpu, index};
}
inline DeviceRef gpu(std::uint32_t index = 0) {
  return {DeviceKind::kGpu, index};
}

struct ContextImpl;

/// Row-major float32 storage of a real run: host memory (page-locked when the run has
/// GPUs, so copies are DMA) or a GPU's memory. Shared by the handle and by the kernels that
/// still have to read or write it, so it lives until the last of them is done.
struct Buffer {
  std::shared_ptr<float> memory;
  std::size_t size = 0;  ///< floats
  int gpu = -1;          ///< the CUDA device holding it; -1: host memory
  float* data() const { return memory.get(); }
};

/// What a handle knows: where the array lives, its shape, its storage, and which ops touch
/// it (for read/write dependency tracking).
struct ArrayState {
  std::shared_ptr<ContextImpl> context;
  DeviceId device = kNoDevice;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::shared_ptr<Buffer> buffer;  // null when recording (no data)
  static constexpr OpId kNone = UINT32_MAX;
  OpId last_writer = kNone;   // the op that writes the current value
  std::vector<OpId> readers;  // ops reading the current value, since last_writer
  ~ArrayState();              // issues a free op after the last access

  std::size_t size() const { return rows * cols; }
  double bytes() const { return static_cast<double>(size() * sizeof(float)); }
};

class Array {
 public:
  Array() = default;
  explicit Array(std::shared_ptr<ArrayState> state) : state_(std::move(state)) {}

  std::size_t rows() const { return state_->rows; }
  std::size_t cols() const { return state_->cols; }
  DeviceId device() const { return state_->device; }
  bool valid() const { return static_cast<bool>(state_); }
  /// The op that writes the current value (ArrayState::kNone for none yet).
  OpId producer() const { return state_->last_writer; }
  ArrayState& state() const { return *state_; }

 private:
  std::shared_ptr<ArrayState> state_;
};

}  // namespace opsim::frontend
