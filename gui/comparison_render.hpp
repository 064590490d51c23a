// Headless rendering of a comparison (ruler + one pane per trace on one time axis) to an
// image, PNG or SVG. The GUI's File > Export and `opsim compare --png FILE` both use it.
//
//   std::vector<opsim::Trace> traces = ...;             // e.g. read_chrome_trace() per strategy
//   opsim::gui::render_comparison_png(traces, {"tree", "cpu", "split"}, "compare.png", {1600, 0});
//
// Application object: these functions need a QGuiApplication (fonts). If none exists they
// create one for the rest of the process, on the "offscreen" platform unless
// QT_QPA_PLATFORM says otherwise, so a CLI can call them without any Qt set-up. Call them on
// the thread that owns (or will own) that application.
#pragma once

#include <QSize>
#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "engine/trace.hpp"
#include "gui/timeline_painter.hpp"

namespace opsim::gui {

struct ComparisonPane {
  std::shared_ptr<const TimelineModel> model;
  PaneDecor decor;
  std::shared_ptr<const RowLayout> layout;  ///< collapsed and filtered rows; null: all rows
};

/// Total height of ruler and panes.
int comparison_height_px(const std::vector<ComparisonPane>& panes, const TimelineStyle& style);

/// Paints the ruler and the panes stacked into `rect` (widget or image coordinates).
PaintStats paint_comparison(QPainter& painter, const std::vector<ComparisonPane>& panes,
                            const TimeAxis& axis, const QRect& rect, const TimelineStyle& style);

/// Builds panes for `traces`, idle lanes hidden (titles default to Trace::title; lower bounds in
/// seconds, NaN or missing for none) with the axis fitted to the longest trace.
std::vector<ComparisonPane> make_panes(const std::vector<Trace>& traces,
                                       const std::vector<std::string>& titles,
                                       const std::vector<double>& lower_bounds_s = {});

/// Writes the panes as shown on `axis` (plot starts style.label_width_px in) to `path`: SVG
/// when it ends in ".svg", PNG otherwise; atomically (temp file, then rename). Height 0 means
/// as tall as the content.
bool save_comparison(const std::vector<ComparisonPane>& panes, const TimeAxis& axis, QSize size,
                     const QString& path, const TimelineStyle& style = {});

/// Writes a PNG (atomically: temp file, then rename). Returns false if it cannot be written.
bool render_comparison_png(const std::vector<Trace>& traces, const std::vector<std::string>& titles,
                           const QString& path, QSize size,
                           const std::vector<double>& lower_bounds_s = {});

/// Creates a QApplication (offscreen unless QT_QPA_PLATFORM is set) if none exists yet, and
/// then drops Qt's own debug and warning lines unless OPSIM_GUI_QT_MESSAGES is set.
/// Throws std::runtime_error when the platform's plug-in is not installed (Qt would abort).
void ensure_gui_application();
/// Empty when QT_QPA_PLATFORM's (default offscreen) plug-in is found; else why not.
std::string missing_platform_plugin();

}  // namespace opsim::gui
