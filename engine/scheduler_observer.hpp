// Tracing is an observer: the scheduler tells subscribers what happened; trace recorders,
// statistics and the GUI subscribe. Nothing in a backend writes a trace.
#pragma once

#include "engine/op_graph.hpp"
#include "engine/stream_table.hpp"
#include "hw_models/units.hpp"

namespace opsim {

class SchedulerObserver {
 public:
  virtual ~SchedulerObserver() = default;
  /// An op ran on `stream` of `device` from start_ns to end_ns.
  virtual void on_op_finished(OpId /*op*/, DeviceId /*device*/, StreamIndex /*stream*/,
                              TimeNs /*start_ns*/, TimeNs /*end_ns*/) {}
  /// Memory in use on `device` changed to `bytes_in_use` at `at_ns`.
  virtual void on_memory_changed(DeviceId /*device*/, double /*bytes_in_use*/, TimeNs /*at_ns*/) {}
  /// Every submitted op has finished; `makespan_ns` is the last end time.
  virtual void on_run_finished(TimeNs /*makespan_ns*/) {}
};

}  // namespace opsim
