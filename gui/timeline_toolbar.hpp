// The strip over the timeline: the lane filter, collapse all groups or all devices, expand,
// counter tracks on or off, zoom to selection, drop the what-if baseline, and the legend of
// op classes and their colours in the traces shown.
#pragma once

#include <QWidget>

#include "gui/trace_set.hpp"
#include "gui/view_state.hpp"
#include "gui/what_if_state.hpp"

class QLabel;
class QLineEdit;
class QPushButton;

namespace opsim::gui {

class TimelineView;

class TimelineToolbar : public QWidget {
  Q_OBJECT
 public:
  TimelineToolbar(TraceSet* traces, ViewState* state, WhatIfState* what_if, TimelineView* view,
                  QWidget* parent = nullptr);

  QLineEdit* filter_box() const { return filter_; }
  QLabel* legend() const { return legend_; }

 private:
  void update_legend();
  void collapse_all(RowKind kind);

  TraceSet* traces_;
  ViewState* state_;
  WhatIfState* what_if_;
  QLineEdit* filter_;
  QLabel* legend_;
  QPushButton* drop_baseline_;
};

/// The legend's text: a swatch and name per op class in `panes` (first seen first), then
/// the critical path and, when `baseline`, the ghosted run before the edit.
QString legend_html(const std::vector<Pane>& panes, bool baseline);

}  // namespace opsim::gui
