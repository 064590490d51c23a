// Lanes at scale: collapsing groups, the summary bar, the lane filter, sub-rows for
// concurrent transfers and counter tracks, on the models and layout (no window).
#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cctype>

#include "gui/row_layout.hpp"
#include "gui/timeline_model.hpp"
#include "gui/timeline_painter.hpp"
#include "test_traces.hpp"

namespace opsim::gui {
namespace {

using testing::kMs;

std::uint32_t row_with_key(const TimelineModel& m, const std::string& key) {
  for (std::uint32_t r = 0; r < m.rows().size(); ++r) {
    if (m.rows()[r].key == key) return r;
  }
  ADD_FAILURE() << "no header " << key;
  return 0;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

TEST(Lanes, RowsKnowTheirHeaders) {
  const TimelineModel m(testing::tree_trace());
  const std::uint32_t server = row_with_key(m, "server0");
  const std::uint32_t gpu0 = row_with_key(m, "server0/gpu0");
  EXPECT_EQ(m.rows()[gpu0].parent, server);
  EXPECT_EQ(m.rows()[gpu0 + 1].parent, gpu0);  // gpu0/compute0
  // 13 stream lanes under the server (4 GPUs x 3, cpu0's host); its memory counter too.
  EXPECT_EQ(m.lanes_under(server).size(), 13u);
  EXPECT_EQ(m.lanes_under(gpu0).size(), 3u);
  const auto counter = std::find_if(m.rows().begin(), m.rows().end(), [](const TimelineRow& r) {
    return r.kind == RowKind::kCounter;
  });
  ASSERT_NE(counter, m.rows().end());
  EXPECT_EQ(counter->parent, gpu0);
  EXPECT_EQ(counter->label, "memory");
  EXPECT_DOUBLE_EQ(m.counter_max(counter->counter), 640e6);
}

TEST(Lanes, CollapsingAGroupHidesItsRowsAndItsBarCoversTheirBusyTime) {
  const TimelineModel m(testing::tree_trace());
  const TimelineStyle style;
  const RowLayout all(m, style);
  RowVisibility vis;
  vis.collapsed = {"server0"};
  SummaryCache cache;
  const RowLayout collapsed(m, vis, style, &cache);
  // server0 holds 5 device headers, 13 lanes and 1 counter: 19 rows fewer, the header stays.
  EXPECT_EQ(all.rows().size() - collapsed.rows().size(), 19u);
  EXPECT_LT(collapsed.height_px(), all.height_px());
  const std::uint32_t server = row_with_key(m, "server0");
  const int idx = collapsed.index_of_row(server);
  ASSERT_GE(idx, 0);
  const LaidOutRow& header = collapsed.rows()[static_cast<std::size_t>(idx)];
  EXPECT_TRUE(header.collapsed);
  ASSERT_TRUE(header.summary);
  EXPECT_EQ(cache.at(server), header.summary);
  EXPECT_EQ(header.summary->lane_count(), 13u);
  for (std::uint32_t lane : m.lanes_under(server)) EXPECT_LT(collapsed.index_of_lane(lane), 0);
  // Every span of the group lies inside one busy interval of its summary, and the summary is
  // busy nowhere else: gathers, reduce and broadcasts cover [0, 62 ms].
  const auto intervals = header.summary->busy_intervals();
  for (std::uint32_t lane : m.lanes_under(server)) {
    for (const SpanRef& s : m.lane_spans(lane).spans) {
      EXPECT_TRUE(std::any_of(
          intervals.begin(), intervals.end(),
          [&](const auto& iv) { return iv.first <= s.start_ns && s.end_ns <= iv.second; }))
          << "span of op " << s.op << " not covered";
      EXPECT_GT(header.summary->mean_busy_fraction(s.start_ns, s.end_ns), 0);
    }
  }
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0], std::make_pair(TimeNs{0}, 62 * kMs));
  EXPECT_EQ(header.summary->mean_busy_fraction(62 * kMs, 70 * kMs), 0);
  // During the reduce only gpu0/compute0 is busy: 1 of 13 lanes.
  EXPECT_NEAR(header.summary->mean_busy_fraction(30.5 * kMs, 31.5 * kMs), 1.0 / 13, 1e-12);
  // During the gathers gpu1..3's copy-out lanes (and the launch at first): 3 of 13.
  EXPECT_NEAR(header.summary->mean_busy_fraction(10 * kMs, 20 * kMs), 3.0 / 13, 1e-12);

