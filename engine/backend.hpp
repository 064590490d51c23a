// What the scheduler drives. A backend executes the ops it is handed, as they are handed
// (never the whole graph up front), and reports each completion with its start and end
// time. The real executor and the SimGrid simulator both implement it.
#pragma once

#include <functional>
#include <string_view>

#include "engine/op_graph.hpp"
#include "engine/stream_table.hpp"
#include "hw_models/machine.hpp"
#include "hw_models/units.hpp"

namespace opsim {

/// Receives completions. Backends call it on the thread that called run_until_idle(), or, when
/// they have a completion_mutex(), on any of their threads while holding that mutex.
class CompletionSink {
 public:
  virtual ~CompletionSink() = default;
  virtual void on_op_completed(OpId op, TimeNs start_ns, TimeNs end_ns) = 0;
};

/// Serializes every access to a scheduler and its graph with a backend whose own threads report
/// completions (BasicLockable, for std::unique_lock). Its unlock() may also do the backend's
/// deferred work, e.g. wake worker threads that the holder launched ops onto.
class CompletionMutex {
 public:
  virtual void lock() = 0;
  virtual void unlock() = 0;

 protected:
  ~CompletionMutex() = default;
};

/// One ready op, placed: `device` is resolved even when the op carried none.
struct OpLaunch {
  OpId id = 0;
  const Op* op = nullptr;
  DeviceId device = kNoDevice;
  StreamIndex stream = 0;
  /// When the op became ready (backend clock), for a backend that runs one op per stream at a
  /// time (0 for one that queues streams in order). Earlier than now: it waited behind its
  /// busy stream, where a real GPU stream already holds it (the host enqueued it meanwhile).
  TimeNs ready_ns = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// "sim" or "real": recorded in traces.
  virtual std::string_view name() const = 0;
  /// Called once, before any launch. The graph may grow afterwards (dynamic programs).
  virtual void prepare(const Machine& machine, const OpGraph& graph, const StreamTable& streams,
                       CompletionSink& sink) = 0;
  /// Starts one ready op now. May be called from inside CompletionSink callbacks.
  virtual void launch(const OpLaunch& launch) = 0;
  /// Runs until nothing is in flight, reporting every completion to the sink. Completions
  /// typically launch more ops, which this call also runs.
  virtual void run_until_idle() = 0;
  /// Runs until `done()` holds or nothing is in flight, whichever comes first; `done` is
  /// checked between completions, under completion_mutex() if there is one (possibly on a
  /// backend thread: it must only read the scheduler). A program's blocking wait (wait_to_read)
  /// uses it so that independent work keeps running. The default runs until idle, which is correct
  /// but waits longer than needed.
  virtual void run_until(const std::function<bool()>& done) {
    (void)done;
    run_until_idle();
  }
  /// True when the backend keeps each stream in order itself (like a CUDA stream or a
  /// worker's FIFO): the scheduler may then launch a stream's next ready op while the
  /// previous one still runs, saving a round trip per op. False (the default): one op per
  /// stream at a time, e.g. for SimGrid, which would share a host among concurrent execs.
  /// With pipelining an op's allocation (OpGraph::memory_effect) counts from its launch, as a
  /// framework allocates an output when it enqueues the kernel; start/end times are still when it
  /// really ran. Constant for a backend: the scheduler asks once, when it is made.
  virtual bool queues_streams_in_order() const { return false; }
  /// Non-null when the backend reports completions on threads of its own (a worker that
  /// finishes an op runs its successors' scheduling itself): whoever touches the scheduler or
  /// its graph from another thread must hold it. Null (the default): completions arrive only
  /// inside run_until()/run_until_idle() on the calling thread, and nothing is locked.
  virtual CompletionMutex* completion_mutex() { return nullptr; }
  /// Current time on the backend's clock (simulated or wall), in nanoseconds since prepare.
  virtual TimeNs now_ns() const = 0;
};

}  // namespace opsim
