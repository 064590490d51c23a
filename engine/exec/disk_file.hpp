// What a disk op reads and writes, on the process's scratch disk (ScratchDisk), bypassing the
// page cache with O_DIRECT where the file system allows it (ext4 here; tmpfs refuses it).
// When O_DIRECT is refused note() says so, since timings then include the page cache.
//
// Reads come from one region that every DiskFile on the scratch disk shares (the data a
// workload loads; its bytes do not matter), writes go to the DiskFile's own region. Offsets
// wrap around at a region's end, so that a long run of appends or an op larger than a region
// keeps to the same blocks. Why reads share: a virtual disk's host caches what is read often.
// Here a file read over and over came at 3-4.7 GB/s and one read now and then at ~1 GB/s, in
// the same second, so a calibration reading its own data and a workload reading other data
// met different disks; reading the same blocks, they meet the same one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/exec/io_buffer.hpp"

namespace opsim {

class ScratchDisk;

class DiskFile {
 public:
  /// On the scratch disk in `directory` (empty: the temp directory). Throws
  /// std::runtime_error when the scratch file cannot be opened.
  explicit DiskFile(const std::string& directory);
  ~DiskFile();
  DiskFile(const DiskFile&) = delete;
  DiskFile& operator=(const DiskFile&) = delete;

  /// Writes `bytes` (rounded up to 4 KiB) at `offset_bytes` of this file's region in requests
  /// of `block_bytes`.
  void write(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes);
  /// Writes `bytes` after the previous call's (from the region's start, wrapping at its end),
  /// as a program appends to its output. The first call fills the whole region: every write
  /// then overwrites written blocks (on this VM a first write into new blocks runs at a third
  /// of an overwrite's rate, so a mix of the two would time neither).
  void write_next(std::uint64_t bytes, std::uint64_t block_bytes);
  /// Reads `bytes` at `offset_bytes` of the shared read region in requests of `block_bytes`.
  void read(std::uint64_t offset_bytes, std::uint64_t bytes, std::uint64_t block_bytes);
  /// Reads the `bytes` of the shared read region that follow this file's previous call's
  /// (wrapping at its end), as a loader reads its next batch.
  void read_next(std::uint64_t bytes, std::uint64_t block_bytes);
  /// Writes this file's region and the shared read region once each (nothing where that was
  /// done before), so that reads and writes meet written blocks; reads call it themselves.
  void fill();
  /// Bytes written without a gap from the start of this file's region (at most all of it).
  std::uint64_t size_bytes() const { return size_bytes_; }
  bool direct() const;
  /// Empty with O_DIRECT; otherwise why the page cache is in the way.
  const std::string& note() const;
  const std::string& path() const;

  static constexpr std::uint64_t kAlignBytes = 4096;

 private:
  // Calls io(file offset, bytes) for each request of `bytes` from `offset_bytes` on in the
  // region at `base_bytes`, wrapping at its end.
  template <typename Io>
  void for_each_request(std::uint64_t base_bytes, std::uint64_t offset_bytes, std::uint64_t bytes,
                        std::uint64_t block_bytes, Io&& io);
  void fill_shared_read_region();

  std::shared_ptr<ScratchDisk> disk_;
  std::uint64_t base_bytes_ = 0;  // this file's region: writes
  std::uint64_t size_bytes_ = 0;
  bool read_region_filled_ = false;
  std::uint64_t next_read_bytes_ = 0;   // read_next()'s offset
  std::uint64_t next_write_bytes_ = 0;  // write_next()'s offset
  IoBuffer buffer_;                     // what requests read into and write from
};

}  // namespace opsim
