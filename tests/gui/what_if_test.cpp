// The timeline in its window: the wheel scrolls and Ctrl+wheel zooms, and a what-if edit
// keeps the zoom and a baseline of the run before it (with the real `opsim` CLI).
#include <gtest/gtest.h>

#include <QApplication>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>
#include <set>

#include "gui/main_window.hpp"
#include "gui/scenario_panel.hpp"
#include "gui/timeline_view.hpp"
#include "gui_test_support.hpp"
#include "test_traces.hpp"

namespace opsim::gui {
namespace {

using testing::settle;

RunResult result_of(std::shared_ptr<Trace> trace, const std::string& name) {
  RunResult r;
  r.summary.topology = "pcie-switch-4gpu";
  r.summary.bytes = 160e6;
  SummaryRow row = summary_row_of(*trace);
  row.name = name;
  r.summary.rows = {row};
  r.traces = {trace};
  return r;
}

/// Three panes of the tree trace: taller than the window, so there is something to scroll.
RunResult tall_result() {
  RunResult r = result_of(testing::tree_trace(), "tree");
  for (const char* name : {"tree again", "tree thrice"}) {
    SummaryRow row = r.summary.rows[0];
    row.name = name;
    r.summary.rows.push_back(row);
    r.traces.push_back(testing::tree_trace());
  }
  return r;
}

void send_wheel(QWidget* target, QPoint pos, int delta_y, Qt::KeyboardModifiers mods) {
  QWheelEvent wheel(QPointF(pos), QPointF(target->mapToGlobal(pos)), QPoint(), QPoint(0, delta_y),
                    Qt::NoButton, mods, Qt::NoScrollPhase, false);
  QApplication::sendEvent(target, &wheel);
}

TEST(TimelineWheel, PlainWheelScrollsCtrlWheelZoomsAtTheCursor) {
  MainWindow w(MainWindow::Options{false, {}});
  w.resize(1500, 700);
  w.show();
  w.show_result(tall_result());
  settle();
  QScrollBar* bar = w.timeline_scroll()->verticalScrollBar();
  ASSERT_GT(bar->maximum(), 0) << "the content must be taller than the view";
  const TimeAxis before = w.view_state().axis();
  TimelineView* tl = w.timeline();
  const QPoint at(tl->style().label_width_px + 300, 200);
  send_wheel(tl, at, -240, Qt::NoModifier);  // two notches down
  settle();
  EXPECT_GT(bar->value(), 0);
  EXPECT_EQ(w.view_state().axis(), before) << "a plain wheel must not zoom";

  const int scrolled = bar->value();
  const double t_at_cursor = before.ns_at(300);
  send_wheel(tl, QPoint(at.x(), at.y() + scrolled), 120, Qt::ControlModifier);
  settle();
  const TimeAxis& zoomed = w.view_state().axis();
  EXPECT_EQ(bar->value(), scrolled) << "Ctrl+wheel must not scroll";
  EXPECT_NEAR(zoomed.ns_per_px, before.ns_per_px / 1.25, before.ns_per_px * 1e-9);
  EXPECT_NEAR(zoomed.ns_at(300), t_at_cursor, before.ns_per_px * 1e-6);  // fixed under the cursor
}

TEST(TimelineGroups, ClickingAGroupLabelCollapsesItAndStickyHeadersStayOnTop) {
  MainWindow w(MainWindow::Options{false, {}});
  w.resize(1500, 700);
  w.show();
  w.show_result(tall_result());
  settle();
  TimelineView* tl = w.timeline();
  const int rows_before = static_cast<int>(tl->layout(0).rows().size());
  // The first pane's server0 header sits right under its title bar.
  const QPoint server0(20, tl->style().title_height_px + tl->style().group_height_px / 2);
  ASSERT_EQ(tl->header_at(server0), std::optional<std::string>("server0"));
  QTest::mouseClick(tl, Qt::LeftButton, Qt::NoModifier, server0);
  settle();
  EXPECT_TRUE(w.view_state().rows().collapsed.count("server0"));
  EXPECT_LT(static_cast<int>(tl->layout(0).rows().size()), rows_before);
  w.view_state().set_collapsed({});
  settle();
  // Scrolled into the first pane's links, the "Links" header is still hit at the top.
  QScrollBar* bar = w.timeline_scroll()->verticalScrollBar();
  const RowLayout& layout = tl->layout(0);
  const int links_top = layout.rows()[static_cast<std::size_t>(layout.index_of_lane(14))].top_px;
  bar->setValue(links_top - tl->style().title_height_px);
  settle();
  const int top = tl->visibleRegion().boundingRect().top();
  EXPECT_EQ(tl->header_at(QPoint(20, top + tl->style().title_height_px + 4)),
            std::optional<std::string>("Links"));
}

TEST(TimelineGroups, EachSubRowOfASharedLinkHitsItsOwnTransfer) {
  MainWindow w(MainWindow::Options{false, {}});
  w.resize(1500, 950);
  w.show();
  w.show_result(result_of(testing::tree_trace(), "tree"));
  settle();
  TimelineView* tl = w.timeline();
  const RowLayout& layout = tl->layout(0);
  const LaidOutRow& row = layout.rows()[static_cast<std::size_t>(layout.index_of_lane(14))];
  const int x = tl->style().label_width_px + static_cast<int>(w.view_state().axis().x_of(15e6));
  std::set<std::uint32_t> hit;
  for (int sub = 0; sub < 3; ++sub) {
    const int y = row.top_px + 3 + sub * tl->style().sub_row_height_px + 3;
    const auto op = tl->op_at(QPoint(x, y));
    ASSERT_TRUE(op.has_value()) << "sub-row " << sub;
    hit.insert(op->op);
  }
  EXPECT_EQ(hit, (std::set<std::uint32_t>{0, 1, 2}));  // the three gathers
}

// An edit through the panel re-simulates with the real CLI: the zoom stays, the run before
// the edit stays as the baseline, and the shown results are stale until the new run is in.
TEST(WhatIf, AnEditKeepsTheZoomAndTheRunBeforeItAsBaseline) {
  const QString cli = QStringLiteral(OPSIM_BINARY_DIR) + QStringLiteral("/bin/opsim");
  ASSERT_TRUE(QFileInfo(cli).isExecutable()) << cli.toStdString();
  MainWindow w(MainWindow::Options{true, cli});
  QSignalSpy done(&w, &MainWindow::simulation_done);
  w.resize(1500, 950);
  w.show();
  ASSERT_TRUE(done.wait(120000));
  ASSERT_TRUE(done.takeFirst().at(0).toBool()) << w.status_text().toStdString();
  settle();
  ASSERT_EQ(w.trace_set().panes().size(), 3u);
  const TimelineModel& tree_before = *w.trace_set().panes()[0].model;
  const TimeNs makespan_before = tree_before.end_ns();
  EXPECT_EQ(makespan_before, 60000000);
  EXPECT_FALSE(w.what_if().has_baseline());
  w.view_state().show_range(10e6, 40e6);  // the user zoomed in
  const TimeAxis zoomed = w.view_state().axis();

  auto* panel = w.findChild<ScenarioPanel*>();
  ASSERT_NE(panel, nullptr);
  auto* scale = panel->findChild<QDoubleSpinBox*>();
  ASSERT_NE(scale, nullptr);
  scale->setValue(0.5);  // every link at half its bandwidth
  EXPECT_TRUE(w.what_if().stale()) << "results must be marked stale while re-simulating";
  EXPECT_TRUE(w.timeline()->comparison_panes()[0].decor.stale);
  ASSERT_TRUE(done.wait(120000));
  ASSERT_TRUE(done.takeFirst().at(0).toBool()) << w.status_text().toStdString();
  settle();
  EXPECT_FALSE(w.what_if().stale());
  EXPECT_EQ(w.view_state().axis(), zoomed) << "the edit must keep the zoom";
  EXPECT_EQ(w.trace_set().panes()[0].model->end_ns(), 2 * makespan_before);
  const auto baseline = w.what_if().baseline_for(QStringLiteral("tree"));
  ASSERT_TRUE(baseline);
  EXPECT_EQ(baseline->end_ns(), makespan_before);
  const auto panes = w.timeline()->comparison_panes();
  EXPECT_EQ(panes[0].decor.baseline, baseline);
  EXPECT_TRUE(panes[0].decor.baseline_note.startsWith("before 60.00 ms → 120.0 ms (+100.0%)"))
      << panes[0].decor.baseline_note.toStdString();

  // A second edit compares against the same baseline until it is dropped.
  scale->setValue(0.25);
  ASSERT_TRUE(done.wait(120000));
  settle();
  EXPECT_EQ(w.what_if().baseline_for(QStringLiteral("tree"))->end_ns(), makespan_before);
  w.what_if().drop_baseline();
  settle();
  EXPECT_FALSE(w.timeline()->comparison_panes()[0].decor.baseline);
}

}  // namespace
}  // namespace opsim::gui
