#include "gui/timeline_painter.hpp"

#include <QFontMetrics>
#include <QPainterPath>
#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include "hw_models/units.hpp"

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
  return RowLayout(model, style).height_px();
}

int row_top_px(const TimelineModel& model, int row, const TimelineStyle& style) {
  const RowLayout layout(model, style);
  if (row >= static_cast<int>(layout.rows().size())) return layout.height_px();
  return layout.rows()[static_cast<std::size_t>(std::max(row, 0))].top_px;
}

int row_at_px(const TimelineModel& model, int y_px, const TimelineStyle& style) {
  return RowLayout(model, style).index_at(y_px);
}

std::vector<StickyHeader> sticky_headers(const TimelineModel& model, const RowLayout& layout,
                                         const QRect& pane_rect, int visible_top,
                                         const TimelineStyle& style) {
  std::vector<StickyHeader> out;
  const int scrolled_px = visible_top - pane_rect.top();
  if (scrolled_px <= 0 || scrolled_px >= layout.height_px() - style.title_height_px) return out;
  // The row just under the sticky title bar, and the headers it sits under.
  const std::size_t first = layout.first_index_below(scrolled_px + style.title_height_px);
  if (first >= layout.rows().size()) return out;
  std::vector<int> chain;
  const LaidOutRow& row = layout.rows()[first];
  if (row.top_px < scrolled_px + style.title_height_px &&
      model.rows()[row.row].kind != RowKind::kLane &&
      model.rows()[row.row].kind != RowKind::kCounter) {
    chain.push_back(static_cast<int>(first));
  }
  for (std::uint32_t up = model.rows()[row.row].parent; up != kNoRow;
       up = model.rows()[up].parent) {
    if (const int idx = layout.index_of_row(up); idx >= 0) chain.push_back(idx);
  }
  int y = visible_top + style.title_height_px;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const int h = layout.rows()[static_cast<std::size_t>(*it)].height_px;
    out.push_back({*it, QRect(pane_rect.left(), y, pane_rect.width(), h)});
    y += h;
  }
  return out;
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
  const RowLayout& layout;
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
  /// Per lane, the baseline's lane of the same name (or UINT32_MAX); empty without baseline.
  std::vector<std::uint32_t> baseline_lane_of;

  double x_at(double ns) const { return plot_left + axis.x_of(ns); }
  bool lane_shown(std::uint32_t lane) const { return layout.index_of_lane(lane) >= 0; }
  double lane_box_height() const { return style.lane_height_px - 6; }
  double lane_center_y(std::uint32_t lane) const {
    const LaidOutRow& r = layout.rows()[static_cast<std::size_t>(layout.index_of_lane(lane))];
    return pane.top() + r.top_px + style.lane_height_px / 2.0;
  }

  /// The box `op` occupies on its own lane, or nothing when that lane has no row.
  std::optional<QRectF> op_box(std::uint32_t op) const {
    const TraceOp& o = trace.ops[op];
    if (!lane_shown(o.lane)) return std::nullopt;
    const double cy = lane_center_y(o.lane);
    const double x0 = x_at(static_cast<double>(o.start_ns));
    const double x1 = x_at(static_cast<double>(o.end_ns));
    return QRectF(x0, cy - lane_box_height() / 2.0, std::max(2.0, x1 - x0), lane_box_height());
  }
};

/// For each lane of `current`, the lane of `baseline` with the same name.
std::vector<std::uint32_t> match_lanes_by_name(const Trace& current, const Trace& baseline) {
  std::unordered_map<std::string_view, std::uint32_t> by_name;
  for (std::uint32_t l = 0; l < baseline.lanes.size(); ++l)
    by_name.emplace(baseline.lanes[l].name, l);
  std::vector<std::uint32_t> out(current.lanes.size(), UINT32_MAX);
  for (std::uint32_t l = 0; l < current.lanes.size(); ++l) {
    if (const auto it = by_name.find(current.lanes[l].name); it != by_name.end())
      out[l] = it->second;
  }
  return out;
}

