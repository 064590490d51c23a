#include "gui/sweep_chart_window.hpp"

#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "common/input_error.hpp"
#include "gui/sweep_chart.hpp"

namespace opsim::gui {
namespace {

constexpr const char* kResultColumns[] = {"makespan_s", "algbw_GBps", "busbw_GBps", "sim_wall_s"};
constexpr const char* kTraceColumn = "trace_file";

QString text(const std::string& s) {
  return QString::fromStdString(s);
}

// The row's value in `column`, empty when the table has no such column.
std::string cell(const CsvTable& table, std::size_t row, const char* column) {
  const auto index = table.column(column);
  return index ? table.rows[row].fields[*index] : std::string();
}

}  // namespace

bool is_sweep_csv(const QString& path) {
  if (!path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)) return false;
  if (!QFileInfo(path).isFile()) return false;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return false;
  const QList<QByteArray> header = file.readLine(64 * 1024).trimmed().split(',');
  for (const char* column : kResultColumns)
    if (header.contains(QByteArray(column))) return true;
  return false;
}

namespace {

// A collective row (an op column, as `collectives` sweeps write) re-runs with `opsim
// collective`: its algorithm and protocol (without their axes the sweep ran auto), size and
// GPUs.
void set_collective_of_row(Scenario& scenario, const CsvTable& table, std::size_t row) {
  scenario.kind = ScenarioKind::kCollective;
  scenario.collective.op = text(cell(table, row, "op"));
  const QString algorithm = text(cell(table, row, "algorithm"));
  scenario.collective.algorithms = {algorithm.isEmpty() ? QStringLiteral("auto") : algorithm};
  const QString protocol = text(cell(table, row, "protocol"));
  scenario.collective.protocol = protocol.isEmpty() ? QStringLiteral("auto") : protocol;
  scenario.collective.sizes = scenario.gradient_bytes;
  scenario.collective.gpus = scenario.gpus;
}

}  // namespace

std::optional<Scenario> scenario_of_row(const CsvTable& table, std::size_t row,
                                        std::string& why_not) {
  Scenario scenario;
  const bool collective = !cell(table, row, "op").empty();
  for (const char* needed : {"topology", collective ? "op" : "strategy", "bytes"})
    if (cell(table, row, needed).empty()) {
      why_not = std::string("the row has no ") + needed + " to re-run it with";
      return std::nullopt;
    }
  scenario.topology = text(cell(table, row, "topology"));
  scenario.strategies = {text(cell(table, row, "strategy"))};
  scenario.gradient_bytes = text(cell(table, row, "bytes"));
  double gpus = 0;  // 0: all of the machine's GPUs
  if (parse_number(cell(table, row, "gpus"), gpus) && gpus >= 2 && gpus <= 1 << 20)
    scenario.gpus = static_cast<int>(gpus);
  else
    scenario.gpus = 0;
  scenario.comm_only = cell(table, row, "comm_only") == "true";
  double scale = 1;
  if (parse_number(cell(table, row, "link_bandwidth_scale"), scale))
    scenario.link_bandwidth_scale = scale;
  // `set` axes are columns named like the key they set: "gpu0-sw0.bandwidth".
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    if (table.columns[c].find('.') != std::string::npos && !table.rows[row].fields[c].empty())
      scenario.overrides << text(table.columns[c] + "=" + table.rows[row].fields[c]);
  if (collective) set_collective_of_row(scenario, table, row);
  return scenario;
}

SweepChartWindow::SweepChartWindow(const QString& path, QWidget* parent)
    : QWidget(parent, Qt::Window), path_(path), table_(read_csv_table(path.toStdString())) {
  setAttribute(Qt::WA_DeleteOnClose);
  setWindowTitle(tr("%1 — sweep results").arg(QFileInfo(path).fileName()));
  build_ui();
  fill_pickers();
  replot();
  resize(1200, 800);
}

void SweepChartWindow::build_ui() {
  auto* layout = new QVBoxLayout(this);
  auto* pickers = new QHBoxLayout;
  const auto add_picker = [&](const QString& label) {
    pickers->addWidget(new QLabel(label, this));
    auto* box = new QComboBox(this);
    pickers->addWidget(box, 1);
    return box;
  };
  x_ = add_picker(tr("x:"));
  y_ = add_picker(tr("metric:"));
  series_ = add_picker(tr("series:"));
  layout->addLayout(pickers);
  view_ = new QChartView(this);
  view_->setRenderHint(QPainter::Antialiasing);
  layout->addWidget(view_, 1);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  layout->addWidget(status_);
}

