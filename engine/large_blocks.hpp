// Memory for the blocks a large graph grows by. Past a graph's first block (a graph that
// big will grow on), a block of whole huge pages is mapped on its own at a 2 MiB boundary
// and the kernel is asked for huge pages: a 16-million-op graph then takes hundreds of page
// faults for its ops instead of hundreds of thousands, which cost a fifth of building it.
// Mapping it (not aligned operator new) leaves no allocator padding around it. A growing
// array may keep a BlockPrefetch: its next block is then mapped and its pages touched by a
// helper thread while the array fills the current one, so that the kernel clears them on
// another core (clearing took a fifth of building and simulating such a graph).
//
//   BlockPrefetch prefetch;
//   LargeBlock<Op> block = allocate_large_block<Op>(bytes, /*growing_large=*/true, &prefetch);
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace opsim {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Frees a block: unmaps `mapped_bytes` when it was mapped, else operator delete.
struct FreeLargeBlock {
  std::size_t mapped_bytes = 0;
  void operator()(void* block) const;
};
template <typename T>
using LargeBlock = std::unique_ptr<T[], FreeLargeBlock>;

/// `bytes` at a 2 MiB boundary on huge pages where the kernel allows, else nullptr.
void* map_huge_page_block(std::size_t bytes);

/// The block of huge pages a growing array will ask for next, prepared by a helper thread.
/// Moving hands it over; destroying it frees the block (or has the helper free it).
class BlockPrefetch {
 public:
  BlockPrefetch() = default;
  BlockPrefetch(BlockPrefetch&& other) noexcept = default;
  BlockPrefetch& operator=(BlockPrefetch&& other) noexcept;
  BlockPrefetch(const BlockPrefetch&) = delete;
  BlockPrefetch& operator=(const BlockPrefetch&) = delete;
  ~BlockPrefetch();

  /// The prepared block if it has `bytes` (waiting for the helper to finish it), else
  /// nullptr; then, if `another`, has a helper prepare another of `bytes`.
  void* take_and_prefetch(std::size_t bytes, bool another = true);

  struct State;  // what the array and its helper thread share

 private:
  void abandon();
  std::shared_ptr<State> state_;  // shared with the helper thread
};

/// `bytes` uninitialized; `growing_large`: the graph already filled a block. `prefetch`
/// (optional) holds the next block for a growing array, which asks for one more unless
/// `last` (it knows its size).
template <typename T>
LargeBlock<T> allocate_large_block(std::size_t bytes, bool growing_large,
                                   BlockPrefetch* prefetch = nullptr, bool last = false) {
  if (growing_large && bytes % kHugePageBytes == 0) {
    void* mapped = prefetch ? prefetch->take_and_prefetch(bytes, !last) : nullptr;
    if (!mapped) mapped = map_huge_page_block(bytes);
    if (mapped) return LargeBlock<T>(static_cast<T*>(mapped), FreeLargeBlock{bytes});
  }
  return LargeBlock<T>(static_cast<T*>(::operator new(bytes)), FreeLargeBlock{});
}

}  // namespace opsim