QString header_label(const TimelineModel& model, const LaidOutRow& r) {
  const TimelineRow& row = model.rows()[r.row];
  QString text = (r.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) +
                 QString::fromStdString(row.label);
  if (r.collapsed && r.summary) {
    const std::size_t n = r.summary->lane_count();
    text += n == 1 ? QStringLiteral("  (1 lane)") : QStringLiteral("  (%1 lanes)").arg(n);
  }
  return text;
}

/// A collapsed group's summary: per pixel column, the mean fraction of its lanes busy, as a
/// bar from the row's bottom (at least a pixel wherever any lane is busy).
void paint_summary_bar(QPainter& p, const PaneFrame& f, const BusyProfile& profile,
                       const QRect& row_plot) {
  const QRect area = row_plot.adjusted(0, 2, 0, -2).intersected(f.visible);
  if (area.isEmpty()) return;
  const QColor fill(0x4e, 0x79, 0xa7);
  const int bottom = row_plot.bottom() - 1;
  const double full_h = row_plot.height() - 4;
  int run_x = -1, run_h = 0;
  auto flush = [&](int x_end) {
    if (run_x >= 0 && run_h > 0)
      p.fillRect(QRect(run_x, bottom - run_h + 1, x_end - run_x, run_h), fill);
  };
  for (int x = area.left(); x <= area.right() + 1; ++x) {
    int h = 0;
    if (x <= area.right()) {
      const double t0 = f.axis.ns_at(x - f.plot_left);
      const double busy = profile.mean_busy_fraction(t0, t0 + f.axis.ns_per_px);
      h = busy > 0 ? std::max(1, static_cast<int>(std::lround(busy * full_h))) : 0;
    }
    if (h != run_h || x > area.right()) {
      flush(x);
      run_x = x;
      run_h = h;
    }
  }
}

