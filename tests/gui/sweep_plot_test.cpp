// What a sweep chart shows, decided without Qt: units, log axes and ticks, which columns are
// parameters and metrics, series and their splits, skipped rows, and refusals.
#include "gui/sweep_plot.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"

namespace opsim::gui {
namespace {

// A sweep's CSV: two strategies on two topologies (gpus follows the topology), three sizes
// spanning three decades, one failed point.
const char* const kSweepCsv =
    "key,topology,gpus,bytes,strategy,makespan_s,busiest_link,ops,error\n"
    "k1,pcie-switch:4,4,1000000,tree,0.0004,l,6,\n"
    "k2,pcie-switch:4,4,10000000,tree,0.004,l,6,\n"
    "k3,pcie-switch:4,4,1000000000,tree,0.4,l,6,\n"
    "k4,pcie-switch:4,4,1000000,ring,0.0001,l,24,\n"
    "k5,pcie-switch:4,4,10000000,ring,0.001,l,24,\n"
    "k6,pcie-switch:4,4,1000000000,ring,0.1,l,24,\n"
    "k7,nvlink-ring:8,8,1000000,tree,0.0003,l,14,\n"
    "k8,nvlink-ring:8,8,10000000,tree,0.003,l,14,\n"
    "k9,nvlink-ring:8,8,1000000000,tree,0.3,l,14,\n"
    "k10,nvlink-ring:8,8,1000000,ring,,,,\"ring: needs a ring, \"\"nvlink\"\" has none\"\n";

PlotRequest request(std::string x, std::vector<std::string> y = {},
                    std::vector<std::string> where = {}, std::string series = "") {
  PlotRequest r;
  r.x = std::move(x);
  r.y = std::move(y);
  r.where = std::move(where);
  r.series = std::move(series);
  return r;
}

CsvTable sweep_table() {
  return parse_csv_table(kSweepCsv, "r.csv");
}

std::string plan_error(const PlotRequest& request, const char* csv = kSweepCsv) {
  try {
    plan_sweep_plot(parse_csv_table(csv, "r.csv"), request, "r.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> labels(const PlotAxis& axis) {
  std::vector<std::string> out;
  for (const AxisTick& tick : axis.ticks) out.push_back(tick.label);
  return out;
}

TEST(PlotAxis, UnitsComeFromColumnNames) {
  EXPECT_EQ(unit_of_column("bytes"), PlotUnit::kBytes);
  EXPECT_EQ(unit_of_column("bytes_moved"), PlotUnit::kBytes);
  EXPECT_EQ(unit_of_column("chunk_bytes"), PlotUnit::kBytes);
  EXPECT_EQ(unit_of_column("makespan_s"), PlotUnit::kSeconds);
  EXPECT_EQ(unit_of_column("busbw_GBps"), PlotUnit::kGBps);
  EXPECT_EQ(unit_of_column("gpus"), PlotUnit::kPlain);
  EXPECT_EQ(unit_of_column("ops"), PlotUnit::kPlain);
}

TEST(PlotAxis, FormatsValuesInReadableUnits) {
  EXPECT_EQ(format_value(16e6, PlotUnit::kBytes), "16 MB");
  EXPECT_EQ(format_value(2.24e9, PlotUnit::kBytes), "2.24 GB");
  EXPECT_EQ(format_value(512, PlotUnit::kBytes), "512 B");
  EXPECT_EQ(format_value(250e-6, PlotUnit::kSeconds), "250 µs");
  EXPECT_EQ(format_value(0.0015, PlotUnit::kSeconds), "1.5 ms");
  EXPECT_EQ(format_value(2, PlotUnit::kSeconds), "2 s");
  EXPECT_EQ(format_value(2000, PlotUnit::kSeconds), "2000 s");
  EXPECT_EQ(format_value(2e6, PlotUnit::kSeconds), "2e+06 s");
  EXPECT_EQ(format_value(12.5, PlotUnit::kGBps), "12.5 GB/s");
  EXPECT_EQ(format_value(8, PlotUnit::kPlain), "8");
}

TEST(PlotAxis, SpanOfDecadesGetsALogAxisWithUnitTicks) {
  const PlotAxis axis = plot_axis("bytes", {1e3, 1e6, 1e9}, false);
  EXPECT_TRUE(axis.log);
  EXPECT_EQ(axis.title, "bytes (log scale)");
  EXPECT_EQ(labels(axis), (std::vector<std::string>{"1 kB", "10 kB", "100 kB", "1 MB", "10 MB",
                                                    "100 MB", "1 GB"}));
  EXPECT_DOUBLE_EQ(axis.min, 3);
  EXPECT_DOUBLE_EQ(axis.max, 9);
  EXPECT_DOUBLE_EQ(axis.position(1e6), 6);
}

TEST(PlotAxis, FewDecadesGetOneTwoFiveTicksAroundTheData) {
  const PlotAxis axis = plot_axis("makespan_s", {0.0011, 0.14}, true);
  EXPECT_TRUE(axis.log);
  EXPECT_EQ(labels(axis), (std::vector<std::string>{"1 ms", "2 ms", "5 ms", "10 ms", "20 ms",
                                                    "50 ms", "100 ms", "200 ms"}));
}

TEST(PlotAxis, UnderTwoDecadesStaysLinearWithTheUnitInTheTitle) {
  const PlotAxis bytes = plot_axis("bytes", {16e6, 160e6}, false);
  EXPECT_FALSE(bytes.log);
  EXPECT_EQ(bytes.title, "bytes (MB)");
  EXPECT_DOUBLE_EQ(bytes.scale, 1e6);
  EXPECT_DOUBLE_EQ(bytes.position(160e6), 160);
  EXPECT_EQ(labels(bytes).front(), "0");
  EXPECT_EQ(labels(bytes).back(), "160");

  const PlotAxis makespan = plot_axis("makespan_s", {0.02, 0.06}, true);
  EXPECT_FALSE(makespan.log);
  EXPECT_EQ(makespan.title, "makespan (ms)");
  EXPECT_DOUBLE_EQ(makespan.min, 0);  // a metric's linear axis starts at zero
  EXPECT_DOUBLE_EQ(makespan.max, 60);

  const PlotAxis ratio = plot_axis("ops", {1, 99}, true);
  EXPECT_FALSE(ratio.log);  // 99x: just under two decades
}

TEST(PlotAxis, OneValueGetsARangeAroundIt) {
  const PlotAxis axis = plot_axis("gpus", {8}, false);
  EXPECT_LT(axis.min, 8);
  EXPECT_GT(axis.max, 8);
  EXPECT_GE(axis.ticks.size(), 2u);
}

TEST(SweepPlot, SweepColumnsSplitIntoParametersAndMetrics) {
  const SweepColumns columns = sweep_columns_of(sweep_table());
  EXPECT_EQ(columns.parameters,
            (std::vector<std::string>{"topology", "gpus", "bytes", "strategy"}));
  EXPECT_EQ(columns.metrics, (std::vector<std::string>{"makespan_s", "ops"}));
}

TEST(SweepPlot, AnyOtherCsvTakesTextAsParametersAndNumbersAsMetrics) {
  const SweepColumns columns =
      sweep_columns_of(parse_csv_table("machine,size,time\na,1,2\nb,2,3\n", "t.csv"));
  EXPECT_EQ(columns.parameters, (std::vector<std::string>{"machine"}));
  EXPECT_EQ(columns.metrics, (std::vector<std::string>{"size", "time"}));
}

TEST(SweepPlot, DefaultXIsTheSizeOrTheGpuCount) {
  EXPECT_EQ(default_x_column(sweep_table()), "bytes");
  EXPECT_EQ(default_x_column(parse_csv_table("gpus,topology,makespan_s\n2,a,1\n4,b,2\n", "t")),
            "gpus");
  EXPECT_EQ(default_x_column(parse_csv_table("scale,makespan_s\n1,1\n2,2\n", "t")), "scale");
  EXPECT_EQ(default_x_column(parse_csv_table("topology,makespan_s\na,1\nb,2\n", "t")), "");
}

TEST(SweepPlot, SeriesByStrategySplitByTopologyErrorsSkipped) {
  const SweepPlot plot = plan_sweep_plot(sweep_table(), request("bytes", {"makespan_s"}), "r.csv");
  EXPECT_EQ(plot.series_column, "strategy");
  // gpus follows from the topology: it would only repeat it.
  EXPECT_EQ(plot.style_columns, (std::vector<std::string>{"topology"}));
  EXPECT_EQ(plot.error_rows, 1u);
  EXPECT_EQ(plot.rows_plotted, 9u);
  EXPECT_EQ(plot.note(), "1 row with an error skipped (see the error column)");
  ASSERT_EQ(plot.charts.size(), 1u);
  const SweepChartPlan& chart = plot.charts[0];
  ASSERT_EQ(chart.series.size(), 3u);
  EXPECT_EQ(chart.series[0].name, "tree · pcie-switch:4");
  EXPECT_EQ(chart.series[1].name, "ring · pcie-switch:4");
  EXPECT_EQ(chart.series[2].name, "tree · nvlink-ring:8");
  EXPECT_EQ(chart.series[0].color, chart.series[2].color);  // colour follows the strategy
  EXPECT_NE(chart.series[0].style, chart.series[2].style);  // dashes follow the topology
  ASSERT_EQ(chart.series[1].points.size(), 3u);
  EXPECT_DOUBLE_EQ(chart.series[1].points[2].x, 1e9);
  EXPECT_DOUBLE_EQ(chart.series[1].points[2].y, 0.1);
  EXPECT_EQ(chart.series[1].points[2].row, 5u);
  EXPECT_TRUE(chart.x.log);
  EXPECT_TRUE(chart.y.log);
}

TEST(SweepPlot, WithoutYEveryMetricThatVariesGetsAChart) {
  const SweepPlot plot = plan_sweep_plot(sweep_table(), request("bytes"), "r.csv");
  ASSERT_EQ(plot.charts.size(), 2u);
  EXPECT_EQ(plot.charts[0].metric, "makespan_s");
  EXPECT_EQ(plot.charts[1].metric, "ops");
  EXPECT_FALSE(plot.charts[1].y.log);  // 6 to 24
}

TEST(SweepPlot, HostTimeIsChartedOnlyWhenAsked) {
  const CsvTable table =
      parse_csv_table("bytes,strategy,makespan_s,sim_wall_s\n1,a,1,0.01\n2,a,2,0.03\n", "t.csv");
  const SweepPlot plot = plan_sweep_plot(table, request("bytes"), "t.csv");
  ASSERT_EQ(plot.charts.size(), 1u);
  EXPECT_EQ(plot.charts[0].metric, "makespan_s");
  EXPECT_EQ(plan_sweep_plot(table, request("bytes", {"sim_wall_s"}), "t.csv").charts[0].metric,
            "sim_wall_s");
}

TEST(SweepPlot, WhereKeepsOnlyMatchingRows) {
  const SweepPlot plot = plan_sweep_plot(
      sweep_table(), request("bytes", {"makespan_s"}, {"topology=pcie-switch:4"}), "r.csv");
  EXPECT_EQ(plot.rows_plotted, 6u);
  EXPECT_EQ(plot.error_rows, 0u);
  EXPECT_TRUE(plot.style_columns.empty());
  ASSERT_EQ(plot.charts[0].series.size(), 2u);
  EXPECT_EQ(plot.charts[0].series[0].name, "tree");
}

TEST(SweepPlot, ParameterThatFollowsFromXDoesNotSplitLines) {
  // At 1 MB, pcie-switch:4 has 4 GPUs and nvlink-ring:8 has 8: one line per strategy.
  const SweepPlot plot =
      plan_sweep_plot(sweep_table(), request("gpus", {"makespan_s"}, {"bytes=1000000"}), "r.csv");
  EXPECT_TRUE(plot.style_columns.empty());
  ASSERT_EQ(plot.charts[0].series.size(), 2u);
  EXPECT_EQ(plot.charts[0].series[0].points.size(), 2u);
  EXPECT_FALSE(plot.lone_points);
}

TEST(SweepPlot, ParameterThatChangesWithXLeavesLonePointsAndSaysSo) {
  const CsvTable table = parse_csv_table(
      "topology,gpus,strategy,makespan_s\np2,2,tree,1\np4,4,tree,2\np8,8,tree,3\nn8,8,tree,4\n",
      "r.csv");
  const SweepPlot plot = plan_sweep_plot(table, request("gpus"), "r.csv");
  EXPECT_EQ(plot.series_column, "topology");  // the strategy does not vary
  EXPECT_EQ(plot.charts[0].series.size(), 4u);
  EXPECT_TRUE(plot.lone_points);
  EXPECT_EQ(plot.note(),
            "every line is one point: topology changes with x (pick one with --where "
            "topology=VALUE)");
}

TEST(SweepPlot, RefusesBadRequests) {
  EXPECT_EQ(plan_error(request("byte")), "r.csv: --x byte: no such column (did you mean 'bytes'?)");
  EXPECT_EQ(plan_error(request("strategy")), "r.csv:2: --x strategy: 'tree' is not a number");
  EXPECT_EQ(plan_error(request("bytes", {"busiest_link"})),
            "r.csv: --y busiest_link: not a numeric column");
  EXPECT_EQ(plan_error(request("bytes", {}, {}, "bytes")),
            "r.csv: --series bytes: the same column as --x");
  EXPECT_EQ(plan_error(request("bytes", {}, {"topology"})),
            "r.csv: --where topology: expected COLUMN=VALUE");
  EXPECT_EQ(plan_error(request("bytes", {}, {"topology=dgx"})), "r.csv: no row to plot");
  EXPECT_EQ(plan_error(request("a"), "a,makespan_s,error\n1,,x\n"),
            "r.csv: no row to plot (every selected row has an error)");
  EXPECT_EQ(plan_error(request("a"), "a,b\n"), "r.csv: no row to plot");
  EXPECT_EQ(plan_error(request("a"), "a,b\n1,2\n2,2\n"),
            "r.csv: no metric varies over the plotted rows (give one with --y)");
}

}  // namespace
}  // namespace opsim::gui