void SweepChartWindow::fill_pickers() {
  const SweepColumns columns = sweep_columns_of(table_);
  const std::string x = default_x_column(table_);
  if (x.empty())
    throw InputError(path_.toStdString() + ": no numeric parameter varies: nothing to chart");
  for (const std::string& name : columns.parameters) {
    double ignored;
    if (!table_.rows.empty() &&
        parse_number(table_.rows.front().fields[*table_.column(name)], ignored))
      x_->addItem(text(name));
  }
  for (const std::string& name : columns.metrics) y_->addItem(text(name));
  series_->addItem(tr("(default)"), QString());
  for (const std::string& name : columns.parameters) series_->addItem(text(name), text(name));
  x_->setCurrentText(text(x));
  for (QComboBox* box : {x_, y_, series_})
    connect(box, &QComboBox::currentIndexChanged, this, &SweepChartWindow::replot);
}

void SweepChartWindow::set_columns(const QString& x, const QString& y, const QString& series) {
  for (QComboBox* box : {x_, y_, series_}) box->blockSignals(true);
  x_->setCurrentText(x);
  y_->setCurrentText(y);
  series_->setCurrentIndex(std::max(0, series_->findData(series)));
  for (QComboBox* box : {x_, y_, series_}) box->blockSignals(false);
  replot();
}

QString SweepChartWindow::status_text() const {
  return status_->text();
}

void SweepChartWindow::replot() {
  PlotRequest request;
  request.x = x_->currentText().toStdString();
  request.y = {y_->currentText().toStdString()};
  request.series = series_->currentData().toString().toStdString();
  try {
    plot_ = plan_sweep_plot(table_, request, QFileInfo(path_).fileName().toStdString());
  } catch (const InputError& e) {
    plot_ = {};
    status_->setText(text(e.what()));
    return;
  }
  QChart* chart = make_sweep_chart(plot_.charts.front(), true);
  const QList<QAbstractSeries*> series = chart->series();
  for (int i = 0; i < series.size(); ++i) {
    auto* line = qobject_cast<QLineSeries*>(series[i]);
    connect(line, &QLineSeries::doubleClicked, this, [this, i](const QPointF& p) {
      if (const PlotPoint* point = nearest_point(i, p)) open_row(point->row);
    });
    connect(line, &QLineSeries::hovered, this, [this, i](const QPointF& p, bool entered) {
      if (entered)
        QToolTip::showText(QCursor::pos(), point_tooltip(i, p), view_);
      else
        QToolTip::hideText();
    });
  }
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
  QString status =
      tr("%1 rows plotted. Double-click a point to open its trace.").arg(plot_.rows_plotted);
  if (const std::string note = plot_.note(); !note.empty()) status += " " + text(note) + ".";
  status_->setText(status);
}

const PlotPoint* SweepChartWindow::nearest_point(int chart_series, const QPointF& position) const {
  if (plot_.charts.empty() || chart_series < 0) return nullptr;
  const SweepChartPlan& chart = plot_.charts.front();
  if (static_cast<std::size_t>(chart_series) >= chart.series.size()) return nullptr;
  // In fractions of each axis's range, so that neither axis's unit decides.
  const auto fraction = [](const PlotAxis& axis, double position) {
    return position / std::max(axis.max - axis.min, 1e-300);
  };
  const PlotPoint* nearest = nullptr;
  double best = INFINITY;
  for (const PlotPoint& p : chart.series[static_cast<std::size_t>(chart_series)].points) {
    const double d = std::hypot(fraction(chart.x, chart.x.position(p.x) - position.x()),
                                fraction(chart.y, chart.y.position(p.y) - position.y()));
    if (d < best) best = d, nearest = &p;
  }
  return nearest;
}

QString SweepChartWindow::point_tooltip(int chart_series, const QPointF& position) const {
  const PlotPoint* point = nearest_point(chart_series, position);
  if (point == nullptr) return {};
  const SweepChartPlan& chart = plot_.charts.front();
  return tr("%1\n%2: %3\n%4: %5\nline %6 of the CSV; double-click to open its trace")
      .arg(text(chart.series[static_cast<std::size_t>(chart_series)].name), text(chart.x.column),
           text(format_value(point->x, chart.x.unit)), text(chart.metric),
           text(format_value(point->y, chart.y.unit)))
      .arg(table_.rows[point->row].line);
}

void SweepChartWindow::open_row(std::size_t row) {
  const std::string trace = cell(table_, row, kTraceColumn);
  if (!trace.empty()) {
    emit trace_requested(QFileInfo(path_).dir().absoluteFilePath(text(trace)));
    return;
  }
  std::string why_not;
  if (const auto scenario = scenario_of_row(table_, row, why_not)) {
    status_->setText(tr("Re-running line %1 (%2 on %3) in the main window…")
                         .arg(table_.rows[row].line)
                         .arg(scenario->strategies.front(), scenario->topology));
    emit rerun_requested(*scenario);
    return;
  }
  status_->setText(tr("Line %1: %2.").arg(table_.rows[row].line).arg(text(why_not)));
}

}  // namespace opsim::gui
