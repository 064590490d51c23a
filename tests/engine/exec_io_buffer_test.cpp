// The O_DIRECT request buffer: 2 MiB-aligned whole huge pages, asked of the kernel as huge.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/exec/io_buffer.hpp"

namespace opsim {
namespace {

// The VmFlags of the mapping that holds `address` in /proc/self/smaps ("" when none does).
std::string vm_flags_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> from >> dash >> to && dash == '-') {
      inside = from <= at && at < to;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST(IoBuffer, HoldsWholeHugePagesAlignedToOne) {
  IoBuffer buffer;
  EXPECT_EQ(buffer.data(), nullptr);
  buffer.reserve(4096);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % IoBuffer::kHugePageBytes, 0u);
  EXPECT_EQ(buffer.size_bytes(), IoBuffer::kHugePageBytes);
  // Its pages are written (faulted in) before any request uses them.
  const auto* bytes = static_cast<const unsigned char*>(buffer.data());
  EXPECT_EQ(bytes[0], 0x5a);
  EXPECT_EQ(bytes[buffer.size_bytes() - 1], 0x5a);
}

TEST(IoBuffer, GrowsOnlyWhenAskedForMore) {
  IoBuffer buffer;
  buffer.reserve(1 << 20);
  void* first = buffer.data();
  buffer.reserve(IoBuffer::kHugePageBytes);  // fits: the same memory
  EXPECT_EQ(buffer.data(), first);
  buffer.reserve(IoBuffer::kHugePageBytes + 1);
  EXPECT_EQ(buffer.size_bytes(), 2 * IoBuffer::kHugePageBytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % IoBuffer::kHugePageBytes, 0u);
  std::memset(buffer.data(), 1, buffer.size_bytes());  // all of it is usable
}

TEST(IoBuffer, AsksTheKernelForHugePages) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage"))
    GTEST_SKIP() << "this kernel has no transparent huge pages to ask for";
  IoBuffer buffer;
  buffer.reserve(1 << 20);
  const std::string flags = vm_flags_of(buffer.data());
  ASSERT_FALSE(flags.empty()) << "no mapping in /proc/self/smaps holds the buffer";
  // "hg": madvise(MADV_HUGEPAGE) took effect on the buffer's mapping.
  EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << flags;
}

}  // namespace
}  // namespace opsim
