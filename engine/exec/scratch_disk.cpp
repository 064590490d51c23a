#include "engine/exec/scratch_disk.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace opsim {

std::shared_ptr<ScratchDisk> ScratchDisk::in_directory(const std::string& directory) {
  static std::mutex registry_mutex;
  static std::map<std::string, std::weak_ptr<ScratchDisk>> registry;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir =
      fs::absolute(directory.empty() ? fs::temp_directory_path() : fs::path(directory), ec);
  if (ec) dir = directory;
  const std::string key = dir.lexically_normal().string();
  std::lock_guard lock(registry_mutex);
  if (auto disk = registry[key].lock()) return disk;
  auto disk = std::make_shared<ScratchDisk>(
      (dir / ("opsim-" + std::to_string(::getpid()) + "-scratch.bin")).string());
  registry[key] = disk;
  return disk;
}

ScratchDisk::ScratchDisk(std::string path) : path_(std::move(path)) {
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
  preallocate(0, kPreallocatedRegions);
  in_use_.push_back(true);  // region 0: the read region, for as long as the disk lives
  written_bytes_.push_back(0);
}

ScratchDisk::~ScratchDisk() {
  if (fd_ >= 0) ::close(fd_);
  ::unlink(path_.c_str());
}

// Reserves the regions' blocks in one piece, so that they lie together on the device. Only
// for a real disk (O_DIRECT): on tmpfs it would take memory. Where the file system cannot
// (no fallocate, or too little space), blocks are allocated as they are written instead.
void ScratchDisk::preallocate(std::uint64_t first_region, std::uint64_t regions) {
  if (!direct_) return;
  (void)::fallocate(fd_, 0, static_cast<off_t>(first_region * kRegionBytes),
                    static_cast<off_t>(regions * kRegionBytes));
}

std::uint64_t ScratchDisk::acquire_region() {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < in_use_.size(); ++i)
    if (!in_use_[i]) {
      in_use_[i] = true;
      return i * kRegionBytes;
    }
  const std::uint64_t index = in_use_.size();
  if (index >= kPreallocatedRegions) preallocate(index, 1);
  in_use_.push_back(true);
  written_bytes_.push_back(0);
  return index * kRegionBytes;
}

std::uint64_t ScratchDisk::written_bytes(std::uint64_t base_bytes) const {
  std::lock_guard lock(mutex_);
  const std::uint64_t index = base_bytes / kRegionBytes;
  return index < written_bytes_.size() ? written_bytes_[index] : 0;
}

void ScratchDisk::release_region(std::uint64_t base_bytes, std::uint64_t written_bytes) {
  std::lock_guard lock(mutex_);
  const std::uint64_t index = base_bytes / kRegionBytes;
  if (index >= in_use_.size()) return;
  in_use_[index] = false;
  written_bytes_[index] = written_bytes;
}

std::size_t ScratchDisk::regions_in_use() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (std::size_t i = 1; i < in_use_.size(); ++i) n += in_use_[i] ? 1 : 0;
  return n;
}

void ScratchDisk::fill_read_region(const std::function<void(std::uint64_t, std::uint64_t)>& write) {
  std::lock_guard lock(fill_mutex_);
  if (read_region_written_bytes_ >= kRegionBytes) return;
  write(read_region_written_bytes_, kRegionBytes);
  read_region_written_bytes_ = kRegionBytes;
}

}  // namespace opsim
