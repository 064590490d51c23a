#include "gui/sweep_chart.hpp"

#include <QApplication>
#include <QBuffer>
#include <QCategoryAxis>
#include <QChart>
#include <QGraphicsScene>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gui/comparison_render.hpp"

namespace opsim::gui {
namespace {

constexpr int kMarginPx = 16;
constexpr int kTitleBandPx = 44;
constexpr int kNoteBandPx = 30;
constexpr int kMinChartHeightPx = 380;
constexpr int kLegendSampleWidthPx = 40;
constexpr int kLegendRowPx = 24;

// Tableau 10: distinct at a glance and readable on white.
constexpr QRgb kPalette[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                             0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
constexpr Qt::PenStyle kPenStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                       Qt::DashDotDotLine};

QFont sized_font(int point_size, bool bold = false) {
  QFont font = QApplication::font();
  font.setPointSize(point_size);
  font.setBold(bold);
  return font;
}

// A category axis whose labels stand at the plan's ticks, grid lines with them.
QCategoryAxis* make_axis(const PlotAxis& plan) {
  auto* axis = new QCategoryAxis;
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  // A little room beyond the first and last ticks keeps the markers there whole. The start
  // value carries no label, so the first tick is a category of its own.
  const double pad = (plan.max - plan.min) * 0.02;
  axis->setStartValue(plan.min - pad);
  for (const AxisTick& tick : plan.ticks)
    axis->append(QString::fromStdString(tick.label), tick.position);
  axis->append(QStringLiteral(" "), plan.max + pad);
  axis->setRange(plan.min - pad, plan.max + pad);
  axis->setTitleText(QString::fromStdString(plan.title));
  axis->setTitleFont(sized_font(12, true));
  axis->setLabelsFont(sized_font(11));
  axis->setGridLineColor(QColor(0xdd, 0xdd, 0xdd));
  return axis;
}

struct LegendEntry {
  QString name;
  int color;
  int style;
};

std::vector<LegendEntry> legend_entries(const SweepPlot& plot) {
  std::vector<LegendEntry> entries;
  for (const SweepChartPlan& chart : plot.charts)
    for (const PlotSeries& s : chart.series) {
      const QString name = QString::fromStdString(s.name);
      if (std::none_of(entries.begin(), entries.end(),
                       [&](const LegendEntry& e) { return e.name == name; }))
        entries.push_back({name, s.color, s.style});
    }
  return entries;
}

// Past the palette's ten colours, the dash pattern changes too, so that no two lines match.
QPen series_pen(int color, int style) {
  const int cycle = color / static_cast<int>(std::size(kPalette));
  QPen pen(series_color(color), 2.5, series_pen_style(style + cycle));
  pen.setCapStyle(Qt::FlatCap);
  return pen;
}

// "strategy · topology": the columns that tell the lines apart.
QString legend_heading(const SweepPlot& plot) {
  QString heading = QString::fromStdString(plot.series_column);
  for (const std::string& column : plot.style_columns)
    heading += (heading.isEmpty() ? "" : " · ") + QString::fromStdString(column);
  return heading;
}

int legend_width_px(const SweepPlot& plot, const std::vector<LegendEntry>& entries,
                    int image_width) {
  const QFontMetrics metrics(sized_font(11));
  int widest = QFontMetrics(sized_font(11, true)).horizontalAdvance(legend_heading(plot));
  for (const LegendEntry& e : entries)
    widest = std::max(widest, kLegendSampleWidthPx + 8 + metrics.horizontalAdvance(e.name));
  return std::clamp(widest + 8, 160, image_width / 3);
}

void paint_legend(QPainter& painter, const SweepPlot& plot, const std::vector<LegendEntry>& entries,
                  const QRect& area) {
  const QFont bold = sized_font(11, true), plain = sized_font(11);
  painter.setFont(bold);
  painter.setPen(Qt::black);
  painter.drawText(
      QRect(area.left(), area.top(), area.width(), kLegendRowPx), Qt::AlignLeft | Qt::AlignVCenter,
      QFontMetrics(bold).elidedText(legend_heading(plot), Qt::ElideRight, area.width()));
  painter.setFont(plain);
  const QFontMetrics metrics(plain);
  int y = area.top() + kLegendRowPx + 4;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& e = entries[i];
    if (y + 2 * kLegendRowPx > area.bottom() && i + 1 < entries.size()) {
      painter.setPen(Qt::black);
      painter.drawText(QRect(area.left(), y, area.width(), kLegendRowPx),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       QObject::tr("… and %1 more").arg(entries.size() - i));
      break;
    }
    if (y + kLegendRowPx > area.bottom()) break;
    const int middle = y + kLegendRowPx / 2;
    painter.setPen(series_pen(e.color, e.style));
    painter.drawLine(area.left(), middle, area.left() + kLegendSampleWidthPx, middle);
    painter.setPen(Qt::NoPen);
    painter.setBrush(series_color(e.color));
    painter.drawEllipse(QPointF(area.left() + kLegendSampleWidthPx / 2.0, middle), 4, 4);
    painter.setPen(Qt::black);
    const QRect text(area.left() + kLegendSampleWidthPx + 8, y,
                     area.width() - kLegendSampleWidthPx - 8, kLegendRowPx);
    painter.drawText(text, Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(e.name, Qt::ElideRight, text.width()));
    y += kLegendRowPx;
  }
}

int grid_columns(std::size_t charts) {
  return charts <= 2 ? 1 : 2;
}

int grid_rows(std::size_t charts) {
  const int columns = grid_columns(charts);
  return static_cast<int>((charts + columns - 1) / columns);
}

// The chart in a scene of its own, laid out at the cell's size, painted into the cell.
// A lone chart leaves its title to the image's.
void paint_chart(QPainter& painter, const SweepChartPlan& plan, const QRect& cell, bool titled) {
  QGraphicsScene scene;
  QChart* chart = make_sweep_chart(plan, false);
  if (!titled) chart->setTitle({});
  scene.addItem(chart);  // the scene owns it
  const QRectF area(QPointF(0, 0), QSizeF(cell.size()));
  chart->setGeometry(area);
  QApplication::sendPostedEvents();  // the chart lays out its axes on a posted event
  scene.render(&painter, QRectF(cell), area);
}

void paint_plot(QPainter& painter, const SweepPlot& plot, const QString& title, QSize size) {
  painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(Qt::black);
  painter.setFont(sized_font(16, true));
  painter.drawText(QRect(kMarginPx, 0, size.width() - 2 * kMarginPx, kTitleBandPx),
                   Qt::AlignLeft | Qt::AlignVCenter, title);
  const std::vector<LegendEntry> entries = legend_entries(plot);
  const int legend_width = legend_width_px(plot, entries, size.width());
  const QString note = QString::fromStdString(plot.note());
  const int bottom = size.height() - (note.isEmpty() ? kMarginPx : kNoteBandPx);
  const QRect charts(kMarginPx, kTitleBandPx, size.width() - 3 * kMarginPx - legend_width,
                     bottom - kTitleBandPx);
  const int columns = grid_columns(plot.charts.size()), rows = grid_rows(plot.charts.size());
  for (std::size_t i = 0; i < plot.charts.size(); ++i) {
    const int column = static_cast<int>(i) % columns, row = static_cast<int>(i) / columns;
    const QRect cell(charts.left() + column * charts.width() / columns,
                     charts.top() + row * charts.height() / rows, charts.width() / columns,
                     charts.height() / rows);
    paint_chart(painter, plot.charts[i], cell, plot.charts.size() > 1);
  }
  paint_legend(
      painter, plot, entries,
      QRect(charts.right() + kMarginPx, kTitleBandPx + 8, legend_width, charts.height() - 8));
  if (note.isEmpty()) return;
  painter.setFont(sized_font(11));
  painter.setPen(QColor(0x80, 0x30, 0x30));
  painter.drawText(QRect(kMarginPx, bottom, size.width() - 2 * kMarginPx, kNoteBandPx),
                   Qt::AlignLeft | Qt::AlignVCenter, note);
}

}  // namespace

