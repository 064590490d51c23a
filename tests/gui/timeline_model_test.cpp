#include "gui/timeline_model.hpp"

#include <gtest/gtest.h>

#include "test_traces.hpp"

namespace opsim::gui {
namespace {

using testing::kMs;

// The row that shows `lane`, or -1 when the lane has none.
int row_showing(const TimelineModel& m, std::uint32_t lane) {
  for (std::size_t r = 0; r < m.rows().size(); ++r) {
    if (m.rows()[r].kind == RowKind::kLane && m.rows()[r].lane == lane) return static_cast<int>(r);
  }
  return -1;
}

TEST(TimelineModel, RowsGoServerDeviceLaneThenLinks) {
  const TimelineModel m(testing::tree_trace());
  std::vector<std::string> labels;
  for (const TimelineRow& r : m.rows()) labels.push_back(r.label);
  const std::vector<std::string> expected{
      "server0",        "gpu0",           "compute0",       "copy-out",       "copy-in",
      "memory",  // gpu0's memory counter, under its lanes
      "gpu1",           "compute0",       "copy-out",       "copy-in",        "gpu2",
      "compute0",       "copy-out",       "copy-in",        "gpu3",           "compute0",
      "copy-out",       "copy-in",        "cpu0",           "host",           "Links",
      "pcie_gpu0 up",   "pcie_gpu0 down", "pcie_gpu1 up",   "pcie_gpu1 down", "pcie_gpu2 up",
      "pcie_gpu2 down", "pcie_gpu3 up",   "pcie_gpu3 down", "pcie_cpu0 up",   "pcie_cpu0 down"};
  EXPECT_EQ(labels, expected);
  EXPECT_EQ(m.rows()[static_cast<std::size_t>(row_showing(m, 14))].label, "pcie_gpu0 down");
  EXPECT_EQ(m.end_ns(), 62 * kMs);
  EXPECT_EQ(m.span_count(), 8u + 12u);
}

TEST(TimelineModel, IdleLanesAndTheirHeadersCanBeHidden) {
  const TimelineModel m(testing::tree_trace(), TimelineOptions{.hide_idle_lanes = true});
  std::vector<std::string> labels;
  for (const TimelineRow& r : m.rows()) labels.push_back(r.label);
  const std::vector<std::string> expected{
      "server0",      "gpu0",           "compute0",       "memory",        "gpu1",
      "copy-out",     "copy-in",        "gpu2",           "copy-out",      "copy-in",
      "gpu3",         "copy-out",       "copy-in",        "cpu0",          "host",
      "Links",        "pcie_gpu0 up",   "pcie_gpu0 down", "pcie_gpu1 up",  "pcie_gpu1 down",
      "pcie_gpu2 up", "pcie_gpu2 down", "pcie_gpu3 up",   "pcie_gpu3 down"};
  EXPECT_EQ(labels, expected);
  EXPECT_EQ(row_showing(m, 21), -1);  // pcie_cpu0 up
}

TEST(TimelineModel, ConcurrentFlowsOnALinkGetSubRows) {
  const TimelineModel m(testing::tree_trace());
  EXPECT_EQ(m.lane_spans(14).sub_rows, 3);  // three gathers share pcie_gpu0 down
  std::vector<int> sub_row_slots;
  for (const SpanRef& s : m.lane_spans(14).spans) sub_row_slots.push_back(s.slot);
  EXPECT_EQ(sub_row_slots, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(m.lane_spans(0).sub_rows, 1);
}

TEST(TimelineModel, DisksComeLastAndStreamsOfAServerStayTogether) {
  Trace t;
  t.lanes.push_back({"disk0/io", "server0", "disk0", LaneKind::kIo, 0});
  t.lanes.push_back({"nic_link up", "server1", "nic_link", LaneKind::kLink, 1e9});
  t.lanes.push_back({"gpu0/compute0", "server1", "gpu0", LaneKind::kCompute, 0});
  t.lanes.push_back({"gpu1/compute0", "server0", "gpu1", LaneKind::kCompute, 0});
  const TimelineModel m(std::make_shared<Trace>(t));
  std::vector<std::string> labels;
  for (const TimelineRow& r : m.rows()) labels.push_back(r.label);
  // Servers in order of first appearance (server0 owns the first lane, a disk).
  EXPECT_EQ(labels, (std::vector<std::string>{"server0", "gpu1", "compute0", "server1", "gpu0",
                                              "compute0", "Links", "nic_link up", "Disks", "io"}));
}

TEST(TimelineModel, FirstEndingAfterHandlesOverlappingSpans) {
  // A long span first, then short ones: the running max keeps the long one findable.
  Trace t;
  t.lanes.push_back({"l up", "n", "l", LaneKind::kLink, 1});
  t.lanes.push_back({"x/compute0", "n", "x", LaneKind::kCompute, 0});
  for (int i = 0; i < 4; ++i) t.ops.push_back({"o", "copy", "a", "b", 0, 1, 1, 0, 0});
  t.link_spans = {{0, 0, 0, 100}, {1, 0, 10, 20}, {2, 0, 30, 40}, {3, 0, 50, 60}};
  const TimelineModel m(std::make_shared<Trace>(t));
  const LaneSpans& ls = m.lane_spans(0);
  struct Case {
    TimeNs t;
    std::size_t first;
  };
  for (const Case c : {Case{-5, 0}, Case{0, 0}, Case{45, 0}, Case{99, 0}, Case{100, 4}}) {
    EXPECT_EQ(ls.first_ending_after(c.t), c.first) << c.t;
  }
}

TEST(TimelineModel, OpAtPrefersTheSpanUnderTheCursorThenTheShortest) {
  const TimelineModel m(testing::tree_trace());
  EXPECT_EQ(m.op_at(0, 31 * kMs, 0), 3u);            // reduce on gpu0 compute
  EXPECT_EQ(m.op_at(0, 29.9 * kMs, 0.2 * kMs), 3u);  // within tolerance
  EXPECT_FALSE(m.op_at(0, 20 * kMs, 0.2 * kMs).has_value());
  const auto shared = m.op_at(14, 10 * kMs, 0);  // three gathers on pcie_gpu0 down
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(*shared, 0u);  // equal lengths: the first
}

TEST(TimelineModel, CriticalPathFollowsTheGatingPredecessors) {
  const TimelineModel m(testing::tree_trace());
  // Last op to end: broadcast gpu1 (op 4, lowest index of the three ending at 62 ms);
  // it waited for the reduce, which waited for gather gpu1 (op 0, first of the equal ends).
  EXPECT_EQ(m.critical_path(), (std::vector<std::uint32_t>{0, 3, 4}));
  EXPECT_TRUE(m.on_critical_path(3));
  EXPECT_FALSE(m.on_critical_path(7));  // the host dispatch
  EXPECT_EQ(m.predecessors(3).size(), 3u);
  EXPECT_EQ(m.successors(3).size(), 3u);
}

TEST(TimelineModel, StreamOrderGatesLikeADependency) {
  Trace t;
  t.lanes.push_back({"gpu0/compute0", "s", "gpu0", LaneKind::kCompute, 0});
  t.ops.push_back({"a", "gemm", "gpu0", "", 1, 0, 0, 0, 10});
  t.ops.push_back({"b", "gemm", "gpu0", "", 1, 0, 0, 10, 25});
  t.ops.push_back({"c", "gemm", "gpu0", "", 1, 0, 0, 25, 30});
  const TimelineModel m(std::make_shared<Trace>(t));
  EXPECT_EQ(m.gating_predecessor(2), 1u);
  EXPECT_EQ(m.critical_path(), (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(TimelineModel, EmptyTraceIsFine) {
  const TimelineModel m(std::make_shared<Trace>());
  EXPECT_TRUE(m.rows().empty());
  EXPECT_TRUE(m.critical_path().empty());
  EXPECT_EQ(m.end_ns(), 0);
}

}  // namespace
}  // namespace opsim::gui
