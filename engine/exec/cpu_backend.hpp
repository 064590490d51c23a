// The real executor on the host: one worker thread per stream the scheduler uses (each
// worker runs its stream's ops in launch order, from a FIFO), real
// OpenBLAS GEMM, elementwise loops, memcpy, O_DIRECT file I/O and busy host dispatch.
// Workers post completions to a queue; run_until_idle() pops them on the calling thread
// and hands them to the CompletionSink, which launches successors.
//
//   KernelTable kernels;                  // real data: per-op closures (optional)
//   CpuBackend backend(&kernels);
//   Scheduler scheduler(machine, graph, backend);
//   scheduler.submit_all();
//   scheduler.run();                      // wall-clock start/end per op, ns since prepare()
//
// An op with no kernel attached does what its Op says on scratch memory: a GEMM of
// flops = 2n^3, a pass over `bytes` for other kernels, a memcpy of `bytes` for copies, real
// file reads/writes for disk ops, `seconds` of busy time for host dispatch.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend.hpp"
#include "engine/exec/kernel_table.hpp"

namespace opsim {

struct CpuBackendOptions {
  /// Where disk ops put their scratch files; empty: the system temp directory.
  std::string scratch_dir;
  /// Threads per OpenBLAS call; 0: hardware threads / compute streams of the first CPU.
  int blas_threads = 0;
  /// Ops with nothing to run (a no-op kernel with no closure, zero-second dispatch) complete
  /// on the calling thread instead of a worker: no thread hand-off for pure dependencies.
  bool inline_noops = true;
  /// Each worker keeps a FIFO of its stream's launched ops, so the scheduler may hand over a
  /// stream's ready ops without waiting for the previous one to finish (see
  /// Backend::queues_streams_in_order). Off: one op per stream at a time, as in simulation.
  bool pipeline_streams = true;
  /// How run_until() waits for a completion: poll briefly, then sleep (true), or sleep at
  /// once on a condition variable (false; MXNet's wait_to_read blocks that way). Polling
  /// makes a blocking wait on a tiny op cost ~1-2 us instead of a sleep and a wake-up.
  bool caller_polls = true;
  /// Host-dispatch ops (the issuing program's own time) run on the thread that drives the
  /// scheduler, between its launches, as a program's dispatch cost is paid on its own
  /// thread; off: on a worker of the host stream, like any other op.
  bool host_dispatch_on_caller = true;
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(KernelTable* kernels = nullptr, CpuBackendOptions options = {});
  ~CpuBackend() override;
  CpuBackend(const CpuBackend&) = delete;
  CpuBackend& operator=(const CpuBackend&) = delete;

  std::string_view name() const override { return "real"; }
  void prepare(const Machine& machine, const OpGraph& graph, const StreamTable& streams,
               CompletionSink& sink) override;
  void launch(const OpLaunch& launch) override;
  void run_until_idle() override;
  /// Runs until `done()` holds (checked after each batch of completions) or nothing is in
  /// flight. A kernel's exception is rethrown here, on the calling thread.
  void run_until(const std::function<bool()>& done) override;
  TimeNs now_ns() const override;
  bool queues_streams_in_order() const override { return options_.pipeline_streams; }

  /// Ops started and not yet reported.
  std::uint64_t in_flight() const { return in_flight_; }
  /// Non-empty when a disk op could not use O_DIRECT (why, and what that means).
  std::string disk_note() const;
  /// Worker threads started so far (one per stream that ran an op off the calling thread).
  std::size_t worker_count() const;

 private:
  struct Task {
    OpId id = 0;
    Op op;
    Kernel kernel;
  };
  struct Completion {
    OpId id;
    TimeNs start_ns;
    TimeNs end_ns;
  };
  struct Worker;

  Worker& worker_for(StreamIndex stream);
  void worker_loop(Worker& worker);
  void execute(Worker& worker, Task& task);
  void post(const Completion& completion);
  bool drain();
  void wake_deferred();

  KernelTable* kernels_;
  CpuBackendOptions options_;
  const StreamTable* streams_ = nullptr;
  CompletionSink* sink_ = nullptr;
  std::chrono::steady_clock::time_point t0_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::uint64_t in_flight_ = 0;
  std::vector<Completion> inline_done_;  // calling thread only
  std::vector<Completion> batch_;        // calling thread only
  bool handling_completions_ = false;    // calling thread only: launches defer wake-ups
  std::vector<Worker*> to_wake_;         // calling thread only
  std::deque<Task> caller_tasks_;        // calling thread only: host dispatch, in order

  mutable std::mutex done_mutex_;
  std::vector<Completion> done_;  // guarded by done_mutex_
  std::exception_ptr error_;      // guarded by done_mutex_
  std::string disk_note_;         // guarded by done_mutex_
  std::atomic<std::uint32_t> done_seq_{0};
  std::condition_variable done_cv_;  // wakes a caller blocked without polling
  bool caller_blocked_ = false;      // guarded by done_mutex_
};

}  // namespace opsim
