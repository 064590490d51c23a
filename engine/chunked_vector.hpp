// An append-only array in fixed chunks of 2^16 elements: growing never moves what is stored
// (references stay valid) and never holds an old and a new copy at once, as a std::vector's
// doubling does. A graph of 16 million ops grows by 4 MB chunks instead of copying 1 GB and
// holding 1.5 GB at its last doubling.
//
//   ChunkedVector<Op> ops;
//   ops.push_back(op);
//   const Op& first = ops[0];
//
// For trivially copyable, trivially destructible element types (what a compact graph stores).
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace opsim {

template <typename T>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  static constexpr std::size_t kChunkBits = 16;
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;

  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;
  ChunkedVector(const ChunkedVector& other) { *this = other; }
  ChunkedVector& operator=(const ChunkedVector& other) {
    if (this == &other) return *this;
    chunks_.clear();
    size_ = 0;
    chunks_.reserve(other.chunks_.size());
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
    if ((size_ & (kChunkSize - 1)) == 0 && (size_ >> kChunkBits) == chunks_.size())
      chunks_.push_back(Chunk(static_cast<T*>(::operator new(kChunkSize * sizeof(T)))));
    ::new (&(*this)[size_]) T(value);
    ++size_;
  }
  /// Room in the chunk table for `count` elements (the chunks themselves come as needed).
  void reserve(std::size_t count) { chunks_.reserve((count + kChunkSize - 1) >> kChunkBits); }
  void shrink_to_fit() { chunks_.shrink_to_fit(); }

 private:
  struct FreeChunk {
    void operator()(T* chunk) const { ::operator delete(chunk); }
  };
  using Chunk = std::unique_ptr<T[], FreeChunk>;
  std::vector<Chunk> chunks_;
  std::size_t size_ = 0;
};

}  // namespace opsim
