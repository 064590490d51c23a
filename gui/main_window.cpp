#include "gui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "gui/comparison_render.hpp"
#include "gui/scenario_panel.hpp"
#include "gui/summary_chart.hpp"
#include "gui/time_ruler.hpp"
#include "gui/timeline_toolbar.hpp"
#include "gui/timeline_view.hpp"
#include "gui/topology_view.hpp"
#include "gui/trace_loader.hpp"
#include "hw_models/units.hpp"

namespace opsim::gui {

namespace {

QTableView* make_table(QAbstractItemModel* model, QWidget* parent) {
  auto* table = new QTableView(parent);
  table->setModel(model);
  table->setAlternatingRowColors(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setStretchLastSection(true);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->setShowGrid(false);
  return table;
}

// "160 MB", or "1 kB – 64 kB" when a collective ran several sizes.
QString sizes_text(const CompareOutput& output) {
  double low = output.bytes, high = output.bytes;
  for (const SummaryRow& r : output.rows) {
    if (std::isnan(r.size_bytes)) continue;
    low = std::min(low, r.size_bytes);
    high = std::max(high, r.size_bytes);
  }
  QString text = QString::fromStdString(format_bytes(low));
  if (high > low) text += QStringLiteral(" – ") + QString::fromStdString(format_bytes(high));
  return text;
}

QString ns_text(double ns) {
  return QString::fromStdString(format_duration_ns(ns));
}

}  // namespace

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent), options_(std::move(options)) {
  setWindowTitle(tr("opsim — timeline explorer"));
  build_ui();
  connect(&runner_, &SimRunner::started, this, [this](const QString& cmd) {
    set_status(tr("Simulating…"), true);
    status_->setToolTip(cmd);
  });
  connect(&runner_, &SimRunner::finished, this, &MainWindow::show_result);
  connect(&runner_, &SimRunner::failed, this, &MainWindow::on_run_failed);
  connect(&runner_, &SimRunner::progress, this, [this](int done, int total) {
    progress_->setRange(0, total);
    progress_->setValue(done);
  });
  connect(&state_, &ViewState::selected_op_changed, this, &MainWindow::update_details);
  connect(&state_, &ViewState::selection_changed, this, &MainWindow::update_range);
  connect(&traces_, &TraceSet::changed, this, [this] {
    const QString keep = topology_pane_->currentText();
    topology_pane_->blockSignals(true);
    topology_pane_->clear();
    for (const Pane& p : traces_.panes()) topology_pane_->addItem(p.title);
    const int idx = topology_pane_->findText(keep);
    topology_pane_->setCurrentIndex(idx >= 0 ? idx : 0);
    topology_pane_->blockSignals(false);
    update_topology();
    update_range();
    rebuild_steps();
  });
  // WASD and F work at once, without clicking into the timeline first.
  QTimer::singleShot(0, timeline_, [this] { timeline_->setFocus(); });
  if (options_.run_at_start) {
    QTimer::singleShot(0, this, [this] { simulate(panel_->scenario()); });
  } else {
    set_status(tr("Ready"), false);
  }
}

void MainWindow::build_ui() {
  auto* split = new QSplitter(Qt::Horizontal, this);
  build_scenario_panel(split);
  auto* right = new QSplitter(Qt::Vertical, split);
  build_timeline_area(right);
  tabs_ = new QTabWidget(right);
  tabs_->addTab(build_summary_tab(), tr("Summary"));
  tabs_->addTab(build_selection_tab(), tr("Selection"));
  tabs_->addTab(build_topology_tab(), tr("Topology"));
  tabs_->addTab(build_steps_tab(), tr("Steps"));
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  right->setSizes({560, 320});
  split->setStretchFactor(1, 1);
  setCentralWidget(split);
  build_file_menu();
  build_view_menu();
  build_help_menu();
  build_status_bar();
  resize(1500, 950);
}

void MainWindow::build_scenario_panel(QSplitter* split) {
  panel_ = new ScenarioPanel(split);
  auto* panel_scroll = new QScrollArea(split);
  panel_scroll->setWidget(panel_);
  panel_scroll->setWidgetResizable(true);
  panel_scroll->setMinimumWidth(270);
  panel_scroll->setMaximumWidth(360);
  panel_scroll->setFrameShape(QFrame::NoFrame);
  connect(panel_, &ScenarioPanel::scenario_changed, &what_if_, &WhatIfState::on_edit);
  connect(panel_, &ScenarioPanel::scenario_changed, this, &MainWindow::simulate);
}

// The ruler over the scrolling panes.
void MainWindow::build_timeline_area(QSplitter* right) {
  auto* top = new QWidget(right);
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  top_layout->setSpacing(0);
  timeline_ = new TimelineView(&traces_, &state_);
  timeline_->set_what_if(&what_if_);
  auto* ruler = new TimeRuler(&state_, timeline_->style(), top);
  scroll_ = new QScrollArea(top);
  scroll_->setWidget(timeline_);
  scroll_->setWidgetResizable(true);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);  // ruler and panes stay aligned
  scroll_->setFrameShape(QFrame::NoFrame);
  // The ruler must be as wide as the panes: leave room for the vertical scroll bar.
  auto* ruler_row = new QHBoxLayout;
  ruler_row->setContentsMargins(0, 0, scroll_->verticalScrollBar()->sizeHint().width(), 0);
  ruler_row->addWidget(ruler);
  top_layout->addWidget(build_load_errors_banner(top));
  top_layout->addWidget(new TimelineToolbar(&traces_, &state_, &what_if_, timeline_, top));
  top_layout->addLayout(ruler_row);
  top_layout->addWidget(scroll_, 1);
}

