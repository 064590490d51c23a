// Zoom, selection, hover and row visibility (collapsed groups, lane filter, counters) shared
// by every pane and the ruler, kept out of the widgets (Hotspot style) so each view only reads
// it and asks it to change.
#pragma once

#include <QObject>
#include <optional>
#include <utility>

#include "gui/row_layout.hpp"
#include "gui/time_axis.hpp"

namespace opsim::gui {

/// An op in a pane of the comparison.
struct OpRef {
  int pane = -1;
  std::uint32_t op = 0;
  bool operator==(const OpRef&) const = default;
};

class ViewState : public QObject {
  Q_OBJECT
 public:
  explicit ViewState(QObject* parent = nullptr) : QObject(parent) {}

  const TimeAxis& axis() const { return axis_; }
  double plot_width_px() const { return plot_width_px_; }
  std::optional<std::pair<double, double>> selection_ns() const { return selection_ns_; }
  std::optional<OpRef> selected_op() const { return selected_; }
  std::optional<OpRef> hovered_op() const { return hovered_; }
  const RowVisibility& rows() const { return rows_; }

  void set_plot_width(double width_px);
  void zoom_around(double x_px, double factor);
  void pan_px(double dx_px);
  /// Shows [0, end_ns] across the plot width.
  void fit(double end_ns);
  /// Shows [begin_ns, end_ns] across the plot width (zoom to selection); ignores empty ranges.
  void show_range(double begin_ns, double end_ns);
  /// Collapses the header with `key` (TimelineRow::key), or expands it when collapsed.
  void toggle_collapsed(const std::string& key);
  void set_collapsed(std::set<std::string> keys);
  void set_filter(const std::string& text);
  void set_show_counters(bool show);
  /// Sets (ordered) or clears the selected time range.
  void set_selection(std::optional<std::pair<double, double>> range_ns);
  void select_op(std::optional<OpRef> op);
  void hover_op(std::optional<OpRef> op);

 signals:
  void axis_changed();
  void selection_changed();
  void selected_op_changed();
  void hovered_op_changed();
  void rows_changed();

 private:
  TimeAxis axis_;
  double plot_width_px_ = 800;
  std::optional<std::pair<double, double>> selection_ns_;
  std::optional<OpRef> selected_;
  std::optional<OpRef> hovered_;
  RowVisibility rows_;
};

}  // namespace opsim::gui
