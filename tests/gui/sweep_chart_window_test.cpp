// The GUI's sweep window: a sweep CSV opens from the main window as a chart with pickers,
// and double-clicking a point opens its trace file or re-runs the point through the real CLI.
#include "gui/sweep_chart_window.hpp"

#include <gtest/gtest.h>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLineSeries>
#include <QSignalSpy>
#include <QTest>
#include <fstream>

#include "gui/main_window.hpp"
#include "gui_test_support.hpp"
#include "tests/support/opsim_command.hpp"

namespace opsim::gui {
namespace {

namespace fs = std::filesystem;

const char* const kResults =
    "key,topology,gpus,bytes,gpu0-sw0.bandwidth,strategy,comm_only,makespan_s,ops,error\n"
    "a,pcie-switch-4gpu,4,16000000,8GB/s,tree,true,0.012,6,\n"
    "b,pcie-switch-4gpu,4,160000000,8GB/s,tree,true,0.12,6,\n"
    "c,pcie-switch-4gpu,4,16000000,8GB/s,split,true,0.003,24,\n"
    "d,pcie-switch-4gpu,4,160000000,8GB/s,split,true,0.03,24,\n";

QString write_csv(const std::string& name, const std::string& text) {
  const fs::path path = opsim::test::scratch_dir("sweep_window") / name;
  std::ofstream(path) << text;
  return QString::fromStdString(path.string());
}

using testing::settle;

TEST(SweepChartWindow, RecognisesSweepResultsByExtensionAndHeader) {
  EXPECT_TRUE(is_sweep_csv(write_csv("r.csv", kResults)));
  EXPECT_FALSE(is_sweep_csv(write_csv("r.json", kResults)));
  EXPECT_FALSE(is_sweep_csv(write_csv("trace.csv", "name,start_ns,end_ns\na,0,1\n")));
  EXPECT_FALSE(is_sweep_csv(QStringLiteral("/nonexistent/r.csv")));
}

TEST(SweepChartWindow, ScenarioOfARowCarriesEveryParameter) {
  const CsvTable table = parse_csv_table(kResults, "r.csv");
  std::string why_not;
  const std::optional<Scenario> s = scenario_of_row(table, 3, why_not);
  ASSERT_TRUE(s.has_value()) << why_not;
  EXPECT_EQ(s->topology, "pcie-switch-4gpu");
  EXPECT_EQ(s->strategies, QStringList{"split"});
  EXPECT_EQ(s->gradient_bytes, "160000000");
  EXPECT_EQ(s->gpus, 4);
  EXPECT_TRUE(s->comm_only);
  EXPECT_EQ(s->overrides, QStringList{"gpu0-sw0.bandwidth=8GB/s"});
  const CsvTable bare = parse_csv_table("bytes,makespan_s\n1,2\n", "b.csv");
  EXPECT_FALSE(scenario_of_row(bare, 0, why_not).has_value());
  EXPECT_EQ(why_not, "the row has no topology to re-run it with");
}

TEST(SweepChartWindow, ChartsTheFirstMetricAndFollowsThePickers) {
  SweepChartWindow window(write_csv("r.csv", kResults));
  window.show();
  settle();
  const QString shots = QStringLiteral(OPSIM_BINARY_DIR "/gui-screenshots");
  QDir().mkpath(shots);
  window.grab().save(shots + "/sweep_window.png");  // for a person to look at
  EXPECT_EQ(window.plot().charts.front().metric, "makespan_s");
  EXPECT_EQ(window.plot().charts.front().x.column, "bytes");
  ASSERT_EQ(window.chart_view()->chart()->series().size(), 2);
  EXPECT_EQ(window.chart_view()->chart()->series()[1]->name(), "split");
  // Near split's 160 MB point (axis positions: MB and ms on these linear axes).
  EXPECT_EQ(window.point_tooltip(1, QPointF(150, 28)).toStdString(),
            "split\nbytes: 160 MB\nmakespan_s: 30 ms\nline 5 of the CSV; double-click to open "
            "its trace");
  window.set_columns("bytes", "ops", "");
  EXPECT_EQ(window.plot().charts.front().metric, "ops");
  EXPECT_TRUE(window.status_text().startsWith("4 rows plotted"))
      << window.status_text().toStdString();
  window.set_columns("gpus", "ops", "");  // gpus does not vary: the plan still draws one point
  EXPECT_FALSE(window.plot().charts.empty());
}

TEST(SweepChartWindow, DoubleClickOnAPointOpensItsTraceFile) {
  const std::string with_traces =
      "bytes,strategy,makespan_s,trace_file\n1000,ring,0.001,traces/a.json\n"
      "2000,ring,0.002,traces/b.json\n";
  const QString csv = write_csv("t.csv", with_traces);
  SweepChartWindow window(csv);
  window.resize(1000, 700);
  window.show();
  settle();
  QSignalSpy opened(&window, &SweepChartWindow::trace_requested);
  QChart* chart = window.chart_view()->chart();
  auto* series = qobject_cast<QLineSeries*>(chart->series().front());
  const QPointF scene = chart->mapToPosition(series->at(1), series);
  const QPoint at = window.chart_view()->mapFromScene(scene);
  // A person's double click: a click, then the double-click event (Qt Charts takes the
  // point from the press).
  QTest::mouseClick(window.chart_view()->viewport(), Qt::LeftButton, {}, at);
  QTest::mouseDClick(window.chart_view()->viewport(), Qt::LeftButton, {}, at);
  settle();
  ASSERT_EQ(opened.count(), 1);
  EXPECT_EQ(opened.first().at(0).toString(),
            QFileInfo(csv).dir().absoluteFilePath("traces/b.json"));
}

// End to end: the main window opens the CSV as a chart; a point re-runs through `opsim`.
TEST(SweepChartWindowEndToEnd, MainWindowOpensTheChartAndReRunsAPoint) {
  const QString cli = QStringLiteral(OPSIM_BINARY_DIR) + QStringLiteral("/bin/opsim");
  ASSERT_TRUE(QFileInfo(cli).isExecutable()) << cli.toStdString();
  MainWindow main(MainWindow::Options{false, cli});
  EXPECT_TRUE(main.open_traces({write_csv("r.csv", kResults)}).isEmpty());
  auto* window = main.findChild<SweepChartWindow*>();
  ASSERT_NE(window, nullptr);
  EXPECT_TRUE(window->isVisible());
  QSignalSpy done(&main, &MainWindow::simulation_done);
  window->open_row(1);  // tree, 160 MB, links at 8 GB/s instead of 16
  ASSERT_TRUE(done.wait(120000)) << "no result within 120 s";
  ASSERT_TRUE(done.takeFirst().at(0).toBool()) << main.status_text().toStdString();
  settle();
  ASSERT_EQ(main.summary_model().rowCount(), 1);
  EXPECT_EQ(main.summary_model().index(0, SummaryModel::kName).data().toString(), "tree");
  // 60 ms at 16 GB/s; gpu0's link at 8 GB/s carries the tree's root traffic: slower.
  EXPECT_GT(main.summary_model().index(0, SummaryModel::kMakespan).data(Qt::UserRole).toDouble(),
            0.060);
}

// A collective sweep's row re-runs with `opsim collective` and lands on the sweep's number:
// the algorithm column where there is one, else auto (what the sweep ran).
TEST(SweepChartWindowEndToEnd, ACollectiveRowReRunsAsTheSweepRanIt) {
  const fs::path dir = opsim::test::scratch_dir("sweep_window_collective");
  std::ofstream(dir / "c.yaml") << "topologies: [nvlink-ring:8]\n"
                                   "collectives: [allreduce, all_to_all]\nbytes: [1MB, 2MB]\n";
  const auto swept = opsim::test::run_program("opsim", "sweep c.yaml -o c.csv --restart", dir);
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  const CsvTable table = read_csv_table((dir / "c.csv").string());
  ASSERT_EQ(table.rows.size(), 4u);
  std::string why_not;
  const std::optional<Scenario> first = scenario_of_row(table, 0, why_not);
  ASSERT_TRUE(first.has_value()) << why_not;
  EXPECT_EQ(first->kind, ScenarioKind::kCollective);
  EXPECT_EQ(first->collective.op.toStdString(), table.rows[0].fields[*table.column("op")]);
  EXPECT_EQ(first->collective.algorithms, QStringList{"auto"});
  EXPECT_EQ(first->collective.sizes.toStdString(), table.rows[0].fields[*table.column("bytes")]);

  const QString cli = QStringLiteral(OPSIM_BINARY_DIR "/bin/opsim");
  MainWindow main(MainWindow::Options{false, cli});
  EXPECT_TRUE(main.open_traces({QString::fromStdString((dir / "c.csv").string())}).isEmpty());
  auto* window = main.findChild<SweepChartWindow*>();
  ASSERT_NE(window, nullptr);
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    QSignalSpy done(&main, &MainWindow::simulation_done);
    window->open_row(row);
    ASSERT_TRUE(done.wait(120000)) << "no result within 120 s";
    ASSERT_TRUE(done.takeFirst().at(0).toBool()) << main.status_text().toStdString();
    settle();
    ASSERT_EQ(main.trace_set().panes().size(), 1u);
    const double swept_s = std::stod(table.rows[row].fields[*table.column("makespan_s")]);
    EXPECT_DOUBLE_EQ(
        main.summary_model().index(0, SummaryModel::kMakespan).data(Qt::UserRole).toDouble(),
        swept_s);
  }
}

// A protocols axis: the row re-runs with its protocol, not auto's, and lands on the sweep's
// number (LL is far from auto's Simple on a 4 MB ring).
TEST(SweepChartWindowEndToEnd, ACollectiveRowReRunsWithItsProtocol) {
  const fs::path dir = opsim::test::scratch_dir("sweep_window_protocol");
  std::ofstream(dir / "p.yaml") << "topologies: [nvlink-ring:8]\ncollectives: [allreduce]\n"
                                   "algorithms: [ring]\nprotocols: [LL]\nbytes: [4MB, 8MB]\n";
  const auto swept = opsim::test::run_program("opsim", "sweep p.yaml -o p.csv --restart", dir);
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  const CsvTable table = read_csv_table((dir / "p.csv").string());
  ASSERT_EQ(table.rows.size(), 2u);
  std::string why_not;
  const std::optional<Scenario> scenario = scenario_of_row(table, 0, why_not);
  ASSERT_TRUE(scenario.has_value()) << why_not;
  EXPECT_EQ(scenario->collective.protocol, "LL");

  const QString cli = QStringLiteral(OPSIM_BINARY_DIR "/bin/opsim");
  MainWindow main(MainWindow::Options{false, cli});
  const QStringList errors = main.open_traces({QString::fromStdString((dir / "p.csv").string())});
  EXPECT_TRUE(errors.isEmpty()) << errors.join("; ").toStdString();
  auto* window = main.findChild<SweepChartWindow*>();
  ASSERT_NE(window, nullptr);
  QSignalSpy done(&main, &MainWindow::simulation_done);
  window->open_row(0);
  ASSERT_TRUE(done.wait(120000)) << "no result within 120 s";
  ASSERT_TRUE(done.takeFirst().at(0).toBool()) << main.status_text().toStdString();
  settle();
  EXPECT_DOUBLE_EQ(
      main.summary_model().index(0, SummaryModel::kMakespan).data(Qt::UserRole).toDouble(),
      std::stod(table.rows[0].fields[*table.column("makespan_s")]));
}

}  // namespace
}  // namespace opsim::gui
