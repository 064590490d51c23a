#include "gui/range_stats.hpp"

#include <gtest/gtest.h>

#include "test_traces.hpp"

namespace opsim::gui {
namespace {

using testing::kMs;

TEST(RangeStats, WholeTreeRun) {
  const TimelineModel m(testing::tree_trace());
  const auto st = range_stats(m, 0, 62 * kMs);
  // gpu0 compute: the 2 ms reduce; idle before (30 ms) and after (30 ms).
  EXPECT_EQ(st[0].busy_ns, 2 * kMs);
  EXPECT_NEAR(st[0].busy_fraction, 2.0 / 62, 1e-12);
  EXPECT_EQ(st[0].idle_gaps, 2);
  EXPECT_EQ(st[0].longest_gap_ns, 30 * kMs);
  // pcie_gpu0 down carried three 160 MB gathers in 30 ms: 480 MB, 30/62 busy,
  // 480 MB / (16 GB/s * 62 ms) = 48.4 % of its capacity.
  EXPECT_EQ(st[14].busy_ns, 30 * kMs);
  EXPECT_DOUBLE_EQ(st[14].bytes, 480e6);
  EXPECT_NEAR(st[14].utilization, 480e6 / (16e9 * 0.062), 1e-9);
  EXPECT_EQ(st[14].idle_gaps, 1);
  // An unused link.
  EXPECT_EQ(st[21].busy_ns, 0);
  EXPECT_EQ(st[21].idle_gaps, 1);
  EXPECT_EQ(st[21].longest_gap_ns, 62 * kMs);
}

TEST(RangeStats, PartialRangeCountsBytesProRata) {
  const TimelineModel m(testing::tree_trace());
  const auto st = range_stats(m, 15 * kMs, 31 * kMs);
  // pcie_gpu0 down busy 15..30 of a 16 ms range; half of each 160 MB gather.
  EXPECT_EQ(st[14].busy_ns, 15 * kMs);
  EXPECT_DOUBLE_EQ(st[14].bytes, 3 * 80e6);
  EXPECT_NEAR(st[14].busy_fraction, 15.0 / 16, 1e-12);
  // Link at full speed for 15 of 16 ms with three flows sharing it: 240 MB / (16 GB/s * 16 ms).
  EXPECT_NEAR(st[14].utilization, std::min(1.0, 240e6 / (16e9 * 0.016)), 1e-9);
  // gpu0 compute: idle 15..30, busy 30..31.
  EXPECT_EQ(st[0].busy_ns, kMs);
  EXPECT_EQ(st[0].longest_gap_ns, 15 * kMs);
}

TEST(RangeStats, OverlappingSpansAreCountedOnceAndTinyGapsFiltered) {
  Trace t;
  t.lanes.push_back({"l up", "n", "l", LaneKind::kLink, 0});
  for (int i = 0; i < 3; ++i) t.ops.push_back({"o", "copy", "a", "b", 0, 100, 1, 0, 0});
  t.lanes.push_back({"a/copy", "n", "a", LaneKind::kCopy, 0});
  t.link_spans = {{0, 0, 0, 50}, {1, 0, 10, 40}, {2, 0, 52, 100}};
  const TimelineModel m(std::make_shared<Trace>(t));
  auto st = range_stats(m, 0, 100, 1);
  EXPECT_EQ(st[0].busy_ns, 98);
  EXPECT_EQ(st[0].idle_gaps, 1);
  EXPECT_EQ(st[0].longest_gap_ns, 2);
  EXPECT_DOUBLE_EQ(st[0].utilization, 0.98);  // no capacity: busy fraction
  st = range_stats(m, 0, 100, 5);
  EXPECT_EQ(st[0].idle_gaps, 0);
  EXPECT_EQ(range_stats(m, 50, 50)[0].busy_ns, 0);
}

}  // namespace
}  // namespace opsim::gui
