// Records a run as a Trace by observing the scheduler: one span per finished op on its
// stream lane, one span per link hop for every copy and disk op, the graph's dependencies
// between recorded ops, and memory and link-utilization counters.
//
//   TraceRecorder recorder(machine, graph, scheduler.streams(), "tree on 4 GPUs", "sim");
//   scheduler.add_observer(recorder);
//   scheduler.submit_all();
//   scheduler.run();
//   Trace trace = recorder.finish();
//
// During the run it only appends small fixed-size records; lanes, names, link spans and
// counters are built once in finish(), so it stays cheap on multi-million-op runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/op_graph.hpp"
#include "engine/scheduler_observer.hpp"
#include "engine/stream_table.hpp"
#include "engine/trace.hpp"
#include "hw_models/machine.hpp"

namespace opsim {

class TraceRecorder final : public SchedulerObserver {
 public:
  /// Machine, graph and streams must outlive the recorder. `streams` must be the scheduler's
  /// (Scheduler::streams()). `backend` is "sim" or "real".
  TraceRecorder(const Machine& machine, const OpGraph& graph, const StreamTable& streams,
                std::string title, std::string backend);
  /// Same, with its own StreamTable built from `machine` (identical to the scheduler's, since
  /// a StreamTable is a pure function of the machine).
  TraceRecorder(const Machine& machine, const OpGraph& graph, std::string title = "",
                std::string backend = "sim");
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  void on_op_finished(OpId op, DeviceId device, StreamIndex stream, TimeNs start_ns,
                      TimeNs end_ns) override;
  void on_memory_changed(DeviceId device, double bytes_in_use, TimeNs at_ns) override;

  /// Builds the trace from what was observed. Lanes: stream lanes that were used, ordered by
  /// server, device, stream; then link lanes "<link> <from>→<to>" ordered by link, a→b first
  /// (half-duplex links: one lane "<link> <a>↔<b>").
  /// Ops are ordered by op id. Can be called more than once.
  Trace finish() const;

  /// Name of the lane for one direction of a link: "pcie_gpu0 gpu0→pcie_sw0"; a half-duplex
  /// link has one lane for both directions: "sata0 disk0↔cpu0".
  static std::string link_lane_name(const Machine& machine, LinkId link, bool forward);

 private:
  struct FinishedOp {
    OpId op;
    DeviceId device;
    StreamIndex stream;
    TimeNs start_ns;
    TimeNs end_ns;
  };
  struct MemorySample {
    DeviceId device;
    double bytes_in_use;
    TimeNs at_ns;
  };
  /// The link lanes a trace got, and for each lane the indices of its link spans.
  struct LinkLaneIndex {
    std::vector<std::uint32_t> lanes;
    std::vector<std::vector<std::uint32_t>> spans_of_lane;
  };

  // The steps of finish(), in order.
  std::vector<FinishedOp> last_report_per_op() const;
  std::vector<std::uint32_t> add_stream_lanes(Trace& trace,
                                              const std::vector<FinishedOp>& finished) const;
  std::vector<std::uint32_t> add_ops(Trace& trace, const std::vector<FinishedOp>& finished,
                                     const std::vector<std::uint32_t>& lane_of_stream) const;
  LinkLaneIndex add_link_lanes(Trace& trace, const std::vector<FinishedOp>& finished) const;
  void add_dependencies(Trace& trace, const std::vector<FinishedOp>& finished,
                        const std::vector<std::uint32_t>& index_of_op) const;
  void add_memory_counters(Trace& trace) const;

  const Machine& machine_;
  const OpGraph& graph_;
  std::unique_ptr<StreamTable> owned_streams_;  // set by the constructor without streams
  const StreamTable& streams_;
  std::string title_;
  std::string backend_;
  std::vector<FinishedOp> finished_;
  std::vector<MemorySample> memory_;
};

}  // namespace opsim
