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
  /// Reads the `bytes` that follow the previous call's (from the region's start, wrapping at
  /// its end), as a loader reads its next batch: reading the same bytes again, a virtual
  /// disk's host serves them from its cache (here 3-4.7 GB/s for a 32 MB file read over and
  /// over, against ~1 GB/s from the device). The first call fills the whole region.
  void read_next(std::uint64_t bytes, std::uint64_t block_bytes);
  /// Writes `bytes` after the previous call's (from the region's start, wrapping at its end),
  /// as a program appends to its output. The first call fills the whole region: every write
  /// then overwrites written blocks (on this VM a first write into new blocks runs at a third
  /// of an overwrite's rate, so a mix of the two would time neither).
  void write_next(std::uint64_t bytes, std::uint64_t block_bytes);
  /// Writes the whole region once (nothing when it was written before, by this DiskFile or
  /// an earlier user of the region), so that reads and writes meet written blocks.
  void fill();
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
  std::uint64_t next_read_bytes_ = 0;   // read_next()'s offset
  std::uint64_t next_write_bytes_ = 0;  // write_next()'s offset
  void* buffer_ = nullptr;              // kAlignBytes-aligned, for O_DIRECT
  std::uint64_t buffer_bytes_ = 0;
};

}  // namespace opsim