QWidget* MainWindow::build_summary_tab() {
  auto* summary_tab = new QWidget(tabs_);
  auto* summary_layout = new QHBoxLayout(summary_tab);
  auto* summary_table = make_table(&summary_, summary_tab);
  summary_table_ = summary_table;
  summary_table->setObjectName(QStringLiteral("summary_table"));
  summary_layout->addWidget(summary_table, 3);
  chart_ = new SummaryChart(&summary_, summary_tab);
  summary_layout->addWidget(chart_, 2);
  return summary_tab;
}

QWidget* MainWindow::build_selection_tab() {
  auto* sel_tab = new QWidget(tabs_);
  auto* sel_layout = new QHBoxLayout(sel_tab);
  details_ = new QTextBrowser(sel_tab);
  details_->setMinimumWidth(280);
  sel_layout->addWidget(details_, 2);
  sel_layout->addWidget(make_table(&range_model_, sel_tab), 3);
  return sel_tab;
}

QWidget* MainWindow::build_topology_tab() {
  auto* topo_tab = new QWidget(tabs_);
  auto* topo_layout = new QVBoxLayout(topo_tab);
  topology_pane_ = new QComboBox(topo_tab);
  topology_pane_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  connect(topology_pane_, &QComboBox::currentIndexChanged, this, &MainWindow::update_topology);
  topology_ = new TopologyView(topo_tab);
  auto* topo_row = new QHBoxLayout;
  topo_row->addWidget(new QLabel(tr("Trace:"), topo_tab));
  topo_row->addWidget(topology_pane_);
  topo_row->addStretch(1);
  topo_layout->addLayout(topo_row);
  topo_layout->addWidget(topology_, 1);
  return topo_tab;
}

// The per-step error of the replays shown (recorded vs replayed ProfilerStep lengths).
QWidget* MainWindow::build_steps_tab() {
  steps_tab_ = new QWidget(tabs_);
  auto* layout = new QVBoxLayout(steps_tab_);
  auto* table = make_table(&steps_, steps_tab_);
  table->setObjectName(QStringLiteral("step_error_table"));
  layout->addWidget(table);
  return steps_tab_;
}

