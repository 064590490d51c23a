// What a disk op reads and writes: a region of the process's scratch disk (ScratchDisk),
// bypassing the page cache with O_DIRECT where the file system allows it (ext4 here; tmpfs
// refuses it). When O_DIRECT is refused note() says so, since timings then include the page
// cache. Offsets are within the region and wrap around at its end, so that a long run of
// appends or an op larger than the region keeps to the same blocks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace opsim {

class ScratchDisk;

class DiskFile {
 public:
  /// A region of the scratch disk in `directory` (empty: the temp directory). Throws
  /// std::runtime_error when the scratch file cannot be opened.
  explicit DiskFile(const std::string& directory);
  ~DiskFile();
  DiskFile(const DiskFile&) = delete;
  DiskFile& operator=(const DiskFile&) = delete;

  /// Writes `bytes` (rounded up to 4 KiB) at `offset_bytes` in requests of `block_bytes`.
  void write(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes);
  /// Reads `bytes` at `offset_bytes`; writes what was never written there first (the growth
  /// is not part of the caller's timed region when called through ensure_size()).
  void read(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes);
  /// Makes the first `bytes` of the region (at most all of it) hold written data.
  void ensure_size(std::uint64_t bytes);
  /// Bytes written without a gap from the region's start (at most the region's size).
  std::uint64_t size_bytes() const { return size_bytes_; }
  bool direct() const;
  /// Empty with O_DIRECT; otherwise why the page cache is in the way.
  const std::string& note() const;
  const std::string& path() const;

  static constexpr std::uint64_t kAlignBytes = 4096;

 private:
  void reserve_buffer(std::uint64_t bytes);
  // Calls io(file offset, bytes) for each request of `bytes` from `offset_bytes` on,
  // wrapping at the region's end.
  template <typename Io>
  void for_each_request(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes,
                        Io&& io);

  std::shared_ptr<ScratchDisk> disk_;
  std::uint64_t base_bytes_ = 0;
  std::uint64_t size_bytes_ = 0;
  void* buffer_ = nullptr;  // kAlignBytes-aligned, for O_DIRECT
  std::uint64_t buffer_bytes_ = 0;
};

}  // namespace opsim
