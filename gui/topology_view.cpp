#include "gui/topology_view.hpp"

#include <QLinearGradient>
#include <QPainter>
#include <QResizeEvent>
#include <algorithm>
#include <cmath>

#include "gui/range_stats.hpp"
#include "gui/time_axis.hpp"

namespace opsim::gui {

QColor utilization_color(double u) {
  u = std::clamp(u, 0.0, 1.0);
  if (u <= 0) return QColor(0xb8, 0xc2, 0xcc);
  // green (0.0) -> amber (0.5) -> red (1.0)
  const QColor lo(0x2c, 0xa0, 0x2c), mid(0xf0, 0xa8, 0x1c), hi(0xd6, 0x27, 0x28);
  const auto mix = [](const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
  };
  return u < 0.5 ? mix(lo, mid, u / 0.5) : mix(mid, hi, (u - 0.5) / 0.5);
}

TopologyView::TopologyView(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(220);
}

void TopologyView::show_trace(std::shared_ptr<const TimelineModel> model, const QString& title,
                              std::optional<std::pair<double, double>> range_ns) {
  model_ = std::move(model);
  title_ = title;
  relayout();
  utilization_.assign(graph_.edges.size(), 0);
  if (model_) {
    const double b = range_ns ? range_ns->first : 0;
    const double e = range_ns ? range_ns->second : static_cast<double>(model_->end_ns());
    const auto stats = range_stats(*model_, static_cast<TimeNs>(b), static_cast<TimeNs>(e));
    for (std::size_t i = 0; i < graph_.edges.size(); ++i) {
      for (std::uint32_t l : graph_.edges[i].lanes) {
        utilization_[i] = std::max(utilization_[i], stats[l].utilization);
      }
    }
    range_text_ = range_ns ? tr("utilization over %1 – %2")
                                 .arg(QString::fromStdString(format_duration_ns(b)),
                                      QString::fromStdString(format_duration_ns(e)))
                           : tr("utilization over the whole run");
  }
  update();
}

QRectF TopologyView::plot_area() const {
  return QRectF(40, 52, std::max(100, width() - 80 - 150), std::max(60, height() - 72));
}

double TopologyView::plot_aspect() const {
  const QRectF a = plot_area();
  return a.width() / a.height();
}

void TopologyView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Lay out again when the shape changed enough to matter.
  if (model_ && std::abs(std::log(plot_aspect() / laid_out_aspect_)) > 0.25) relayout();
}

void TopologyView::relayout() {
  laid_out_aspect_ = plot_aspect();
  graph_ = model_ ? infer_topology(model_->trace(), laid_out_aspect_) : TopologyGraph{};
}

// A frame per server with its name, when there are several.
void TopologyView::paint_servers(QPainter& p, const QRectF& area) {
  if (graph_.servers.size() < 2) return;
  for (const auto& s : graph_.servers) {
    const QRectF r(area.left() + s.x0 * area.width() + 3, area.top() + s.y0 * area.height() + 3,
                   (s.x1 - s.x0) * area.width() - 6, (s.y1 - s.y0) * area.height() - 6);
    p.setPen(QPen(QColor(0xc8, 0xcd, 0xd4), 1));
    p.setBrush(QColor(0xf6, 0xf7, 0xf9));
    p.drawRoundedRect(r, 6, 6);
    p.setPen(QColor(0x57, 0x60, 0x6a));
    p.drawText(r.adjusted(6, 2, -6, 0), Qt::AlignTop | Qt::AlignLeft,
               p.fontMetrics().elidedText(QString::fromStdString(s.name), Qt::ElideRight,
                                          static_cast<int>(r.width()) - 12));
  }
}

