// The memcpy sizes calibrate measures: the grid, and a point either side of glibc's
// non-temporal threshold read from this process's own dynamic loader.
#include "experiments/calibration/memcpy_sizes.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "hw_models/cpu_model.hpp"

namespace opsim::calibration {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(MemcpySizes, ReadsTheThresholdFromTheLoadersTunables) {
  const char* listing =
      "glibc.malloc.mxfast: 0x0 (min: 0x0, max: 0xffffffffffffffff)\n"
      "glibc.cpu.x86_non_temporal_threshold: 0x7f00000 (min: 0x4040, max: 0xfffffffffffffff)\n"
      "glibc.cpu.x86_rep_movsb_threshold: 0x2000 (min: 0x100, max: 0xffffffffffffffff)\n";
  EXPECT_EQ(parse_non_temporal_threshold(listing), 0x7f00000u);
  EXPECT_EQ(parse_non_temporal_threshold("glibc.malloc.mxfast: 0x0\n"), std::nullopt);
  EXPECT_EQ(parse_non_temporal_threshold("glibc.cpu.x86_non_temporal_threshold: soon"),
            std::nullopt);
}

TEST(MemcpySizes, AsksThisProcesssLoaderWhichHonoursGlibcTunables) {
#if !(defined(__x86_64__) && defined(__GLIBC__))
  GTEST_SKIP() << "the threshold is an x86 glibc tunable";
#else
  const auto native = memcpy_non_temporal_threshold_bytes();
  ASSERT_TRUE(native.has_value()) << "glibc 2.33+ lists its tunables";
  EXPECT_GT(*native, 0x4040u);
  // The loader applies GLIBC_TUNABLES as it did for this process: move the threshold.
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before ? before : "";
  setenv("GLIBC_TUNABLES", "glibc.cpu.x86_non_temporal_threshold=0x4000000", 1);
  const auto moved = memcpy_non_temporal_threshold_bytes();
  if (before)
    setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
  EXPECT_EQ(moved, 0x4000000u);
#endif
}

TEST(MemcpySizes, AddsAPointEitherSideOfTheThresholdInsideTheGrid) {
  const std::vector<std::size_t> grid{8 * kMiB, 32 * kMiB, 64 * kMiB, 96 * kMiB};
  EXPECT_EQ(memcpy_calibration_sizes(128 * kMiB, std::nullopt), grid);
  // A host with 260 MiB of L3: 99 MiB, between the 96 and 128 MiB points.
  const std::size_t t = 99 * kMiB;
  EXPECT_EQ(memcpy_calibration_sizes(128 * kMiB, t),
            (std::vector<std::size_t>{8 * kMiB, 32 * kMiB, 64 * kMiB, 96 * kMiB,
                                      t - kThresholdMarginBytes, t + kThresholdMarginBytes}));
  // On a grid point: the point, on the step, gives way to the two sides.
  EXPECT_EQ(
      memcpy_calibration_sizes(128 * kMiB, 96 * kMiB),
      (std::vector<std::size_t>{8 * kMiB, 32 * kMiB, 64 * kMiB, 96 * kMiB - kThresholdMarginBytes,
                                96 * kMiB + kThresholdMarginBytes}));
  // Outside the measured range: nothing to add (the quick plan stops at 32 MiB).
  EXPECT_EQ(memcpy_calibration_sizes(128 * kMiB, 200 * kMiB), grid);
  EXPECT_EQ(memcpy_calibration_sizes(128 * kMiB, 4 * kMiB), grid);
  EXPECT_EQ(memcpy_calibration_sizes(32 * kMiB, 127 * kMiB), (std::vector<std::size_t>{8 * kMiB}));
}

TEST(MemcpySizes, NamesStayDistinctForSizesThatAreNotWholeMiB) {
  EXPECT_EQ(memcpy_measurement_name(96 * kMiB), "memcpy 96 MiB");
  EXPECT_EQ(memcpy_measurement_name(127 * kMiB - kThresholdMarginBytes), "memcpy 126.94 MiB");
  EXPECT_EQ(memcpy_measurement_name(127 * kMiB + kThresholdMarginBytes), "memcpy 127.06 MiB");
  EXPECT_EQ(memcpy_measurement_name(96 * kMiB, 2), "memcpy 2 streams 96 MiB");
  EXPECT_EQ(memcpy_measurement_name(127 * kMiB - kThresholdMarginBytes, 2),
            "memcpy 2 streams 126.94 MiB");
}

// What the two points buy: a copy just above the threshold takes the rate above it, where
// the 96 and 128 MiB points alone interpolate across the step.
TEST(MemcpySizes, TheStepIsWhereTheThresholdIs) {
  const double t = 99.0 * kMiB, m = kThresholdMarginBytes;
  CpuModel grid_only;
  grid_only.copy_stream_rates = {{96.0 * kMiB, 7.3e9}, {128.0 * kMiB, 11.7e9}};
  CpuModel with_sides = grid_only;
  with_sides.copy_stream_rates = {
      {96.0 * kMiB, 7.3e9}, {t - m, 7.3e9}, {t + m, 11.7e9}, {128.0 * kMiB, 11.7e9}};
  EXPECT_LT(grid_only.copy_stream_bytes_per_s_for(100.0 * kMiB), 8.0e9);
  EXPECT_DOUBLE_EQ(with_sides.copy_stream_bytes_per_s_for(100.0 * kMiB), 11.7e9);
  EXPECT_DOUBLE_EQ(with_sides.copy_stream_bytes_per_s_for(98.0 * kMiB), 7.3e9);
}

}  // namespace
}  // namespace opsim::calibration
