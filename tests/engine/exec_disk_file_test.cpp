// The scratch disk that disk ops and the calibration share: one file per directory per
// process, one region every DiskFile reads and one each to write, regions reused, writes and
// reads wrapping inside a region.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "engine/exec/disk_file.hpp"
#include "engine/exec/scratch_disk.hpp"

namespace opsim {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kMiB = 1ull << 20;

std::string scratch_dir(const std::string& name) {
  const fs::path dir = fs::path(OPSIM_BINARY_DIR) / "test_scratch" / name;
  fs::create_directories(dir);
  return dir.string();
}

TEST(ScratchDisk, DiskFilesInOneDirectoryShareOneFileInSeparateRegions) {
  const std::string dir = scratch_dir("scratch_shared");
  std::string path;
  {
    DiskFile a(dir);
    DiskFile b(dir);
    path = a.path();
    EXPECT_EQ(a.path(), b.path());
    EXPECT_TRUE(fs::exists(path));
    EXPECT_EQ(ScratchDisk::in_directory(dir)->regions_in_use(), 2u);
    a.write(0, kMiB, 0);
    b.read(0, 2 * kMiB, 0);  // from the shared read region (written first), not b's own
    EXPECT_EQ(a.size_bytes(), kMiB);
    EXPECT_EQ(b.size_bytes(), 0u);
    // Another directory has its own file.
    DiskFile c(scratch_dir("scratch_other"));
    EXPECT_NE(c.path(), path);
  }
  EXPECT_FALSE(fs::exists(path)) << "removed with its last user";
}

TEST(ScratchDisk, ReleasedRegionsAreReusedSoTheFileDoesNotGrow) {
  const std::string dir = scratch_dir("scratch_reuse");
  const auto disk = ScratchDisk::in_directory(dir);
  for (int i = 0; i < 10; ++i) {
    DiskFile f(dir);
    f.write(f.size_bytes(), 4 * kMiB, 0);
    EXPECT_EQ(disk->regions_in_use(), 1u);
  }
  EXPECT_EQ(disk->regions_in_use(), 0u);
  EXPECT_LE(fs::file_size(disk->path()),
            ScratchDisk::kPreallocatedRegions * ScratchDisk::kRegionBytes);
  // A region keeps what was written in it for its next user.
  {
    DiskFile filled(dir);
    filled.fill();
    EXPECT_EQ(filled.size_bytes(), ScratchDisk::kRegionBytes);
  }
  {
    DiskFile next(dir);
    EXPECT_EQ(next.size_bytes(), ScratchDisk::kRegionBytes);
  }
  // More users than preallocated regions: one more region each.
  std::vector<std::unique_ptr<DiskFile>> many;
  for (std::uint64_t i = 0; i <= ScratchDisk::kPreallocatedRegions; ++i)
    many.push_back(std::make_unique<DiskFile>(dir));
  EXPECT_EQ(disk->regions_in_use(), ScratchDisk::kPreallocatedRegions + 1);
  many.back()->write(0, kMiB, 0);
  EXPECT_GE(fs::file_size(disk->path()),
            ScratchDisk::kPreallocatedRegions * ScratchDisk::kRegionBytes + kMiB);
}

TEST(DiskFile, AppendsAndLongReadsWrapAroundInsideTheRegion) {
  const std::string dir = scratch_dir("scratch_wrap");
  DiskFile f(dir);
  const std::uint64_t region = ScratchDisk::kRegionBytes;
  // A write that crosses the region's end continues at its start; the written prefix is what
  // it wrote there (the part at the end lies past the prefix, after a hole).
  f.write(region - kMiB, 3 * kMiB, 0);
  EXPECT_EQ(f.size_bytes(), 2 * kMiB);
  EXPECT_LE(fs::file_size(f.path()), ScratchDisk::kPreallocatedRegions * region);
  // A read longer than a region reads the shared read region around, once it is written.
  const auto start = std::chrono::steady_clock::now();
  f.read(0, region + 8 * kMiB, 0);
  // 256 MiB written and 264 MiB read, not holes read as zeros: not under 20 ms (26 GB/s).
  EXPECT_GT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_EQ(f.size_bytes(), 2 * kMiB) << "reads leave the file's own region alone";
  // write_next fills the file's region first, then goes on from where the last call ended.
  DiskFile g(dir);
  g.read_next(kMiB, 0);
  EXPECT_EQ(g.size_bytes(), 0u);
  for (int i = 0; i < 3; ++i) g.write_next(region / 2, 0);
  EXPECT_EQ(g.size_bytes(), region);
  // Offsets past the region fold into it.
  f.write(5 * region, kMiB, 0);
  EXPECT_EQ(f.size_bytes(), 2 * kMiB);
}

}  // namespace
}  // namespace opsim
