#include "hw_models/disk_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace opsim {

std::string_view to_string(DiskKind kind) {
  switch (kind) {
    case DiskKind::kHdd: return "hdd";
    case DiskKind::kSataSsd: return "ssd";
    case DiskKind::kNvme: return "nvme";
  }
  return "nvme";
}

DiskModel DiskModel::hdd(double rpm, double seek_s, double bytes_per_s) {
  DiskModel model;
  model.kind = DiskKind::kHdd;
  model.access_s = seek_s + 0.5 * 60.0 / rpm;
  model.read_bytes_per_s = bytes_per_s;
  model.write_bytes_per_s = bytes_per_s;
  model.read_iops = 1.0 / model.access_s;
  model.write_iops = 1.0 / model.access_s;
  model.queues = 1;
  return model;
}

DiskModel DiskModel::sata_ssd() {
  DiskModel model;
  model.kind = DiskKind::kSataSsd;
  model.access_s = 100e-6;
  model.read_bytes_per_s = 550e6;
  model.write_bytes_per_s = 500e6;
  model.read_iops = 100e3;
  model.write_iops = 90e3;
  model.queues = 4;
  return model;
}

DiskModel DiskModel::nvme(int generation, int lanes) {
  if (generation < 3 || generation > 5) throw std::invalid_argument("NVMe PCIe generation must be 3..5");
  DiskModel model;
  model.kind = DiskKind::kNvme;
  model.access_s = 80e-6;
  const double per_lane = generation == 3 ? 0.985e9 : generation == 4 ? 1.969e9 : 3.938e9;
  model.read_bytes_per_s = 0.9 * per_lane * lanes;
  model.write_bytes_per_s = 0.7 * per_lane * lanes;
  model.read_iops = 500e3;
  model.write_iops = 300e3;
  model.queues = 8;
  return model;
}

double DiskModel::request_time_s(double bytes, bool write, bool sequential,
                                 double block_bytes) const {
  const double bandwidth = write ? write_bytes_per_s : read_bytes_per_s;
  if (sequential || block_bytes <= 0) return access_s + bytes / bandwidth;
  // Random: every block pays one access; IOPS is the rate the drive sustains for them.
  const double accesses = std::ceil(bytes / block_bytes);
  const double iops = write ? write_iops : read_iops;
  return accesses / iops + bytes / bandwidth;
}

}  // namespace opsim
