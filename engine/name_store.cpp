#include "engine/name_store.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace opsim {

namespace {

// A record starts with its name's length: one byte below 255, else 255 and four bytes.
constexpr std::uint8_t kLongLength = 255;

std::uint64_t length_bytes(std::uint64_t length) {
  return length < kLongLength ? 1 : 1 + sizeof(std::uint32_t);
}

}  // namespace

NameStore& NameStore::operator=(NameStore&& other) noexcept {
  if (this == &other) return *this;
  blocks_ = std::move(other.blocks_);
  other.blocks_.clear();
  begins_ = std::move(other.begins_);
  next_ = std::exchange(other.next_, 0);
  recent_[0] = std::exchange(other.recent_[0], kNoRecord);
  recent_[1] = std::exchange(other.recent_[1], kNoRecord);
  return *this;
}

NameStore& NameStore::operator=(const NameStore& other) {
  if (this == &other) return *this;
  blocks_.clear();
  begins_ = ChunkedVector<std::uint32_t>();
  next_ = 0;
  recent_[0] = recent_[1] = kNoRecord;
  for (std::size_t i = 0; i < other.size(); ++i) push_back(other[i]);
  return *this;
}

void NameStore::push_back(std::string_view name) {
  // Generated names differ most at their ends (step and GPU numbers): test the last
  // character before comparing the rest.
  const auto same = [&](std::uint32_t begin) {
    const std::string_view stored = record(begin);
    return stored.size() == name.size() && (name.empty() || stored.back() == name.back()) &&
           stored == name;
  };
  for (int i = 0; i < 2; ++i)
    if (recent_[i] != kNoRecord && same(recent_[i])) {
      begins_.push_back(recent_[i]);
      if (i == 1) std::swap(recent_[0], recent_[1]);
      return;
    }
  const std::uint32_t begin = add_record(name);
  begins_.push_back(begin);
  recent_[1] = recent_[0];
  recent_[0] = begin;
}

std::uint32_t NameStore::add_record(std::string_view name) {
  const std::uint64_t length = name.size();
  const std::uint64_t size = length_bytes(length) + length;
  std::uint64_t begin = next_;
  if (begin % kBlockBytes != 0 && block_of(begin) != block_of(begin + size - 1))
    begin = (block_of(begin) + 1) * kBlockBytes;  // the next block's start
  const std::uint64_t end = begin + size;
  if (end > kNoRecord) throw std::length_error("OpGraph: names too long");
  const std::uint64_t block = block_of(begin);
  if (blocks_.size() <= block) blocks_.resize(block + 1);
  if (!blocks_[block])
    blocks_[block] = allocate_large_block<char>(std::max(kBlockBytes, size), block > 0);
  char* out = blocks_[block].get() + begin % kBlockBytes;
  if (length < kLongLength) {
    *out++ = static_cast<char>(length);
  } else {
    *out++ = static_cast<char>(kLongLength);
    const auto long_length = static_cast<std::uint32_t>(length);
    std::memcpy(out, &long_length, sizeof long_length);
    out += sizeof long_length;
  }
  std::memcpy(out, name.data(), length);
  // After a record longer than a block the next starts on a fresh block.
  next_ = size > kBlockBytes ? (block_of(end - 1) + 1) * kBlockBytes : end;
  return static_cast<std::uint32_t>(begin);
}

std::string_view NameStore::record(std::uint32_t begin) const {
  const char* in = blocks_[block_of(begin)].get() + begin % kBlockBytes;
  std::uint32_t length = static_cast<std::uint8_t>(*in++);
  if (length == kLongLength) {
    std::memcpy(&length, in, sizeof length);
    in += sizeof length;
  }
  return {in, length};
}

void NameStore::reserve(std::size_t names, std::size_t bytes) {
  begins_.reserve(names);
  blocks_.reserve(bytes / kBlockBytes + 1);
}

void NameStore::shrink_to_fit() {
  begins_.shrink_to_fit();
  blocks_.shrink_to_fit();
}

}  // namespace opsim
