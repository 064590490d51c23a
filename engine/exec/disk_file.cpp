#include "engine/exec/disk_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace opsim {

namespace {
std::uint64_t round_up(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}
constexpr std::uint64_t kMaxRequestBytes = 1 << 20;
}  // namespace

DiskFile::DiskFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0600);
  if (fd_ >= 0) {
    direct_ = true;
  } else {
    const int err = errno;
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd_ < 0)
      throw std::runtime_error("cannot open disk scratch file " + path_ + ": " +
                               std::strerror(errno));
    note_ = "O_DIRECT refused on " + path_ + " (" + std::strerror(err) +
            "); disk ops go through the page cache";
  }
}

DiskFile::~DiskFile() {
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
  std::free(buffer_);
}

void DiskFile::reserve_buffer(std::uint64_t bytes) {
  if (bytes <= buffer_bytes_) return;
  std::free(buffer_);
  buffer_ = std::aligned_alloc(kAlignBytes, bytes);
  if (buffer_ == nullptr) throw std::bad_alloc();
  std::memset(buffer_, 0x5a, bytes);
  buffer_bytes_ = bytes;
}

void DiskFile::write(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes) {
  const std::uint64_t total = round_up(std::max<std::uint64_t>(bytes, 1), kAlignBytes);
  const std::uint64_t request = round_up(
      std::min(block_bytes == 0 ? kMaxRequestBytes : block_bytes, kMaxRequestBytes), kAlignBytes);
  reserve_buffer(request);
  const std::uint64_t start = round_up(offset_bytes, kAlignBytes);
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t n = std::min(request, total - done);
    const ssize_t w = ::pwrite(fd_, buffer_, n, static_cast<off_t>(start + done));
    if (w <= 0) throw std::runtime_error("write to " + path_ + " failed: " + std::strerror(errno));
    done += static_cast<std::uint64_t>(w);
  }
  size_bytes_ = std::max(size_bytes_, start + total);
}

void DiskFile::ensure_size(std::uint64_t bytes) {
  const std::uint64_t want = round_up(bytes, kAlignBytes);
  if (size_bytes_ < want) write(size_bytes_, want - size_bytes_, kMaxRequestBytes);
}

void DiskFile::read(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes) {
  const std::uint64_t total = round_up(std::max<std::uint64_t>(bytes, 1), kAlignBytes);
  const std::uint64_t start = round_up(offset_bytes, kAlignBytes);
  ensure_size(start + total);
  const std::uint64_t request = round_up(
      std::min(block_bytes == 0 ? kMaxRequestBytes : block_bytes, kMaxRequestBytes), kAlignBytes);
  reserve_buffer(request);
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t n = std::min(request, total - done);
    const ssize_t r = ::pread(fd_, buffer_, n, static_cast<off_t>(start + done));
    if (r <= 0) throw std::runtime_error("read from " + path_ + " failed: " + std::strerror(errno));
    done += static_cast<std::uint64_t>(r);
  }
}

}  // namespace opsim
