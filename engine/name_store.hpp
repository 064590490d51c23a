// The ops' names in blocks of 2 MiB that never move: a graph of 16 million ops adds its
// names without the copies (and the pages to clear) of a doubling std::vector. Each name is
// a record (its length, then its characters) that never straddles two blocks: one that
// would starts the next block, and one longer than a block has a block of its own size. A
// name equal to one of the last two added is not stored again: a ring step's copies, and
// its heads and tails in turn, share one record.
//
//   NameStore names;
//   names.push_back("rs c0 s1");
//   std::string_view first = names[0];
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/chunked_vector.hpp"
#include "engine/large_blocks.hpp"

namespace opsim {

class NameStore {
 public:
  NameStore() = default;
  NameStore(NameStore&& other) noexcept { *this = std::move(other); }
  NameStore& operator=(NameStore&& other) noexcept;
  NameStore(const NameStore& other) { *this = other; }
  NameStore& operator=(const NameStore& other);

  std::size_t size() const { return begins_.size(); }
  /// Throws std::length_error past 4 GiB of names.
  void push_back(std::string_view name);
  std::string_view operator[](std::size_t i) const { return record(begins_[i]); }
  /// Room in the tables for `names` names of `bytes` in all (the blocks come as needed).
  void reserve(std::size_t names, std::size_t bytes);
  void shrink_to_fit();

 private:
  static constexpr std::uint64_t kBlockBytes = kHugePageBytes;
  static constexpr std::uint32_t kNoRecord = UINT32_MAX;
  static std::uint64_t block_of(std::uint64_t position) { return position / kBlockBytes; }
  std::string_view record(std::uint32_t begin) const;
  std::uint32_t add_record(std::string_view name);

  // Block k holds positions [k * kBlockBytes, (k + 1) * kBlockBytes); a long name's own block
  // sits at the first block it covers, and the others it covers stay empty.
  std::vector<LargeBlock<char>> blocks_;
  ChunkedVector<std::uint32_t> begins_;  // name i's record starts at position begins_[i]
  std::uint64_t next_ = 0;               // where the next record may start
  std::uint32_t recent_[2] = {kNoRecord, kNoRecord};  // the last two records added, latest first
};

}  // namespace opsim
