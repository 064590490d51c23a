// Collective scenarios end to end: the window runs the real `opsim collective`, shows one
// pane per algorithm as long as the CLI's own JSON says, shows the CLI's refusal in the
// banner, keeps the run before a what-if edit as the baseline, and opsim-gui's smoke test
// takes a collective from its command line.
#include <gtest/gtest.h>

#include <QApplication>
#include <QBarCategoryAxis>
#include <QChart>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <cmath>

#include "gui/main_window.hpp"
#include "gui/scenario_panel.hpp"
#include "gui/summary_chart.hpp"
#include "gui/timeline_view.hpp"
#include "gui_test_support.hpp"
#include "tests/support/opsim_command.hpp"

namespace opsim::gui {
namespace {

using testing::cli_path;

using testing::settle;

Scenario dgx1_allreduce(const QStringList& algorithms) {
  Scenario s;
  s.kind = ScenarioKind::kCollective;
  s.topology = QStringLiteral("dgx1-v100");
  s.collective.algorithms = algorithms;
  return s;
}

// The CLI's own answer for `scenario`: its "results" array.
QJsonArray cli_results(const Scenario& scenario) {
  QStringList args = run_arguments(scenario, QString());
  args.resize(args.size() - 2);  // no --trace-dir
  QProcess p;
  p.start(cli_path(), args);
  EXPECT_TRUE(p.waitForFinished(120000));
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  return QJsonDocument::fromJson(p.readAllStandardOutput()).object()["results"].toArray();
}

// Starts `scenario` in a shown window and waits for its result; false if it failed.
bool run_in(MainWindow& w, const Scenario& scenario) {
  QSignalSpy done(&w, &MainWindow::simulation_done);
  w.set_scenario(scenario);
  w.simulate(scenario);
  EXPECT_TRUE(done.wait(120000)) << "no result within 120 s";
  settle();
  return !done.isEmpty() && done.takeFirst().at(0).toBool();
}

class CollectiveWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(QFileInfo(cli_path()).isExecutable()) << cli_path().toStdString();
    window_.resize(1500, 950);
    window_.show();
  }
  MainWindow window_{MainWindow::Options{false, cli_path()}};
};

TEST_F(CollectiveWindow, EachAlgorithmIsAPaneAsLongAsTheCliSays) {
  const Scenario s = dgx1_allreduce({"ring", "tree", "auto"});
  ASSERT_TRUE(run_in(window_, s)) << window_.status_text().toStdString();
  const QJsonArray expected = cli_results(s);
  ASSERT_EQ(expected.size(), 3);
  const auto& panes = window_.trace_set().panes();
  ASSERT_EQ(panes.size(), 3u);
  const SummaryModel& m = window_.summary_model();
  ASSERT_EQ(m.rowCount(), 3);
  for (int i = 0; i < 3; ++i) {
    const QJsonObject cli = expected[i].toObject();
    const std::size_t pane = static_cast<std::size_t>(i);
    EXPECT_EQ(panes[pane].title, "allreduce " + cli["algorithm"].toString());
    // The trace ends when the CLI's time says (integer nanoseconds).
    EXPECT_EQ(panes[pane].model->end_ns(), std::llround(cli["time_s"].toDouble() * 1e9));
    EXPECT_DOUBLE_EQ(m.index(i, SummaryModel::kMakespan).data(Qt::UserRole).toDouble(),
                     cli["time_s"].toDouble());
    EXPECT_DOUBLE_EQ(m.index(i, SummaryModel::kAlgbw).data(Qt::UserRole).toDouble(),
                     cli["algbw_GBps"].toDouble());
    EXPECT_DOUBLE_EQ(m.index(i, SummaryModel::kBusbw).data(Qt::UserRole).toDouble(),
                     cli["busbw_GBps"].toDouble());
    EXPECT_EQ(m.index(i, SummaryModel::kChosen).data().toString(),
              cli["chosen_algorithm"].toString() + " · " + cli["protocol"].toString());
  }
  // 160 MB on eight V100s: the ring beats the tree, and auto picks the ring (with Simple).
  EXPECT_LT(panes[0].model->end_ns(), panes[1].model->end_ns());
  EXPECT_EQ(m.index(2, SummaryModel::kChosen).data().toString(), "ring · Simple");
  EXPECT_TRUE(window_.status_text().startsWith("3 × allreduce on dgx1-v100, 160 MB"))
      << window_.status_text().toStdString();
  // The table shows what a collective has (busbw, the links from its trace), not what it
  // lacks (a lower bound).
  const auto* table = window_.findChild<QTableView*>(QStringLiteral("summary_table"));
  ASSERT_NE(table, nullptr);
  EXPECT_FALSE(table->isColumnHidden(SummaryModel::kBusbw));
  EXPECT_FALSE(table->isColumnHidden(SummaryModel::kBusiestLink));
  EXPECT_TRUE(table->isColumnHidden(SummaryModel::kLowerBound));
  // The chart's bars are labelled by algorithm, the op in its title.
  const auto* chart = window_.findChild<SummaryChart*>();
  ASSERT_NE(chart, nullptr);
  EXPECT_EQ(chart->chart()->title(), "allreduce time per algorithm");
  const auto axes = chart->chart()->axes(Qt::Horizontal);
  ASSERT_EQ(axes.size(), 1);
  auto* categories = qobject_cast<QBarCategoryAxis*>(axes.front());
  ASSERT_NE(categories, nullptr);
  EXPECT_EQ(categories->categories(), QStringList({"ring", "tree", "auto"}));
}