  // Painted: the bar fills the header row's plot wherever the group is busy, not after.
  QImage img(1000, collapsed.height_px(), QImage::Format_ARGB32_Premultiplied);
  TimeAxis axis;
  axis.fit(0, 80 * kMs, img.width() - style.label_width_px, 0);
  QPainter p(&img);
  paint_pane(p, m, collapsed, axis, img.rect(), img.rect(), PaneDecor{}, style);
  p.end();
  const int bar_y = header.top_px + header.height_px - 3;
  const QColor bar(0x4e, 0x79, 0xa7);
  EXPECT_EQ(img.pixelColor(style.label_width_px + static_cast<int>(axis.x_of(15 * kMs)), bar_y),
            bar);
  EXPECT_NE(img.pixelColor(style.label_width_px + static_cast<int>(axis.x_of(70 * kMs)), bar_y),
            bar);
}

TEST(Lanes, CollapsingADeviceKeepsItsServerOpen) {
  const TimelineModel m(testing::tree_trace());
  RowVisibility vis;
  vis.collapsed = {"server0/gpu1"};
  const RowLayout layout(m, vis, TimelineStyle{});
  EXPECT_EQ(RowLayout(m, TimelineStyle{}).rows().size() - layout.rows().size(), 3u);
  EXPECT_LT(layout.index_of_lane(3), 0);  // gpu1/compute0
  EXPECT_GE(layout.index_of_lane(6), 0);  // gpu2/compute0
}

TEST(Lanes, TheFilterKeepsOnlyMatchingLanes) {
  const TimelineModel m(testing::tree_trace());
  const TimelineStyle style;
  const auto matches = [&](std::uint32_t lane, const std::string& needle) {
    const TraceLane& l = m.trace().lanes[lane];
    if (lower(l.name).find(needle) != std::string::npos) return true;
    if (lower(l.device).find(needle) != std::string::npos) return true;
    for (const SpanRef& s : m.lane_spans(lane).spans) {
      if (lower(m.trace().ops[s.op].name).find(needle) != std::string::npos) return true;
    }
    return false;
  };
  for (const std::string filter : {"gpu2", "Broadcast GPU3", "reduce", "nothing-like-this"}) {
    RowVisibility vis;
    vis.filter = filter;
    const RowLayout layout(m, vis, style);
    std::size_t kept = 0;
    for (std::uint32_t lane = 0; lane < m.trace().lanes.size(); ++lane) {
      const bool shown = layout.index_of_lane(lane) >= 0;
      EXPECT_EQ(shown, matches(lane, lower(filter)))
          << filter << ": " << m.trace().lanes[lane].name;
      kept += shown;
    }
    EXPECT_EQ(layout.lane_rows(), kept);
    // Headers only above kept lanes.
    for (const LaidOutRow& r : layout.rows()) {
      const TimelineRow& row = m.rows()[r.row];
      if (row.kind == RowKind::kGroup || row.kind == RowKind::kSubgroup) {
        EXPECT_FALSE(m.lanes_under(r.row).empty());
      }
    }
  }
  // By op name: the reduce runs on gpu0/compute0 only, so that lane, gpu0's memory and
  // their headers remain.
  RowVisibility vis;
  vis.filter = "REDUCE";
  const RowLayout layout(m, vis, style);
  ASSERT_EQ(layout.lane_rows(), 1u);
  EXPECT_GE(layout.index_of_lane(0), 0);
  EXPECT_EQ(layout.rows().size(), 4u);  // server0, gpu0, compute0, memory
  // "gpu2" keeps gpu2's stream lanes and the links named after it.
  vis.filter = "gpu2";
  const RowLayout gpu2(m, vis, style);
  EXPECT_GE(gpu2.index_of_lane(6), 0);   // gpu2/compute0
  EXPECT_GE(gpu2.index_of_lane(17), 0);  // pcie_gpu2 up
  EXPECT_LT(gpu2.index_of_lane(3), 0);   // gpu1/compute0
}

TEST(Lanes, ConcurrentTransfersOnOneLinkGetDistinctSubRows) {
  const TimelineModel m(testing::tree_trace());
  const TimelineStyle style;
  const std::uint32_t shared_down = 14;  // pcie_gpu0 down: the three gathers at once
  const LaneSpans& ls = m.lane_spans(shared_down);
  ASSERT_EQ(ls.spans.size(), 3u);
  EXPECT_EQ(ls.sub_rows, 3);
  for (std::size_t a = 0; a < ls.spans.size(); ++a) {
    for (std::size_t b = a + 1; b < ls.spans.size(); ++b) {
      const bool overlap =
          ls.spans[a].start_ns < ls.spans[b].end_ns && ls.spans[b].start_ns < ls.spans[a].end_ns;
      if (overlap) {
        EXPECT_NE(ls.spans[a].slot, ls.spans[b].slot);
      }
    }
  }
  // The row grows to give each transfer a readable bar, and each is painted in its own band.
  const RowLayout layout(m, style);
  const LaidOutRow& row =
      layout.rows()[static_cast<std::size_t>(layout.index_of_lane(shared_down))];
  EXPECT_EQ(row.height_px, 6 + 3 * style.sub_row_height_px);
  QImage img(900, layout.height_px(), QImage::Format_ARGB32_Premultiplied);
  TimeAxis axis;
  axis.fit(0, 70 * kMs, img.width() - style.label_width_px, 0);
  QPainter p(&img);
  paint_pane(p, m, layout, axis, img.rect(), img.rect(), PaneDecor{}, style);
  p.end();
  const int x = style.label_width_px + static_cast<int>(axis.x_of(15 * kMs));
  const QColor copy = color_for_op_class("copy");
  for (int sub = 0; sub < 3; ++sub) {
    const int y = row.top_px + 3 + sub * style.sub_row_height_px + style.sub_row_height_px / 2;
    EXPECT_EQ(img.pixelColor(x, y), copy) << "sub-row " << sub;
    // A pixel of background (the gap) separates the sub-rows.
    EXPECT_NE(img.pixelColor(x, row.top_px + 3 + (sub + 1) * style.sub_row_height_px - 1), copy)
        << "gap under sub-row " << sub;
  }
}

TEST(Lanes, CounterTracksFollowTheirDeviceAndCanBeHidden) {
  const TimelineModel m(testing::tree_trace());
  const TimelineStyle style;
  RowVisibility vis;
  const RowLayout with(m, vis, style);
  vis.show_counters = false;
  const RowLayout without(m, vis, style);
  EXPECT_EQ(with.rows().size(), without.rows().size() + 1);
  EXPECT_EQ(with.height_px(), without.height_px() + style.counter_height_px);
  // The memory graph reaches the top of its row at the peak (30..32 ms) and a quarter of it
  // before.
  const auto it = std::find_if(with.rows().begin(), with.rows().end(), [&](const LaidOutRow& r) {
    return m.rows()[r.row].kind == RowKind::kCounter;
  });
  ASSERT_NE(it, with.rows().end());
  QImage img(900, with.height_px(), QImage::Format_ARGB32_Premultiplied);
  TimeAxis axis;
  axis.fit(0, 64 * kMs, img.width() - style.label_width_px, 0);
  QPainter p(&img);
  paint_pane(p, m, with, axis, img.rect(), img.rect(), PaneDecor{}, style);
  p.end();
  const auto filled = [&](double t_ns, int from_bottom_px) {
    const int x = style.label_width_px + static_cast<int>(axis.x_of(t_ns));
    const int y = it->top_px + it->height_px - 2 - from_bottom_px;
    return img.pixelColor(x, y) != QColor(0xfb, 0xfb, 0xf8);
  };
  EXPECT_TRUE(filled(31 * kMs, style.counter_height_px - 7));
  EXPECT_TRUE(filled(11 * kMs, 2));
  EXPECT_FALSE(filled(11 * kMs, style.counter_height_px / 2));
}

}  // namespace
}  // namespace opsim::gui

