// Paints timeline panes and the time ruler with QPainter: one call per pane, no widget per
// event. Culls spans outside the clip (binary search per lane) and merges spans narrower
// than a pixel into runs, so the cost is bounded by visible lanes x width, not span count.
// The same functions paint the widget, PNG/SVG export and the benchmark.
#pragma once

#include <QColor>
#include <QPainter>
#include <QRect>
#include <QString>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "gui/row_layout.hpp"
#include "gui/time_axis.hpp"
#include "gui/timeline_model.hpp"

namespace opsim::gui {

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
  /// What-if: the run before the edit, ghosted under each lane of the same name.
  std::shared_ptr<const TimelineModel> baseline;
  QString baseline_note;  ///< the difference to the baseline, shown in the title bar
  bool stale = false;     ///< the inputs changed since this run: drawn faded, marked so
};

struct PaintStats {
  std::size_t spans_visited = 0;  ///< spans looked at after culling
  std::size_t boxes_drawn = 0;    ///< rectangles issued to QPainter (spans and merged runs)
  std::size_t merged_runs = 0;    ///< of those, runs of sub-pixel spans
};

/// Height of a pane (title bar and all rows, nothing collapsed or filtered).
int pane_height_px(const TimelineModel& model, const TimelineStyle& style);
/// Top of row `row` relative to the pane's top; row == rows().size() gives the pane's height.
int row_top_px(const TimelineModel& model, int row, const TimelineStyle& style);
/// The row under `y_px` (relative to the pane's top), or -1 on the title bar or below.
int row_at_px(const TimelineModel& model, int y_px, const TimelineStyle& style);

/// A header kept on screen while its rows scroll under it (index into layout.rows()).
struct StickyHeader {
  int layout_index = -1;
  QRect rect;  ///< widget coordinates
};
/// The headers over the rows at the top of the visible area, when the pane's own headers
/// have scrolled above `visible_top` (widget coordinates); the title bar sits above them.
std::vector<StickyHeader> sticky_headers(const TimelineModel& model, const RowLayout& layout,
                                         const QRect& pane_rect, int visible_top,
                                         const TimelineStyle& style);

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
/// The same with rows collapsed and filtered as `layout` says (its height is the pane's).
PaintStats paint_pane(QPainter& painter, const TimelineModel& model, const RowLayout& layout,
                      const TimeAxis& axis, const QRect& pane_rect, const QRect& clip,
                      const PaneDecor& decor, const TimelineStyle& style);

}  // namespace opsim::gui
