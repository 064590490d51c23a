// What-if against a baseline: the simulated run from before the user's first edit stays as
// the baseline (ghosted under the new run, with the difference per strategy) until the user
// drops it, and the shown results are marked stale from an edit until its re-simulation
// arrives.
#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gui/timeline_model.hpp"
#include "gui/trace_set.hpp"

namespace opsim::gui {

/// The link lane that was busy longest (union of its spans), or an empty name when none.
struct BusiestLink {
  std::string name;
  TimeNs busy_ns = 0;
};
BusiestLink busiest_link(const TimelineModel& model);

/// "before 60.00 ms → 120.0 ms (+100.0%) · busiest link pcie_gpu0 down 30.00 ms → 60.00 ms".
QString baseline_difference(const TimelineModel& before, const TimelineModel& now);

class WhatIfState : public QObject {
  Q_OBJECT
 public:
  explicit WhatIfState(QObject* parent = nullptr) : QObject(parent) {}

  /// A new simulated run replaces `shown` (the panes on screen before it). When no baseline
  /// is held and the run follows an edit, the simulated panes of `shown` become it. Clears
  /// staleness.
  void on_new_run(const std::vector<Pane>& shown);
  /// The inputs changed: what is shown is stale until on_new_run().
  void on_edit();
  void drop_baseline();

  bool stale() const { return stale_; }
  bool has_baseline() const { return !baseline_.empty(); }
  /// The baseline run of the strategy titled `title`, or null.
  std::shared_ptr<const TimelineModel> baseline_for(const QString& title) const;

 signals:
  void changed();

 private:
  std::map<QString, std::shared_ptr<const TimelineModel>> baseline_;
  bool stale_ = false;
  bool edited_ = false;  ///< an edit happened since the last run arrived
};

}  // namespace opsim::gui
