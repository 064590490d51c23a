// A scratch file the CPU backend reads and writes for disk ops, bypassing the page cache with
// O_DIRECT where the file system allows it (ext4 here; tmpfs refuses it). When O_DIRECT is
// refused the file is opened normally and note() says so, since timings then include the
// page cache.
#pragma once

#include <cstdint>
#include <string>

namespace opsim {

class DiskFile {
 public:
  /// Creates (or truncates) `path`. Throws std::runtime_error when it cannot be opened.
  explicit DiskFile(std::string path);
  ~DiskFile();
  DiskFile(const DiskFile&) = delete;
  DiskFile& operator=(const DiskFile&) = delete;

  /// Writes `bytes` (rounded up to 4 KiB) at `offset_bytes` in requests of `block_bytes`.
  void write(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes);
  /// Reads `bytes` at `offset_bytes`; grows the file first when it is too short (the growth
  /// is not part of the caller's timed region when called through ensure_size()).
  void read(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes);
  /// Makes the file at least `bytes` long, writing real data.
  void ensure_size(std::uint64_t bytes);
  std::uint64_t size_bytes() const { return size_bytes_; }
  bool direct() const { return direct_; }
  /// Empty with O_DIRECT; otherwise why the page cache is in the way.
  const std::string& note() const { return note_; }
  const std::string& path() const { return path_; }

  static constexpr std::uint64_t kAlignBytes = 4096;

 private:
  void reserve_buffer(std::uint64_t bytes);

  std::string path_;
  int fd_ = -1;
  bool direct_ = false;
  std::string note_;
  std::uint64_t size_bytes_ = 0;
  void* buffer_ = nullptr;  // kAlignBytes-aligned, for O_DIRECT
  std::uint64_t buffer_bytes_ = 0;
};

}  // namespace opsim