QColor series_color(int color_index) {
  const int count = static_cast<int>(std::size(kPalette));
  return QColor::fromRgb(kPalette[((color_index % count) + count) % count]);
}

Qt::PenStyle series_pen_style(int style_index) {
  const int count = static_cast<int>(std::size(kPenStyles));
  return kPenStyles[((style_index % count) + count) % count];
}

QChart* make_sweep_chart(const SweepChartPlan& plan, bool with_legend) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->setTitle(QString::fromStdString(plan.y.title));
  chart->setTitleFont(sized_font(13, true));
  chart->legend()->setVisible(with_legend);
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->legend()->setFont(sized_font(10));
  QCategoryAxis* x = make_axis(plan.x);
  QCategoryAxis* y = make_axis(plan.y);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (const PlotSeries& s : plan.series) {
    auto* line = new QLineSeries;
    line->setName(QString::fromStdString(s.name));
    line->setPen(series_pen(s.color, s.style));
    line->setPointsVisible(true);
    line->setMarkerSize(8);
    for (const PlotPoint& p : s.points) line->append(plan.x.position(p.x), plan.y.position(p.y));
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  return chart;
}

QSize sweep_plot_size(const SweepPlot& plot, QSize requested) {
  const int width = std::max(640, requested.width());
  const int wanted = kTitleBandPx + kNoteBandPx + grid_rows(plot.charts.size()) * kMinChartHeightPx;
  return {width, std::max({400, requested.height(), wanted})};
}

QByteArray render_sweep_plot(const SweepPlot& plot, const QString& title, QSize requested,
                             SweepImageFormat format) {
  ensure_widget_application();
  const QSize size = sweep_plot_size(plot, requested);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (format == SweepImageFormat::kSvg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setResolution(96);  // the size in mm that browsers show at `size` pixels
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    QPainter painter(&svg);
    paint_plot(painter, plot, title, size);
    painter.end();
  } else {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    paint_plot(painter, plot, title, size);
    painter.end();
    if (!image.save(&buffer, "PNG")) throw std::runtime_error("cannot encode the PNG image");
  }
  return bytes;
}

void ensure_widget_application() {
  ensure_gui_application();
  if (qobject_cast<QApplication*>(QCoreApplication::instance()) == nullptr)
    throw std::runtime_error("charts need a QApplication, and this process made a plainer one");
}

}  // namespace opsim::gui
