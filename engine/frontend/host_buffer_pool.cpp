#include "engine/frontend/host_buffer_pool.hpp"

#include <algorithm>

namespace opsim::frontend {

HostBufferPool::HostBufferPool(std::size_t max_cached_bytes)
    : max_cached_bytes_(max_cached_bytes) {}

HostBufferPool::~HostBufferPool() {
  for (auto& [floats, blocks] : free_)
    for (float* block : blocks) delete[] block;
}

HostBufferPool& HostBufferPool::process() {
  // Never destroyed: arrays released during static destruction still find it.
  static auto* pool = new HostBufferPool(std::size_t{1} << 30);
  return *pool;
}

std::shared_ptr<float> HostBufferPool::allocate(std::size_t floats) {
  floats = std::max<std::size_t>(floats, 1);
  float* block = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (auto it = free_.find(floats); it != free_.end() && !it->second.empty()) {
      block = it->second.back();
      it->second.pop_back();
      cached_bytes_ -= floats * sizeof(float);
    }
  }
  if (block == nullptr) block = new float[floats];
  return std::shared_ptr<float>(block, [this, floats](float* p) { release(p, floats); });
}

void HostBufferPool::release(float* block, std::size_t floats) {
  {
    std::lock_guard lock(mutex_);
    if (cached_bytes_ + floats * sizeof(float) <= max_cached_bytes_) {
      free_[floats].push_back(block);
      cached_bytes_ += floats * sizeof(float);
      return;
    }
  }
  delete[] block;
}

std::size_t HostBufferPool::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

}  // namespace opsim::frontend
