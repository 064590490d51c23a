// Host arrays' memory: reused by size, bounded, released from any thread.
#include "engine/frontend/host_buffer_pool.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace opsim::frontend {
namespace {

TEST(HostBufferPool, AReleasedBlockServesTheNextArrayOfItsSize) {
  HostBufferPool pool(1 << 20);
  std::shared_ptr<float> a = pool.allocate(1000);
  float* const first = a.get();
  a.get()[999] = 7.0f;
  a.reset();
  EXPECT_EQ(pool.cached_bytes(), 4000u);
  std::shared_ptr<float> other = pool.allocate(999);  // another size: a block of its own
  EXPECT_NE(other.get(), first);
  std::shared_ptr<float> b = pool.allocate(1000);
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(b.get()[999], 7.0f);  // handed out as it was left: ops overwrite their outputs
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(HostBufferPool, KeepsNoMoreThanItsBoundAndTakesReleasesFromAnyThread) {
  HostBufferPool pool(8000);  // two blocks of 1000 floats
  std::shared_ptr<float> a = pool.allocate(1000), b = pool.allocate(1000), c = pool.allocate(1000);
  std::thread([&] {
    a.reset();
    b.reset();
    c.reset();  // beyond the bound: freed, not kept
  }).join();
  EXPECT_EQ(pool.cached_bytes(), 8000u);
  EXPECT_NE(pool.allocate(0), nullptr);  // zero floats: still a block
}

}  // namespace
}  // namespace opsim::frontend
