// The timeline explorer's window: scenario panel on the left; the comparison timeline (ruler
// + stacked panes, one time axis) on top; summary table and chart, selection details and
// range stats, and the topology view in tabs below. Starts the default scenario at once.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include "gui/range_stats_model.hpp"
#include "gui/scenario.hpp"
#include "gui/sim_runner.hpp"
#include "gui/summary_model.hpp"
#include "gui/trace_set.hpp"
#include "gui/view_state.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QTextBrowser;
class QTimer;

namespace opsim::gui {

class ScenarioPanel;
class SummaryChart;
class TimelineView;
class TopologyView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  struct Options {
    bool run_at_start = true;  ///< simulate the default scenario on start
    QString cli;               ///< opsim CLI path; empty: find_opsim_cli()
  };
  explicit MainWindow(Options options, QWidget* parent = nullptr);
  MainWindow() : MainWindow(Options{}) {}

  /// Re-simulates `scenario` in the background (cancels a run in flight).
  void simulate(const Scenario& scenario);
  /// Shows a finished run's summary and traces (what a simulation ends with).
  void show_result(const RunResult& result);
  /// Opens trace files as extra panes; returns the error messages of files that failed.
  QStringList open_traces(const QStringList& paths);
  /// Saves the timeline as it is shown (same axis and decorations): .svg or else PNG.
  bool export_view(const QString& path);

  const SummaryModel& summary_model() const { return summary_; }
  const RangeStatsModel& range_stats_model() const { return range_model_; }
  TraceSet& trace_set() { return traces_; }
  ViewState& view_state() { return state_; }
  SimRunner& runner() { return runner_; }
  QString status_text() const;
  TimelineView* timeline() const { return timeline_; }
  QTabWidget* tabs() const { return tabs_; }

 signals:
  /// A simulation finished and its results are shown (or failed: ok false).
  void simulation_done(bool ok);

 private:
  void build_ui();
  // The parts build_ui() assembles, in order.
  void build_scenario_panel(QSplitter* split);
  void build_timeline_area(QSplitter* right);
  QWidget* build_summary_tab();
  QWidget* build_selection_tab();
  QWidget* build_topology_tab();
  void build_file_menu();
  void build_view_menu();
  void build_help_menu();
  void build_status_bar();
  /// Asks where to export the view and says so when it cannot be written.
  void export_view_as(const QString& caption, const QString& suggested, const QString& filter);
  void on_run_failed(const QString& message);
  void update_details();
  void update_range();
  void update_topology();
  void set_status(const QString& text, bool busy);
  void rebuild_summary();

  Options options_;
  TraceSet traces_;
  ViewState state_;
  SummaryModel summary_;
  RangeStatsModel range_model_;
  SimRunner runner_;
  std::vector<SummaryRow> simulated_rows_;
  std::vector<SummaryRow> file_rows_;

  ScenarioPanel* panel_ = nullptr;
  TimelineView* timeline_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  SummaryChart* chart_ = nullptr;
  QTextBrowser* details_ = nullptr;
  TopologyView* topology_ = nullptr;
  QComboBox* topology_pane_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QTimer* progress_timer_ = nullptr;
};

}  // namespace opsim::gui
