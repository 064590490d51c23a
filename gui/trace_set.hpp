// The traces being compared: one pane each, simulated by the scenario or opened from files.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "gui/op_twins.hpp"
#include "gui/replay_steps.hpp"
#include "gui/timeline_model.hpp"

namespace opsim::gui {

struct Pane {
  std::shared_ptr<const TimelineModel> model;
  QString title;
  double lower_bound_ns = -1;                ///< < 0: unknown
  bool from_file = false;                    ///< opened by the user rather than simulated
  std::shared_ptr<const OpTwins> twins;      ///< overlays: each op's twin, recorded vs replayed
  std::shared_ptr<const ReplaySteps> steps;  ///< replays: each profiler step's error
};

class TraceSet : public QObject {
  Q_OBJECT
 public:
  explicit TraceSet(QObject* parent = nullptr) : QObject(parent) {}

  const std::vector<Pane>& panes() const { return panes_; }
  /// Replaces the simulated panes, keeping opened files after them.
  void set_simulated(std::vector<Pane> panes);
  void add_file_pane(Pane pane);
  void clear_files();
  /// Rebuilds every pane's model with `options` (e.g. showing or hiding idle lanes).
  void set_options(TimelineOptions options);
  TimelineOptions options() const { return options_; }
  /// The end of the longest trace (ns).
  double end_ns() const;

 signals:
  void changed();

 private:
  std::vector<Pane> panes_;
  TimelineOptions options_{true};
};

}  // namespace opsim::gui