// Why files could not be opened, one line each; hidden while there is nothing to say.
QLabel* MainWindow::build_load_errors_banner(QWidget* parent) {
  load_errors_label_ = new QLabel(parent);
  load_errors_label_->setObjectName(QStringLiteral("load_errors"));
  load_errors_label_->setStyleSheet(QStringLiteral(
      "QLabel { background: #ffebe9; color: #82071e; border-bottom: 1px solid #ff8182; "
      "padding: 4px 8px; }"));
  load_errors_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  load_errors_label_->setWordWrap(true);
  load_errors_label_->setVisible(false);
  return load_errors_label_;
}

void MainWindow::build_file_menu() {
  auto* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open traces…"), QKeySequence::Open, this, [this] {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open traces"), QString(),
        tr("opsim or PyTorch profiler traces (*.json *.json.gz);;All files (*)"));
    const QStringList errors = open_traces(paths);
    if (!errors.isEmpty())
      QMessageBox::warning(this, tr("Open traces"), errors.join(QLatin1Char('\n')));
  });
  file->addAction(tr("Close opened traces"), this, [this] {
    traces_.clear_files();
    file_rows_.clear();
    rebuild_summary();
    clear_load_errors();
  });
  file->addSeparator();
  file->addAction(tr("Export view as &PNG…"), this, [this] {
    export_view_as(tr("Export PNG"), QStringLiteral("opsim.png"), tr("PNG image (*.png)"));
  });
  file->addAction(tr("Export view as &SVG…"), this, [this] {
    export_view_as(tr("Export SVG"), QStringLiteral("opsim.svg"), tr("SVG image (*.svg)"));
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
}

void MainWindow::export_view_as(const QString& caption, const QString& suggested,
                                const QString& filter) {
  const QString path = QFileDialog::getSaveFileName(this, caption, suggested, filter);
  if (!path.isEmpty() && !export_view(path))
    QMessageBox::warning(this, tr("Export"), tr("Cannot write %1").arg(path));
}

void MainWindow::build_view_menu() {
  auto* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit whole run"), QKeySequence(Qt::Key_F), this,
                  [this] { state_.fit(traces_.end_ns()); });
  view->addAction(tr("Clear selection"), QKeySequence(Qt::Key_Escape), this, [this] {
    state_.select_op(std::nullopt);
    state_.set_selection(std::nullopt);
  });
  auto* idle = view->addAction(tr("Show &idle lanes"));
  idle->setCheckable(true);
  idle->setChecked(!traces_.options().hide_idle_lanes);
  connect(idle, &QAction::toggled, this,
          [this](bool show) { traces_.set_options(TimelineOptions{!show}); });
}

void MainWindow::build_help_menu() {
  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("Timeline controls"), this, [this] {
    QMessageBox::information(
        this, tr("Timeline controls"),
        tr("Wheel: scroll the lanes\nCtrl+wheel: zoom around the cursor\n"
           "Shift+wheel or drag: pan\nW/S: zoom in/out, A/D: pan\n"
           "F: fit the whole run\nZ: zoom to the selected range or op\n"
           "Shift+drag, right-drag or drag on the ruler: select a time range\n"
           "Click: select an op (dependencies and critical path)\n"
           "Click a group's name: collapse or expand it (a bar shows how busy it is)\n"
           "Filter box: keep lanes whose device, lane or op name matches\n"
           "What if: the run before your first edit stays as a grey strip under each lane, "
           "with the difference in each title, until Drop baseline\n"
           "Esc: clear selection"));
  });
}

void MainWindow::build_status_bar() {
  status_ = new QLabel(this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 0);
  progress_->setMaximumWidth(160);
  progress_->setVisible(false);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(100);
  connect(progress_timer_, &QTimer::timeout, this,
          [this] { status_->setText(tr("Simulating… %1 s").arg(runner_.elapsed_s(), 0, 'f', 1)); });
}

void MainWindow::set_status(const QString& text, bool busy) {
  status_->setText(text);
  if (busy) progress_->setRange(0, 0);  // indeterminate until the CLI reports a count
  progress_->setVisible(busy);
  if (busy) {
    progress_timer_->start();
  } else {
    progress_timer_->stop();
  }
}

