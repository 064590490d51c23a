// The two float arrays a CPU stream's memory-bound ops run on, one read and one written
// (cpu::add(source, source, destination), memcpy(destination, source)), laid out the same way
// for the executor and for the calibration that measures it.
//
// Why a fixed layout: a load whose address matches an earlier store's in its low 12 bits
// waits for it (4 KiB aliasing). Two std::vectors allocated one after the other came out 16
// bytes apart modulo 4 KiB, and an elementwise pass over them ran 5 % slower than over arrays
// half a page apart (24.2 against 25.6 GB/s on a Zen 5 vCPU, 8 MiB); the
// calibration's passes met that layout and the executor's, allocated at other times, mostly
// did not: book (a), 40 such ops, came out 4-7 % slow in the simulation run after run. Here
// the destination always starts half a page past the source's page offset.
#pragma once

#include <cstddef>

namespace opsim {

class OperandPair {
 public:
  OperandPair() = default;
  ~OperandPair();
  OperandPair(const OperandPair&) = delete;
  OperandPair& operator=(const OperandPair&) = delete;

  /// Makes each array hold at least `floats` (the source filled with 1, the destination with
  /// 0 when they grow; their contents otherwise stay). Throws std::bad_alloc.
  void reserve(std::size_t floats);
  /// Lays the arrays out for `floats` as reserve() lays out a fresh pair of that size (the
  /// destination one array's whole pages plus kSkewBytes past the source), inside the block
  /// already held where it is large enough, so that one block serves every size up to the
  /// largest laid out (their contents: finite, otherwise unspecified). Throws std::bad_alloc.
  void lay_out(std::size_t floats);
  float* source() const { return source_; }
  float* destination() const { return destination_; }
  std::size_t floats() const { return floats_; }

  /// The destination's start minus the source's, modulo 4 KiB.
  static constexpr std::size_t kSkewBytes = 2048;

 private:
  void* block_ = nullptr;
  std::size_t block_bytes_ = 0;
  float* source_ = nullptr;
  float* destination_ = nullptr;
  std::size_t floats_ = 0;
};

}  // namespace opsim