void paint_header_row(QPainter& p, const PaneFrame& f, const LaidOutRow& r, const QRect& label_rect,
                      const QRect& row_plot) {
  const RowKind kind = f.model.rows()[r.row].kind;
  const bool group = kind == RowKind::kGroup;
  p.fillRect(QRect(f.pane.left(), row_plot.top(), f.pane.width(), row_plot.height()),
             group ? QColor(0xee, 0xf0, 0xf3) : kLabelBg);
  if (!group) p.fillRect(row_plot, Qt::white);
  QFont font = p.font();
  font.setBold(group);
  font.setItalic(!group);
  p.setFont(font);
  p.setPen(group ? kText : kMutedText);
  p.drawText(label_rect.adjusted(group ? 4 : 12, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
             f.font_metrics.elidedText(header_label(f.model, r), Qt::ElideMiddle,
                                       label_rect.width() - 16));
  font.setBold(false);
  font.setItalic(false);
  p.setFont(font);
  p.setPen(kGridLine);
  p.drawLine(row_plot.topLeft(), row_plot.topRight());
  if (r.collapsed && r.summary) {
    p.setClipRect(row_plot.intersected(f.visible));
    paint_summary_bar(p, f, *r.summary, row_plot);
    p.setClipRect(f.visible);
  }
}

/// A counter as a step area: memory scaled to its peak, utilization to 1. Samples closer
/// than a pixel are merged into one column at their largest value.
void paint_counter_graph(QPainter& p, const PaneFrame& f, const TraceCounter& c, double scale_max,
                         const QRect& row_plot, const QColor& color) {
  const auto& samples = c.samples;
  if (samples.empty() || scale_max <= 0) return;
  const double bottom = row_plot.bottom() - 1;
  const double full_h = row_plot.height() - 5;
  auto fill = [&](double x0, double x1, double v) {
    if (v <= 0 || x1 <= x0) return;
    const double h = std::max(1.0, v / scale_max * full_h);
    p.fillRect(QRectF(x0, bottom - h, x1 - x0, h), color);
  };
  auto first = std::upper_bound(samples.begin(), samples.end(), f.t0_ns,
                                [](double t, const TraceCounterSample& s) { return t < s.at_ns; });
  std::size_t i =
      first == samples.begin() ? 0 : static_cast<std::size_t>(first - samples.begin()) - 1;
  double col = -1, col_max = 0;  // the pixel column being merged and its largest value
  for (; i < samples.size(); ++i) {
    const double x0 = std::max<double>(f.plot_left, f.x_at(static_cast<double>(samples[i].at_ns)));
    if (x0 > f.plot.right()) break;
    const double x1 = i + 1 < samples.size()
                          ? std::min<double>(f.plot.right() + 1,
                                             f.x_at(static_cast<double>(samples[i + 1].at_ns)))
                          : x0;
    const double v = samples[i].value;
    if (std::floor(x1) <= col) {  // inside the column being merged
      col_max = std::max(col_max, v);
      continue;
    }
    if (col >= 0) fill(col, col + 1, std::max(col_max, v));
    const double from = std::max(std::floor(x0), col + 1);
    fill(from, std::floor(x1), v);
    col = std::floor(x1);
    col_max = v;
  }
  if (col >= 0) fill(col, col + 1, col_max);
}

QString counter_value_text(const TraceCounter& c, double value) {
  if (c.unit == "bytes") return QString::fromStdString(format_bytes(value));
  if (c.unit == "fraction") return QStringLiteral("%1%").arg(value * 100, 0, 'f', 0);
  return QString::number(value, 'g', 4);
}

void paint_counter_row(QPainter& p, const PaneFrame& f, const LaidOutRow& r,
                       const QRect& label_rect, const QRect& row_plot) {
  const TimelineRow& row = f.model.rows()[r.row];
  const TraceCounter& c = f.trace.counters[row.counter];
  p.fillRect(label_rect, kLabelBg);
  p.fillRect(row_plot, QColor(0xfb, 0xfb, 0xf8));
  const bool fraction = c.unit == "fraction";
  const double peak = f.model.counter_max(row.counter);
  p.setPen(kMutedText);
  p.drawText(label_rect.adjusted(26, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
             f.font_metrics.elidedText(QString::fromStdString(row.label) +
                                           QStringLiteral(" · peak ") + counter_value_text(c, peak),
                                       Qt::ElideRight, f.style.label_width_px - 32));
  p.setClipRect(row_plot.intersected(f.visible));
  paint_counter_graph(p, f, c, fraction ? 1.0 : peak, row_plot,
                      fraction ? QColor(0x33, 0x7a, 0xd6, 150) : QColor(0x8e, 0x5e, 0xa2, 150));
  p.setClipRect(f.visible);
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

/// Where a lane's boxes go: its own spans, and the baseline's strip when there is one.
struct LaneBand {
  double box_top = 0;
  double box_h = 0;
  int sub_rows = 1;    ///< sub-rows the box height is split into (concurrent transfers)
  bool ghost = false;  ///< the baseline's spans: pale, no labels, no sub-rows
};

/// One span at least a pixel wide: a box in its sub-row (overlapping spans, e.g. concurrent
/// flows on a link, get a sub-row each), labelled when there is room.
void paint_span_box(QPainter& p, const PaneFrame& f, const Trace& trace, const SpanRef& s,
                    double x0, double x1, const LaneBand& band) {
  const double cx0 = std::max(x0, -2.0);
  const double cx1 = std::min(x1, f.plot.width() + 2.0);
  QColor color = color_for_op_class(trace.ops[s.op].op_class);
  if (band.ghost) {
    color.setAlpha(120);
    p.fillRect(QRectF(f.plot_left + cx0, band.box_top, cx1 - cx0, band.box_h), color);
    return;
  }
  const double sub_h = band.box_h / band.sub_rows;
  const int sub = std::min<int>(s.slot, band.sub_rows - 1);
  const QRectF box(f.plot_left + cx0, band.box_top + sub * sub_h, cx1 - cx0,
                   band.sub_rows > 1 ? sub_h - 1 : band.box_h);
  // Border as two fills: much cheaper than a stroked rect on the raster engine.
  if (cx1 - cx0 >= 4 && box.height() >= 4) {
    p.fillRect(box, color.darker(135));
    p.fillRect(box.adjusted(1, 1, -1, -1), color);
  } else {
    p.fillRect(box, color);
  }
  if (cx1 - cx0 >= 36 && box.height() >= 10) {
    p.setPen(color.lightness() > 150 ? kText : QColor(Qt::white));
    p.drawText(box.adjusted(4, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
               f.font_metrics.elidedText(QString::fromStdString(trace.ops[s.op].name),
                                         Qt::ElideRight, static_cast<int>(cx1 - cx0) - 7));
  }
}

/// A lane's spans (of `model`: this pane's or its baseline's), culled to the plot's time
/// range and merged below a pixel.
void paint_lane_spans(QPainter& p, const PaneFrame& f, const TimelineModel& model,
                      std::uint32_t lane, const LaneBand& band, PaintStats& stats) {
  const LaneSpans& ls = model.lane_spans(lane);
  const Trace& trace = model.trace();
  SubPixelRun run(p, f.plot_left, band.box_top, band.box_h, stats);
  const auto lo = static_cast<TimeNs>(std::floor(f.t0_ns));
  std::size_t retry_skip_at = 0;
  for (std::size_t i = ls.first_ending_after(lo); i < ls.spans.size(); ++i) {
    const SpanRef& s = ls.spans[i];
    if (static_cast<double>(s.start_ns) > f.t1_ns) break;
    ++stats.spans_visited;
    const double x0 = f.axis.x_of(static_cast<double>(s.start_ns));
    const double x1 = f.axis.x_of(static_cast<double>(s.end_ns));
    if (x1 - x0 < 1.0) {
      run.add(x0, x1, [&] {
        QColor c = color_for_op_class(trace.ops[s.op].op_class).darker(112);
        if (band.ghost) c.setAlpha(120);
        return c;
      });
      i = skip_spans_inside_run(ls, i, f.axis, run, retry_skip_at, stats);
      continue;
    }
    run.flush();
    paint_span_box(p, f, trace, s, x0, x1, band);
    ++stats.boxes_drawn;
  }
  run.flush();
}

/// The baseline's spans on the lane of the same name: a pale strip along the row's bottom.
void paint_baseline_lane(QPainter& p, const PaneFrame& f, const TimelineModel& baseline,
                         std::uint32_t lane, const QRect& row_plot, PaintStats& stats) {
  if (lane >= f.baseline_lane_of.size() || f.baseline_lane_of[lane] == UINT32_MAX) return;
  const LaneBand band{row_plot.bottom() - 6.0, 4.0, 1, true};
  paint_lane_spans(p, f, baseline, f.baseline_lane_of[lane], band, stats);
}

void paint_lane_row(QPainter& p, const PaneFrame& f, const PaneDecor& decor, const TimelineRow& row,
                    const QRect& label_rect, const QRect& row_plot, bool striped,
                    PaintStats& stats) {
  p.fillRect(label_rect, kLabelBg);
  if (striped) p.fillRect(row_plot, kStripeBg);
  const LaneSpans& ls = f.model.lane_spans(row.lane);
  const int sub_rows = std::min<int>(ls.sub_rows, f.style.max_sub_rows);
  p.setPen(kText);
  const QRect text_rect = label_rect.adjusted(26, 0, -6, 0);
  const QString label = f.font_metrics.elidedText(QString::fromStdString(row.label),
                                                  Qt::ElideMiddle, f.style.label_width_px - 32);
  if (sub_rows > 1) {
    // Say how many transfers overlapped at most, under the name.
    p.drawText(text_rect.adjusted(0, 2, 0, 0), Qt::AlignTop | Qt::AlignLeft, label);
    p.setPen(kMutedText);
    p.drawText(text_rect.adjusted(0, f.font_metrics.height() + 2, 0, 0),
               Qt::AlignTop | Qt::AlignLeft, QStringLiteral("up to %1 at once").arg(ls.sub_rows));
  } else {
    p.drawText(text_rect, Qt::AlignVCenter | Qt::AlignLeft, label);
  }
  p.setClipRect(row_plot.intersected(f.visible));
  const bool with_baseline = decor.baseline != nullptr;
  const double ghost_h = with_baseline ? 4 : 0;
  const LaneBand band{row_plot.top() + 3.0,
                      row_plot.height() - 6.0 - ghost_h - (with_baseline ? 1 : 0), sub_rows, false};
  paint_lane_spans(p, f, f.model, row.lane, band, stats);
  if (with_baseline) paint_baseline_lane(p, f, *decor.baseline, row.lane, row_plot, stats);
  p.setClipRect(f.visible);
}

/// Every row inside the visible part: background, label and, for lanes, the spans.
void paint_rows(QPainter& p, const PaneFrame& f, const PaneDecor& decor, PaintStats& stats) {
  const auto& rows = f.layout.rows();
  const int first_y = f.visible.top() - f.pane.top();
  for (std::size_t i = f.layout.first_index_below(first_y); i < rows.size(); ++i) {
    const LaidOutRow& r = rows[i];
    const int top = f.pane.top() + r.top_px;
    if (top > f.visible.bottom()) break;
    const TimelineRow& row = f.model.rows()[r.row];
    const QRect label_rect(f.pane.left(), top, f.style.label_width_px, r.height_px);
    const QRect row_plot(f.plot_left, top, f.plot.width(), r.height_px);
    switch (row.kind) {
      case RowKind::kGroup:
      case RowKind::kSubgroup:
        paint_header_row(p, f, r, label_rect, row_plot);
        break;
      case RowKind::kCounter:
        paint_counter_row(p, f, r, label_rect, row_plot);
        break;
      case RowKind::kLane:
        paint_lane_row(p, f, decor, row, label_rect, row_plot, i % 2 == 0, stats);
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
    const double cy = f_.lane_center_y(lane) + f_.lane_box_height() / 2.0;
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
      const double cy = f.lane_center_y(l);
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

/// Title bar at `top` (the pane's top, or the visible top when it sticks): the pane's title
/// in bold, then makespan, lower bound, the difference to the baseline and staleness; painted
/// last so overlays never cover it.
void paint_title_bar(QPainter& p, const PaneFrame& f, const PaneDecor& decor, int top) {
  p.setClipRect(f.visible);
  const QRect title(f.pane.left(), top, f.pane.width(), f.style.title_height_px);
  p.fillRect(title, decor.stale ? QColor(0xfff3d6) : kTitleBg);
  p.setPen(QColor(0xc8, 0xcd, 0xd4));
  p.drawLine(title.bottomLeft(), title.bottomRight());
  QFont font = p.font();
  font.setBold(true);
  p.setFont(font);
  p.setPen(kText);
  p.drawText(title.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, decor.title);
  int x = 8 + QFontMetrics(font).horizontalAdvance(decor.title) + 16;
  font.setBold(false);
  p.setFont(font);
  auto say = [&](const QString& text, const QColor& color) {
    p.setPen(color);
    p.drawText(title.adjusted(x, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    x += f.font_metrics.horizontalAdvance(text) + 16;
  };
  if (decor.stale)
    say(QStringLiteral("stale: the inputs changed, re-simulating…"), QColor(0x9a6700));
  QString info = QStringLiteral("makespan ") +
                 QString::fromStdString(format_duration_ns(static_cast<double>(f.model.end_ns())));
  if (decor.lower_bound_ns >= 0) {
    info += QStringLiteral("   ·   lower bound ") +
            QString::fromStdString(format_duration_ns(decor.lower_bound_ns));
  }
  say(info, kMutedText);
  if (!decor.baseline_note.isEmpty()) say(decor.baseline_note, QColor(0x1f, 0x4e, 0x99));
  if (decor.lower_bound_ns >= 0) {
    const double lx = f.x_at(decor.lower_bound_ns);
    if (lx >= f.plot_left && lx <= f.plot.right()) {
      p.setPen(QPen(kLowerBound, 1.5, Qt::DashLine));
      p.drawLine(QPointF(lx, title.top() + 4), QPointF(lx, title.bottom()));
    }
  }
}

/// The baseline's end as a grey dashed line, so a longer or shorter run shows at a glance.
void paint_baseline_end(QPainter& p, const PaneFrame& f, const TimelineModel& baseline) {
  const double x = f.x_at(static_cast<double>(baseline.end_ns()));
  if (x < f.plot_left || x > f.plot.right()) return;
  p.setPen(QPen(QColor(0x6e, 0x77, 0x81), 1.5, Qt::DashDotLine));
  p.drawLine(QPointF(x, f.pane.top() + f.style.title_height_px), QPointF(x, f.pane.bottom()));
}

/// A veil over a stale run's plot: still readable, clearly not the current answer.
void paint_stale_veil(QPainter& p, const PaneFrame& f) {
  p.fillRect(f.plot.adjusted(0, f.style.title_height_px, 0, 0).intersected(f.visible),
             QColor(255, 255, 255, 140));
}

/// Headers whose rows are on screen but who scrolled above it, stacked under the title bar.
void paint_sticky_headers(QPainter& p, const PaneFrame& f,
                          const std::vector<StickyHeader>& sticky) {
  p.setClipRect(f.visible);  // the overlays before clip to the plot; headers span the labels
  for (const StickyHeader& h : sticky) {
    const LaidOutRow& r = f.layout.rows()[static_cast<std::size_t>(h.layout_index)];
    const QRect label_rect(f.pane.left(), h.rect.top(), f.style.label_width_px, h.rect.height());
    const QRect row_plot(f.plot_left, h.rect.top(), f.plot.width(), h.rect.height());
    paint_header_row(p, f, r, label_rect, row_plot);
  }
  if (!sticky.empty()) {
    p.setPen(QColor(0xc8, 0xcd, 0xd4));
    p.drawLine(QPoint(f.pane.left(), sticky.back().rect.bottom()),
               QPoint(f.pane.right(), sticky.back().rect.bottom()));
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
  return paint_pane(p, model, RowLayout(model, style), axis, pane_rect, clip, decor, style);
}

PaintStats paint_pane(QPainter& p, const TimelineModel& model, const RowLayout& layout,
                      const TimeAxis& axis, const QRect& pane_rect, const QRect& clip,
                      const PaneDecor& decor, const TimelineStyle& style) {
  PaintStats stats;
  const QRect visible = pane_rect.intersected(clip);
  if (visible.isEmpty()) return stats;
  const int plot_left = pane_rect.left() + style.label_width_px;
  const QRect plot(plot_left, pane_rect.top(), pane_rect.right() - plot_left + 1,
                   pane_rect.height());
  const PaneFrame frame{model,
                        layout,
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
                        decor.baseline ? match_lanes_by_name(model.trace(), decor.baseline->trace())
                                       : std::vector<std::uint32_t>{}};
  p.save();
  p.setClipRect(visible);
  p.fillRect(visible, Qt::white);
  paint_rows(p, frame, decor, stats);
  paint_grid(p, frame);
  if (decor.selection_ns) paint_selection_band(p, frame, *decor.selection_ns);
  if (decor.stale) paint_stale_veil(p, frame);
  paint_overlays(p, frame, decor);
  if (decor.baseline) paint_baseline_end(p, frame, *decor.baseline);
  const auto sticky = sticky_headers(model, layout, pane_rect, visible.top(), style);
  paint_sticky_headers(p, frame, sticky);
  paint_title_bar(p, frame, decor,
                  std::max(pane_rect.top(),
                           std::min(visible.top(), pane_rect.bottom() - style.title_height_px)));
  paint_label_separator(p, frame);
  p.restore();
  return stats;
}

}  // namespace opsim::gui