QString MainWindow::status_text() const {
  return status_->text();
}

void MainWindow::set_scenario(const Scenario& scenario) {
  panel_->set_scenario(scenario);
}

void MainWindow::simulate(const Scenario& scenario) {
  const bool collective = scenario.kind == ScenarioKind::kCollective;
  if (collective ? scenario.collective.algorithms.isEmpty() : scenario.strategies.isEmpty()) {
    runner_.cancel();
    set_status(collective ? tr("Pick at least one algorithm to time.")
                          : tr("Pick at least one strategy to compare."),
               false);
    return;
  }
  runner_.run(scenario, options_.cli);
}

void MainWindow::show_result(const RunResult& result) {
  simulated_rows_ = result.summary.rows;
  std::vector<Pane> panes;
  for (std::size_t i = 0; i < result.summary.rows.size() && i < result.traces.size(); ++i) {
    if (!result.traces[i]) continue;
    const SummaryRow& row = result.summary.rows[i];
    Pane pane;
    pane.model = std::make_shared<TimelineModel>(result.traces[i], traces_.options());
    pane.title = QString::fromStdString(row.name);
    pane.lower_bound_ns = std::isnan(row.lower_bound_s) ? -1 : row.lower_bound_s * 1e9;
    panes.push_back(std::move(pane));
  }
  what_if_.on_new_run(traces_.panes());
  traces_.set_simulated(std::move(panes));
  rebuild_summary();
  run_error_.clear();
  update_banner();
  const QString what = result.summary.op.empty()
                           ? tr("%1 strategies").arg(result.summary.rows.size())
                           : tr("%1 × %2")
                                 .arg(result.summary.rows.size())
                                 .arg(QString::fromStdString(result.summary.op));
  QString text =
      tr("%1 on %2, %3 — simulated in %4 s")
          .arg(what, QString::fromStdString(result.summary.topology), sizes_text(result.summary))
          .arg(result.wall_s, 0, 'f', 2);
  if (!load_errors_.isEmpty())
    text += tr("  — cannot open %1 file(s): %2").arg(load_errors_.size()).arg(load_errors_.first());
  if (!result.warnings.isEmpty()) {
    text += tr("  — %1 warning(s)").arg(result.warnings.size());
    status_->setToolTip(result.warnings.join(QLatin1Char('\n')));
  }
  set_status(text, false);
  emit simulation_done(true);
}

void MainWindow::on_run_failed(const QString& message) {
  run_error_ = message;
  update_banner();
  set_status(tr("Simulation failed: %1").arg(message), false);
  emit simulation_done(false);
}

void MainWindow::rebuild_summary() {
  std::vector<SummaryRow> rows = simulated_rows_;
  rows.insert(rows.end(), file_rows_.begin(), file_rows_.end());
  summary_.set_rows(std::move(rows));
  // Columns no row fills (a collective's lower bound, a strategy's algorithm · protocol) stay out.
  for (int c = 0; c < SummaryModel::kColumnCount; ++c)
    summary_table_->setColumnHidden(c, !summary_.column_has_data(c));
}

bool MainWindow::export_view(const QString& path) {
  const auto panes = timeline_->comparison_panes();
  const TimelineStyle& style = timeline_->style();
  const int width = std::max(timeline_->width(), style.label_width_px + 400);
  TimeAxis axis = state_.axis();
  if (timeline_->width() < style.label_width_px + 400)
    axis.fit(0, traces_.end_ns(), width - style.label_width_px);
  return save_comparison(panes, axis, QSize(width, comparison_height_px(panes, style)), path,
                         style);
}

