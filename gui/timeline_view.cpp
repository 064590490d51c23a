#include "gui/timeline_view.hpp"

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>
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
  connect(state_, &ViewState::rows_changed, this, &TimelineView::relayout);
  connect(traces_, &TraceSet::changed, this, &TimelineView::on_traces_changed);
  on_traces_changed();
}

int TimelineView::content_height_px() const {
  int h = 0;
  for (const PaneRows& p : panes_) h += p.layout->height_px() + style_.pane_gap_px;
  return std::max(h, 120);
}

const RowLayout& TimelineView::layout(int pane) const {
  return *panes_.at(static_cast<std::size_t>(pane)).layout;
}

void TimelineView::set_what_if(const WhatIfState* what_if) {
  if (what_if_ != nullptr) disconnect(what_if_, nullptr, this, nullptr);
  what_if_ = what_if;
  if (what_if_ != nullptr) {
    connect(what_if_, &WhatIfState::changed, this, [this] {
      refresh_baseline_notes();
      update();
    });
  }
  refresh_baseline_notes();
  update();
}

// Panes follow the trace set; a model seen before keeps its busy profiles.
void TimelineView::relayout() {
  std::vector<PaneRows> next;
  for (const Pane& pane : traces_->panes()) {
    PaneRows rows;
    rows.model = pane.model;
    for (PaneRows& old : panes_) {
      if (old.model == pane.model) rows.summaries = std::move(old.summaries);
    }
    rows.layout =
        std::make_shared<const RowLayout>(*pane.model, state_->rows(), style_, &rows.summaries);
    next.push_back(std::move(rows));
  }
  panes_ = std::move(next);
  refresh_baseline_notes();
  setMinimumHeight(content_height_px());
  update();
}

void TimelineView::refresh_baseline_notes() {
  const auto& panes = traces_->panes();
  for (std::size_t i = 0; i < panes_.size() && i < panes.size(); ++i) {
    PaneRows& rows = panes_[i];
    const auto baseline = what_if_ != nullptr && !panes[i].from_file
                              ? what_if_->baseline_for(panes[i].title)
                              : nullptr;
    if (baseline == rows.baseline && (baseline == nullptr || !rows.baseline_note.isEmpty()))
      continue;
    rows.baseline = baseline;
    rows.baseline_note = baseline ? baseline_difference(*baseline, *rows.model) : QString();
  }
}

