#include "gui/main_window.hpp"

#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <filesystem>

#include "engine/chrome_trace_writer.hpp"
#include "gui/timeline_view.hpp"
#include "gui/trace_loader.hpp"
#include "gui_test_support.hpp"
#include "test_traces.hpp"
#include "tests/support/opsim_command.hpp"

namespace opsim::gui {
namespace {

QString screenshot_path(const char* name) {
  const QString dir = QStringLiteral(OPSIM_BINARY_DIR) + QStringLiteral("/gui-screenshots");
  QDir().mkpath(dir);
  return dir + QLatin1Char('/') + QLatin1String(name);
}

using testing::settle;

// A run result built in code: the tree trace twice, as "tree" and a slower "cpu".
RunResult fixture_result() {
  RunResult r;
  r.summary.topology = "pcie-switch-4gpu";
  r.summary.bytes = 160e6;
  auto tree = testing::tree_trace();
  auto slow = testing::tree_trace();
  for (TraceOp& op : slow->ops) {
    op.start_ns = op.start_ns * 4 / 3;
    op.end_ns = op.end_ns * 4 / 3;
  }
  for (TraceSpan& s : slow->link_spans) {
    s.start_ns = s.start_ns * 4 / 3;
    s.end_ns = s.end_ns * 4 / 3;
  }
  SummaryRow a = summary_row_of(*tree);
  a.name = "tree";
  a.lower_bound_s = 0.04;
  SummaryRow b = summary_row_of(*slow);
  b.name = "cpu";
  r.summary.rows = {a, b};
  r.traces = {tree, slow};
  return r;
}

TEST(MainWindow, ShowsAComparisonAndReactsToSelection) {
  MainWindow w(MainWindow::Options{false, {}});
  w.resize(1500, 950);
  w.show();
  w.show_result(fixture_result());
  settle();
  ASSERT_EQ(w.summary_model().rowCount(), 2);
  EXPECT_EQ(w.summary_model().index(0, SummaryModel::kMakespan).data().toString(), "62.000 ms");
  ASSERT_EQ(w.trace_set().panes().size(), 2u);
  EXPECT_DOUBLE_EQ(w.trace_set().panes()[0].lower_bound_ns, 4e7);
  // The axis was fitted to the longer trace (82.667 ms) over the timeline's plot width.
  const TimeAxis& axis = w.view_state().axis();
  EXPECT_LT(axis.ns_at(0), 0);
  EXPECT_GT(axis.ns_at(w.view_state().plot_width_px()), 82.6e6);
  ASSERT_TRUE(w.grab().save(screenshot_path("window_summary.png")));

  // Click-equivalent: select the reduce, and a range over the gather phase.
  w.view_state().select_op(OpRef{0, 3});
  w.view_state().set_selection(std::make_pair(0.0, 30e6));
  settle();
  EXPECT_EQ(w.tabs()->currentIndex(), 1);
  // Idle lanes are hidden by default: 16 of the tree trace's 23 lanes carry spans.
  EXPECT_EQ(w.range_stats_model().rowCount(), 2 * 16);
  ASSERT_TRUE(w.grab().save(screenshot_path("window_selection.png")));
  w.tabs()->setCurrentIndex(2);
  settle();
  ASSERT_TRUE(w.grab().save(screenshot_path("window_topology.png")));

  // Hit testing goes through the same geometry as painting.
  TimelineView* tl = w.timeline();
  const int plot_x = tl->style().label_width_px +
                     static_cast<int>(w.view_state().axis().x_of(31e6));  // inside the reduce
  const int row_y = tl->style().title_height_px + tl->style().group_height_px +
                    tl->style().subgroup_height_px + tl->style().lane_height_px / 2;
  const auto hit = tl->op_at(QPoint(plot_x, row_y));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->pane, 0);
  EXPECT_EQ(hit->op, 3u);

