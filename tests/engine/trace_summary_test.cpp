#include <gtest/gtest.h>

#include "engine/trace_summary.hpp"
#include "trace_test_support.hpp"

namespace opsim {
namespace {

using test::kMs;

TEST(TraceSummary, LinkUtilizationBusyTimeAndMemory) {
  const TraceSummary s = summarize_trace(test::hand_made_trace());
  EXPECT_DOUBLE_EQ(s.makespan_s, 0.060);
  EXPECT_DOUBLE_EQ(s.bytes_moved, 480e6 + 0.1 + 125e6 + 3);
  ASSERT_EQ(s.links.size(), 2u);
  // 480 MB over a 16 GB/s direction in a 60 ms run: half its capacity.
  EXPECT_EQ(s.links[0].name, "pcie_gpu0 gpu0\u2192pcie_sw0");
  EXPECT_EQ(s.links[0].lane, 3u);
  EXPECT_DOUBLE_EQ(s.links[0].bytes, 480e6);
  EXPECT_EQ(s.links[0].busy_ns, 30 * kMs);
  EXPECT_DOUBLE_EQ(s.links[0].utilization, 0.5);
  // eth0: three overlapping transfers 10–20, 15–25, 12–18 ms: busy 15 ms (union).
  EXPECT_EQ(s.links[1].busy_ns, 15 * kMs);
  EXPECT_DOUBLE_EQ(s.links[1].utilization, (0.1 + 125e6 + 3) / (12.5e9 * 0.060));
  EXPECT_EQ(s.busiest_link, "pcie_gpu0 gpu0\u2192pcie_sw0");
  EXPECT_DOUBLE_EQ(s.busiest_link_utilization, 0.5);

  ASSERT_EQ(s.lanes.size(), 5u);
  EXPECT_DOUBLE_EQ(s.lanes[0].busy_fraction, 1.0);
  EXPECT_DOUBLE_EQ(s.lanes[1].busy_fraction, 0.5);
  EXPECT_EQ(s.lanes[2].busy_ns, 15 * kMs);
  EXPECT_DOUBLE_EQ(s.lanes[2].busy_fraction, 0.25);

  // gpu0: 100 → 300 (10 ms) → 0 (20 ms); cpu0: 50 (5 ms) → 400 (15 ms). Together at most
  // 300 + 400 = 700 between 15 and 20 ms.
  ASSERT_EQ(s.peak_memory.size(), 2u);
  EXPECT_EQ(s.peak_memory[0].device, "gpu0");
  EXPECT_DOUBLE_EQ(s.peak_memory[0].peak_bytes, 300);
  EXPECT_EQ(s.peak_memory[1].device, "cpu0");
  EXPECT_DOUBLE_EQ(s.peak_memory[1].peak_bytes, 400);
  EXPECT_DOUBLE_EQ(s.peak_memory_bytes_total, 700);
}

TEST(TraceSummary, RangeBusyBytesAndIdleGaps) {
  const RangeSummary r = summarize_range(test::hand_made_trace(), 10 * kMs, 40 * kMs);
  ASSERT_EQ(r.lanes.size(), 5u);
  EXPECT_DOUBLE_EQ(r.lanes[0].busy_fraction, 1.0);
  EXPECT_EQ(r.lanes[3].busy_ns, 20 * kMs);  // copy0 runs until 30 ms
  EXPECT_DOUBLE_EQ(r.lanes[3].busy_fraction, 20.0 / 30.0);
  // Two thirds of copy0 and all of the three sends lie inside.
  EXPECT_DOUBLE_EQ(r.bytes_moved, 480e6 * 2.0 / 3.0 + 0.1 + 125e6 + 3);
  std::vector<std::tuple<std::uint32_t, TimeNs, TimeNs>> gaps;
  for (const IdleGap& g : r.idle_gaps) gaps.emplace_back(g.lane, g.start_ns, g.end_ns);
  EXPECT_EQ(gaps, (std::vector<std::tuple<std::uint32_t, TimeNs, TimeNs>>{
                      {1, 30 * kMs, 40 * kMs},
                      {2, 25 * kMs, 40 * kMs},
                      {3, 30 * kMs, 40 * kMs},
                      {4, 25 * kMs, 40 * kMs},
                  }));
  // A range before anything starts on the sends' lane is one idle gap.
  const RangeSummary early = summarize_range(test::hand_made_trace(), 0, 5 * kMs);
  EXPECT_DOUBLE_EQ(early.lanes[2].busy_fraction, 0.0);
  EXPECT_DOUBLE_EQ(early.bytes_moved, 480e6 / 6.0);
  const RangeSummary empty = summarize_range(test::hand_made_trace(), 5, 5);
  EXPECT_TRUE(empty.idle_gaps.empty());
  EXPECT_DOUBLE_EQ(empty.bytes_moved, 0);
}

TEST(TraceSummary, FormatsForATerminal) {
  const std::string text = format_trace_summary(summarize_trace(test::hand_made_trace()));
  EXPECT_NE(text.find("busiest link pcie_gpu0 gpu0\u2192pcie_sw0: 50% of capacity\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("peak memory, all devices at once: "), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(TraceSummary, EmptyTrace) {
  const TraceSummary s = summarize_trace(Trace{});
  EXPECT_EQ(s.makespan_s, 0);
  EXPECT_TRUE(s.links.empty());
  EXPECT_EQ(s.busiest_link, "");
  EXPECT_EQ(s.peak_memory_bytes_total, 0);
}

}  // namespace
}  // namespace opsim
