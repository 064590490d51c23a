#include "engine/large_blocks.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace opsim {

void FreeLargeBlock::operator()(void* block) const {
#if defined(__linux__)
  if (mapped_bytes > 0) {
    munmap(block, mapped_bytes);
    return;
  }
#endif
  ::operator delete(block);
}

void* map_huge_page_block(std::size_t bytes) {
#if defined(__linux__)
  // Map a huge page more than asked, then unmap what lies before the first 2 MiB boundary
  // and after the block.
  const std::size_t mapped_bytes = bytes + kHugePageBytes;
  void* mapped =
      mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;  // operator new then says whether memory is left
  const auto base = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t aligned = (base + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  if (aligned > base) munmap(mapped, aligned - base);
  const std::uintptr_t end = aligned + bytes;
  if (end < base + mapped_bytes) munmap(reinterpret_cast<void*>(end), base + mapped_bytes - end);
  void* block = reinterpret_cast<void*>(aligned);
  madvise(block, bytes, MADV_HUGEPAGE);  // a hint: its failure changes nothing
  return block;
#else
  (void)bytes;
  return nullptr;
#endif
}

struct BlockPrefetch::State {
  std::mutex mutex;
  std::condition_variable done_changed;
  std::size_t bytes = 0;
  void* block = nullptr;  // the helper's block once done, until taken
  bool done = false;
  bool abandoned = false;  // nobody will take it: the helper frees what it made
#if defined(__linux__)
  pid_t process = getpid();  // a forked child has no helper to wait for
#endif
};

namespace {

// Write a byte on every page, so that the kernel maps and clears them all now.
void touch_pages(void* block, std::size_t bytes) {
  constexpr std::size_t kPageBytes = 4096;
  volatile char* bytes_of = static_cast<char*>(block);
  for (std::size_t offset = 0; offset < bytes; offset += kPageBytes) bytes_of[offset] = 0;
}

void prepare(const std::shared_ptr<BlockPrefetch::State>& state) {
  void* block = map_huge_page_block(state->bytes);
  if (block) touch_pages(block, state->bytes);
  std::lock_guard lock(state->mutex);
  if (state->abandoned) {
    if (block) FreeLargeBlock{state->bytes}(block);
  } else {
    state->block = block;
  }
  state->done = true;
  state->done_changed.notify_all();
}

}  // namespace

BlockPrefetch& BlockPrefetch::operator=(BlockPrefetch&& other) noexcept {
  if (this != &other) {
    abandon();
    state_ = std::move(other.state_);
  }
  return *this;
}

BlockPrefetch::~BlockPrefetch() {
  abandon();
}

void BlockPrefetch::abandon() {
  if (!state_) return;
#if defined(__linux__)
  if (state_->process != getpid()) {
    // A forked child: the helper was its parent's and may have held the lock at the fork.
    // Let go without the lock (a block the helper made stays mapped here, unused).
    state_.reset();
    return;
  }
#endif
  // Unlocked before the state goes: this may be its last owner.
  const std::shared_ptr<State> state = std::move(state_);
  std::lock_guard lock(state->mutex);
  if (state->block) FreeLargeBlock{state->bytes}(state->block);
  state->block = nullptr;
  state->abandoned = true;
}

void* BlockPrefetch::take_and_prefetch(std::size_t bytes, bool another) {
#if defined(__linux__)
  void* ready = nullptr;
  if (state_ && state_->bytes == bytes && state_->process == getpid()) {
    std::unique_lock lock(state_->mutex);
    state_->done_changed.wait(lock, [this] { return state_->done; });
    ready = std::exchange(state_->block, nullptr);
  }
  abandon();
  if (!another) return ready;
  auto state = std::make_shared<State>();
  state->bytes = bytes;
  try {
    std::thread([state] { prepare(state); }).detach();
    state_ = std::move(state);
  } catch (const std::system_error&) {
    // No thread to spare: the next block is mapped when it is needed.
  }
  return ready;
#else
  (void)bytes;
  (void)another;
  return nullptr;
#endif
}

}  // namespace opsim
