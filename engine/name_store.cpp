#include "engine/name_store.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace opsim {

NameStore& NameStore::operator=(const NameStore& other) {
  if (this == &other) return *this;
  blocks_.clear();
  ends_ = ChunkedVector<std::uint32_t>();
  next_ = 0;
  for (std::size_t i = 0; i < other.size(); ++i) push_back(other[i]);
  return *this;
}

void NameStore::push_back(std::string_view name) {
  const std::uint64_t length = name.size();
  if (length == 0) {  // ends where the name before it ends, as operator[] reads it
    ends_.push_back(ends_.empty() ? 0 : ends_.back());
    return;
  }
  std::uint64_t begin = next_;
  if (begin % kBlockBytes != 0 && block_of(begin) != block_of(begin + length - 1))
    begin = (block_of(begin) + 1) * kBlockBytes;  // the next block's start
  const std::uint64_t end = begin + length;
  if (end > UINT32_MAX) throw std::length_error("OpGraph: names too long");
  const std::uint64_t block = block_of(begin);
  if (blocks_.size() <= block) blocks_.resize(block + 1);
  if (!blocks_[block])
    blocks_[block] = allocate_large_block<char>(std::max(kBlockBytes, length), block > 0);
  std::memcpy(blocks_[block].get() + begin % kBlockBytes, name.data(), length);
  ends_.push_back(static_cast<std::uint32_t>(end));
  // After a name longer than a block the next starts on a fresh block.
  next_ = length > kBlockBytes ? (block_of(end - 1) + 1) * kBlockBytes : end;
}

std::string_view NameStore::operator[](std::size_t i) const {
  std::uint64_t begin = i == 0 ? 0 : ends_[i - 1];
  const std::uint64_t end = ends_[i];
  if (end == begin) return {};
  // As push_back placed it: a name that did not fit in the rest of a block starts the next.
  if (begin % kBlockBytes != 0 && block_of(begin) != block_of(end - 1))
    begin = (block_of(begin) + 1) * kBlockBytes;
  return {blocks_[block_of(begin)].get() + begin % kBlockBytes, end - begin};
}

void NameStore::reserve(std::size_t names, std::size_t bytes) {
  ends_.reserve(names);
  blocks_.reserve(bytes / kBlockBytes + 1);
}

void NameStore::shrink_to_fit() {
  ends_.shrink_to_fit();
  blocks_.shrink_to_fit();
}

}  // namespace opsim
