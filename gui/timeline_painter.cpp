#include "gui/timeline_painter.hpp"

#include <QFontMetrics>
#include <QPainterPath>
#include <algorithm>
#include <array>
#include <cmath>

namespace opsim::gui {

namespace {

constexpr QColor kTitleBg{0xe9, 0xec, 0xf1};
constexpr QColor kLabelBg{0xf6, 0xf7, 0xf9};
constexpr QColor kStripeBg{0xfa, 0xfb, 0xfc};
constexpr QColor kGridLine{0xe3, 0xe6, 0xea};
constexpr QColor kText{0x24, 0x29, 0x2f};
constexpr QColor kMutedText{0x57, 0x60, 0x6a};
constexpr QColor kLowerBound{0xd0, 0x30, 0x30};
constexpr QColor kCritical{0xff, 0x8c, 0x00};
constexpr QColor kSelected{0x11, 0x11, 0x11};
constexpr QColor kArrow{0x1f, 0x4e, 0x99};

int height_of(RowKind kind, const TimelineStyle& s) {
  switch (kind) {
    case RowKind::kGroup:
      return s.group_height_px;
    case RowKind::kSubgroup:
      return s.subgroup_height_px;
    case RowKind::kLane:
      return s.lane_height_px;
  }
  return s.lane_height_px;
}

void draw_arrow(QPainter& p, QPointF from, QPointF to, const QColor& color, qreal width) {
  p.setPen(QPen(color, width));
  // A gentle S-curve reads better than a straight line across lanes.
  QPainterPath path(from);
  const qreal dx = std::max<qreal>(12, std::abs(to.x() - from.x()) * 0.4);
  path.cubicTo(from + QPointF(dx, 0), to - QPointF(dx, 0), to);
  p.setBrush(Qt::NoBrush);
  p.drawPath(path);
  const QPointF tip = to;
  p.setBrush(color);
  p.setPen(Qt::NoPen);
  const std::array<QPointF, 3> head{tip, tip + QPointF(-7, -4), tip + QPointF(-7, 4)};
  p.drawPolygon(head.data(), 3);
}

}  // namespace

int pane_height_px(const TimelineModel& model, const TimelineStyle& style) {
  int h = style.title_height_px;
  for (const TimelineRow& r : model.rows()) h += height_of(r.kind, style);
  return h;
}

int row_top_px(const TimelineModel& model, int row, const TimelineStyle& style) {
  int y = style.title_height_px;
  for (int i = 0; i < row && i < static_cast<int>(model.rows().size()); ++i) {
    y += height_of(model.rows()[static_cast<std::size_t>(i)].kind, style);
  }
  return y;
}

int row_at_px(const TimelineModel& model, int y_px, const TimelineStyle& style) {
  int y = style.title_height_px;
  if (y_px < y) return -1;
  for (std::size_t i = 0; i < model.rows().size(); ++i) {
    y += height_of(model.rows()[i].kind, style);
    if (y_px < y) return static_cast<int>(i);
  }
  return -1;
}

QColor color_for_op_class(std::string_view op_class) {
  struct Entry {
    std::string_view name;
    QColor color;
  };
  static const std::array<Entry, 9> kKnown{{
      {"gemm", QColor(0x4e, 0x79, 0xa7)},
      {"reduce", QColor(0xf2, 0x8e, 0x2b)},
      {"elementwise", QColor(0x59, 0xa1, 0x4f)},
      {"copy", QColor(0x4f, 0xa8, 0xa3)},
      {"disk_read", QColor(0xb0, 0x7a, 0xa1)},
      {"disk read", QColor(0xb0, 0x7a, 0xa1)},
      {"disk_write", QColor(0x9c, 0x75, 0x5f)},
      {"disk write", QColor(0x9c, 0x75, 0x5f)},
      {"dispatch", QColor(0xa0, 0xa0, 0xa8)},
  }};
  for (const Entry& e : kKnown) {
    if (e.name == op_class) return e.color;
  }
  static const std::array<QColor, 6> kPalette{QColor(0xed, 0xc9, 0x48), QColor(0xe1, 0x57, 0x59),
                                              QColor(0x76, 0xb7, 0xb2), QColor(0xff, 0x9d, 0xa7),
                                              QColor(0x8c, 0xd1, 0x7d), QColor(0xb6, 0x99, 0x2d)};
  std::size_t h = 1469598103934665603ull;  // FNV-1a: stable across runs
  for (char c : op_class) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return kPalette[h % kPalette.size()];
}

void paint_ruler(QPainter& p, const TimeAxis& axis, const QRect& rect, const TimelineStyle& style,
                 std::optional<std::pair<double, double>> selection_ns) {
  p.save();
  p.fillRect(rect, kTitleBg);
  const int plot_left = rect.left() + style.label_width_px;
  const QRect plot(plot_left, rect.top(), rect.right() - plot_left + 1, rect.height());
  if (selection_ns) {
    const double x0 = plot_left + axis.x_of(selection_ns->first);
    const double x1 = plot_left + axis.x_of(selection_ns->second);
    p.fillRect(QRectF(x0, rect.top(), x1 - x0, rect.height()).intersected(plot),
               QColor(0x33, 0x7a, 0xd6, 90));
  }
  p.setPen(kMutedText);
  p.drawText(QRect(rect.left() + 8, rect.top(), style.label_width_px - 16, rect.height()),
             Qt::AlignVCenter | Qt::AlignLeft, QStringLiteral("time"));
  p.setClipRect(plot);
  const double step = tick_step_ns(axis.ns_per_px, 90);
  const double first = std::floor(axis.start_ns / step) * step;
  const double end = axis.end_ns(plot.width());
  p.setPen(kText);
  for (double t = first; t <= end + step; t += step) {
    const double x = plot_left + axis.x_of(t);
    p.drawLine(QPointF(x, rect.bottom() - 6), QPointF(x, rect.bottom()));
    p.drawText(QRectF(x + 3, rect.top(), 120, rect.height() - 4), Qt::AlignVCenter | Qt::AlignLeft,
               QString::fromStdString(format_tick(t, step)));
  }
  p.setPen(kGridLine.darker(115));
  p.drawLine(rect.bottomLeft(), rect.bottomRight());
  p.restore();
}

namespace {

/// Where one pane's parts lie in widget coordinates and which times its plot shows: what
/// every painting step below needs.
struct PaneFrame {
  const TimelineModel& model;
  const Trace& trace;
  const TimeAxis& axis;
  const TimelineStyle& style;
  QRect pane;
  QRect visible;  ///< pane ∩ clip
  int plot_left = 0;
  QRect plot;
  double t0_ns = 0;
  double t1_ns = 0;
  QFontMetrics font_metrics;
  /// Per lane: {1, centre y} when the lane has a row, {0, -1} when it is hidden.
  std::vector<std::pair<std::uint32_t, double>> lane_center_y;

