// Qt Charts of a SweepPlot (gui/sweep_plot.hpp): one line chart per metric, and the whole
// plot as a PNG or SVG image for `opsim plot` and `opsim sweep --plot`. Axes are category
// axes whose labels are the plan's ticks, so sizes read "16 MB" and times "250 µs" on linear
// and log axes alike (a log axis plots log10 of the values). Colour follows the series
// column, the dash pattern the other parameters that vary.
//
//   SweepPlot plot = plan_sweep_plot(read_csv_table("r.csv"), request, "r.csv");
//   QByteArray png = render_sweep_plot(plot, "rings", {1600, 1000}, SweepImageFormat::kPng);
//
// Application object: rendering needs a QApplication (Qt Charts are graphics widgets). When
// none exists, ensure_widget_application() creates one on the "offscreen" platform unless
// QT_QPA_PLATFORM says otherwise, for the rest of the process.
#pragma once

#include <QByteArray>
#include <QColor>
#include <QSize>
#include <QString>

#include "gui/sweep_plot.hpp"

class QChart;

namespace opsim::gui {

enum class SweepImageFormat { kPng, kSvg };

QColor series_color(int color_index);
Qt::PenStyle series_pen_style(int style_index);

/// A chart of `plan` (the caller owns it): a line with point markers per series.
QChart* make_sweep_chart(const SweepChartPlan& plan, bool with_legend);

/// The image's size for `requested` (width and height of the whole image, at least 640x400):
/// taller when the charts would get less than 380 px of height each.
QSize sweep_plot_size(const SweepPlot& plot, QSize requested);

/// The plot as an image: `title` on top, the charts in a grid of up to two columns, one
/// legend for all on the right, plot.note() at the bottom.
QByteArray render_sweep_plot(const SweepPlot& plot, const QString& title, QSize requested,
                             SweepImageFormat format);

/// Creates a QApplication (offscreen unless QT_QPA_PLATFORM is set) if none exists yet.
/// Throws std::runtime_error when the platform's plug-in is missing or when a QGuiApplication
/// without widgets already exists.
void ensure_widget_application();

}  // namespace opsim::gui