void MainWindow::update_details() {
  const auto sel = state_.selected_op();
  if (!sel || sel->pane < 0 || sel->pane >= static_cast<int>(traces_.panes().size())) {
    details_->setHtml(
        tr("<p style='color:#57606a'>Click an op in the timeline to see its details, "
           "dependencies and the critical path. Shift+drag to select a time range.</p>"));
    return;
  }
  const Pane& pane = traces_.panes()[static_cast<std::size_t>(sel->pane)];
  const TimelineModel& m = *pane.model;
  const Trace& t = m.trace();
  const TraceOp& op = t.ops[sel->op];
  auto op_name = [&](std::uint32_t i) {
    return QString::fromStdString(t.ops[i].name).toHtmlEscaped();
  };
  QString html = QStringLiteral("<h3>%1</h3><table cellspacing=2>").arg(op_name(sel->op));
  auto row = [&](const QString& k, const QString& v) {
    html += QStringLiteral("<tr><td style='color:#57606a'>%1</td><td>%2</td></tr>").arg(k, v);
  };
  row(tr("trace"), pane.title.toHtmlEscaped());
  row(tr("class"), QString::fromStdString(op.op_class));
  row(tr("device"),
      QString::fromStdString(op.device) +
          (op.peer.empty() ? QString() : QStringLiteral(" → ") + QString::fromStdString(op.peer)));
  if (op.lane < t.lanes.size()) row(tr("lane"), QString::fromStdString(t.lanes[op.lane].name));
  row(tr("start"), ns_text(static_cast<double>(op.start_ns)));
  row(tr("end"), ns_text(static_cast<double>(op.end_ns)));
  row(tr("duration"), ns_text(static_cast<double>(op.end_ns - op.start_ns)));
  if (op.bytes > 0) row(tr("bytes"), QString::fromStdString(format_bytes(op.bytes)));
  if (op.flops > 0) row(tr("flops"), QString::number(op.flops, 'g', 4));
  row(tr("on critical path"), m.on_critical_path(sel->op) ? tr("yes") : tr("no"));
  if (const auto gate = m.gating_predecessor(sel->op)) {
    row(tr("waited for"), op_name(*gate) + QStringLiteral(" (ended ") +
                              ns_text(static_cast<double>(t.ops[*gate].end_ns)) +
                              QStringLiteral(")"));
  }
  html += QStringLiteral("</table>");
  auto list = [&](const QString& title, const std::vector<std::uint32_t>& ops) {
    if (ops.empty()) return;
    html += QStringLiteral("<p><b>%1</b> (%2): ").arg(title).arg(ops.size());
    QStringList names;
    for (std::size_t i = 0; i < ops.size() && i < 12; ++i) names << op_name(ops[i]);
    if (ops.size() > 12) names << QStringLiteral("…");
    html += names.join(QStringLiteral(", ")) + QStringLiteral("</p>");
  };
  list(tr("Depends on"), m.predecessors(sel->op));
  list(tr("Needed by"), m.successors(sel->op));
  const auto& cp = m.critical_path();
  html += QStringLiteral("<p><b>%1</b>: %2 ops, ends at %3</p>")
              .arg(tr("Critical path"))
              .arg(cp.size())
              .arg(ns_text(cp.empty() ? 0.0 : static_cast<double>(t.ops[cp.back()].end_ns)));
  details_->setHtml(html);
  tabs_->setCurrentIndex(1);
}

void MainWindow::update_range() {
  const auto range = state_.selection_ns();
  if (!range) {
    range_model_.clear();
  } else {
    std::vector<const TimelineModel*> models;
    QStringList titles;
    for (const Pane& p : traces_.panes()) {
      models.push_back(p.model.get());
      titles << p.title;
    }
    range_model_.compute(models, titles, static_cast<TimeNs>(range->first),
                         static_cast<TimeNs>(range->second));
  }
  update_topology();
}

void MainWindow::update_topology() {
  const int idx = topology_pane_->currentIndex();
  if (idx < 0 || idx >= static_cast<int>(traces_.panes().size())) {
    topology_->show_trace(nullptr, QString(), std::nullopt);
    return;
  }
  const Pane& p = traces_.panes()[static_cast<std::size_t>(idx)];
  topology_->show_trace(p.model, p.title, state_.selection_ns());
}

}  // namespace opsim::gui
