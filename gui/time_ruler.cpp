#include "gui/time_ruler.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <cmath>

namespace opsim::gui {

TimeRuler::TimeRuler(ViewState* state, const TimelineStyle& style, QWidget* parent)
    : QWidget(parent), state_(state), style_(style) {
  setFixedHeight(style_.ruler_height_px);
  setCursor(Qt::IBeamCursor);
  setToolTip(tr("Drag to select a time range"));
  connect(state_, &ViewState::axis_changed, this, [this] { update(); });
  connect(state_, &ViewState::selection_changed, this, [this] { update(); });
}

void TimeRuler::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint_ruler(p, state_->axis(), rect(), style_, state_->selection_ns());
}

void TimeRuler::mousePressEvent(QMouseEvent* event) {
  press_x_ = event->position().x() - style_.label_width_px;
  if (event->button() == Qt::RightButton) state_->set_selection(std::nullopt);
}

void TimeRuler::mouseMoveEvent(QMouseEvent* event) {
  if (!(event->buttons() & Qt::LeftButton)) return;
  const double x = event->position().x() - style_.label_width_px;
  const TimeAxis& a = state_->axis();
  state_->set_selection(std::make_pair(a.ns_at(press_x_), a.ns_at(x)));
}

void TimeRuler::wheelEvent(QWheelEvent* event) {
  state_->zoom_around(event->position().x() - style_.label_width_px,
                      std::pow(1.25, event->angleDelta().y() / 120.0));
}

}  // namespace opsim::gui