// GPUs per thread (nccl-tests' -g 8): one thread launches the eight kernels in turn, so an
// 8-byte ring takes at least eight 5 us launches, and more than with a thread per GPU.
TEST_F(CollectiveWindow, GpusPerThreadReachTheCliAndAddTheirLaunches) {
  Scenario s = dgx1_allreduce({"ring"});
  s.collective.sizes = QStringLiteral("8");
  ASSERT_TRUE(run_in(window_, s)) << window_.status_text().toStdString();
  const double alone_s =
      window_.summary_model().index(0, SummaryModel::kMakespan).data(Qt::UserRole).toDouble();
  s.collective.gpus_per_thread = 8;
  ASSERT_TRUE(run_in(window_, s)) << window_.status_text().toStdString();
  const double grouped_s =
      window_.summary_model().index(0, SummaryModel::kMakespan).data(Qt::UserRole).toDouble();
  EXPECT_DOUBLE_EQ(grouped_s, cli_results(s)[0].toObject()["time_s"].toDouble());
  EXPECT_GE(grouped_s, 8 * 5e-6 - 1e-9);
  EXPECT_GT(grouped_s, alone_s);
}

// Several sizes: one pane per algorithm and size, named by size, the range in the status.
TEST_F(CollectiveWindow, SeveralSizesAreOnePaneEach) {
  Scenario s = dgx1_allreduce({"direct"});
  s.collective.op = QStringLiteral("sendrecv");
  s.collective.sizes = QStringLiteral("1KB:4KB");
  ASSERT_TRUE(run_in(window_, s)) << window_.status_text().toStdString();
  const auto& panes = window_.trace_set().panes();
  ASSERT_EQ(panes.size(), 3u);
  EXPECT_EQ(panes[0].title, "sendrecv direct 1 kB");
  EXPECT_EQ(panes[2].title, "sendrecv direct 4 kB");
  EXPECT_TRUE(window_.status_text().startsWith("3 × sendrecv on dgx1-v100, 1 kB – 4 kB"))
      << window_.status_text().toStdString();
}

