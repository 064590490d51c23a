// Host memory for a real run's arrays, reused across arrays and runs by size, as MXNet's
// pooled storage manager does: a fresh block costs the thread that first touches it a page
// fault per 4 KiB, which on a VM can cost ~12 us each (a 1 MB matmul result: 3 ms, as long
// as the matmul). Every op writes its whole output before anything reads it, so a block is
// handed out as it was left, never cleared.
//
//   std::shared_ptr<float> b = HostBufferPool::process().allocate(1 << 18);  // 1 MiB
//   b.reset();                      // back to the pool; the next allocate(1 << 18) reuses it
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace opsim::frontend {

class HostBufferPool {
 public:
  /// Keeps at most `max_cached_bytes` of released blocks; a release beyond it frees. Its
  /// blocks return to it when released, so it must outlive them (process() never dies).
  explicit HostBufferPool(std::size_t max_cached_bytes);
  ~HostBufferPool();
  HostBufferPool(const HostBufferPool&) = delete;
  HostBufferPool& operator=(const HostBufferPool&) = delete;

  /// The one every Context in this process shares (1 GiB cached at most); it outlives them.
  static HostBufferPool& process();

  /// `floats` floats (at least 1), uninitialized or as a released block of that size was
  /// left; released to the pool when the last owner lets go. Any thread may release.
  std::shared_ptr<float> allocate(std::size_t floats);
  std::size_t cached_bytes() const;

 private:
  void release(float* block, std::size_t floats);

  const std::size_t max_cached_bytes_;
  mutable std::mutex mutex_;
  std::map<std::size_t, std::vector<float*>> free_;  // by size in floats
  std::size_t cached_bytes_ = 0;
};

}  // namespace opsim::frontend
