// Storage: an HDD pays a seek plus half a rotation before its first byte (~8 ms, ~100 IOPS)
// and then streams 100-200 MB/s; SSDs and NVMe drives answer in tens of microseconds and
// sustain 100k-500k IOPS.
#pragma once

#include <string_view>

namespace opsim {

enum class DiskKind { kHdd, kSataSsd, kNvme };

std::string_view to_string(DiskKind kind);

struct DiskModel {
  DiskKind kind = DiskKind::kNvme;
  double access_s = 80e-6;           ///< latency to the first byte of an access
  double read_bytes_per_s = 3.0e9;   ///< sequential read bandwidth
  double write_bytes_per_s = 2.0e9;  ///< sequential write bandwidth
  double read_iops = 500e3;          ///< random 4 KiB reads per second, at full queue depth
  double write_iops = 200e3;         ///< random 4 KiB writes per second
  int queues = 4;                    ///< requests served at once (HDD: 1)
  /// Extra wait of each random read per sequential transfer running on the disk at the same
  /// time: the small request queues behind the large ones (`opsim calibrate` measures it;
  /// 0: random reads do not notice sequential traffic).
  double random_read_wait_beside_sequential_s = 0;
  /// What one sequential read gets while random reads run on the disk: the large requests
  /// wait behind the small ones, or, on a VM whose host I/O thread answers sooner while kept
  /// busy, more than the read alone (`opsim calibrate` measures it; 0: unaffected).
  double sequential_read_beside_random_bytes_per_s = 0;
  /// What sequential reads and writes get while the other direction runs on the disk too
  /// (one device serves both; `opsim calibrate` measures it; 0: unaffected).
  double sequential_read_beside_write_bytes_per_s = 0;
  double sequential_write_beside_read_bytes_per_s = 0;
  /// What two or more sequential reads get together (0: the read bandwidth, shared). It may
  /// exceed one read's rate: a device with queues serves two streams in parallel.
  double sequential_reads_together_bytes_per_s = 0;

  /// HDD: access = seek + half a rotation; IOPS follows from the access time.
  static DiskModel hdd(double rpm, double seek_s, double bytes_per_s);
  static DiskModel sata_ssd();
  /// NVMe on PCIe `generation` x`lanes`; x4 gen 4 reaches ~7-8 GB/s.
  static DiskModel nvme(int generation, int lanes);

  /// Seconds for one request of `bytes`, alone on the disk. Sequential: one access, then
  /// streaming. Random: bytes / block_bytes accesses at the drive's IOPS, plus streaming.
  double request_time_s(double bytes, bool write, bool sequential, double block_bytes) const;
};

}  // namespace opsim
