// Draws a TopologyGraph; link colour is its utilization over the selected time range (the
// whole trace when none), the busier direction counting.
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

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::shared_ptr<const TimelineModel> model_;
  QString title_;
  TopologyGraph graph_;
  std::vector<double> utilization_;
  QString range_text_;
};

/// Colour for a utilization 0..1: grey-blue when idle through green and amber to red.
QColor utilization_color(double utilization);

}  // namespace opsim::gui
