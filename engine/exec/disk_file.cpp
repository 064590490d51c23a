#include "engine/exec/disk_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/exec/scratch_disk.hpp"

namespace opsim {

namespace {
std::uint64_t round_up(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}
constexpr std::uint64_t kMaxRequestBytes = 1 << 20;
constexpr std::uint64_t kRegionBytes = ScratchDisk::kRegionBytes;

void write_fully(int fd, const void* buffer, std::uint64_t n, std::uint64_t at,
                 const std::string& path) {
  for (std::uint64_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd, static_cast<const char*>(buffer) + done, n - done,
                               static_cast<off_t>(at + done));
    if (w <= 0) throw std::runtime_error("write to " + path + " failed: " + std::strerror(errno));
    done += static_cast<std::uint64_t>(w);
  }
}
}  // namespace

DiskFile::DiskFile(const std::string& directory)
    : disk_(ScratchDisk::in_directory(directory)),
      base_bytes_(disk_->acquire_region()),
      size_bytes_(disk_->written_bytes(base_bytes_)) {}

DiskFile::~DiskFile() {
  disk_->release_region(base_bytes_, size_bytes_);
}

bool DiskFile::direct() const {
  return disk_->direct();
}
const std::string& DiskFile::note() const {
  return disk_->note();
}
const std::string& DiskFile::path() const {
  return disk_->path();
}

template <typename Io>
void DiskFile::for_each_request(std::uint64_t base_bytes, std::uint64_t offset_bytes,
                                std::uint64_t bytes, std::uint64_t block_bytes, Io&& io) {
  const std::uint64_t total = round_up(std::max<std::uint64_t>(bytes, 1), kAlignBytes);
  const std::uint64_t request = round_up(
      std::min(block_bytes == 0 ? kMaxRequestBytes : block_bytes, kMaxRequestBytes), kAlignBytes);
  buffer_.reserve(request);
  std::uint64_t at = round_up(offset_bytes, kAlignBytes) % kRegionBytes;
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t n = std::min({request, total - done, kRegionBytes - at});
    io(base_bytes + at, n);
    done += n;
    at = (at + n) % kRegionBytes;
  }
}

void DiskFile::write(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes) {
  const int fd = disk_->fd();
  for_each_request(base_bytes_, offset_bytes, bytes, block_bytes,
                   [&](std::uint64_t at, std::uint64_t n) {
                     write_fully(fd, buffer_.data(), n, at, path());
                     // Only a write that reaches the written prefix extends it: one past it
                     // leaves a hole, which reads as zeros without touching the device.
                     if (at - base_bytes_ <= size_bytes_)
                       size_bytes_ = std::max(size_bytes_, at + n - base_bytes_);
                   });
}

void DiskFile::write_next(std::uint64_t bytes, std::uint64_t block_bytes) {
  fill();
  write(next_write_bytes_, bytes, block_bytes);
  next_write_bytes_ =
      (next_write_bytes_ + round_up(std::max<std::uint64_t>(bytes, 1), kAlignBytes)) % kRegionBytes;
}

void DiskFile::fill_shared_read_region() {
  if (read_region_filled_) return;
  disk_->fill_read_region([this](std::uint64_t from_bytes, std::uint64_t to_bytes) {
    for_each_request(disk_->read_region(), from_bytes, to_bytes - from_bytes, kMaxRequestBytes,
                     [&](std::uint64_t at, std::uint64_t n) {
                       write_fully(disk_->fd(), buffer_.data(), n, at, path());
                     });
  });
  read_region_filled_ = true;
}

void DiskFile::fill() {
  fill_shared_read_region();
  if (size_bytes_ < kRegionBytes) write(size_bytes_, kRegionBytes - size_bytes_, kMaxRequestBytes);
}

void DiskFile::read(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes) {
  fill_shared_read_region();
  const int fd = disk_->fd();
  for_each_request(
      disk_->read_region(), offset_bytes, bytes, block_bytes,
      [&](std::uint64_t at, std::uint64_t n) {
        for (std::uint64_t done = 0; done < n;) {
          const ssize_t r = ::pread(fd, static_cast<char*>(buffer_.data()) + done, n - done,
                                    static_cast<off_t>(at + done));
          if (r <= 0)
            throw std::runtime_error("read from " + path() + " failed: " + std::strerror(errno));
          done += static_cast<std::uint64_t>(r);
        }
      });
}

void DiskFile::read_next(std::uint64_t bytes, std::uint64_t block_bytes) {
  read(next_read_bytes_, bytes, block_bytes);
  next_read_bytes_ =
      (next_read_bytes_ + round_up(std::max<std::uint64_t>(bytes, 1), kAlignBytes)) % kRegionBytes;
}

}  // namespace opsim
