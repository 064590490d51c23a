// Draws a TopologyGraph laid out by server and switch; link colour is its utilization over the
// selected time range (the whole trace when none), the busier direction counting. Names are
// drawn only where they fit, so 64 or 1,024 GPUs stay a readable grid of boxes or dots.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "gui/timeline_model.hpp"
#include "gui/topology_graph.hpp"

namespace opsim::gui {

class TopologyView : public QWidget {
  Q_OBJECT
 public:
  explicit TopologyView(QWidget* parent = nullptr);

  /// Shows `model`'s machine (null: nothing) with utilization over `range_ns` (whole trace if
  /// unset).
  void show_trace(std::shared_ptr<const TimelineModel> model, const QString& title,
                  std::optional<std::pair<double, double>> range_ns);
  const TopologyGraph& graph() const { return graph_; }
  /// Per edge of graph(): utilization 0..1 over the shown range.
  const std::vector<double>& edge_utilization() const { return utilization_; }

  QSize sizeHint() const override { return {600, 320}; }
  /// Nodes drawn with their name at the last paint.
  int labels_shown() const { return labels_shown_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QRectF plot_area() const;
  double plot_aspect() const;
  void relayout();
  void paint_servers(QPainter& p, const QRectF& area);
  void paint_node(QPainter& p, const TopologyGraph::Node& n, QPointF center, const QRectF& area);

  double laid_out_aspect_ = 2.5;
  int labels_shown_ = 0;
  std::shared_ptr<const TimelineModel> model_;
  QString title_;
  TopologyGraph graph_;
  std::vector<double> utilization_;
  QString range_text_;
};

/// Colour for a utilization 0..1: grey-blue when idle through green and amber to red.
QColor utilization_color(double utilization);

}  // namespace opsim::gui
