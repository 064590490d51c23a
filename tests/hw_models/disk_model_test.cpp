#include "hw_models/disk_model.hpp"

#include <gtest/gtest.h>

namespace opsim {
namespace {

TEST(DiskModel, HddFromRpmMatchesTheBook) {
  // 7200 rpm: half a rotation is 4.17 ms; with a 4 ms seek, ~8 ms to the first byte.
  const DiskModel hdd = DiskModel::hdd(7200, 4e-3, 150e6);
  EXPECT_NEAR(hdd.access_s, 8.17e-3, 0.01e-3);
  EXPECT_NEAR(hdd.read_iops, 122, 1);  // ~100 IOPS
  // 150 MB sequential: one access then 1 s of streaming.
  EXPECT_NEAR(hdd.request_time_s(150e6, false, true, 0), 1.0 + hdd.access_s, 1e-9);
  // 100 random 4 KiB reads cost ~100 accesses.
  EXPECT_NEAR(hdd.request_time_s(409600, false, false, 4096), 100 / hdd.read_iops + 409600 / 150e6, 1e-9);
}

TEST(DiskModel, SsdAndNvmeRanges) {
  const DiskModel ssd = DiskModel::sata_ssd();
  EXPECT_GE(ssd.read_iops, 100e3);
  const DiskModel nvme = DiskModel::nvme(4, 4);
  EXPECT_GT(nvme.read_bytes_per_s, 6e9);   // x4 PCIe 4.0: up to ~8 GB/s
  EXPECT_LE(nvme.read_bytes_per_s, 8e9);
  EXPECT_LE(nvme.read_iops, 500e3);
  EXPECT_THROW(DiskModel::nvme(2, 4), std::invalid_argument);
}

}  // namespace
}  // namespace opsim
