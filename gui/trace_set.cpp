#include "gui/trace_set.hpp"

#include <algorithm>

namespace opsim::gui {

void TraceSet::set_simulated(std::vector<Pane> panes) {
  for (Pane& p : panes_) {
    if (p.from_file) panes.push_back(std::move(p));
  }
  panes_ = std::move(panes);
  emit changed();
}

void TraceSet::add_file_pane(Pane pane) {
  pane.from_file = true;
  panes_.push_back(std::move(pane));
  emit changed();
}

void TraceSet::clear_files() {
  std::erase_if(panes_, [](const Pane& p) { return p.from_file; });
  emit changed();
}

void TraceSet::set_options(TimelineOptions options) {
  options_ = options;
  for (Pane& p : panes_) p.model = std::make_shared<TimelineModel>(p.model->trace_ptr(), options_);
  emit changed();
}

double TraceSet::end_ns() const {
  double end = 0;
  for (const Pane& p : panes_) end = std::max(end, static_cast<double>(p.model->end_ns()));
  return end;
}

}  // namespace opsim::gui
