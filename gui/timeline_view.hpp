// The stacked panes of the comparison on one time axis: custom painted (timeline_painter),
// reading TraceSet and ViewState. Wheel zooms around the cursor, drag pans, Shift+drag or
// right-drag selects a time range, click selects an op; W/S zoom, A/D pan, F fits, Esc clears.
#pragma once

#include <QWidget>
#include <optional>

#include "gui/comparison_render.hpp"
#include "gui/timeline_painter.hpp"
#include "gui/trace_set.hpp"
#include "gui/view_state.hpp"

namespace opsim::gui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  TimelineView(TraceSet* traces, ViewState* state, QWidget* parent = nullptr);

  const TimelineStyle& style() const { return style_; }
  /// The op under a point in widget coordinates, if any (3 px tolerance).
  std::optional<OpRef> op_at(QPoint pos) const;
  /// Panes with the current decorations, for painting and export.
  std::vector<ComparisonPane> comparison_panes() const;
  int content_height_px() const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  double plot_x(QPoint pos) const { return pos.x() - style_.label_width_px; }
  void on_traces_changed();
  void show_tooltip(QPoint pos, const OpRef& ref);

  TraceSet* traces_;
  ViewState* state_;
  TimelineStyle style_;
  enum class Drag { kNone, kPan, kSelect } drag_ = Drag::kNone;
  QPoint press_pos_;
  QPoint last_pos_;
  bool moved_ = false;
  bool fitted_once_ = false;
};

}  // namespace opsim::gui
