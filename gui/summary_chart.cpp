#include "gui/summary_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>
#include <cmath>

namespace opsim::gui {

namespace {

// "allreduce " when every name starts with that word (a collective's rows): the bars are
// then labelled by algorithm alone, so that they fit under the bars.
QString shared_first_word(const QStringList& names) {
  if (names.isEmpty()) return {};
  const int space = names.front().indexOf(QLatin1Char(' '));
  if (space <= 0) return {};
  const QString prefix = names.front().left(space + 1);
  for (const QString& name : names)
    if (!name.startsWith(prefix) || name.size() == prefix.size()) return {};
  return prefix;
}

}  // namespace

SummaryChart::SummaryChart(const SummaryModel* model, QWidget* parent)
    : QChartView(parent), model_(model) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumSize(320, 220);
  connect(model_, &QAbstractItemModel::modelReset, this, &SummaryChart::rebuild);
  rebuild();
}

void SummaryChart::rebuild() {
  auto* chart = new QChart;
  const auto& rows = model_->rows();
  const bool collective = !rows.empty() && !rows.front().chosen.empty();
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  auto* makespan = new QBarSet(tr("makespan (ms)"));
  makespan->setColor(QColor(0x4e, 0x79, 0xa7));
  auto* bound = new QBarSet(tr("lower bound (ms)"));
  bound->setColor(QColor(0xd0, 0x30, 0x30, 160));
  QStringList categories;
  bool any_bound = false;
  double max_ms = 0;
  for (const SummaryRow& r : model_->rows()) {
    categories << QString::fromStdString(r.name);
    *makespan << r.makespan_s * 1e3;
    max_ms = std::max(max_ms, r.makespan_s * 1e3);
    const bool has = !std::isnan(r.lower_bound_s);
    any_bound = any_bound || has;
    *bound << (has ? r.lower_bound_s * 1e3 : 0);
  }
  const QString op = collective ? shared_first_word(categories) : QString();
  for (QString& c : categories) c.remove(0, op.size());
  chart->setTitle(collective ? tr("%1time per algorithm").arg(op) : tr("Makespan per strategy"));
  auto* series = new QBarSeries;
  series->append(makespan);
  if (any_bound) {
    series->append(bound);
  } else {
    delete bound;
  }
  series->setLabelsVisible(true);
  series->setLabelsFormat(QStringLiteral("@value"));
  series->setLabelsPrecision(4);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(categories);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis;
  y->setTitleText(tr("ms"));
  y->setRange(0, max_ms > 0 ? max_ms * 1.15 : 1);
  // Collectives take a few milliseconds or less: whole numbers would repeat on the axis.
  y->setLabelFormat(max_ms >= 10 ? QStringLiteral("%.0f") : QStringLiteral("%.2f"));
  y->applyNiceNumbers();
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  QChart* old = this->chart();
  setChart(chart);
  delete old;
}

}  // namespace opsim::gui
