// An append-only array in fixed chunks (at least 2^16 elements, whole 2 MiB pages): growing
// never moves what is stored (references stay valid) and never holds an old and a new copy
// at once, as a std::vector's doubling does. A graph of 16 million ops grows by 6 MB chunks
// instead of copying 768 MB and holding 1.2 GB at its last doubling; a small graph touches
// only the pages its elements reach. Past its first chunk, a helper thread maps and touches
// the next chunk while it fills the current one (engine/large_blocks.hpp).
//
//   ChunkedVector<Op> ops;
//   ops.push_back(op);
//   const Op& first = ops[0];
//
// For trivially copyable, trivially destructible element types (what a compact graph stores).
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/large_blocks.hpp"

namespace opsim {

template <typename T>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  // At least 2^16 elements a chunk, and whole huge pages (engine/large_blocks.hpp).
  static constexpr std::size_t kChunkBits = [] {
    std::size_t bits = 16;
    while ((std::size_t{1} << bits) * sizeof(T) % kHugePageBytes != 0) ++bits;
    return bits;
  }();
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;

  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&& other) noexcept { *this = std::move(other); }
  ChunkedVector& operator=(ChunkedVector&& other) noexcept {
    if (this == &other) return *this;
    chunks_ = std::move(other.chunks_);
    size_ = std::exchange(other.size_, 0);
    next_ = std::exchange(other.next_, nullptr);
    chunk_end_ = std::exchange(other.chunk_end_, nullptr);
    reserved_ = std::exchange(other.reserved_, 0);
    prefetch_ = std::move(other.prefetch_);
    other.chunks_.clear();
    return *this;
  }
  ChunkedVector(const ChunkedVector& other) { *this = other; }
  ChunkedVector& operator=(const ChunkedVector& other) {
    if (this == &other) return *this;
    chunks_.clear();
    size_ = 0;
    next_ = chunk_end_ = nullptr;
    reserve(other.size_);
    for (std::size_t i = 0; i < other.size_; ++i) push_back(other[i]);
    return *this;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const T& operator[](std::size_t i) const {
    return chunks_[i >> kChunkBits][i & (kChunkSize - 1)];
  }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& value) {
    if (next_ == chunk_end_) add_chunk();
    ::new (next_++) T(value);
    ++size_;
  }
  /// Room in the chunk table for `count` elements (the chunks themselves come as needed;
  /// none is prepared beyond the one that holds the count-th).
  void reserve(std::size_t count) {
    chunks_.reserve((count + kChunkSize - 1) >> kChunkBits);
    reserved_ = count;
  }
  void shrink_to_fit() { chunks_.shrink_to_fit(); }

 private:
  using Chunk = LargeBlock<T>;
  void add_chunk() {
    const bool last = reserved_ > 0 && (chunks_.size() + 1) * kChunkSize >= reserved_;
    chunks_.push_back(
        allocate_large_block<T>(kChunkSize * sizeof(T), !chunks_.empty(), &prefetch_, last));
    next_ = chunks_.back().get();
    chunk_end_ = next_ + kChunkSize;
  }

  std::vector<Chunk> chunks_;
  std::size_t size_ = 0;
  T* next_ = nullptr;  // where the next element goes, in the last chunk
  T* chunk_end_ = nullptr;
  std::size_t reserved_ = 0;  // elements reserve() was told of, 0: none
  BlockPrefetch prefetch_;    // the next chunk, once past the first
};

}  // namespace opsim
