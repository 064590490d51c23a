// The stacked panes of the comparison on one time axis: custom painted (timeline_painter),
// reading TraceSet, ViewState and the what-if baseline. As in Perfetto and Nsight, the wheel
// scrolls the lanes and Ctrl+wheel zooms around the cursor (Shift+wheel pans); drag pans,
// Shift+drag or right-drag selects a time range, click selects an op, a click on a group's
// label collapses or expands it; W/S zoom, A/D pan, F fits, Z zooms to the selection, Esc
// clears. The view keeps its zoom when the traces change (only the first traces are fitted).
#pragma once

#include <QWidget>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gui/comparison_render.hpp"
#include "gui/timeline_painter.hpp"
#include "gui/trace_set.hpp"
#include "gui/view_state.hpp"
#include "gui/what_if_state.hpp"

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
  /// The rows of pane `pane` as laid out now (collapsed groups and filter applied).
  const RowLayout& layout(int pane) const;
  /// The key of the group header under `pos` (its label or its sticky copy), if any.
  std::optional<std::string> header_at(QPoint pos) const;
  /// Shows the what-if baseline and staleness of `what_if` (not owned; may be null).
  void set_what_if(const WhatIfState* what_if);
  /// Fits the view to the selected time range, or else to the selected op.
  void zoom_to_selection();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void moveEvent(QMoveEvent* event) override;

 private:
  double plot_x(QPoint pos) const { return pos.x() - style_.label_width_px; }
  void on_traces_changed();
  void relayout();
  void refresh_baseline_notes();
  /// The pane under `y` and that pane's top, or -1.
  std::pair<int, int> pane_at(int y) const;
  QRect visible_rect() const;
  void show_tooltip(QPoint pos, const OpRef& ref);

  /// What each pane draws besides its model, rebuilt when traces or visibility change.
  struct PaneRows {
    std::shared_ptr<const TimelineModel> model;
    std::shared_ptr<const RowLayout> layout;
    SummaryCache summaries;  ///< busy profiles of collapsed headers, kept while the model is
    std::shared_ptr<const TimelineModel> baseline;
    QString baseline_note;
  };

  TraceSet* traces_;
  ViewState* state_;
  const WhatIfState* what_if_ = nullptr;
  TimelineStyle style_;
  std::vector<PaneRows> panes_;
  enum class Drag { kNone, kPan, kSelect } drag_ = Drag::kNone;
  QPoint press_pos_;
  QPoint last_pos_;
  bool moved_ = false;
  bool fitted_once_ = false;
  bool has_content_ = false;  ///< traces were shown before: keep the zoom when they change
};

}  // namespace opsim::gui
