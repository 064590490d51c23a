// Memory for the blocks a large graph grows by: 2 MiB aligned, and past a graph's first
// block the kernel is asked for huge pages. A 16-million-op graph then takes hundreds of
// page faults for its ops instead of hundreds of thousands, which cost a fifth of building it.
//
//   LargeBlock block = allocate_large_block(bytes, /*growing_large=*/true);
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace opsim {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
inline constexpr std::align_val_t kLargeBlockAlignment{kHugePageBytes};

struct FreeLargeBlock {
  void operator()(void* block) const { ::operator delete(block, kLargeBlockAlignment); }
};
template <typename T>
using LargeBlock = std::unique_ptr<T[], FreeLargeBlock>;

/// `bytes` uninitialized; `growing_large`: the graph already filled a block (huge pages
/// then pay off; a small graph keeps to the pages it touches).
template <typename T>
LargeBlock<T> allocate_large_block(std::size_t bytes, bool growing_large) {
  void* memory = ::operator new(bytes, kLargeBlockAlignment);
#if defined(__linux__)
  if (growing_large && bytes % kHugePageBytes == 0)
    madvise(memory, bytes, MADV_HUGEPAGE);  // a hint: its failure changes nothing
#else
  (void)growing_large;
#endif
  return LargeBlock<T>(static_cast<T*>(memory));
}

}  // namespace opsim