  const QString png = screenshot_path("export_view.png");
  const QString svg = screenshot_path("export_view.svg");
  EXPECT_TRUE(w.export_view(png));
  EXPECT_TRUE(w.export_view(svg));
  EXPECT_GT(QFileInfo(png).size(), 1000);
  EXPECT_GT(QFileInfo(svg).size(), 1000);
}

TEST(MainWindow, MissingCliIsReportedNotFatal) {
  MainWindow w(MainWindow::Options{false, QStringLiteral("/nonexistent/opsim")});
  QSignalSpy done(&w, &MainWindow::simulation_done);
  w.simulate(Scenario{});
  ASSERT_TRUE(done.count() > 0 || done.wait(10000));
  EXPECT_FALSE(done.takeFirst().at(0).toBool());
  EXPECT_TRUE(w.status_text().startsWith("Simulation failed")) << w.status_text().toStdString();
}

// End to end: the default scenario through the real `opsim` CLI, as a new user sees it.
TEST(MainWindowEndToEnd, DefaultScenarioShowsTheBooksNumbers) {
  const QString cli = QStringLiteral(OPSIM_BINARY_DIR) + QStringLiteral("/bin/opsim");
  ASSERT_TRUE(QFileInfo(cli).isExecutable()) << "build/bin/opsim is missing: " << cli.toStdString();
  MainWindow w(MainWindow::Options{true, cli});
  QSignalSpy done(&w, &MainWindow::simulation_done);
  w.resize(1500, 950);
  w.show();
  ASSERT_TRUE(done.wait(120000)) << "no result within 120 s";
  ASSERT_TRUE(done.takeFirst().at(0).toBool()) << w.status_text().toStdString();
  settle();
  const SummaryModel& m = w.summary_model();
  ASSERT_EQ(m.rowCount(), 3);
  const std::vector<std::pair<std::string, double>> expected{
      {"tree", 0.060}, {"cpu", 0.080}, {"split", 0.015}};
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(m.index(r, SummaryModel::kName).data().toString().toStdString(),
              expected[static_cast<std::size_t>(r)].first);
    EXPECT_NEAR(m.index(r, SummaryModel::kMakespan).data(Qt::UserRole).toDouble(),
                expected[static_cast<std::size_t>(r)].second,
                expected[static_cast<std::size_t>(r)].second * 1e-3);
  }
  EXPECT_EQ(m.index(0, SummaryModel::kMakespan).data().toString(), "60.000 ms");
  EXPECT_EQ(m.index(1, SummaryModel::kMakespan).data().toString(), "80.000 ms");
  EXPECT_EQ(m.index(2, SummaryModel::kMakespan).data().toString(), "15.000 ms");
  ASSERT_TRUE(w.grab().save(screenshot_path("e2e_default_scenario.png")));
  // The traces came back through the engine's reader: one pane per strategy on one axis.
  {
    ASSERT_EQ(w.trace_set().panes().size(), 3u);
    EXPECT_NEAR(static_cast<double>(w.trace_set().panes()[2].model->end_ns()), 15e6, 15e3);
    w.view_state().set_selection(std::make_pair(0.0, 15e6));
    w.tabs()->setCurrentIndex(2);
    settle();
    ASSERT_TRUE(w.grab().save(screenshot_path("e2e_topology.png")));
  }
}

}  // namespace
}  // namespace opsim::gui

namespace opsim::gui {
namespace {

// Files opsim wrote: the engine's Chrome writer, then File > Open through the reader glue.
TEST(MainWindow, OpensChromeTracesAndComparesThemOnOneAxis) {
  QTemporaryDir dir;
  const QString a = dir.filePath(QStringLiteral("tree.json"));
  const QString b = dir.filePath(QStringLiteral("tree-again.json"));
  write_chrome_trace(*testing::tree_trace(), std::filesystem::path(a.toStdString()));
  write_chrome_trace(*testing::tree_trace(), std::filesystem::path(b.toStdString()));
  MainWindow w(MainWindow::Options{false, {}});
  w.resize(1500, 950);
  w.show();
  const QStringList errors = w.open_traces({a, b, dir.filePath(QStringLiteral("missing.json"))});
  ASSERT_EQ(errors.size(), 1);
  EXPECT_TRUE(errors[0].contains("missing.json")) << errors[0].toStdString();
  settle();
  ASSERT_EQ(w.trace_set().panes().size(), 2u);
  ASSERT_EQ(w.summary_model().rowCount(), 2);
  EXPECT_EQ(w.summary_model().index(1, SummaryModel::kName).data().toString(), "tree-again.json");
  EXPECT_EQ(w.summary_model().index(0, SummaryModel::kMakespan).data().toString(), "62.000 ms");
  EXPECT_EQ(w.trace_set().panes()[0].model->end_ns(), 62000000);
  ASSERT_TRUE(w.grab().save(screenshot_path("window_opened_files.png")));
}

}  // namespace
}  // namespace opsim::gui

// Qt aborts a program whose platform it cannot open (no display to connect to, a plug-in
// that is not installed): opsim-gui says why in one line and exits 2 instead.
TEST(GuiBinary, SaysWhyItCannotOpenAWindow) {
  const auto dir = opsim::test::scratch_dir("gui_binary");
  const auto one_line = [](const std::string& err) { return err.find('\n') == err.size() - 1; };
  const auto no_display = opsim::test::run_program(
      "opsim-gui", "--no-run", dir, "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM");
  EXPECT_EQ(no_display.exit_code, 2) << no_display.err;
  EXPECT_EQ(no_display.err.rfind("opsim-gui: no display", 0), 0u) << no_display.err;
  EXPECT_TRUE(one_line(no_display.err)) << no_display.err;

  const auto missing = opsim::test::run_program("opsim-gui", "--no-run", dir,
                                                "env QT_QPA_PLATFORM=no-such-platform");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("platform plug-in 'no-such-platform' is not installed"),
            std::string::npos)
      << missing.err;
  EXPECT_TRUE(one_line(missing.err)) << missing.err;

  // Headless with the offscreen plug-in it runs.
  const auto offscreen = opsim::test::run_program("opsim-gui", "--no-run --smoke-test", dir,
                                                  "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(offscreen.exit_code, 0) << offscreen.err;
  EXPECT_NE(offscreen.out.find("platform offscreen"), std::string::npos) << offscreen.out;
}
