// Bar chart of makespan (and lower bound where known) per strategy, from SummaryModel. Plain
// QChartView on the raster engine: no OpenGL series, so it renders under offscreen too.
#pragma once

#include <QChartView>

#include "gui/summary_model.hpp"

namespace opsim::gui {

class SummaryChart : public QChartView {
  Q_OBJECT
 public:
  explicit SummaryChart(const SummaryModel* model, QWidget* parent = nullptr);
  /// Rebuilds the series from the model (called on model reset).
  void rebuild();

 private:
  const SummaryModel* model_;
};

}  // namespace opsim::gui
