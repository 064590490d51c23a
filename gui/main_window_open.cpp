// MainWindow: opening trace files. Chrome traces (opsim's own or another tool's) are read at
// once; PyTorch profiler (Kineto) traces are replayed by a child `opsim replay` and shown as
// the overlay it writes, recorded against replayed. Overlays get a summary row per world and
// the real-vs-simulated table per op class. Files that cannot be opened are named, with why,
// in a banner over the timeline and in the status bar.
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/main_window.hpp"
#include "gui/replay_runner.hpp"
#include "gui/step_error_model.hpp"
#include "gui/summary_model.hpp"
#include "gui/sweep_chart_window.hpp"
#include "gui/trace_format.hpp"

namespace opsim::gui {

namespace {

// "rank0.json.gz — recorded vs replayed on pcie-switch-2gpu, median |error| 0.40 %".
QString replay_title(const QString& file, const ReplaySteps* steps) {
  if (steps == nullptr) return file;
  return QObject::tr("%1 — recorded vs replayed on %2, median |error| %3 %")
      .arg(file, QString::fromStdString(steps->machine))
      .arg(steps->median_abs_error * 100, 0, 'f', 2);
}

// An overlay's makespan per world: " — real 16.15 ms, sim 5.350 ms (-66.86 %)"; empty for
// other traces (one summary row).
QString worlds_in_title(const std::vector<SummaryRow>& rows) {
  if (rows.size() != 2 || rows[0].makespan_s <= 0) return {};
  return QObject::tr(" — real %1, sim %2 (%3)")
      .arg(format_ms(rows[0].makespan_s), format_ms(rows[1].makespan_s),
           format_percent(rows[1].makespan_s / rows[0].makespan_s - 1));
}

}  // namespace

QStringList MainWindow::open_traces(const QStringList& paths) {
  clear_load_errors();
  QStringList errors;
  for (const QString& path : paths) open_trace(path, errors);
  rebuild_summary();
  return errors;
}

void MainWindow::open_trace(const QString& path, QStringList& errors) {
  try {
    if (is_sweep_csv(path)) {  // a sweep's results: a chart whose points open their traces
      auto* chart = new SweepChartWindow(path, this);
      connect(chart, &SweepChartWindow::trace_requested, this,
              [this](const QString& trace) { open_traces({trace}); });
      connect(chart, &SweepChartWindow::rerun_requested, this, &MainWindow::simulate);
      chart->show();
      return;
    }
    if (trace_format_of_file(path.toStdString()) == TraceFormat::kKineto) {
      start_replay(path);
      return;
    }
    const LoadedTrace loaded = load_pane_trace(path.toStdString());
    add_file_pane(loaded, path, replay_title(QFileInfo(path).fileName(), loaded.steps.get()));
    QString opened = tr("Opened %1: %2 ops on %3 lanes")
                         .arg(QFileInfo(path).fileName())
                         .arg(loaded.trace->ops.size())
                         .arg(loaded.trace->lanes.size());
    if (loaded.events_not_drawn > 0)
      opened +=
          tr(", %1 instant, async or unbound flow events not drawn").arg(loaded.events_not_drawn);
    if (load_errors_.isEmpty()) status_->setText(opened);
  } catch (const std::exception& e) {
    errors << QString::fromStdString(e.what());
    report_load_error(errors.back());
  }
}

void MainWindow::add_file_pane(const LoadedTrace& loaded, const QString& path,
                               const QString& title) {
  std::vector<SummaryRow> rows =
      summary_rows_of(*loaded.trace, QFileInfo(path).fileName().toStdString());
  Pane pane;
  pane.model = std::make_shared<TimelineModel>(loaded.trace, traces_.options());
  pane.title = title + worlds_in_title(rows);
  for (SummaryRow& row : rows) {
    row.trace_file = path.toStdString();
    file_rows_.push_back(std::move(row));
  }
  pane.twins = loaded.twins;
  pane.steps = loaded.steps;
  traces_.add_file_pane(std::move(pane));
  if (loaded.twins) show_twin_classes();
}

namespace {

QTableView* twin_table(QAbstractItemModel* model, const QString& name, QWidget* parent) {
  auto* table = new QTableView(parent);
  table->setObjectName(name);
  table->setModel(model);
  table->horizontalHeader()->setStretchLastSection(true);
  table->verticalHeader()->setVisible(false);
  return table;
}

}  // namespace

// The "Real vs simulated" tab: per op class above, op by op (sortable by any column) below.
void MainWindow::show_twin_classes() {
  if (twins_tab_ == nullptr) {
    twins_tab_ = new QWidget(this);
    twins_tab_->setObjectName(QStringLiteral("real_vs_sim_tab"));
    auto* layout = new QVBoxLayout(twins_tab_);
    auto* split = new QSplitter(Qt::Vertical, twins_tab_);
    split->addWidget(twin_table(&twin_classes_, QStringLiteral("real_vs_sim_table"), split));
    auto* by_value = new QSortFilterProxyModel(twins_tab_);
    by_value->setSourceModel(&twin_ops_);
    by_value->setSortRole(Qt::UserRole);
    QTableView* ops = twin_table(by_value, QStringLiteral("real_vs_sim_ops"), split);
    ops->setSortingEnabled(true);
    split->addWidget(ops);
    layout->addWidget(split);
    tabs_->addTab(twins_tab_, tr("Real vs simulated"));
    // Closing the opened files empties it.
    connect(&traces_, &TraceSet::changed, this, [this] { rebuild_twin_classes(); });
  }
  rebuild_twin_classes();
}

void MainWindow::rebuild_twin_classes() {
  std::vector<TwinClassModel::Overlay> classes;
  std::vector<TwinOpModel::Overlay> ops;
  for (const Pane& p : traces_.panes()) {
    if (!p.twins) continue;
    classes.push_back({p.title, OpTwins::class_differences(p.model->trace())});
    ops.push_back({p.title, p.model->trace_ptr(), p.twins});
  }
  twin_classes_.set_overlays(std::move(classes));
  twin_ops_.set_overlays(std::move(ops));
}

void MainWindow::start_replay(const QString& path) {
  auto* runner = new ReplayRunner(path, options_.cli, this);
  ++replays_running_;
  connect(runner, &ReplayRunner::finished, this,
          [this, runner](const QString& p, const LoadedTrace& loaded) {
            runner->deleteLater();
            --replays_running_;
            on_replay_finished(p, loaded);
            emit replay_done(p, true);
          });
  connect(runner, &ReplayRunner::failed, this,
          [this, runner](const QString& p, const QString& message) {
            runner->deleteLater();
            --replays_running_;
            report_load_error(message);
            emit replay_done(p, false);
          });
  status_->setText(tr("Replaying %1 (opsim replay)…").arg(QFileInfo(path).fileName()));
  runner->start();
}

void MainWindow::on_replay_finished(const QString& path, const LoadedTrace& loaded) {
  add_file_pane(loaded, path, replay_title(QFileInfo(path).fileName(), loaded.steps.get()));
  rebuild_summary();
  status_->setText(tr("Replayed %1").arg(QFileInfo(path).fileName()));
  if (loaded.steps) tabs_->setCurrentWidget(steps_tab_);
}

void MainWindow::report_load_error(const QString& message) {
  load_errors_ << message;
  update_banner();
  status_->setText(tr("Cannot open: %1").arg(message));
  emit load_failed(message);
}

void MainWindow::clear_load_errors() {
  load_errors_.clear();
  update_banner();
}

void MainWindow::update_banner() {
  QStringList lines = load_errors_;
  if (!run_error_.isEmpty()) lines.prepend(tr("Simulation failed: %1").arg(run_error_));
  load_errors_label_->setText(lines.join(QLatin1Char('\n')));
  load_errors_label_->setVisible(!lines.isEmpty());
}

void MainWindow::rebuild_steps() {
  std::vector<std::shared_ptr<const ReplaySteps>> replays;
  for (const Pane& p : traces_.panes()) replays.push_back(p.steps);
  steps_.set_replays(replays);
}

}  // namespace opsim::gui
