// The disk space that disk ops and the calibration read and write: one scratch file per
// directory per process, preallocated in one piece and cut into regions: one that every
// DiskFile reads, and one more per DiskFile, which it writes.
//
// Why one file: on a virtual disk the read rate depends on where a file lies. On the
// 2-vCPU Firecracker guest this project is developed on, files written one after another
// read at 0.9 to 4.2 GB/s at the same moment, each keeping its rate for its lifetime, while
// the parts of one file written in one piece all read alike. A calibration that measured its
// own file and a workload that read others then disagreed by up to 4x, the same way in every
// round. Preallocated together, the calibration's and the executor's regions lie together.
// (Measurement traced much of such a per-file rate to the memory each file's requests went
// to, not the file: io_buffer.hpp.)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace opsim {

class ScratchDisk {
 public:
  /// Bytes of one region: the most a DiskFile holds (larger ops wrap around inside it).
  static constexpr std::uint64_t kRegionBytes = 256ull << 20;
  /// Regions preallocated at once when the file is created (more are added as needed).
  static constexpr std::uint64_t kPreallocatedRegions = 4;

  /// The process's scratch disk in `directory`, created on first use and removed (closed and
  /// unlinked) once its last user is gone. Throws std::runtime_error when it cannot be opened.
  static std::shared_ptr<ScratchDisk> in_directory(const std::string& directory);

  ~ScratchDisk();
  ScratchDisk(const ScratchDisk&) = delete;
  ScratchDisk& operator=(const ScratchDisk&) = delete;

  /// A free region's first byte (kRegionBytes long); give it back with release_region().
  std::uint64_t acquire_region();
  /// Bytes written without a gap from the region's start, kept while the region is free so
  /// that its next user need not write them again.
  std::uint64_t written_bytes(std::uint64_t base_bytes) const;
  void release_region(std::uint64_t base_bytes, std::uint64_t written_bytes);
  /// Regions held by DiskFiles now (not counting the read region).
  std::size_t regions_in_use() const;

  /// The first byte of the region that every DiskFile reads.
  std::uint64_t read_region() const { return 0; }
  /// Has `write(from, to)` write the read region's bytes [from, to) that were never written,
  /// once in the process's life (callers at the same time wait for the first).
  void fill_read_region(const std::function<void(std::uint64_t, std::uint64_t)>& write);

  int fd() const { return fd_; }
  bool direct() const { return direct_; }
  /// Empty with O_DIRECT; otherwise why the page cache is in the way.
  const std::string& note() const { return note_; }
  const std::string& path() const { return path_; }

  explicit ScratchDisk(std::string path);  // use in_directory()

 private:
  void preallocate(std::uint64_t first_region, std::uint64_t regions);

  std::string path_;
  int fd_ = -1;
  bool direct_ = false;
  std::string note_;
  mutable std::mutex mutex_;
  std::mutex fill_mutex_;
  std::uint64_t read_region_written_bytes_ = 0;  // fill_mutex_
  std::vector<bool> in_use_;                     // per region
  std::vector<std::uint64_t> written_bytes_;     // per region
};

}  // namespace opsim