// A box with the device's name where the name fits in the room the layout gave it, else a
// smaller box or a dot (the timeline's filter finds a device by name).
void TopologyView::paint_node(QPainter& p, const TopologyGraph::Node& n, QPointF c,
                              const QRectF& area) {
  QColor fill;
  switch (n.kind) {
    case TopologyGraph::NodeKind::kGpu:
      fill = QColor(0x76, 0xb9, 0x00);
      break;
    case TopologyGraph::NodeKind::kCpu:
      fill = QColor(0x3b, 0x6e, 0xc4);
      break;
    case TopologyGraph::NodeKind::kDisk:
      fill = QColor(0x9c, 0x75, 0x5f);
      break;
    case TopologyGraph::NodeKind::kFabric:
      fill = QColor(0x6b, 0x72, 0x7a);
      break;
    default:
      fill = QColor(0x8a, 0x8f, 0x98);
      break;
  }
  const QString label = QString::fromStdString(n.name);
  const double room_w = n.cell_w > 0 ? n.cell_w * area.width() - 4 : 200;
  const double room_h = n.cell_h > 0 ? n.cell_h * area.height() - 4 : 26;
  const double text_w = p.fontMetrics().horizontalAdvance(label) + 12;
  p.setPen(QPen(fill.darker(130), 1));
  p.setBrush(fill);
  if (text_w <= room_w && room_h >= 16) {
    const double w = std::min(room_w, std::max(64.0, text_w + 6));
    const QRectF box(c.x() - w / 2, c.y() - std::min(13.0, room_h / 2), w, std::min(26.0, room_h));
    p.drawRoundedRect(box, 6, 6);
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, label);
    ++labels_shown_;
    return;
  }
  const double side = std::clamp(std::min(room_w, room_h) * 0.8, 3.0, 14.0);
  p.drawRoundedRect(QRectF(c.x() - side / 2, c.y() - side / 2, side, side), 2, 2);
}

void TopologyView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  p.setRenderHint(QPainter::Antialiasing);
  if (!model_) {
    p.setPen(QColor(0x57, 0x60, 0x6a));
    p.drawText(rect(), Qt::AlignCenter, tr("No trace to show"));
    return;
  }
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(QColor(0x24, 0x29, 0x2f));
  p.drawText(QRect(12, 6, width() - 24, 20), Qt::AlignLeft | Qt::AlignVCenter, title_);
  p.setFont(font());
  p.setPen(QColor(0x57, 0x60, 0x6a));
  p.drawText(QRect(12, 24, width() - 24, 18), Qt::AlignLeft | Qt::AlignVCenter, range_text_);

  const QRectF area = plot_area();
  auto at = [&](const TopologyGraph::Node& n) {
    return QPointF(area.left() + n.x * area.width(), area.top() + n.y * area.height());
  };
  paint_servers(p, area);
  double max_cap = 1;
  for (const auto& e : graph_.edges) max_cap = std::max(max_cap, e.capacity_bytes_per_s);
  // Many links: thinner, and named only where the line is long enough for its name.
  const double thin = std::min(1.0, 6.0 / std::sqrt(static_cast<double>(graph_.edges.size()) + 1));
  for (std::size_t i = 0; i < graph_.edges.size(); ++i) {
    const auto& e = graph_.edges[i];
    const QPointF a = at(graph_.nodes[static_cast<std::size_t>(e.a)]);
    const QPointF b = at(graph_.nodes[static_cast<std::size_t>(e.b)]);
    const double w = std::max(1.0, (2 + 5 * std::sqrt(e.capacity_bytes_per_s / max_cap)) * thin);
    p.setPen(QPen(utilization_color(utilization_[i]), w, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(a, b);
    const QString label = QString::fromStdString(e.link) + QStringLiteral("  ") +
                          QString::number(utilization_[i] * 100, 'f', 0) + QStringLiteral("%");
    const double label_w = p.fontMetrics().horizontalAdvance(label) + 10;
    if (QLineF(a, b).length() < label_w + 60 || graph_.edges.size() > 64) continue;
    const QPointF mid = (a + b) / 2;
    const QRectF box(mid.x() - label_w / 2, mid.y() - 9, label_w, 18);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(255, 255, 255, 215));
    p.drawRoundedRect(box, 4, 4);
    p.setPen(QColor(0x24, 0x29, 0x2f));
    p.drawText(box, Qt::AlignCenter, label);
  }
  labels_shown_ = 0;
  for (const auto& n : graph_.nodes) paint_node(p, n, at(n), area);
  // Legend.
  const QRectF legend(width() - 170, 60, 16, 120);
  QLinearGradient grad(legend.bottomLeft(), legend.topLeft());
  for (int k = 0; k <= 10; ++k)
    grad.setColorAt(k / 10.0, utilization_color(std::max(0.01, k / 10.0)));
  p.setPen(Qt::NoPen);
  p.setBrush(grad);
  p.drawRect(legend);
  p.setPen(QColor(0x24, 0x29, 0x2f));
  p.drawText(QPointF(legend.right() + 6, legend.top() + 10), QStringLiteral("100% busy"));
  p.drawText(QPointF(legend.right() + 6, legend.center().y() + 4), QStringLiteral("50%"));
  p.drawText(QPointF(legend.right() + 6, legend.bottom()), QStringLiteral("idle"));
  p.drawText(QRectF(legend.left(), legend.bottom() + 10, 160, 36), Qt::AlignLeft | Qt::TextWordWrap,
             tr("link width: bandwidth"));
}

}  // namespace opsim::gui
