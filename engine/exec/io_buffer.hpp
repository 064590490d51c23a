// The memory a disk op's O_DIRECT requests read into and write from: 2 MiB-aligned and backed
// by a transparent huge page where the kernel grants one (MADV_HUGEPAGE).
//
// Why: the device moves a request's bytes to and from the buffer's physical pages, one
// scatter-gather segment per contiguous piece. On this project's 2-vCPU VM, 1 MiB sequential
// reads of the same blocks ran at 1.5, 1.5, 1.9, 2.2 and 2.2 GB/s into five malloc'd buffers,
// each buffer keeping its rate for the process's life, and at 2.85 GB/s into each of three
// huge-page buffers. A calibration and a workload reading into different malloc'd buffers
// therefore met different disks (validation errors of +-15 %, their sign changing from one
// process to the next); one physically contiguous piece per request gives every buffer the
// same rate.
#pragma once

#include <cstddef>

namespace opsim {

class IoBuffer {
 public:
  IoBuffer() = default;
  ~IoBuffer();
  IoBuffer(const IoBuffer&) = delete;
  IoBuffer& operator=(const IoBuffer&) = delete;

  /// Makes data() hold at least `bytes` (contents: a fixed byte pattern). Throws std::bad_alloc.
  void reserve(std::size_t bytes);
  void* data() const { return data_; }
  std::size_t size_bytes() const { return bytes_; }

  static constexpr std::size_t kHugePageBytes = 2u << 20;

 private:
  void* mapping_ = nullptr;  // what mmap returned (2 MiB more than asked, for the alignment)
  std::size_t mapping_bytes_ = 0;
  void* data_ = nullptr;  // 2 MiB-aligned inside mapping_
  std::size_t bytes_ = 0;
};

}  // namespace opsim
