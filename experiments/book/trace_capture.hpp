// A scheduler observer that builds a Trace of one run: a lane per stream used, every op
// with its start and end, dependencies, and a memory counter per device.
// (Replace with the shared TraceRecorder once engine/trace_recorder.hpp exists.)
#pragma once

#include <string>
#include <vector>

#include "engine/scheduler_observer.hpp"
#include "engine/trace.hpp"

namespace opsim::book {

class TraceCapture final : public SchedulerObserver {
 public:
  void on_op_finished(OpId op, DeviceId device, StreamIndex stream, TimeNs start_ns,
                      TimeNs end_ns) override;
  void on_memory_changed(DeviceId device, double bytes_in_use, TimeNs at_ns) override;

  /// The trace of what was observed, ops in id order (deterministic for a deterministic run).
  Trace build(const Machine& machine, const OpGraph& graph, std::string title,
              std::string backend) const;

 private:
  struct Record {
    OpId op;
    DeviceId device;
    StreamIndex stream;
    TimeNs start_ns;
    TimeNs end_ns;
  };
  struct MemorySample {
    DeviceId device;
    double bytes;
    TimeNs at_ns;
  };
  std::vector<Record> records_;
  std::vector<MemorySample> memory_;
};

}  // namespace opsim::book
