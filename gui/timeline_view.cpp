#include "gui/timeline_view.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "gui/comparison_render.hpp"
#include "gui/twin_tooltip.hpp"
#include "hw_models/units.hpp"

namespace opsim::gui {

TimelineView::TimelineView(TraceSet* traces, ViewState* state, QWidget* parent)
    : QWidget(parent), traces_(traces), state_(state) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  const auto repaint = [this] { update(); };
  connect(state_, &ViewState::axis_changed, this, repaint);
  connect(state_, &ViewState::selection_changed, this, repaint);
  connect(state_, &ViewState::selected_op_changed, this, repaint);
  connect(state_, &ViewState::hovered_op_changed, this, repaint);
  connect(traces_, &TraceSet::changed, this, &TimelineView::on_traces_changed);
  on_traces_changed();
}

int TimelineView::content_height_px() const {
  int h = 0;
  for (const Pane& p : traces_->panes()) h += pane_height_px(*p.model, style_) + style_.pane_gap_px;
  return std::max(h, 120);
}

void TimelineView::on_traces_changed() {
  setMinimumHeight(content_height_px());
  state_->select_op(std::nullopt);
  state_->hover_op(std::nullopt);
  state_->fit(traces_->end_ns());
  fitted_once_ = width() > 0 && isVisible() && traces_->end_ns() > 0;
  update();
}

namespace {

// The hovered op and its twin, else the selected op and its twin, in an overlay pane.
std::optional<std::pair<std::uint32_t, std::uint32_t>> twin_decor(const Pane& pane,
                                                                  const PaneDecor& decor) {
  if (!pane.twins) return std::nullopt;
  for (const auto& op : {decor.hovered_op, decor.selected_op}) {
    if (!op) continue;
    if (const auto twin = pane.twins->twin(*op)) return std::make_pair(*op, *twin);
  }
  return std::nullopt;
}

}  // namespace

std::vector<ComparisonPane> TimelineView::comparison_panes() const {
  std::vector<ComparisonPane> out;
  const auto& panes = traces_->panes();
  for (int i = 0; i < static_cast<int>(panes.size()); ++i) {
    const Pane& p = panes[static_cast<std::size_t>(i)];
    ComparisonPane cp;
    cp.model = p.model;
    cp.decor.title = p.title;
    cp.decor.lower_bound_ns = p.lower_bound_ns;
    cp.decor.selection_ns = state_->selection_ns();
    if (const auto sel = state_->selected_op(); sel && sel->pane == i) {
      cp.decor.selected_op = sel->op;
      cp.decor.show_critical_path = true;
    }
    if (const auto hov = state_->hovered_op(); hov && hov->pane == i) cp.decor.hovered_op = hov->op;
    cp.decor.twins = twin_decor(p, cp.decor);
    out.push_back(std::move(cp));
  }
  return out;
}

void TimelineView::paintEvent(QPaintEvent* event) {
  QPainter p(this);
  p.fillRect(event->rect(), QColor(0xdd, 0xe1, 0xe6));
  const auto panes = comparison_panes();
  if (panes.empty()) {
    p.setPen(QColor(0x57, 0x60, 0x6a));
    p.drawText(rect(), Qt::AlignCenter,
               tr("No traces yet: the scenario is being simulated, or use File > Open traces."));
    return;
  }
  int y = 0;
  for (const ComparisonPane& pane : panes) {
    const int h = pane_height_px(*pane.model, style_);
    paint_pane(p, *pane.model, state_->axis(), QRect(0, y, width(), h), event->rect(), pane.decor,
               style_);
    y += h + style_.pane_gap_px;
  }
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  state_->set_plot_width(width() - style_.label_width_px);
  // The first real layout decides the width the whole trace is fitted to.
  if (!fitted_once_ && traces_->end_ns() > 0) {
    state_->fit(traces_->end_ns());
    fitted_once_ = true;
  }
}