TEST_F(CollectiveWindow, TheCliRefusalIsTheBannerLine) {
  Scenario s = dgx1_allreduce({"nvls"});
  s.topology = QStringLiteral("dgx-a100");
  EXPECT_FALSE(run_in(window_, s));
  const auto* banner = window_.findChild<QLabel*>(QStringLiteral("load_errors"));
  ASSERT_NE(banner, nullptr);
  EXPECT_FALSE(banner->isHidden());
  EXPECT_EQ(banner->text().toStdString(),
            "Simulation failed: opsim: error: collective allreduce: nvls needs an NVSwitch that "
            "reduces in the switch (in_switch_reduction: true); dgx-a100's switch nvsw0 does "
            "not");
  // A run that works again clears it.
  ASSERT_TRUE(run_in(window_, dgx1_allreduce({"ring"})));
  EXPECT_TRUE(banner->isHidden());
  EXPECT_EQ(window_.trace_set().panes().size(), 1u);
}

// Half the link bandwidth through the panel's what-if box: the ring takes longer, as the CLI
// says with --link-bandwidth-scale 0.5, and the run before the edit stays as the baseline.
TEST_F(CollectiveWindow, HalfTheLinkBandwidthSlowsTheRingAgainstItsBaseline) {
  const Scenario s = dgx1_allreduce({"ring", "tree"});
  ASSERT_TRUE(run_in(window_, s)) << window_.status_text().toStdString();
  const TimeNs ring_before = window_.trace_set().panes()[0].model->end_ns();
  QSignalSpy done(&window_, &MainWindow::simulation_done);
  auto* scale = window_.findChild<ScenarioPanel*>()->findChild<QDoubleSpinBox*>();
  ASSERT_NE(scale, nullptr);
  scale->setValue(0.5);
  EXPECT_TRUE(window_.what_if().stale());
  ASSERT_TRUE(done.wait(120000));
  ASSERT_TRUE(done.takeFirst().at(0).toBool()) << window_.status_text().toStdString();
  settle();
  Scenario half = s;
  half.link_bandwidth_scale = 0.5;
  const QJsonArray expected = cli_results(half);
  const TimeNs ring_after = window_.trace_set().panes()[0].model->end_ns();
  EXPECT_EQ(ring_after, std::llround(expected[0].toObject()["time_s"].toDouble() * 1e9));
  EXPECT_GT(ring_after, ring_before * 3 / 2) << "half the bandwidth, at least 1.5x the time";
  const auto baseline = window_.what_if().baseline_for(QStringLiteral("allreduce ring"));
  ASSERT_TRUE(baseline);
  EXPECT_EQ(baseline->end_ns(), ring_before);
  const auto panes = window_.timeline()->comparison_panes();
  EXPECT_EQ(panes[0].decor.baseline, baseline);
  EXPECT_TRUE(panes[0].decor.baseline_note.startsWith("before 2.389 ms → 4.723 ms (+97.7%)"))
      << panes[0].decor.baseline_note.toStdString();
}

TEST(CollectiveGuiBinary, TheSmokeTestRunsACollectiveFromTheCommandLine) {
  const auto dir = opsim::test::scratch_dir("gui_collective_smoke");
  const auto ok = opsim::test::run_program(
      "opsim-gui", "--smoke-test --collective allreduce --algorithm ring,tree --topology dgx1-v100",
      dir, "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("status: 2 × allreduce on dgx1-v100, 160 MB"), std::string::npos) << ok.out;

  const auto refused = opsim::test::run_program(
      "opsim-gui", "--smoke-test --collective allreduce --algorithm nvls --topology dgx-a100", dir,
      "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.err.find("nvls needs an NVSwitch that reduces in the switch"),
            std::string::npos)
      << refused.err;

  const auto bad =
      opsim::test::run_program("opsim-gui", "--no-run --collective broadcast --algorithm tree", dir,
                               "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "opsim-gui: --algorithm tree: does not apply to broadcast (ring, auto)\n");
}

}  // namespace
}  // namespace opsim::gui
