#include "engine/exec/operand_pair.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace opsim {

namespace {
constexpr std::size_t kPageBytes = 4096;
}

OperandPair::~OperandPair() {
  std::free(block_);
}

void OperandPair::reserve(std::size_t floats) {
  if (floats <= floats_) return;
  const std::size_t array_bytes =
      (floats * sizeof(float) + kPageBytes - 1) / kPageBytes * kPageBytes;
  void* block = std::aligned_alloc(kPageBytes, 2 * array_bytes + kPageBytes);
  if (block == nullptr) throw std::bad_alloc();
  auto* source = static_cast<float*>(block);
  auto* destination =
      reinterpret_cast<float*>(static_cast<char*>(block) + array_bytes + kSkewBytes);
  std::fill_n(source, floats, 1.0f);
  std::fill_n(destination, floats, 0.0f);
  std::free(block_);
  block_ = block;
  source_ = source;
  destination_ = destination;
  floats_ = floats;
}

}  // namespace opsim
