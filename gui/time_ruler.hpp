// The time ruler above the panes; dragging on it selects a time range.
#pragma once

#include <QWidget>

#include "gui/timeline_painter.hpp"
#include "gui/view_state.hpp"

namespace opsim::gui {

class TimeRuler : public QWidget {
  Q_OBJECT
 public:
  TimeRuler(ViewState* state, const TimelineStyle& style, QWidget* parent = nullptr);
  QSize sizeHint() const override { return {400, style_.ruler_height_px}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  ViewState* state_;
  TimelineStyle style_;
  double press_x_ = 0;
};

}  // namespace opsim::gui