  double x_at(double ns) const { return plot_left + axis.x_of(ns); }
  bool lane_shown(std::uint32_t lane) const {
    return lane < lane_center_y.size() && lane_center_y[lane].first != 0;
  }
  double lane_box_height() const { return style.lane_height_px - 6; }

  /// The box `op` occupies on its own lane, or nothing when that lane has no row.
  std::optional<QRectF> op_box(std::uint32_t op) const {
    const TraceOp& o = trace.ops[op];
    if (!lane_shown(o.lane)) return std::nullopt;
    const double cy = lane_center_y[o.lane].second;
    const double x0 = x_at(static_cast<double>(o.start_ns));
    const double x1 = x_at(static_cast<double>(o.end_ns));
    return QRectF(x0, cy - lane_box_height() / 2.0, std::max(2.0, x1 - x0), lane_box_height());
  }
};

std::vector<std::pair<std::uint32_t, double>> lane_centers(const TimelineModel& model, int top_px,
                                                           const TimelineStyle& style) {
  std::vector<std::pair<std::uint32_t, double>> centers(model.trace().lanes.size(), {0, -1});
  int y = top_px + style.title_height_px;
  for (const TimelineRow& row : model.rows()) {
    const int h = height_of(row.kind, style);
    if (row.kind == RowKind::kLane) centers[row.lane] = {1, y + h / 2.0};
    y += h;
  }
  return centers;
}

void paint_group_row(QPainter& p, const PaneFrame& f, const TimelineRow& row,
                     const QRect& label_rect, int top, int h) {
  p.fillRect(QRect(f.pane.left(), top, f.pane.width(), h), QColor(0xee, 0xf0, 0xf3));
  QFont font = p.font();
  font.setBold(true);
  p.setFont(font);
  p.setPen(kText);
  p.drawText(label_rect.adjusted(8, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
             QString::fromStdString(row.label));
  font.setBold(false);
  p.setFont(font);
}

void paint_subgroup_row(QPainter& p, const TimelineRow& row, const QRect& label_rect,
                        const QRect& row_plot) {
  p.fillRect(label_rect, kLabelBg);
  p.setPen(kMutedText);
  QFont font = p.font();
  font.setItalic(true);
  p.setFont(font);
  p.drawText(label_rect.adjusted(16, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
             QString::fromStdString(row.label));
  font.setItalic(false);
  p.setFont(font);
  p.setPen(kGridLine);
  p.drawLine(row_plot.topLeft(), row_plot.topRight());
}

/// Spans narrower than a pixel, merged into one box per run of touching pixels.
class SubPixelRun {
 public:
  SubPixelRun(QPainter& p, double plot_left, double box_top, double box_h, PaintStats& stats)
      : p_(p), plot_left_(plot_left), box_top_(box_top), box_h_(box_h), stats_(stats) {}

  double right_x() const { return x1_; }
  void extend_to(double x1) { x1_ = std::max(x1_, x1); }

  /// Adds a sub-pixel span [x0, x1]: it extends the run when it touches it, or starts a new
  /// run in `color()`'s colour after painting the old one.
  template <typename ColorOf>
  void add(double x0, double x1, ColorOf color) {
    if (x0 <= x1_ + 1.0) {
      x1_ = std::max(x1_, x1);
      return;
    }
    flush();
    x0_ = x0;
    x1_ = std::max(x1, x0 + 1.0);
    color_ = color();
  }

  void flush() {
    if (x1_ < x0_) return;
    p_.fillRect(QRectF(plot_left_ + x0_, box_top_, std::max(1.0, x1_ - x0_), box_h_), color_);
    ++stats_.boxes_drawn;
    ++stats_.merged_runs;
    x1_ = -1e300;
  }

 private:
  QPainter& p_;
  double plot_left_, box_top_, box_h_;
  PaintStats& stats_;
  double x0_ = 0, x1_ = -1e300;
  QColor color_;
};

/// Skips the spans after `i` that start inside the pixel `run` already covers when the
/// running max of ends proves none reaches more than a pixel further: they would only extend
/// the run. Returns the index of the last span consumed. A failed attempt sets
/// `retry_skip_at` past those spans so it is not retried for each of them, which keeps the
/// cost O(pixels x log spans) instead of O(spans).
std::size_t skip_spans_inside_run(const LaneSpans& ls, std::size_t i, const TimeAxis& axis,
                                  SubPixelRun& run, std::size_t& retry_skip_at, PaintStats& stats) {
  if (i + 1 < retry_skip_at) return i;
  const double cover_px = std::floor(run.right_x()) + 1.0;
  const auto t_cover = static_cast<TimeNs>(std::floor(axis.ns_at(cover_px)));
  if (i + 1 >= ls.spans.size() || ls.spans[i + 1].start_ns > t_cover) return i;
  const auto next =
      std::upper_bound(ls.spans.begin() + static_cast<std::ptrdiff_t>(i) + 1, ls.spans.end(),
                       t_cover, [](TimeNs t, const SpanRef& sp) { return t < sp.start_ns; });
  const auto j = static_cast<std::size_t>(next - ls.spans.begin());
  if (static_cast<double>(ls.max_end_ns[j - 1]) > t_cover + axis.ns_per_px) {
    retry_skip_at = j;
    return i;
  }
  run.extend_to(axis.x_of(static_cast<double>(ls.max_end_ns[j - 1])));
  stats.spans_visited += j - 1 - i;
  return j - 1;
}

/// One span at least a pixel wide: a box in its sub-row (overlapping spans, e.g. concurrent
/// flows on a link, share the row in at most 4 sub-rows), labelled when there is room.
void paint_span_box(QPainter& p, const PaneFrame& f, const LaneSpans& ls, const SpanRef& s,
                    double x0, double x1, double box_top, double box_h) {
  const double cx0 = std::max(x0, -2.0);
  const double cx1 = std::min(x1, f.plot.width() + 2.0);
  const QColor color = color_for_op_class(f.trace.ops[s.op].op_class);
  const int sub_rows = std::min<int>(ls.sub_rows, 4);
  const double sub_h = box_h / sub_rows;
  const int sub = std::min<int>(s.slot, sub_rows - 1);
  const QRectF box(f.plot_left + cx0, box_top + sub * sub_h, cx1 - cx0,
                   sub_rows > 1 ? sub_h - 1 : box_h);
  // Border as two fills: much cheaper than a stroked rect on the raster engine.
  if (cx1 - cx0 >= 4) {
    p.fillRect(box, color.darker(135));
    p.fillRect(box.adjusted(1, 1, -1, -1), color);
  } else {
    p.fillRect(box, color);
  }
  if (cx1 - cx0 >= 36 && box.height() >= 10) {
    p.setPen(color.lightness() > 150 ? kText : QColor(Qt::white));
    p.drawText(box.adjusted(4, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
               f.font_metrics.elidedText(QString::fromStdString(f.trace.ops[s.op].name),
                                         Qt::ElideRight, static_cast<int>(cx1 - cx0) - 7));
  }
}

/// A lane's spans, culled to the plot's time range and merged below a pixel.
void paint_lane_spans(QPainter& p, const PaneFrame& f, std::uint32_t lane, int top, int h,
                      PaintStats& stats) {
  const LaneSpans& ls = f.model.lane_spans(lane);
  const double box_top = top + 3;
  const double box_h = h - 6;
  SubPixelRun run(p, f.plot_left, box_top, box_h, stats);
  const auto lo = static_cast<TimeNs>(std::floor(f.t0_ns));
  std::size_t retry_skip_at = 0;
  for (std::size_t i = ls.first_ending_after(lo); i < ls.spans.size(); ++i) {
    const SpanRef& s = ls.spans[i];
    if (static_cast<double>(s.start_ns) > f.t1_ns) break;
    ++stats.spans_visited;
    const double x0 = f.axis.x_of(static_cast<double>(s.start_ns));
    const double x1 = f.axis.x_of(static_cast<double>(s.end_ns));
    if (x1 - x0 < 1.0) {
      run.add(x0, x1, [&] { return color_for_op_class(f.trace.ops[s.op].op_class).darker(112); });
      i = skip_spans_inside_run(ls, i, f.axis, run, retry_skip_at, stats);
      continue;
    }
    run.flush();
    paint_span_box(p, f, ls, s, x0, x1, box_top, box_h);
    ++stats.boxes_drawn;
  }
  run.flush();
}

void paint_lane_row(QPainter& p, const PaneFrame& f, const TimelineRow& row,
                    const QRect& label_rect, const QRect& row_plot, bool striped,
                    PaintStats& stats) {
  p.fillRect(label_rect, kLabelBg);
  if (striped) p.fillRect(row_plot, kStripeBg);
  p.setPen(kText);
  p.drawText(label_rect.adjusted(26, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
             f.font_metrics.elidedText(QString::fromStdString(row.label), Qt::ElideMiddle,
                                       f.style.label_width_px - 32));
  p.setClipRect(row_plot.intersected(f.visible));
  paint_lane_spans(p, f, row.lane, row_plot.top(), row_plot.height(), stats);
  p.setClipRect(f.visible);
}

/// Every row inside the visible part: background, label and, for lanes, the spans.
void paint_rows(QPainter& p, const PaneFrame& f, PaintStats& stats) {
  int y = f.pane.top() + f.style.title_height_px;
  int lane_parity = 0;
  for (const TimelineRow& row : f.model.rows()) {
    const int h = height_of(row.kind, f.style);
    const int top = y;
    y += h;
    if (row.kind == RowKind::kLane) ++lane_parity;
    if (top > f.visible.bottom() || top + h < f.visible.top()) continue;
    const QRect label_rect(f.pane.left(), top, f.style.label_width_px, h);
    const QRect row_plot(f.plot_left, top, f.plot.width(), h);
    switch (row.kind) {
      case RowKind::kGroup:
        paint_group_row(p, f, row, label_rect, top, h);
        break;
      case RowKind::kSubgroup:
        paint_subgroup_row(p, row, label_rect, row_plot);
        break;
      case RowKind::kLane:
        paint_lane_row(p, f, row, label_rect, row_plot, lane_parity % 2 == 0, stats);
        break;
    }
  }
}

/// Vertical lines at the ruler's ticks: thin and light, over the stripes, under the overlays.
void paint_grid(QPainter& p, const PaneFrame& f) {
  p.setClipRect(f.plot.intersected(f.visible));
  p.setPen(QPen(QColor(0, 0, 0, 18), 1));
  const double step = tick_step_ns(f.axis.ns_per_px, 90);
  for (double t = std::floor(f.t0_ns / step) * step; t <= f.t1_ns + step; t += step) {
    const double x = f.x_at(t);
    p.drawLine(QPointF(x, f.pane.top() + f.style.title_height_px), QPointF(x, f.pane.bottom()));
  }
}

void paint_selection_band(QPainter& p, const PaneFrame& f, std::pair<double, double> range_ns) {
  const double x0 = f.x_at(range_ns.first);
  const double x1 = f.x_at(range_ns.second);
  const QRectF band(x0, f.pane.top(), x1 - x0, f.pane.height());
  p.fillRect(band, QColor(0x33, 0x7a, 0xd6, 40));
  p.setPen(QPen(QColor(0x33, 0x7a, 0xd6), 1));
  p.drawLine(QPointF(x0, f.pane.top()), QPointF(x0, f.pane.bottom()));
  p.drawLine(QPointF(x1, f.pane.top()), QPointF(x1, f.pane.bottom()));
}

/// Critical-path ops narrower than a few pixels: one orange underline per lane and run.
class CriticalUnderlines {
 public:
  CriticalUnderlines(QPainter& p, const PaneFrame& f)
      : p_(p), f_(f), runs_(f.trace.lanes.size(), {0, -1}) {}

  void add(std::uint32_t lane, const QRectF& box) {
    auto& [ux0, ux1] = runs_[lane];
    if (box.left() > ux1 + 1) {
      flush(lane);
      ux0 = box.left();
    }
    ux1 = std::max(ux1, box.right());
  }

  void flush_all() {
    for (std::uint32_t l = 0; l < f_.trace.lanes.size(); ++l) flush(l);
  }

 private:
  void flush(std::uint32_t lane) {
    auto& [ux0, ux1] = runs_[lane];
    if (ux1 < ux0 || !f_.lane_shown(lane)) return;
    const double cy = f_.lane_center_y[lane].second + f_.lane_box_height() / 2.0;
    p_.fillRect(QRectF(ux0, cy - 1, std::max(1.0, ux1 - ux0), 3), kCritical);
    ux1 = -1;
  }

  QPainter& p_;
  const PaneFrame& f_;
  std::vector<std::pair<double, double>> runs_;
};

/// Critical path: outlined spans joined by arrows. The path is in time order with increasing
/// ends, so the visible part is found by binary search; ops narrower than a few pixels become
/// an orange underline per lane instead of outlines and arrows.
void paint_critical_path(QPainter& p, const PaneFrame& f, const std::vector<std::uint32_t>& path) {
  const auto first =
      std::lower_bound(path.begin(), path.end(), static_cast<TimeNs>(std::floor(f.t0_ns)),
                       [&](std::uint32_t op, TimeNs t) { return f.trace.ops[op].end_ns < t; });
  std::size_t i = static_cast<std::size_t>(first - path.begin());
  if (i > 0) --i;  // the arrow into the first visible op
  CriticalUnderlines underlines(p, f);
  std::optional<QRectF> prev;
  for (; i < path.size(); ++i) {
    const TraceOp& o = f.trace.ops[path[i]];
    const auto box = f.op_box(path[i]);
    if (!box) continue;
    if (box->width() < 4) {
      underlines.add(o.lane, *box);
    } else {
      p.setPen(QPen(kCritical, 2.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(box->adjusted(-1, -1, 1, 1));
    }
    if (prev && (box->left() - prev->right() > 6 || box->width() >= 4 || prev->width() >= 4)) {
      draw_arrow(p, QPointF(prev->right(), prev->center().y()),
                 QPointF(box->left(), box->center().y()), kCritical, 1.6);
    }
    prev = box;
    if (static_cast<double>(o.start_ns) > f.t1_ns) break;
  }
  underlines.flush_all();
}

/// The selected op's outline on every link lane it occupies besides its own.
void outline_op_on_links(QPainter& p, const PaneFrame& f, std::uint32_t sel) {
  const TraceOp& o = f.trace.ops[sel];
  for (std::uint32_t l = 0; l < f.trace.lanes.size(); ++l) {
    if (f.trace.lanes[l].kind != LaneKind::kLink || !f.lane_shown(l)) continue;
    const LaneSpans& ls = f.model.lane_spans(l);
    for (std::size_t i = ls.first_ending_after(o.start_ns - 1); i < ls.spans.size(); ++i) {
      const SpanRef& s = ls.spans[i];
      if (s.start_ns > o.end_ns) break;
      if (s.op != sel) continue;
      const double x0 = f.x_at(static_cast<double>(s.start_ns));
      const double x1 = f.x_at(static_cast<double>(s.end_ns));
      const double cy = f.lane_center_y[l].second;
      p.drawRect(QRectF(x0 - 1.5, cy - f.lane_box_height() / 2.0 - 1.5, std::max(2.0, x1 - x0) + 3,
                        f.style.lane_height_px - 3));
    }
  }
}

void paint_dependency_arrows(QPainter& p, const PaneFrame& f, std::uint32_t sel) {
  const auto me = f.op_box(sel);
  if (!me) return;
  for (std::uint32_t pr : f.model.predecessors(sel)) {
    if (const auto b = f.op_box(pr)) {
      draw_arrow(p, QPointF(b->right(), b->center().y()), QPointF(me->left(), me->center().y()),
                 kArrow, 1.4);
    }
  }
  for (std::uint32_t sc : f.model.successors(sel)) {
    if (const auto b = f.op_box(sc)) {
      draw_arrow(p, QPointF(me->right(), me->center().y()), QPointF(b->left(), b->center().y()),
                 kArrow, 1.4);
    }
  }
}

/// Selected op: outline on every lane it occupies, dependency arrows in and out.
void paint_selected_op(QPainter& p, const PaneFrame& f, std::uint32_t sel) {
  p.setPen(QPen(kSelected, 2));
  p.setBrush(Qt::NoBrush);
  if (const auto box = f.op_box(sel)) p.drawRect(box->adjusted(-1.5, -1.5, 1.5, 1.5));
  outline_op_on_links(p, f, sel);
  paint_dependency_arrows(p, f, sel);
}

void paint_hovered_op(QPainter& p, const PaneFrame& f, std::uint32_t op) {
  if (const auto box = f.op_box(op)) {
    p.setPen(QPen(QColor(0, 0, 0, 120), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(box->adjusted(-1, -1, 1, 1));
  }
}

/// An op's twin in an overlay: dashed outline, and a line from the op to it.
void paint_twin(QPainter& p, const PaneFrame& f, std::uint32_t op, std::uint32_t twin) {
  const auto twin_box = f.op_box(twin);
  if (!twin_box) return;
  p.setPen(QPen(kSelected, 1.5, Qt::DashLine));
  p.setBrush(Qt::NoBrush);
  p.drawRect(twin_box->adjusted(-1.5, -1.5, 1.5, 1.5));
  if (const auto box = f.op_box(op)) p.drawLine(box->center(), twin_box->center());
}

void paint_lower_bound_line(QPainter& p, const PaneFrame& f, double lower_bound_ns) {
  const double x = f.x_at(lower_bound_ns);
  p.setPen(QPen(kLowerBound, 1.5, Qt::DashLine));
  p.drawLine(QPointF(x, f.pane.top() + f.style.title_height_px), QPointF(x, f.pane.bottom()));
}

/// Overlays drawn antialiased over the spans: critical path, selection, hover, lower bound.
void paint_overlays(QPainter& p, const PaneFrame& f, const PaneDecor& decor) {
  p.setRenderHint(QPainter::Antialiasing, true);
  if (decor.show_critical_path)  // one per world in an overlay of a real and a simulated run
    for (const auto& path : f.model.critical_paths())
      if (!path.empty()) paint_critical_path(p, f, path);
  if (decor.selected_op && *decor.selected_op < f.trace.ops.size()) {
    paint_selected_op(p, f, *decor.selected_op);
  }
  if (decor.hovered_op && *decor.hovered_op < f.trace.ops.size() &&
      decor.hovered_op != decor.selected_op) {
    paint_hovered_op(p, f, *decor.hovered_op);
  }
  if (decor.twins && decor.twins->first < f.trace.ops.size() &&
      decor.twins->second < f.trace.ops.size()) {
    paint_twin(p, f, decor.twins->first, decor.twins->second);
  }
  if (decor.lower_bound_ns >= 0) paint_lower_bound_line(p, f, decor.lower_bound_ns);
  p.setRenderHint(QPainter::Antialiasing, false);
}

/// Title bar: the pane's title in bold, then makespan and lower bound; painted last so
/// overlays never cover it.
void paint_title_bar(QPainter& p, const PaneFrame& f, const PaneDecor& decor) {
  p.setClipRect(f.visible);
  const QRect title(f.pane.left(), f.pane.top(), f.pane.width(), f.style.title_height_px);
  p.fillRect(title, kTitleBg);
  p.setPen(QColor(0xc8, 0xcd, 0xd4));
  p.drawLine(title.bottomLeft(), title.bottomRight());
  QFont font = p.font();
  font.setBold(true);
  p.setFont(font);
  p.setPen(kText);
  p.drawText(title.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, decor.title);
  const int title_w = QFontMetrics(font).horizontalAdvance(decor.title);
  font.setBold(false);
  p.setFont(font);
  p.setPen(kMutedText);
  QString info = QStringLiteral("makespan ") +
                 QString::fromStdString(format_duration_ns(static_cast<double>(f.model.end_ns())));
  if (decor.lower_bound_ns >= 0) {
    info += QStringLiteral("   ·   lower bound ") +
            QString::fromStdString(format_duration_ns(decor.lower_bound_ns));
  }
  p.drawText(title.adjusted(8 + title_w + 16, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, info);
  if (decor.lower_bound_ns >= 0) {
    const double x = f.x_at(decor.lower_bound_ns);
    if (x >= f.plot_left && x <= f.plot.right()) {
      p.setPen(QPen(kLowerBound, 1.5, Qt::DashLine));
      p.drawLine(QPointF(x, title.top() + 4), QPointF(x, title.bottom()));
    }
  }
}

/// The line between the label column and the plot.
void paint_label_separator(QPainter& p, const PaneFrame& f) {
  const int title_bottom = f.pane.top() + f.style.title_height_px - 1;
  p.setPen(QColor(0xd0, 0xd5, 0xdb));
  p.drawLine(QPoint(f.plot_left - 1, title_bottom + 1), QPoint(f.plot_left - 1, f.pane.bottom()));
}

}  // namespace

PaintStats paint_pane(QPainter& p, const TimelineModel& model, const TimeAxis& axis,
                      const QRect& pane_rect, const QRect& clip, const PaneDecor& decor,
                      const TimelineStyle& style) {
  PaintStats stats;
  const QRect visible = pane_rect.intersected(clip);
  if (visible.isEmpty()) return stats;
  const int plot_left = pane_rect.left() + style.label_width_px;
  const QRect plot(plot_left, pane_rect.top(), pane_rect.right() - plot_left + 1,
                   pane_rect.height());
  const PaneFrame frame{model,
                        model.trace(),
                        axis,
                        style,
                        pane_rect,
                        visible,
                        plot_left,
                        plot,
                        axis.ns_at(0),
                        axis.ns_at(plot.width()),
                        p.fontMetrics(),
                        lane_centers(model, pane_rect.top(), style)};
  p.save();
  p.setClipRect(visible);
  p.fillRect(visible, Qt::white);
  paint_rows(p, frame, stats);
  paint_grid(p, frame);
  if (decor.selection_ns) paint_selection_band(p, frame, *decor.selection_ns);
  paint_overlays(p, frame, decor);
  paint_title_bar(p, frame, decor);
  paint_label_separator(p, frame);
  p.restore();
  return stats;
}

}  // namespace opsim::gui