std::optional<OpRef> TimelineView::op_at(QPoint pos) const {
  if (pos.x() < style_.label_width_px) return std::nullopt;
  int y = 0;
  const auto& panes = traces_->panes();
  for (int i = 0; i < static_cast<int>(panes.size()); ++i) {
    const TimelineModel& m = *panes[static_cast<std::size_t>(i)].model;
    const int h = pane_height_px(m, style_);
    if (pos.y() >= y && pos.y() < y + h) {
      const int row = row_at_px(m, pos.y() - y, style_);
      if (row < 0 || m.rows()[static_cast<std::size_t>(row)].kind != RowKind::kLane)
        return std::nullopt;
      const TimeAxis& axis = state_->axis();
      const auto op = m.op_at(m.rows()[static_cast<std::size_t>(row)].lane, axis.ns_at(plot_x(pos)),
                              3 * axis.ns_per_px);
      if (!op) return std::nullopt;
      return OpRef{i, *op};
    }
    y += h + style_.pane_gap_px;
  }
  return std::nullopt;
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)) {
    event->ignore();  // let the scroll area scroll vertically
    return;
  }
  const double steps = event->angleDelta().y() / 120.0;
  state_->zoom_around(event->position().x() - style_.label_width_px, std::pow(1.25, steps));
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  press_pos_ = last_pos_ = event->pos();
  moved_ = false;
  const bool select =
      event->button() == Qt::RightButton ||
      (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
  drag_ = select ? Drag::kSelect : event->button() == Qt::LeftButton ? Drag::kPan : Drag::kNone;
  if (drag_ == Drag::kPan) setCursor(Qt::ClosedHandCursor);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint pos = event->pos();
  if ((pos - press_pos_).manhattanLength() > 3) moved_ = true;
  if (drag_ == Drag::kPan) {
    state_->pan_px(pos.x() - last_pos_.x());
  } else if (drag_ == Drag::kSelect && moved_) {
    const TimeAxis& a = state_->axis();
    state_->set_selection(std::make_pair(a.ns_at(plot_x(press_pos_)), a.ns_at(plot_x(pos))));
  } else if (drag_ == Drag::kNone) {
    const auto hit = op_at(pos);
    state_->hover_op(hit);
    if (hit) {
      show_tooltip(event->globalPosition().toPoint(), *hit);
    } else {
      QToolTip::hideText();
    }
  }
  last_pos_ = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (!moved_ && drag_ != Drag::kNone) {
    state_->select_op(op_at(event->pos()));
  }
  drag_ = Drag::kNone;
  unsetCursor();
}

void TimelineView::leaveEvent(QEvent* event) {
  state_->hover_op(std::nullopt);
  QWidget::leaveEvent(event);
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const double center = state_->plot_width_px() / 2;
  const double pan = state_->plot_width_px() / 8;
  switch (event->key()) {
    case Qt::Key_W:
      state_->zoom_around(center, 1.5);
      break;
    case Qt::Key_S:
      state_->zoom_around(center, 1 / 1.5);
      break;
    case Qt::Key_A:
      state_->pan_px(pan);
      break;
    case Qt::Key_D:
      state_->pan_px(-pan);
      break;
    case Qt::Key_F:
      state_->fit(traces_->end_ns());
      break;
    case Qt::Key_Escape:
      state_->select_op(std::nullopt);
      state_->set_selection(std::nullopt);
      break;
    default:
      QWidget::keyPressEvent(event);
      return;
  }
  event->accept();
}

void TimelineView::show_tooltip(QPoint global_pos, const OpRef& ref) {
  const Pane& pane = traces_->panes()[static_cast<std::size_t>(ref.pane)];
  const Trace& t = pane.model->trace();
  const TraceOp& op = t.ops[ref.op];
  QString text = QStringLiteral("<b>%1</b> <i>%2</i><br>")
                     .arg(QString::fromStdString(op.name).toHtmlEscaped(),
                          QString::fromStdString(op.op_class));
  text += tr("device: %1").arg(QString::fromStdString(op.device));
  if (!op.peer.empty()) text += QStringLiteral(" → ") + QString::fromStdString(op.peer);
  text += QStringLiteral("<br>") +
          tr("start: %1<br>duration: %2")
              .arg(QString::fromStdString(format_duration_ns(static_cast<double>(op.start_ns))),
                   QString::fromStdString(
                       format_duration_ns(static_cast<double>(op.end_ns - op.start_ns))));
  if (op.bytes > 0)
    text += QStringLiteral("<br>") +
            tr("bytes: %1").arg(QString::fromStdString(format_bytes(op.bytes)));
  if (op.flops > 0) text += QStringLiteral("<br>") + tr("flops: %1").arg(op.flops, 0, 'g', 4);
  if (pane.twins && pane.twins->twin(ref.op))
    text += QStringLiteral("<br>") + twin_tooltip_html(pane.twins->timing(t, ref.op));
  QToolTip::showText(global_pos, text, this);
}

}  // namespace opsim::gui
