#include "engine/large_blocks.hpp"

#include <cstdint>
#if defined(__linux__)
#include <sys/mman.h>
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

}  // namespace opsim
