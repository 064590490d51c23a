// The timeline explorer's window: scenario panel on the left; the comparison timeline (ruler
// + stacked panes, one time axis) on top; summary table and chart, selection details and
// range stats, the topology view and the per-step error of replays in tabs below; a banner
// over the timeline says why a file could not be opened. Starts the default scenario at once.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include "gui/range_stats_model.hpp"
#include "gui/scenario.hpp"
#include "gui/sim_runner.hpp"
#include "gui/step_error_model.hpp"
#include "gui/summary_model.hpp"
#include "gui/trace_loader.hpp"
#include "gui/trace_set.hpp"
#include "gui/twin_class_model.hpp"
#include "gui/twin_op_model.hpp"
#include "gui/view_state.hpp"
#include "gui/what_if_state.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QScrollArea;
class QSplitter;
class QTableView;
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

  /// Shows `scenario` in the panel without running it (the run at start uses it).
  void set_scenario(const Scenario& scenario);
  /// Re-simulates `scenario` in the background (cancels a run in flight).
  void simulate(const Scenario& scenario);
  /// Shows a finished run's summary and traces (what a simulation ends with).
  void show_result(const RunResult& result);
  /// Opens trace files as extra panes: opsim's traces at once (an overlay of a replay with its
  /// ops paired and its step errors), PyTorch profiler (Kineto) traces replayed by a child
  /// `opsim replay` first (replay_done reports each). Returns the messages of the files that
  /// failed at once; every failure, now or later, is also shown in the window (load_errors())
  /// and signalled (load_failed).
  QStringList open_traces(const QStringList& paths);
  /// One line per file that could not be opened since the last open or close of files.
  const QStringList& load_errors() const { return load_errors_; }
  /// Replays started by open_traces() that have not reported yet.
  int replays_running() const { return replays_running_; }
  /// Saves the timeline as it is shown (same axis and decorations): .svg or else PNG.
  bool export_view(const QString& path);

  const SummaryModel& summary_model() const { return summary_; }
  const RangeStatsModel& range_stats_model() const { return range_model_; }
  const StepErrorModel& step_error_model() const { return steps_; }
  /// Real vs simulated busy time per op class of the overlays opened.
  const TwinClassModel& twin_class_model() const { return twin_classes_; }
  /// Real vs simulated op by op (each pair of twins) of the overlays opened.
  const TwinOpModel& twin_op_model() const { return twin_ops_; }
  TraceSet& trace_set() { return traces_; }
  ViewState& view_state() { return state_; }
  SimRunner& runner() { return runner_; }
  QString status_text() const;
  TimelineView* timeline() const { return timeline_; }
  QScrollArea* timeline_scroll() const { return scroll_; }
  WhatIfState& what_if() { return what_if_; }
  QTabWidget* tabs() const { return tabs_; }

 signals:
  /// A simulation finished and its results are shown (or failed: ok false).
  void simulation_done(bool ok);
  /// A replay of a PyTorch trace opened by open_traces() is shown (ok) or failed.
  void replay_done(const QString& path, bool ok);
  /// A file could not be opened: its one-line reason.
  void load_failed(const QString& message);

 private:
  void build_ui();
  // The parts build_ui() assembles, in order.
  void build_scenario_panel(QSplitter* split);
  void build_timeline_area(QSplitter* right);
  QWidget* build_summary_tab();
  QWidget* build_selection_tab();
  QWidget* build_topology_tab();
  QWidget* build_steps_tab();
  QLabel* build_load_errors_banner(QWidget* parent);
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
  // Opening files (main_window_open.cpp).
  void open_trace(const QString& path, QStringList& errors);
  void add_file_pane(const LoadedTrace& loaded, const QString& path, const QString& title);
  void start_replay(const QString& path);
  void on_replay_finished(const QString& path, const LoadedTrace& loaded);
  void report_load_error(const QString& message);
  /// The banner over the timeline: the last run's failure, then the files that failed.
  void update_banner();
  void clear_load_errors();
  void rebuild_steps();
  void show_twin_classes();
  void rebuild_twin_classes();

  Options options_;
  TraceSet traces_;
  ViewState state_;
  WhatIfState what_if_;
  SummaryModel summary_;
  RangeStatsModel range_model_;
  StepErrorModel steps_;
  TwinClassModel twin_classes_;
  TwinOpModel twin_ops_;
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
  QLabel* load_errors_label_ = nullptr;
  QWidget* steps_tab_ = nullptr;
  QWidget* twins_tab_ = nullptr;  ///< created with the first overlay opened
  QStringList load_errors_;
  QString run_error_;  ///< why the last run failed (the CLI's line); empty after a success
  QTableView* summary_table_ = nullptr;
  int replays_running_ = 0;
  QProgressBar* progress_ = nullptr;
  QTimer* progress_timer_ = nullptr;
};

}  // namespace opsim::gui
