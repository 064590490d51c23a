// Memory for the blocks a large graph grows by. Past a graph's first block (a graph that
// big will grow on), a block of whole huge pages is mapped on its own at a 2 MiB boundary
// and the kernel is asked for huge pages: a 16-million-op graph then takes hundreds of page
// faults for its ops instead of hundreds of thousands, which cost a fifth of building it.
// Mapping it (not aligned operator new) leaves no allocator padding around it.
//
//   LargeBlock<Op> block = allocate_large_block<Op>(bytes, /*growing_large=*/true);
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

/// `bytes` uninitialized; `growing_large`: the graph already filled a block.
template <typename T>
LargeBlock<T> allocate_large_block(std::size_t bytes, bool growing_large) {
  if (growing_large && bytes % kHugePageBytes == 0)
    if (void* mapped = map_huge_page_block(bytes))
      return LargeBlock<T>(static_cast<T*>(mapped), FreeLargeBlock{bytes});
  return LargeBlock<T>(static_cast<T*>(::operator new(bytes)), FreeLargeBlock{});
}

}  // namespace opsim
