// What a chart of a sweep's CSV shows, decided without any Qt: which columns are parameters
// and which are metrics, which rows are plotted, and the series, points and axes of one
// chart per metric. gui/sweep_chart.hpp draws it; `opsim plot` and the GUI's sweep window
// both start here.
//
// Columns: the bookkeeping ones (key, error, point, points, sweep, trace_file) are never
// plotted. In a sweep's CSV the axes come before the first result column (makespan_s, ...):
// those are the parameters, the numeric columns from there on the metrics. In any other CSV
// the text columns are parameters and the numeric ones metrics. x is any numeric column; the
// series column (default: the first of strategy, algorithm, op, topology that varies) gives
// each line its colour, and every other parameter that varies splits lines further (dashes).
//
//   CsvTable table = read_csv_table("results.csv");
//   PlotRequest request;
//   request.x = "bytes";
//   SweepPlot plot = plan_sweep_plot(table, request, "results.csv");
//   plot.charts[0].series[0].name;   // "tree · pcie-switch:4"
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/csv_table.hpp"
#include "gui/plot_axis.hpp"

namespace opsim::gui {

struct PlotRequest {
  std::string x;
  std::vector<std::string> y;      ///< empty: every metric that varies
  std::string series;              ///< empty: chosen as described above
  std::vector<std::string> where;  ///< "COLUMN=VALUE": only rows with that exact value
};

struct PlotPoint {
  double x = 0;  ///< the values as in the CSV (not axis positions)
  double y = 0;
  std::size_t row = 0;  ///< index into CsvTable::rows
};

struct PlotSeries {
  std::string name;               ///< "ring", or "ring · nvlink-ring:8 · gpus=8"
  int color = 0;                  ///< index of its series-column value, in order of appearance
  int style = 0;                  ///< index of its other parameters' values, in order of appearance
  std::vector<PlotPoint> points;  ///< sorted by x
};

struct SweepChartPlan {
  std::string metric;
  PlotAxis x;
  PlotAxis y;
  std::vector<PlotSeries> series;
};

struct SweepColumns {
  std::vector<std::string> parameters;
  std::vector<std::string> metrics;  ///< numeric results
};

struct SweepPlot {
  std::vector<SweepChartPlan> charts;
  std::string series_column;               ///< empty: one series
  std::vector<std::string> style_columns;  ///< other parameters that vary
  std::size_t rows_plotted = 0;
  std::size_t error_rows = 0;  ///< rows with a non-empty error column, skipped
  bool dropped_torn_last_row = false;
  /// Every line has a single point because a parameter changes with x: the note says so.
  bool lone_points = false;

  /// One line about what was left out ("2 rows with an error skipped") or why the lines are
  /// single points; empty if nothing.
  std::string note() const;
};

/// Parameters and metrics of `table` (see above).
SweepColumns sweep_columns_of(const CsvTable& table);

/// The x axis when none is given: a numeric parameter that varies, bytes or gpus first;
/// empty if there is none.
std::string default_x_column(const CsvTable& table);

/// The charts for `request`. Throws InputError "SOURCE: ..." (one line) for a missing column,
/// a non-numeric x or y value, a bad --where, or no row left to plot.
SweepPlot plan_sweep_plot(const CsvTable& table, const PlotRequest& request,
                          const std::string& source);

/// `text` as a finite number, the whole of it; false otherwise.
bool parse_number(const std::string& text, double& value);

}  // namespace opsim::gui
