#include "engine/exec/io_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <new>

namespace opsim {

IoBuffer::~IoBuffer() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
}

void IoBuffer::reserve(std::size_t bytes) {
  if (bytes <= bytes_) return;
  const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::size_t mapping_bytes = rounded + kHugePageBytes;
  void* mapping =
      ::mmap(nullptr, mapping_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::bad_alloc();
  const auto at = reinterpret_cast<std::uintptr_t>(mapping);
  void* data = reinterpret_cast<void*>((at + kHugePageBytes - 1) & ~(kHugePageBytes - 1));
  // A hint: without transparent huge pages the buffer is ordinary pages, and works as one.
  (void)::madvise(data, rounded, MADV_HUGEPAGE);
  std::memset(data, 0x5a, rounded);  // fault the pages in now, not during a timed request
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
  mapping_ = mapping;
  mapping_bytes_ = mapping_bytes;
  data_ = data;
  bytes_ = rounded;
}

}  // namespace opsim
