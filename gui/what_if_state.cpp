#include "gui/what_if_state.hpp"

#include <algorithm>

#include "gui/time_axis.hpp"

namespace opsim::gui {

BusiestLink busiest_link(const TimelineModel& model) {
  const Trace& t = model.trace();
  BusiestLink best;
  for (std::uint32_t l = 0; l < t.lanes.size(); ++l) {
    if (t.lanes[l].kind != LaneKind::kLink) continue;
    // Spans are sorted by start: the union is one sweep.
    TimeNs busy = 0, open_start = 0, open_end = INT64_MIN;
    for (const SpanRef& s : model.lane_spans(l).spans) {
      if (s.start_ns > open_end) {
        if (open_end > open_start) busy += open_end - open_start;
        open_start = s.start_ns;
      }
      open_end = std::max(open_end, s.end_ns);
    }
    if (open_end > open_start) busy += open_end - open_start;
    if (busy > best.busy_ns) best = {t.lanes[l].name, busy};
  }
  return best;
}

QString baseline_difference(const TimelineModel& before, const TimelineModel& now) {
  auto ms = [](TimeNs ns) {
    return QString::fromStdString(format_duration_ns(static_cast<double>(ns)));
  };
  QString text = QStringLiteral("before %1 → %2").arg(ms(before.end_ns()), ms(now.end_ns()));
  if (before.end_ns() > 0) {
    const double change = 100.0 * static_cast<double>(now.end_ns() - before.end_ns()) /
                          static_cast<double>(before.end_ns());
    text += QStringLiteral(" (%1%2%)").arg(change >= 0 ? "+" : "").arg(change, 0, 'f', 1);
  }
  const BusiestLink b = busiest_link(before);
  const BusiestLink n = busiest_link(now);
  if (!n.name.empty()) {
    text += QStringLiteral("   ·   busiest link ");
    if (b.name == n.name) {
      text += QStringLiteral("%1 %2 → %3")
                  .arg(QString::fromStdString(n.name), ms(b.busy_ns), ms(n.busy_ns));
    } else {
      text += QStringLiteral("%1 %2 (was %3 %4)")
                  .arg(QString::fromStdString(n.name), ms(n.busy_ns),
                       QString::fromStdString(b.name), ms(b.busy_ns));
    }
  }
  return text;
}

void WhatIfState::on_new_run(const std::vector<Pane>& shown) {
  if (edited_ && baseline_.empty()) {
    for (const Pane& p : shown) {
      if (!p.from_file && p.model) baseline_.emplace(p.title, p.model);
    }
  }
  edited_ = false;
  stale_ = false;
  emit changed();
}

void WhatIfState::on_edit() {
  edited_ = true;
  if (stale_) return;
  stale_ = true;
  emit changed();
}

void WhatIfState::drop_baseline() {
  if (baseline_.empty()) return;
  baseline_.clear();
  emit changed();
}

std::shared_ptr<const TimelineModel> WhatIfState::baseline_for(const QString& title) const {
  const auto it = baseline_.find(title);
  return it == baseline_.end() ? nullptr : it->second;
}

}  // namespace opsim::gui
