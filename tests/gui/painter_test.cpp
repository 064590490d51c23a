#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>

#include "gui/comparison_render.hpp"
#include "gui/timeline_painter.hpp"
#include "test_traces.hpp"

namespace opsim::gui {
namespace {

using testing::kMs;

QString screenshot_dir() {
  const QString dir = QStringLiteral(OPSIM_BINARY_DIR) + QStringLiteral("/gui-screenshots");
  QDir().mkpath(dir);
  return dir;
}

TEST(TimelinePainter, SubPixelSpansMergeIntoAtMostOneBoxPerPixel) {
  const TimelineModel m(testing::dense_trace(200000));  // 200 ms of 1 us kernels
  const TimelineStyle style;
  QImage img(1200, pane_height_px(m, style), QImage::Format_ARGB32_Premultiplied);
  QPainter p(&img);
  TimeAxis axis;
  axis.fit(0, 200 * kMs, img.width() - style.label_width_px, 0);
  const PaintStats s = paint_pane(p, m, axis, img.rect(), img.rect(), PaneDecor{}, style);
  EXPECT_LE(s.boxes_drawn, static_cast<std::size_t>(img.width() - style.label_width_px));
  EXPECT_GE(s.merged_runs, 1u);
  // Back-to-back kernels: the lane is painted solid across the plot.
  const int lane_y = row_top_px(m, 2, style) + style.lane_height_px / 2;
  const QColor mid = img.pixelColor(style.label_width_px + 500, lane_y);
  EXPECT_NE(mid, QColor(Qt::white));
  EXPECT_LT(mid.lightness(), 200);
}

TEST(TimelinePainter, OffScreenSpansAreCulled) {
  const TimelineModel m(testing::dense_trace(200000));
  const TimelineStyle style;
  QImage img(1200, pane_height_px(m, style), QImage::Format_ARGB32_Premultiplied);
  QPainter p(&img);
  TimeAxis axis;
  axis.fit(100 * kMs, 100 * kMs + 50000, img.width() - style.label_width_px, 0);  // 50 kernels
  const PaintStats s = paint_pane(p, m, axis, img.rect(), img.rect(), PaneDecor{}, style);
  EXPECT_LE(s.spans_visited, 52u);
  EXPECT_GE(s.spans_visited, 50u);
  EXPECT_EQ(s.merged_runs, 0u);  // each kernel is ~20 px wide here
}

TEST(TimelinePainter, SpansLandWhereTheAxisSays) {
  const TimelineModel m(testing::tree_trace());
  const TimelineStyle style;
  QImage img(62 * 10 + style.label_width_px, pane_height_px(m, style),
             QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::white);
  QPainter p(&img);
  TimeAxis axis{0, 0.1 * kMs};  // 10 px per ms
  paint_pane(p, m, axis, img.rect(), img.rect(), PaneDecor{}, style);
  p.end();
  // The reduce on gpu0 compute0 (row 2) spans 30..32 ms -> x 300..320 of the plot.
  const int y = row_top_px(m, 2, style) + style.lane_height_px / 2;
  const QColor reduce = color_for_op_class("reduce");
  EXPECT_EQ(img.pixelColor(style.label_width_px + 310, y), reduce);
  EXPECT_NE(img.pixelColor(style.label_width_px + 290, y), reduce);
  EXPECT_NE(img.pixelColor(style.label_width_px + 330, y), reduce);
}

TEST(TimelinePainter, RowGeometryIsConsistent) {
  const TimelineModel m(testing::tree_trace());
  const TimelineStyle style;
  EXPECT_EQ(row_at_px(m, 0, style), -1);
  for (int r = 0; r < static_cast<int>(m.rows().size()); ++r) {
    EXPECT_EQ(row_at_px(m, row_top_px(m, r, style), style), r);
    EXPECT_EQ(row_at_px(m, row_top_px(m, r + 1, style) - 1, style), r);  // its last pixel
  }
  EXPECT_EQ(row_at_px(m, pane_height_px(m, style), style), -1);
}

TEST(ComparisonRender, WritesPngAndSvgHeadless) {
  const std::vector<Trace> traces{*testing::tree_trace(), *testing::tree_trace()};
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("c.png"));
  ASSERT_TRUE(
      render_comparison_png(traces, {"tree", "tree again"}, png, QSize(1400, 0), {0.06, NAN}));
  QImage img(png);
  ASSERT_FALSE(img.isNull());
  EXPECT_EQ(img.width(), 1400);
  const TimelineStyle style;
  const TimelineModel m(testing::tree_trace(), TimelineOptions{.hide_idle_lanes = true});
  EXPECT_EQ(img.height(),
            style.ruler_height_px + 2 * (pane_height_px(m, style) + style.pane_gap_px));
  img.save(screenshot_dir() + QStringLiteral("/render_comparison.png"));

  const QString svg = dir.filePath(QStringLiteral("c.svg"));
  const auto panes = make_panes(traces, {"tree", "tree again"});
  TimeAxis axis;
  axis.fit(0, static_cast<double>(panes[0].model->end_ns()), 1400 - style.label_width_px);
  ASSERT_TRUE(save_comparison(panes, axis, QSize(1400, 0), svg));
  QFile f(svg);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray text = f.readAll();
  EXPECT_TRUE(text.contains("<svg"));
  EXPECT_TRUE(text.contains("tree again"));
  EXPECT_FALSE(render_comparison_png(traces, {}, dir.filePath(QStringLiteral("no/such/dir/x.png")),
                                     QSize(800, 0)));
}

}  // namespace
}  // namespace opsim::gui
