// Paints timeline panes and the time ruler with QPainter: one call per pane, no widget per
// event. Culls spans outside the clip (binary search per lane) and merges spans narrower
// than a pixel into runs, so the cost is bounded by visible lanes x width, not span count.
// The same functions paint the widget, PNG/SVG export and the benchmark.
#pragma once

#include <QColor>
#include <QPainter>
#include <QRect>
#include <QString>
#include <optional>
#include <string_view>
#include <utility>

#include "gui/time_axis.hpp"
#include "gui/timeline_model.hpp"

namespace opsim::gui {

struct TimelineStyle {
  int label_width_px = 190;
  int title_height_px = 24;
  int group_height_px = 18;
  int subgroup_height_px = 15;
  int lane_height_px = 19;
  int pane_gap_px = 8;
  int ruler_height_px = 26;
};

/// Per-pane decorations on top of the spans.
struct PaneDecor {
  QString title;
  double lower_bound_ns = -1;  ///< < 0: unknown, no line
  std::optional<std::uint32_t> selected_op;
  std::optional<std::uint32_t> hovered_op;
  bool show_critical_path = false;
  /// (op, its twin) in an overlay: the twin outlined dashed and joined to the op by a line.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> twins;
  std::optional<std::pair<double, double>> selection_ns;  ///< highlighted time range
};

struct PaintStats {
  std::size_t spans_visited = 0;  ///< spans looked at after culling
  std::size_t boxes_drawn = 0;    ///< rectangles issued to QPainter (spans and merged runs)
  std::size_t merged_runs = 0;    ///< of those, runs of sub-pixel spans
};

/// Height of a pane (title bar and all rows).
int pane_height_px(const TimelineModel& model, const TimelineStyle& style);
/// Top of row `row` relative to the pane's top; row == rows().size() gives the pane's height.
int row_top_px(const TimelineModel& model, int row, const TimelineStyle& style);
/// The row under `y_px` (relative to the pane's top), or -1 on the title bar or below.
int row_at_px(const TimelineModel& model, int y_px, const TimelineStyle& style);

/// A fixed colour per op class ("gemm", "reduce", "copy" ...); others hash into a palette.
QColor color_for_op_class(std::string_view op_class);

/// The ruler: tick labels over the plot area, which starts `style.label_width_px` into `rect`.
void paint_ruler(QPainter& painter, const TimeAxis& axis, const QRect& rect,
                 const TimelineStyle& style,
                 std::optional<std::pair<double, double>> selection_ns = {});

/// Paints `model` into `pane_rect` (its full height is pane_height_px), skipping rows outside
/// `clip` (widget coordinates).
PaintStats paint_pane(QPainter& painter, const TimelineModel& model, const TimeAxis& axis,
                      const QRect& pane_rect, const QRect& clip, const PaneDecor& decor,
                      const TimelineStyle& style);

}  // namespace opsim::gui
