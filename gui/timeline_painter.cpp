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

int row_height_px(const TimelineModel& model, int row, const TimelineStyle& style) {
  return height_of(model.rows().at(static_cast<std::size_t>(row)).kind, style);
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

PaintStats paint_pane(QPainter& p, const TimelineModel& model, const TimeAxis& axis,
                      const QRect& pane_rect, const QRect& clip, const PaneDecor& decor,
                      const TimelineStyle& style) {
  PaintStats stats;
  const Trace& trace = model.trace();
  const int plot_left = pane_rect.left() + style.label_width_px;
  const QRect plot(plot_left, pane_rect.top(), pane_rect.right() - plot_left + 1,
                   pane_rect.height());
  const QRect visible = pane_rect.intersected(clip);
  if (visible.isEmpty()) return stats;
  p.save();
  p.setClipRect(visible);
  p.fillRect(visible, Qt::white);

  const double plot_w = plot.width();
  const double t0 = axis.ns_at(0);
  const double t1 = axis.ns_at(plot_w);
  const double step = tick_step_ns(axis.ns_per_px, 90);
  const QFontMetrics fm = p.fontMetrics();

  // Rows: backgrounds, labels, spans.
  int y = pane_rect.top() + style.title_height_px;
  int lane_parity = 0;
  std::vector<std::pair<std::uint32_t, double>> lane_center_y(trace.lanes.size(), {0, -1});
  for (std::size_t r = 0; r < model.rows().size(); ++r) {
    const TimelineRow& row = model.rows()[r];
    const int h = height_of(row.kind, style);
    const int top = y;
    y += h;
    if (row.kind == RowKind::kLane) {
      lane_center_y[row.lane] = {1, top + h / 2.0};
      ++lane_parity;
    }
    if (top > visible.bottom() || top + h < visible.top()) continue;
    const QRect label_rect(pane_rect.left(), top, style.label_width_px, h);
    const QRect row_plot(plot_left, top, plot.width(), h);
    if (row.kind == RowKind::kGroup) {
      p.fillRect(QRect(pane_rect.left(), top, pane_rect.width(), h), QColor(0xee, 0xf0, 0xf3));
      QFont f = p.font();
      f.setBold(true);
      p.setFont(f);
      p.setPen(kText);
      p.drawText(label_rect.adjusted(8, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 QString::fromStdString(row.label));
      f.setBold(false);
      p.setFont(f);
      continue;
    }
    if (row.kind == RowKind::kSubgroup) {
      p.fillRect(label_rect, kLabelBg);
      p.setPen(kMutedText);
      QFont f = p.font();
      f.setItalic(true);
      p.setFont(f);
      p.drawText(label_rect.adjusted(16, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 QString::fromStdString(row.label));
      f.setItalic(false);
      p.setFont(f);
      p.setPen(kGridLine);
      p.drawLine(row_plot.topLeft(), row_plot.topRight());
      continue;
    }
    // Lane row.
    p.fillRect(label_rect, kLabelBg);
    if (lane_parity % 2 == 0) p.fillRect(row_plot, kStripeBg);
    p.setPen(kText);
    p.drawText(label_rect.adjusted(26, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(QString::fromStdString(row.label), Qt::ElideMiddle,
                             style.label_width_px - 32));
    // Spans, culled to [t0, t1] and merged below a pixel.
    p.setClipRect(row_plot.intersected(visible));
    const LaneSpans& ls = model.lane_spans(row.lane);
    const double box_top = top + 3;
    const double box_h = h - 6;
    double run_x0 = 0, run_x1 = -1e300;
    QColor run_color;
    auto flush_run = [&] {
      if (run_x1 < run_x0) return;
      p.fillRect(QRectF(plot_left + run_x0, box_top, std::max(1.0, run_x1 - run_x0), box_h),
                 run_color);
      ++stats.boxes_drawn;
      ++stats.merged_runs;
      run_x1 = -1e300;
    };
    const auto lo = static_cast<TimeNs>(std::floor(t0));
    std::size_t retry_skip_at = 0;
    for (std::size_t i = ls.first_ending_after(lo); i < ls.spans.size(); ++i) {
      const SpanRef& s = ls.spans[i];
      if (static_cast<double>(s.start_ns) > t1) break;
      ++stats.spans_visited;
      const double x0 = axis.x_of(static_cast<double>(s.start_ns));
      const double x1 = axis.x_of(static_cast<double>(s.end_ns));
      if (x1 - x0 < 1.0) {
        if (x0 <= run_x1 + 1.0) {
          run_x1 = std::max(run_x1, x1);
        } else {
          flush_run();
          run_x0 = x0;
          run_x1 = std::max(x1, x0 + 1.0);
          run_color = color_for_op_class(trace.ops[s.op].op_class).darker(112);
        }
        // Skip the spans that start inside the pixel the run already covers when the running
        // max of ends proves none reaches more than a pixel further: they would only extend
        // the run. A failed attempt is not retried until past those spans, so the cost stays
        // O(pixels x log spans) instead of O(spans).
        if (i + 1 >= retry_skip_at) {
          const double cover_px = std::floor(run_x1) + 1.0;
          const auto t_cover = static_cast<TimeNs>(std::floor(axis.ns_at(cover_px)));
          if (i + 1 < ls.spans.size() && ls.spans[i + 1].start_ns <= t_cover) {
            const auto next = std::upper_bound(
                ls.spans.begin() + static_cast<std::ptrdiff_t>(i) + 1, ls.spans.end(), t_cover,
                [](TimeNs t, const SpanRef& sp) { return t < sp.start_ns; });
            const auto j = static_cast<std::size_t>(next - ls.spans.begin());
            if (static_cast<double>(ls.max_end_ns[j - 1]) <= t_cover + axis.ns_per_px) {
              run_x1 = std::max(run_x1, axis.x_of(static_cast<double>(ls.max_end_ns[j - 1])));
              stats.spans_visited += j - 1 - i;
              i = j - 1;
            } else {
              retry_skip_at = j;
            }
          }
        }
        continue;
      }
      flush_run();
      const double cx0 = std::max(x0, -2.0);
      const double cx1 = std::min(x1, plot_w + 2.0);
      const QColor color = color_for_op_class(trace.ops[s.op].op_class);
      // Overlapping spans (concurrent flows on a link) share the row in sub-rows, at most 4.
      const int sub_rows = std::min<int>(ls.sub_rows, 4);
      const double sub_h = box_h / sub_rows;
      const int sub = std::min<int>(s.slot, sub_rows - 1);
      const QRectF box(plot_left + cx0, box_top + sub * sub_h, cx1 - cx0,
                       sub_rows > 1 ? sub_h - 1 : box_h);
      // Border as two fills: much cheaper than a stroked rect on the raster engine.
      if (cx1 - cx0 >= 4) {
        p.fillRect(box, color.darker(135));
        p.fillRect(box.adjusted(1, 1, -1, -1), color);
      } else {
        p.fillRect(box, color);
      }
      ++stats.boxes_drawn;
      if (cx1 - cx0 >= 36 && box.height() >= 10) {
        p.setPen(color.lightness() > 150 ? kText : QColor(Qt::white));
        p.drawText(box.adjusted(4, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(QString::fromStdString(trace.ops[s.op].name), Qt::ElideRight,
                                 static_cast<int>(cx1 - cx0) - 7));
      }
    }
    flush_run();
    p.setClipRect(visible);
  }

  // Grid lines (under the overlays, over the stripes is fine: thin and light).
  p.setClipRect(plot.intersected(visible));
  p.setPen(QPen(QColor(0, 0, 0, 18), 1));
  for (double t = std::floor(t0 / step) * step; t <= t1 + step; t += step) {
    const double x = plot_left + axis.x_of(t);
    p.drawLine(QPointF(x, pane_rect.top() + style.title_height_px), QPointF(x, pane_rect.bottom()));
  }

  // Selected time range.
  if (decor.selection_ns) {
    const double x0 = plot_left + axis.x_of(decor.selection_ns->first);
    const double x1 = plot_left + axis.x_of(decor.selection_ns->second);
    const QRectF band(x0, pane_rect.top(), x1 - x0, pane_rect.height());
    p.fillRect(band, QColor(0x33, 0x7a, 0xd6, 40));
    p.setPen(QPen(QColor(0x33, 0x7a, 0xd6), 1));
    p.drawLine(QPointF(x0, pane_rect.top()), QPointF(x0, pane_rect.bottom()));
    p.drawLine(QPointF(x1, pane_rect.top()), QPointF(x1, pane_rect.bottom()));
  }

  auto op_box = [&](std::uint32_t op) -> std::optional<QRectF> {
    const TraceOp& o = trace.ops[op];
    if (o.lane >= lane_center_y.size() || lane_center_y[o.lane].first == 0) return std::nullopt;
    const double cy = lane_center_y[o.lane].second;
    const double x0 = plot_left + axis.x_of(static_cast<double>(o.start_ns));
    const double x1 = plot_left + axis.x_of(static_cast<double>(o.end_ns));
    return QRectF(x0, cy - (style.lane_height_px - 6) / 2.0, std::max(2.0, x1 - x0),
                  style.lane_height_px - 6);
  };
  p.setRenderHint(QPainter::Antialiasing, true);

  // Critical path: outlined spans joined by arrows. The path is in time order with
  // increasing ends, so the visible part is found by binary search; ops narrower than a few
  // pixels become an orange underline per lane instead of outlines and arrows.
  if (decor.show_critical_path && !model.critical_path().empty()) {
    const auto& path = model.critical_path();
    const auto first =
        std::lower_bound(path.begin(), path.end(), static_cast<TimeNs>(std::floor(t0)),
                         [&](std::uint32_t op, TimeNs t) { return trace.ops[op].end_ns < t; });
    std::size_t i = static_cast<std::size_t>(first - path.begin());
    if (i > 0) --i;  // the arrow into the first visible op
    std::vector<std::pair<double, double>> underline(trace.lanes.size(), {0, -1});
    auto flush_underline = [&](std::uint32_t lane) {
      auto& [ux0, ux1] = underline[lane];
      if (ux1 < ux0 || lane_center_y[lane].first == 0) return;
      const double cy = lane_center_y[lane].second + (style.lane_height_px - 6) / 2.0;
      p.fillRect(QRectF(ux0, cy - 1, std::max(1.0, ux1 - ux0), 3), kCritical);
      ux1 = -1;
    };
    std::optional<QRectF> prev;
    for (; i < path.size(); ++i) {
      const std::uint32_t op = path[i];
      const TraceOp& o = trace.ops[op];
      const auto box = op_box(op);
      if (!box) continue;
      if (box->width() < 4) {
        auto& [ux0, ux1] = underline[o.lane];
        if (box->left() > ux1 + 1) {
          flush_underline(o.lane);
          ux0 = box->left();
        }
        ux1 = std::max(ux1, box->right());
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
      if (static_cast<double>(o.start_ns) > t1) break;
    }
    for (std::uint32_t l = 0; l < trace.lanes.size(); ++l) flush_underline(l);
  }

  // Selected op: outline on every lane it occupies, dependency arrows in and out.
  if (decor.selected_op && *decor.selected_op < trace.ops.size()) {
    const std::uint32_t sel = *decor.selected_op;
    const TraceOp& o = trace.ops[sel];
    p.setPen(QPen(kSelected, 2));
    p.setBrush(Qt::NoBrush);
    if (const auto box = op_box(sel)) p.drawRect(box->adjusted(-1.5, -1.5, 1.5, 1.5));
    for (std::uint32_t l = 0; l < trace.lanes.size(); ++l) {
      if (trace.lanes[l].kind != LaneKind::kLink || lane_center_y[l].first == 0) continue;
      const LaneSpans& ls = model.lane_spans(l);
      for (std::size_t i = ls.first_ending_after(o.start_ns - 1); i < ls.spans.size(); ++i) {
        const SpanRef& s = ls.spans[i];
        if (s.start_ns > o.end_ns) break;
        if (s.op != sel) continue;
        const double x0 = plot_left + axis.x_of(static_cast<double>(s.start_ns));
        const double x1 = plot_left + axis.x_of(static_cast<double>(s.end_ns));
        const double cy = lane_center_y[l].second;
        p.drawRect(QRectF(x0 - 1.5, cy - (style.lane_height_px - 6) / 2.0 - 1.5,
                          std::max(2.0, x1 - x0) + 3, style.lane_height_px - 3));
      }
    }
    const auto me = op_box(sel);
    if (me) {
      for (std::uint32_t pr : model.predecessors(sel)) {
        if (const auto b = op_box(pr)) {
          draw_arrow(p, QPointF(b->right(), b->center().y()), QPointF(me->left(), me->center().y()),
                     kArrow, 1.4);
        }
      }
      for (std::uint32_t sc : model.successors(sel)) {
        if (const auto b = op_box(sc)) {
          draw_arrow(p, QPointF(me->right(), me->center().y()), QPointF(b->left(), b->center().y()),
                     kArrow, 1.4);
        }
      }
    }
  }
  if (decor.hovered_op && *decor.hovered_op < trace.ops.size() &&
      decor.hovered_op != decor.selected_op) {
    if (const auto box = op_box(*decor.hovered_op)) {
      p.setPen(QPen(QColor(0, 0, 0, 120), 1));
      p.setBrush(Qt::NoBrush);
      p.drawRect(box->adjusted(-1, -1, 1, 1));
    }
  }

  // Lower bound.
  if (decor.lower_bound_ns >= 0) {
    const double x = plot_left + axis.x_of(decor.lower_bound_ns);
    p.setPen(QPen(kLowerBound, 1.5, Qt::DashLine));
    p.drawLine(QPointF(x, pane_rect.top() + style.title_height_px), QPointF(x, pane_rect.bottom()));
  }
  p.setRenderHint(QPainter::Antialiasing, false);

  // Title bar last, so overlays never cover it.
  p.setClipRect(visible);
  const QRect title(pane_rect.left(), pane_rect.top(), pane_rect.width(), style.title_height_px);
  p.fillRect(title, kTitleBg);
  p.setPen(QColor(0xc8, 0xcd, 0xd4));
  p.drawLine(title.bottomLeft(), title.bottomRight());
  QFont f = p.font();
  f.setBold(true);
  p.setFont(f);
  p.setPen(kText);
  const QString makespan =
      QStringLiteral("makespan ") +
      QString::fromStdString(format_duration_ns(static_cast<double>(model.end_ns())));
  p.drawText(title.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, decor.title);
  const int title_w = QFontMetrics(f).horizontalAdvance(decor.title);
  f.setBold(false);
  p.setFont(f);
  p.setPen(kMutedText);
  QString info = makespan;
  if (decor.lower_bound_ns >= 0) {
    info += QStringLiteral("   ·   lower bound ") +
            QString::fromStdString(format_duration_ns(decor.lower_bound_ns));
  }
  p.drawText(title.adjusted(8 + title_w + 16, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, info);
  if (decor.lower_bound_ns >= 0) {
    const double x = plot_left + axis.x_of(decor.lower_bound_ns);
    if (x >= plot_left && x <= plot.right()) {
      p.setPen(QPen(kLowerBound, 1.5, Qt::DashLine));
      p.drawLine(QPointF(x, title.top() + 4), QPointF(x, title.bottom()));
    }
  }
  // Separator between label column and plot.
  p.setPen(QColor(0xd0, 0xd5, 0xdb));
  p.drawLine(QPoint(plot_left - 1, title.bottom() + 1), QPoint(plot_left - 1, pane_rect.bottom()));
  p.restore();
  return stats;
}

}  // namespace opsim::gui
