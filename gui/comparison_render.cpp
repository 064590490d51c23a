#include "gui/comparison_render.hpp"

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QSaveFile>
#include <QSvgGenerator>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace opsim::gui {

std::string missing_platform_plugin() {
  const char* env = std::getenv("QT_QPA_PLATFORM");
  const QString platform = QString::fromUtf8(env != nullptr ? env : "offscreen");
  // "name:option=value;name2": Qt tries each name; only plain names are checked here.
  QStringList dirs;
  if (const char* own = std::getenv("QT_QPA_PLATFORM_PLUGIN_PATH"); own != nullptr && *own != 0)
    dirs << QString::fromUtf8(own);
  for (const QString& path : QCoreApplication::libraryPaths()) dirs << path + "/platforms";
  for (const QString& choice : platform.split(';', Qt::SkipEmptyParts)) {
    const QString name = choice.section(':', 0, 0);
    if (name.isEmpty()) continue;
    for (const QString& dir : dirs) {
      const QDir d(dir);
      if (!d.entryList({QStringLiteral("*q") + name + QStringLiteral(".*")}, QDir::Files).isEmpty())
        return {};
    }
  }
  return "Qt's platform plug-in '" + platform.toStdString() + "' is not installed (looked in " +
         dirs.join(", ").toStdString() + "; the offscreen one comes with libqt6gui6)";
}

namespace {

// Qt's debug, info and warning lines ("QStandardPaths: XDG_RUNTIME_DIR not set") would come
// between a command's own lines and read as part of an error: dropped unless
// OPSIM_GUI_QT_MESSAGES is set. Critical and fatal messages stay, one line each.
void quiet_qt_message(QtMsgType type, const QMessageLogContext&, const QString& message) {
  const char* wanted = std::getenv("OPSIM_GUI_QT_MESSAGES");
  if (type != QtCriticalMsg && type != QtFatalMsg && (wanted == nullptr || *wanted == 0)) return;
  QString line = message;
  line.replace(QLatin1Char('\n'), QLatin1Char(' '));
  std::fprintf(stderr, "opsim: qt: %s\n", qPrintable(line));
  if (type == QtFatalMsg) std::abort();
}

}  // namespace

void ensure_gui_application() {
  if (QCoreApplication::instance() != nullptr) return;
  qInstallMessageHandler(quiet_qt_message);
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 0);
  // Qt aborts the process when it cannot load the platform plug-in; say why instead.
  if (const std::string missing = missing_platform_plugin(); !missing.empty())
    throw std::runtime_error(missing);
  static int argc = 1;
  static char name[] = "opsim";
  static char* argv[] = {name, nullptr};
  // Deliberately leaked: lives until the process ends, like an application object in main().
  // A QApplication (not only a QGuiApplication) so that Qt Charts, graphics widgets, can
  // render in the same process.
  new QApplication(argc, argv);
}

int comparison_height_px(const std::vector<ComparisonPane>& panes, const TimelineStyle& style) {
  int h = style.ruler_height_px;
  for (const ComparisonPane& pane : panes)
    h += (pane.layout ? pane.layout->height_px() : pane_height_px(*pane.model, style)) +
         style.pane_gap_px;
  return h;
}

PaintStats paint_comparison(QPainter& painter, const std::vector<ComparisonPane>& panes,
                            const TimeAxis& axis, const QRect& rect, const TimelineStyle& style) {
  PaintStats total;
  painter.fillRect(rect, QColor(0xdd, 0xe1, 0xe6));
  std::optional<std::pair<double, double>> selection;
  for (const ComparisonPane& pane : panes) {
    if (pane.decor.selection_ns) selection = pane.decor.selection_ns;
  }
  paint_ruler(painter, axis, QRect(rect.left(), rect.top(), rect.width(), style.ruler_height_px),
              style, selection);
  int y = rect.top() + style.ruler_height_px;
  for (const ComparisonPane& pane : panes) {
    const auto layout =
        pane.layout ? pane.layout : std::make_shared<const RowLayout>(*pane.model, style);
    const int h = layout->height_px();
    const PaintStats s =
        paint_pane(painter, *pane.model, *layout, axis, QRect(rect.left(), y, rect.width(), h),
                   rect, pane.decor, style);
    total.spans_visited += s.spans_visited;
    total.boxes_drawn += s.boxes_drawn;
    total.merged_runs += s.merged_runs;
    y += h + style.pane_gap_px;
  }
  return total;
}

std::vector<ComparisonPane> make_panes(const std::vector<Trace>& traces,
                                       const std::vector<std::string>& titles,
                                       const std::vector<double>& lower_bounds_s) {
  std::vector<ComparisonPane> panes;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    ComparisonPane pane;
    pane.model = std::make_shared<TimelineModel>(std::make_shared<const Trace>(traces[i]),
                                                 TimelineOptions{.hide_idle_lanes = true});
    pane.decor.title = QString::fromStdString(i < titles.size() ? titles[i] : traces[i].title);
    if (i < lower_bounds_s.size() && std::isfinite(lower_bounds_s[i]) && lower_bounds_s[i] >= 0) {
      pane.decor.lower_bound_ns = lower_bounds_s[i] * 1e9;
    }
    panes.push_back(std::move(pane));
  }
  return panes;
}

namespace {

TimeAxis fitted_axis(const std::vector<ComparisonPane>& panes, int width_px,
                     const TimelineStyle& style) {
  TimeNs end = 0;
  for (const ComparisonPane& pane : panes) end = std::max(end, pane.model->end_ns());
  TimeAxis axis;
  axis.fit(0, static_cast<double>(end), std::max(1, width_px - style.label_width_px));
  return axis;
}

QSize resolved_size(const std::vector<ComparisonPane>& panes, QSize size,
                    const TimelineStyle& style) {
  const int w = size.width() > 0 ? size.width() : 1600;
  const int h = size.height() > 0 ? size.height() : comparison_height_px(panes, style);
  return {std::max(w, style.label_width_px + 50), std::max(h, style.ruler_height_px)};
}

bool save_as(const std::vector<ComparisonPane>& panes, const TimeAxis& axis, QSize size,
             const QString& path, const TimelineStyle& style, bool as_svg) {
  ensure_gui_application();
  const QSize s = resolved_size(panes, size, style);
  const QRect rect(QPoint(0, 0), s);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return false;
  bool ok = false;
  if (as_svg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(s);
    svg.setViewBox(rect);
    svg.setTitle(QStringLiteral("opsim comparison"));
    QPainter painter;
    if (painter.begin(&svg)) {
      paint_comparison(painter, panes, axis, rect, style);
      ok = painter.end();
    }
  } else {
    QImage image(s, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    paint_comparison(painter, panes, axis, rect, style);
    painter.end();
    ok = image.save(&file, "PNG");
  }
  if (!ok) {
    file.cancelWriting();
    return false;
  }
  return file.commit();
}

}  // namespace

bool save_comparison(const std::vector<ComparisonPane>& panes, const TimeAxis& axis, QSize size,
                     const QString& path, const TimelineStyle& style) {
  return save_as(panes, axis, size, path, style,
                 path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive));
}

bool render_comparison_png(const std::vector<Trace>& traces, const std::vector<std::string>& titles,
                           const QString& path, QSize size,
                           const std::vector<double>& lower_bounds_s) {
  ensure_gui_application();
  const TimelineStyle style;
  const auto panes = make_panes(traces, titles, lower_bounds_s);
  const QSize s = resolved_size(panes, size, style);
  return save_as(panes, fitted_axis(panes, s.width(), style), s, path, style, false);
}

}  // namespace opsim::gui
