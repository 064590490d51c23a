#include "gui/view_state.hpp"

#include <algorithm>

namespace opsim::gui {

void ViewState::set_plot_width(double width_px) {
  width_px = std::max(width_px, 1.0);
  if (width_px == plot_width_px_) return;
  plot_width_px_ = width_px;
  emit axis_changed();
}

void ViewState::zoom_around(double x_px, double factor) {
  axis_.zoom_around(x_px, factor);
  emit axis_changed();
}

void ViewState::pan_px(double dx_px) {
  axis_.pan_px(dx_px);
  emit axis_changed();
}

void ViewState::fit(double end_ns) {
  axis_.fit(0, end_ns, plot_width_px_);
  emit axis_changed();
}

void ViewState::show_range(double begin_ns, double end_ns) {
  if (!(end_ns > begin_ns)) return;
  axis_.fit(begin_ns, end_ns, plot_width_px_);
  emit axis_changed();
}

void ViewState::toggle_collapsed(const std::string& key) {
  if (rows_.collapsed.erase(key) == 0) rows_.collapsed.insert(key);
  emit rows_changed();
}

void ViewState::set_collapsed(std::set<std::string> keys) {
  if (keys == rows_.collapsed) return;
  rows_.collapsed = std::move(keys);
  emit rows_changed();
}

void ViewState::set_filter(const std::string& text) {
  if (text == rows_.filter) return;
  rows_.filter = text;
  emit rows_changed();
}

void ViewState::set_show_counters(bool show) {
  if (show == rows_.show_counters) return;
  rows_.show_counters = show;
  emit rows_changed();
}

void ViewState::set_selection(std::optional<std::pair<double, double>> range_ns) {
  if (range_ns && range_ns->second < range_ns->first) std::swap(range_ns->first, range_ns->second);
  selection_ns_ = range_ns;
  emit selection_changed();
}

void ViewState::select_op(std::optional<OpRef> op) {
  if (op == selected_) return;
  selected_ = op;
  emit selected_op_changed();
}

void ViewState::hover_op(std::optional<OpRef> op) {
  if (op == hovered_) return;
  hovered_ = op;
  emit hovered_op_changed();
}

}  // namespace opsim::gui