namespace opsim::gui {
namespace {

TEST(Lanes, StickyHeadersArePaintedOverTheRowsScrolledUnderThem) {
  const TimelineModel m(testing::tree_trace());
  const TimelineStyle style;
  const RowLayout layout(m, style);
  // Scrolled so that gpu1's lanes are at the top: the title, server0 and gpu1 stick.
  const std::uint32_t gpu1_lane = 4;  // gpu1/copy-out
  const int scroll =
      layout.rows()[static_cast<std::size_t>(layout.index_of_lane(gpu1_lane))].top_px;
  QImage img(900, layout.height_px(), QImage::Format_ARGB32_Premultiplied);
  const QRect clip(0, scroll, img.width(), 200);
  const auto sticky = sticky_headers(m, layout, img.rect(), clip.top(), style);
  ASSERT_EQ(sticky.size(), 2u);
  EXPECT_EQ(m.rows()[layout.rows()[static_cast<std::size_t>(sticky[0].layout_index)].row].key,
            "server0");
  EXPECT_EQ(m.rows()[layout.rows()[static_cast<std::size_t>(sticky[1].layout_index)].row].key,
            "server0/gpu1");
  EXPECT_EQ(sticky[0].rect.top(), scroll + style.title_height_px);
  TimeAxis axis;
  axis.fit(0, 70 * kMs, img.width() - style.label_width_px, 0);
  img.fill(Qt::black);
  QPainter p(&img);
  paint_pane(p, m, layout, axis, img.rect(), clip, PaneDecor{}, style);
  p.end();
  // The server header's background (not a lane's) right of its label, in the label column.
  EXPECT_EQ(img.pixelColor(style.label_width_px - 4, sticky[0].rect.center().y()),
            QColor(0xee, 0xf0, 0xf3));
}

}  // namespace
}  // namespace opsim::gui
