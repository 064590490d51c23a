// The real executor: one worker thread per host stream the scheduler uses (each worker
// runs its stream's ops in launch order, from a FIFO), real OpenBLAS GEMM, elementwise
// loops, memcpy, O_DIRECT file I/O and busy host dispatch; ops on GPU streams go to CUDA
// streams through the GpuRuntime (gpu_runtime.hpp), whose completion thread reports them
// the same way a worker does. A machine with GPUs runs for real only where CUDA sees them:
// elsewhere each GPU op fails with the reason, rethrown by run_until().
// A worker that finishes an op reports it to the CompletionSink itself, under the backend's
// completion mutex, and the sink launches successors from there: a successor launched onto
// the same stream is simply the worker's next op, with no hand-off between threads (as
// oneTBB runs a successor on the thread that finished its predecessor). The thread in
// run_until() only waits, runs host-dispatch ops and rethrows kernel errors.
//
//   KernelTable kernels;                  // real data: per-op closures (optional)
//   RealBackend backend(&kernels);
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
#include "engine/exec/gpu_runtime.hpp"
#include "engine/exec/kernel_table.hpp"

namespace opsim {

/// The CPUs the calling thread may run on, in increasing order: the cores pinned_core()
/// counts, so that the executor's pinning and the calibration's per-core rates index them
/// alike. Empty if the affinity cannot be read.
std::vector<int> allowed_cpus();
/// Lets the calling thread run on `cpus` only (best effort).
void run_on(const std::vector<int>& cpus);

struct RealBackendOptions {
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
  /// Pins each CPU stream's worker to the core pinned_core() names (StarPU binds its
  /// workers likewise): on a VM each vCPU has its own speed, which the simulator knows per
  /// core only if it knows where each stream runs (workload runs, RealWorkloadRunner, pin).
  /// Off: every worker floats, which a program sharing its cores with other work prefers.
  bool pin_streams = false;
  /// Runs the ops of GPU streams; null: gpu_runtime(), when the machine has GPUs.
  std::shared_ptr<GpuRuntime> gpu_runtime;
};

class RealBackend final : public Backend {
 public:
  explicit RealBackend(KernelTable* kernels = nullptr, RealBackendOptions options = {});
  ~RealBackend() override;
  RealBackend(const RealBackend&) = delete;
  RealBackend& operator=(const RealBackend&) = delete;

  std::string_view name() const override { return "real"; }
  void prepare(const Machine& machine, const OpGraph& graph, const StreamTable& streams,
               CompletionSink& sink) override;
  /// Called under completion_mutex() (the scheduler holds it).
  void launch(const OpLaunch& launch) override;
  void run_until_idle() override;
  /// Runs until `done()` holds or nothing is in flight. A kernel's exception is rethrown
  /// here, on the calling thread, once nothing is in flight (workers may still be reporting
  /// to the scheduler until then).
  void run_until(const std::function<bool()>& done) override;
  TimeNs now_ns() const override;
  bool queues_streams_in_order() const override { return options_.pipeline_streams; }
  CompletionMutex* completion_mutex() override { return &completion_mutex_; }

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
  // mutex_, plus the wake-ups that launches deferred until it is released.
  class Mutex final : public CompletionMutex {
   public:
    explicit Mutex(RealBackend& backend) : backend_(backend) {}
    void lock() override;
    void unlock() override { backend_.unlock_and_wake(); }

   private:
    static constexpr int kLockSpins = 128;
    RealBackend& backend_;
  };

  Worker& worker_for(StreamIndex stream);
  void launch_on_gpu(const OpLaunch& launch);
  void on_gpu_completed(OpId op, std::int64_t start_steady_ns, std::int64_t end_steady_ns,
                        std::exception_ptr error);
  void worker_loop(Worker& worker);
  void execute(Worker& worker, Task& task);
  // The rest run under mutex_.
  void report(const Completion& completion);
  void report_inline_noops();
  void wake_caller_if_needed();
  bool caller_may_return(const std::function<bool()>& done) const;
  void unlock_and_wake();

  KernelTable* kernels_;
  RealBackendOptions options_;
  const StreamTable* streams_ = nullptr;
  std::chrono::steady_clock::time_point t0_;

  // Every access to the scheduler, its graph and the kernel table, and everything below
  // marked so, holds mutex_ (through completion_mutex_, whose unlock wakes deferred workers).
  mutable std::mutex mutex_;
  Mutex completion_mutex_{*this};
  CompletionSink* sink_ = nullptr;                // mutex_
  std::vector<std::unique_ptr<Worker>> workers_;  // mutex_ (each worker's tasks too)
  std::uint64_t in_flight_ = 0;                   // mutex_
  std::vector<Completion> inline_done_;           // mutex_: no-ops not yet reported
  std::vector<Completion> inline_batch_;          // mutex_: the ones being reported
  std::deque<Task> caller_tasks_;                 // mutex_: host dispatch, in order
  std::vector<Worker*> to_wake_;                  // mutex_: woken once it is released
  std::exception_ptr error_;                      // mutex_: the first kernel error
  std::string disk_note_;                         // mutex_
  // GPU streams: which of streams_ are a GPU's; what runs them (null: why_no_gpu_ says why).
  std::vector<bool> on_gpu_;
  // Per stream: the CPU its worker is pinned to (options_.pin_streams), or -1: it floats over
  // allowed_cpus_, the CPUs the process may run on at prepare().
  std::vector<int> stream_cpu_;
  std::vector<int> allowed_cpus_;
  void place(Worker& w);
  std::unique_ptr<GpuStreams> gpu_streams_;
  std::string why_no_gpu_;
  // The thread in run_until(), when it waits: what it waits for, checked by the thread that
  // reports a completion, which then wakes it (and only then: a caller woken per completion
  // would cost a futex wake-up and a turn on the mutex per op).
  const std::function<bool()>* caller_done_ = nullptr;  // mutex_; non-null while waiting
  bool wake_caller_ = false;                            // mutex_: notify when unlocking
  std::atomic<std::uint32_t> caller_seq_{0};  // bumped after unlocking: wakes a polling caller
  std::condition_variable caller_cv_;         // wakes a caller blocked on mutex_
};

}  // namespace opsim