void TimelineView::on_traces_changed() {
  relayout();
  state_->select_op(std::nullopt);
  state_->hover_op(std::nullopt);
  // Only the first traces are fitted: after that (a what-if re-run, a file opened) the zoom
  // stays where the user left it, so before and after compare at the same scale.
  const bool content = traces_->end_ns() > 0;
  if (content && !has_content_) {
    state_->fit(traces_->end_ns());
    fitted_once_ = width() > 0 && isVisible();
  }
  has_content_ = has_content_ || content;
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
    if (static_cast<std::size_t>(i) < panes_.size()) {
      const PaneRows& rows = panes_[static_cast<std::size_t>(i)];
      cp.layout = rows.layout;
      cp.decor.baseline = rows.baseline;
      cp.decor.baseline_note = rows.baseline_note;
    }
    cp.decor.stale = what_if_ != nullptr && what_if_->stale() && !p.from_file;
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

QRect TimelineView::visible_rect() const {
  return visibleRegion().boundingRect();
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
  // Sticky headers need the viewport's top, not only the exposed strip.
  const QRect clip = event->rect().united(visible_rect()).intersected(rect());
  int y = 0;
  for (const ComparisonPane& pane : panes) {
    const int h = pane.layout->height_px();
    paint_pane(p, *pane.model, *pane.layout, state_->axis(), QRect(0, y, width(), h), clip,
               pane.decor, style_);
    y += h + style_.pane_gap_px;
  }
}

// A scroll area scrolls by moving this widget and blitting: repaint all so sticky headers
// stay put instead of scrolling away with the pixels.
void TimelineView::moveEvent(QMoveEvent* event) {
  QWidget::moveEvent(event);
  update();
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

std::pair<int, int> TimelineView::pane_at(int y_px) const {
  int y = 0;
  for (int i = 0; i < static_cast<int>(panes_.size()); ++i) {
    const int h = panes_[static_cast<std::size_t>(i)].layout->height_px();
    if (y_px >= y && y_px < y + h) return {i, y};
    y += h + style_.pane_gap_px;
  }
  return {-1, 0};
}

std::optional<std::string> TimelineView::header_at(QPoint pos) const {
  const auto [pane, top] = pane_at(pos.y());
  if (pane < 0) return std::nullopt;
  const PaneRows& rows = panes_[static_cast<std::size_t>(pane)];
  const QRect pane_rect(0, top, width(), rows.layout->height_px());
  int index = -1;
  for (const StickyHeader& h :
       sticky_headers(*rows.model, *rows.layout, pane_rect, visible_rect().top(), style_)) {
    if (h.rect.contains(pos)) index = h.layout_index;
  }
  if (index < 0) index = rows.layout->index_at(pos.y() - top);
  if (index < 0) return std::nullopt;
  const TimelineRow& row =
      rows.model->rows()[rows.layout->rows()[static_cast<std::size_t>(index)].row];
  if (row.kind != RowKind::kGroup && row.kind != RowKind::kSubgroup) return std::nullopt;
  return row.key;
}

std::optional<OpRef> TimelineView::op_at(QPoint pos) const {
  if (pos.x() < style_.label_width_px) return std::nullopt;
  const auto [pane, top] = pane_at(pos.y());
  if (pane < 0) return std::nullopt;
  const PaneRows& rows = panes_[static_cast<std::size_t>(pane)];
  const QRect pane_rect(0, top, width(), rows.layout->height_px());
  // The sticky title and headers cover the rows under them.
  const int visible_top = visible_rect().top();
  if (top < visible_top && pos.y() < visible_top + style_.title_height_px) return std::nullopt;
  const auto sticky = sticky_headers(*rows.model, *rows.layout, pane_rect, visible_top, style_);
  if (!sticky.empty() && pos.y() <= sticky.back().rect.bottom()) return std::nullopt;
  const int index = rows.layout->index_at(pos.y() - top);
  if (index < 0) return std::nullopt;
  const TimelineRow& row =
      rows.model->rows()[rows.layout->rows()[static_cast<std::size_t>(index)].row];
  if (row.kind != RowKind::kLane) return std::nullopt;
  const TimeAxis& axis = state_->axis();
  // On a link with concurrent transfers, the one in the sub-row under the cursor.
  std::optional<std::uint16_t> slot;
  const int sub_rows =
      std::min<int>(rows.model->lane_spans(row.lane).sub_rows, style_.max_sub_rows);
  if (sub_rows > 1) {
    const LaidOutRow& r = rows.layout->rows()[static_cast<std::size_t>(index)];
    const double sub_h = (r.height_px - 6.0) / sub_rows;
    slot = static_cast<std::uint16_t>(
        std::clamp<int>(static_cast<int>((pos.y() - top - r.top_px - 3) / sub_h), 0, sub_rows - 1));
  }
  const auto op = rows.model->op_at(row.lane, axis.ns_at(plot_x(pos)), 3 * axis.ns_per_px, slot,
                                    static_cast<std::uint16_t>(sub_rows - 1));
  if (!op) return std::nullopt;
  return OpRef{pane, *op};
}

// As in Perfetto and Nsight: the wheel scrolls the lanes (the scroll area around this view
// takes it), Ctrl+wheel zooms around the cursor, Shift+wheel and sideways wheels pan.
void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint delta = event->angleDelta();
  if (event->modifiers() & Qt::ControlModifier) {
    state_->zoom_around(event->position().x() - style_.label_width_px,
                        std::pow(1.25, delta.y() / 120.0));
    event->accept();
    return;
  }
  const int sideways = (event->modifiers() & Qt::ShiftModifier) ? delta.y() : delta.x();
  if (sideways != 0) {
    state_->pan_px(sideways / 120.0 * state_->plot_width_px() / 10);
    event->accept();
    return;
  }
  // Handed to the scroll area's bar directly: Qt does not pass an ignored synthetic wheel
  // event on to the parents.
  for (QWidget* w = parentWidget(); w != nullptr; w = w->parentWidget()) {
    if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
      QCoreApplication::sendEvent(area->verticalScrollBar(), event);
      return;
    }
  }
  event->ignore();
}

void TimelineView::zoom_to_selection() {
  if (const auto range = state_->selection_ns()) {
    state_->show_range(range->first, range->second);
    return;
  }
  const auto sel = state_->selected_op();
  if (!sel || sel->pane < 0 || sel->pane >= static_cast<int>(traces_->panes().size())) return;
  const TraceOp& op =
      traces_->panes()[static_cast<std::size_t>(sel->pane)].model->trace().ops[sel->op];
  state_->show_range(static_cast<double>(op.start_ns), static_cast<double>(op.end_ns));
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && event->pos().x() < style_.label_width_px) {
    if (const auto key = header_at(event->pos())) {
      state_->toggle_collapsed(*key);
      drag_ = Drag::kNone;
      return;
    }
  }
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
    case Qt::Key_Z:
      zoom_to_selection();
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
