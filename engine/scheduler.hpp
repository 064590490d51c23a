// The one scheduler. It alone decides placement, order and stream assignment; backends
// execute what it hands them. Ops are handed over only when ready (all predecessors
// finished), to one in-order stream each, within an optional bound on ops in flight.
//
//   SimBackend backend(options);              // or a real executor
//   Scheduler scheduler(machine, graph, backend);
//   TraceRecorder recorder(machine, graph);    // an observer
//   scheduler.add_observer(recorder);
//   scheduler.submit_all();
//   scheduler.run();
//   double seconds = ns_to_seconds(scheduler.makespan_ns());
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/backend.hpp"
#include "engine/scheduler_observer.hpp"
#include "engine/vector_fifo.hpp"

namespace opsim {

struct SchedulerOptions {
  /// Most ops started on the backend and not yet finished; 0: no bound.
  std::uint32_t max_in_flight = 0;
  /// Program threads per CPU, each a host stream of its own (a replayed trace's threads);
  /// a dispatch op's `stream` picks one.
  std::uint32_t host_threads = 1;
  /// Keep every op's start and end for start_ns() and end_ns(); false: 16 bytes per op less
  /// (a 16-million-op collective: 270 MB), and those return -1.
  bool keep_op_times = true;
};

class Scheduler final : public CompletionSink {
 public:
  Scheduler(const Machine& machine, const OpGraph& graph, Backend& backend,
            SchedulerOptions options = {});

  /// Observers are called under lock(), on whichever thread reports a completion.
  void add_observer(SchedulerObserver& observer) {
    const auto guard = lock();
    observers_.push_back(&observer);
  }

  /// Held while the backend's threads may touch this scheduler: a program that grows the
  /// graph or reads the scheduler's state while ops run must hold it (the accessors below do
  /// not lock). An empty lock, which costs nothing, for backends that complete ops only on
  /// the thread in run() (Backend::completion_mutex). Not recursive.
  [[nodiscard]] std::unique_lock<CompletionMutex> lock() const {
    return completion_mutex_ != nullptr ? std::unique_lock(*completion_mutex_)
                                        : std::unique_lock<CompletionMutex>();
  }

  /// Submits every op of the graph (a static graph). Call once, then run().
  void submit_all();
  /// Submits one op whose predecessors are given (a program that grows the graph as it
  /// runs). Predecessors already finished are not waited for.
  void submit(OpId op, std::span<const OpId> predecessors) {
    const auto guard = lock();
    submit_locked(op, predecessors);
  }
  /// submit() by a caller that holds lock(), e.g. since it added the op to the graph.
  void submit_locked(OpId op, std::span<const OpId> predecessors);
  /// Runs until every submitted op has finished.
  void run();
  /// Runs until `done()` holds or nothing is in flight (a blocking wait of a program that
  /// keeps submitting). Unlike run(), it does not require every submitted op to finish and
  /// does not notify on_run_finished. `done` is called under lock(); do not lock in it.
  void run_until(const std::function<bool()>& done) { backend_.run_until(done); }
  /// Ops submitted so far (finished or not).
  std::size_t submitted_count() const { return submitted_count_; }

  bool finished(OpId op) const { return op < state_.size() && state_[op].remaining == kFinished; }
  TimeNs start_ns(OpId op) const { return op < times_.size() ? times_[op].start_ns : -1; }
  TimeNs end_ns(OpId op) const { return op < times_.size() ? times_[op].end_ns : -1; }
  DeviceId placed_device(OpId op) const;
  StreamIndex stream_of(OpId op) const { return state_[op].stream; }
  TimeNs makespan_ns() const { return makespan_ns_; }
  std::size_t finished_count() const { return finished_count_; }
  std::uint32_t in_flight() const { return in_flight_; }
  /// Highest memory in use on a device during the run, in bytes.
  double peak_memory_bytes(DeviceId device) const { return peak_memory_bytes_[device]; }
  const StreamTable& streams() const { return streams_; }
  const Machine& machine() const { return machine_; }
  const OpGraph& graph() const { return graph_; }

  void on_op_completed(OpId op, TimeNs start_ns, TimeNs end_ns) override;

 private:
  // 8 bytes per op (and 16 more with keep_op_times): a 16-million-op run keeps this for every op.
  struct OpState {
    std::uint32_t remaining = kNotSubmitted;  // unfinished predecessors, or the two below
    StreamIndex stream = 0;
  };
  struct OpTimes {
    TimeNs start_ns = -1;
    TimeNs end_ns = -1;
  };
  static constexpr std::uint32_t kNotSubmitted = UINT32_MAX;
  static constexpr std::uint32_t kFinished = UINT32_MAX - 1;
  struct Queued {
    OpId id;
    TimeNs ready_ns;  // when it became ready (OpLaunch::ready_ns)
  };
  struct StreamState {
    VectorFifo<Queued> queue;
    std::uint32_t launched = 0;  // ops on the backend, not yet finished (<= 1 unless pipelined)
    bool waiting_for_window = false;
    std::uint64_t assigned = 0;  // ops ever assigned: spreads unpinned work
  };

  void grow_to(std::size_t ops);
  void make_ready(OpId op);
  DeviceId place(const Op& op);
  StreamIndex choose_stream(const Op& op, DeviceId device);
  StreamIndex least_loaded(DeviceId device, StreamKind kind);
  void try_start(StreamIndex stream);
  void change_memory(DeviceId device, double delta_bytes, TimeNs at_ns);

  const Machine& machine_;
  const OpGraph& graph_;
  Backend& backend_;
  CompletionMutex* const completion_mutex_;  // null: nothing to lock
  const bool in_order_streams_;              // backend_.queues_streams_in_order(), asked once
  SchedulerOptions options_;
  StreamTable streams_;
  std::vector<SchedulerObserver*> observers_;
  std::vector<OpState> state_;
  std::vector<OpTimes> times_;                          // empty unless options_.keep_op_times
  std::unordered_map<OpId, DeviceId> placed_unpinned_;  // compute ops that carried no device
  std::vector<StreamState> stream_state_;
  std::deque<StreamIndex> window_waiters_;
  std::vector<double> memory_bytes_;
  std::vector<double> peak_memory_bytes_;
  std::vector<std::uint64_t> placed_count_;
  std::vector<OpId> newly_ready_;
  std::uint32_t in_flight_ = 0;
  std::size_t submitted_count_ = 0;
  std::size_t finished_count_ = 0;
  TimeNs makespan_ns_ = 0;
  bool prepared_ = false;
};

}  // namespace opsim
