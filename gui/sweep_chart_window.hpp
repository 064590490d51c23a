// A sweep's results (`opsim sweep --out results.csv`) as a chart in a window of its own,
// with pickers for x, the metric and the series column. Double-clicking a point opens that
// point's trace: the file its row names (a trace_file column), or else a re-run of the point
// (its topology, strategy or collective op and algorithm, size, GPUs, comm_only and what-if
// columns) in the main window.
//
//   auto* window = new SweepChartWindow("results.csv", main_window);  // throws InputError
//   connect(window, &SweepChartWindow::rerun_requested, main_window, &MainWindow::simulate);
//   window->show();
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <string>

#include "common/csv_table.hpp"
#include "gui/scenario.hpp"
#include "gui/sweep_plot.hpp"

class QChartView;
class QComboBox;
class QLabel;

namespace opsim::gui {

/// Whether `path` is a sweep's results: a .csv file whose header names a sweep result column
/// (makespan_s, busbw_GBps, ...). Reads only the first line.
bool is_sweep_csv(const QString& path);

/// The scenario that re-runs row `row` with `opsim compare`, or for a collective row (an op
/// column) with `opsim collective`; nullopt with `why_not` set when the row lacks a topology,
/// strategy (op) or bytes column value.
std::optional<Scenario> scenario_of_row(const CsvTable& table, std::size_t row,
                                        std::string& why_not);

class SweepChartWindow : public QWidget {
  Q_OBJECT
 public:
  /// Reads `path` (throws InputError naming what is wrong) and charts its first metric
  /// against its size (or GPU count) axis.
  explicit SweepChartWindow(const QString& path, QWidget* parent = nullptr);

  /// Picks the columns (names as in the CSV; series empty for the default) and redraws.
  void set_columns(const QString& x, const QString& y, const QString& series);
  const SweepPlot& plot() const { return plot_; }
  QChartView* chart_view() const { return view_; }
  QString status_text() const;
  /// What double-clicking the point of row `row` does.
  void open_row(std::size_t row);
  /// The tooltip of the point of series `chart_series` nearest `position` (axis positions):
  /// its series, x and metric in their units, and its CSV line.
  QString point_tooltip(int chart_series, const QPointF& position) const;

 signals:
  /// A trace file to open (the row's trace_file, relative to the CSV's folder).
  void trace_requested(const QString& path);
  /// A point to simulate again, its trace then shown in the main window.
  void rerun_requested(const opsim::gui::Scenario& scenario);

 private:
  void build_ui();
  void fill_pickers();
  void replot();
  const PlotPoint* nearest_point(int chart_series, const QPointF& position) const;

  QString path_;
  CsvTable table_;
  SweepPlot plot_;
  QComboBox* x_ = nullptr;
  QComboBox* y_ = nullptr;
  QComboBox* series_ = nullptr;
  QChartView* view_ = nullptr;
  QLabel* status_ = nullptr;
};

}  // namespace opsim::gui
