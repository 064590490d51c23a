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

namespace {
std::size_t array_bytes_for(std::size_t floats) {
  return (floats * sizeof(float) + kPageBytes - 1) / kPageBytes * kPageBytes;
}
}  // namespace

void OperandPair::reserve(std::size_t floats) {
  if (floats <= floats_) return;
  const std::size_t array_bytes = array_bytes_for(floats);
  const std::size_t block_bytes = 2 * array_bytes + kPageBytes;
  void* block = std::aligned_alloc(kPageBytes, block_bytes);
  if (block == nullptr) throw std::bad_alloc();
  auto* source = static_cast<float*>(block);
  auto* destination =
      reinterpret_cast<float*>(static_cast<char*>(block) + array_bytes + kSkewBytes);
  std::fill_n(source, floats, 1.0f);
  std::fill_n(destination, floats, 0.0f);
  std::free(block_);
  block_ = block;
  block_bytes_ = block_bytes;
  source_ = source;
  destination_ = destination;
  floats_ = floats;
}

void OperandPair::lay_out(std::size_t floats) {
  const std::size_t array_bytes = array_bytes_for(floats);
  if (2 * array_bytes + kPageBytes > block_bytes_) {
    reserve(floats);
    // The whole block written once: any later, smaller layout reads finite values.
    std::fill_n(static_cast<float*>(block_), block_bytes_ / sizeof(float), 1.0f);
  }
  source_ = static_cast<float*>(block_);
  destination_ = reinterpret_cast<float*>(static_cast<char*>(block_) + array_bytes + kSkewBytes);
  floats_ = floats;
}

}  // namespace opsim
