// The ops' names, end to end in blocks of 2 MiB that never move: a graph of 16 million
// ops appends 200 MB of names without the copies (and the pages to clear) of a doubling
// std::vector. A name never straddles two blocks: one that would starts the next block,
// and one longer than a block has a block of its own size.
//
//   NameStore names;
//   names.push_back("rs c0 s1");
//   std::string_view first = names[0];
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/chunked_vector.hpp"
#include "engine/large_blocks.hpp"

namespace opsim {

class NameStore {
 public:
  NameStore() = default;
  NameStore(NameStore&&) noexcept = default;
  NameStore& operator=(NameStore&&) noexcept = default;
  NameStore(const NameStore& other) { *this = other; }
  NameStore& operator=(const NameStore& other);

  std::size_t size() const { return ends_.size(); }
  /// Throws std::length_error past 4 GiB of names.
  void push_back(std::string_view name);
  std::string_view operator[](std::size_t i) const;
  /// Room in the tables for `names` names of `bytes` in all (the blocks come as needed).
  void reserve(std::size_t names, std::size_t bytes);
  void shrink_to_fit();

 private:
  static constexpr std::uint64_t kBlockBytes = kHugePageBytes;
  static std::uint64_t block_of(std::uint64_t position) { return position / kBlockBytes; }

  // Block k holds positions [k * kBlockBytes, (k + 1) * kBlockBytes); a long name's own block
  // sits at the first block it covers, and the others it covers stay empty.
  std::vector<LargeBlock<char>> blocks_;
  ChunkedVector<std::uint32_t> ends_;  // name i ends at position ends_[i]
  std::uint64_t next_ = 0;             // where the next name may start
};

}  // namespace opsim
