// The next block of a growing array, prepared by a helper thread: it comes back zeroed and
// writable, only when its size is the one asked, and a forked child never waits for its
// parent's helper.
#include "engine/large_blocks.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace opsim {
namespace {

bool all_zero(const char* block, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; i += 997)
    if (block[i] != 0) return false;
  return block[bytes - 1] == 0;
}

TEST(BlockPrefetch, TheNextBlockOfTheSizeAskedComesPreparedAndZeroed) {
  constexpr std::size_t kBytes = 2 * kHugePageBytes;
  BlockPrefetch prefetch;
  EXPECT_EQ(prefetch.take_and_prefetch(kBytes), nullptr);  // nothing asked before
  std::vector<LargeBlock<char>> blocks;
  for (int i = 0; i < 3; ++i) {
    void* block = prefetch.take_and_prefetch(kBytes);
    ASSERT_NE(block, nullptr) << i;
    blocks.emplace_back(static_cast<char*>(block), FreeLargeBlock{kBytes});
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % kHugePageBytes, 0u);
    EXPECT_TRUE(all_zero(blocks.back().get(), kBytes));
    std::memset(blocks.back().get(), i + 1, kBytes);  // each its own memory
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(blocks[i][kBytes - 1], i + 1);
  // Another size: the prepared block is not it; the next of the new size is.
  EXPECT_EQ(prefetch.take_and_prefetch(kHugePageBytes), nullptr);
  void* other = prefetch.take_and_prefetch(kHugePageBytes);
  ASSERT_NE(other, nullptr);
  FreeLargeBlock{kHugePageBytes}(other);
}

TEST(BlockPrefetch, NoneIsPreparedAfterTheLastBlock) {
  BlockPrefetch prefetch;
  (void)prefetch.take_and_prefetch(kHugePageBytes);
  void* last = prefetch.take_and_prefetch(kHugePageBytes, /*another=*/false);
  ASSERT_NE(last, nullptr);
  FreeLargeBlock{kHugePageBytes}(last);
  EXPECT_EQ(prefetch.take_and_prefetch(kHugePageBytes, false), nullptr);
}

TEST(BlockPrefetch, AGrowingArrayTakesItsChunksFromIt) {
  BlockPrefetch prefetch;
  LargeBlock<int> first = allocate_large_block<int>(kHugePageBytes, true, &prefetch);
  LargeBlock<int> second = allocate_large_block<int>(kHugePageBytes, true, &prefetch);
  ASSERT_TRUE(first && second);
  EXPECT_NE(first.get(), second.get());
  first[0] = 1;
  second[kHugePageBytes / sizeof(int) - 1] = 2;
  EXPECT_EQ(first[0], 1);
  EXPECT_EQ(second[0], 0);
  // Moved, the prefetch hands its block on; destroyed, it frees it.
  BlockPrefetch moved = std::move(prefetch);
  void* third = moved.take_and_prefetch(kHugePageBytes);
  ASSERT_NE(third, nullptr);
  FreeLargeBlock{kHugePageBytes}(third);
}

TEST(BlockPrefetch, AForkedChildDoesNotWaitForItsParentsHelper) {
  BlockPrefetch prefetch;
  (void)prefetch.take_and_prefetch(kHugePageBytes);  // a helper now prepares the next
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // No helper runs here: the child gets no block (it maps its own) instead of waiting.
    // (It asks for no other: ThreadSanitizer cannot start threads after such a fork.)
    ::_exit(prefetch.take_and_prefetch(kHugePageBytes, /*another=*/false) == nullptr ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  void* block = prefetch.take_and_prefetch(kHugePageBytes);  // the parent's is still there
  ASSERT_NE(block, nullptr);
  FreeLargeBlock{kHugePageBytes}(block);
}

}  // namespace
}  // namespace opsim
