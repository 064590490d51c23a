#include "engine/exec/real_backend.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

#include "engine/exec/cpu_kernels.hpp"
#include "engine/exec/disk_file.hpp"
#include "engine/exec/operand_pair.hpp"

namespace opsim {

struct RealBackend::Worker {
  std::thread thread;
  // Bumped (once mutex_ is released) after another thread launched onto the empty queue;
  // the worker waits on it.
  std::atomic<std::uint32_t> seq{0};
  std::deque<Task> tasks;  // mutex_: launched, not yet started, in stream order
  bool stop = false;       // mutex_
  StreamIndex stream = 0;
  std::string stream_name;
  // Scratch for ops with no kernel attached; touched only by this worker.
  OperandPair operands;  // GEMM inputs; elementwise and copy source, destination
  std::vector<float> gemm_output;
  std::unique_ptr<DiskFile> disk;
  std::uint64_t rng = 0x2545F4914F6CDD1Dull;
};

namespace {
// How a thread waits for new work or completions: a few pause-polls (~1 us; a hand-off
// from a peer running on another core takes ~100 ns), then yields to other runnable threads
// for up to kYieldFor (the peer may be waiting for this very core: the kernel often puts
// two threads that wake each other on one core), then sleeps in the kernel (a futex
// wake-up costs microseconds, tens under load). 256 polls made each hand-off between two
// threads sharing a core cost ~18 us instead of ~5 us.
constexpr int kPolls = 32;
constexpr auto kYieldFor = std::chrono::microseconds(20);

void spin_then_wait(const std::atomic<std::uint32_t>& counter, std::uint32_t seen) {
  for (int i = 0; i < kPolls; ++i) {
    if (counter.load(std::memory_order_acquire) != seen) return;
    __builtin_ia32_pause();
  }
  const auto until = std::chrono::steady_clock::now() + kYieldFor;
  do {
    std::this_thread::yield();
    if (counter.load(std::memory_order_acquire) != seen) return;
  } while (std::chrono::steady_clock::now() < until);
  counter.wait(seen, std::memory_order_acquire);
}

// The worker running on this thread, if any: a launch onto its own stream needs no wake-up.
thread_local const void* tls_current_worker = nullptr;

bool runs_nothing(const Op& op) {
  return (op.kind == OpKind::kCompute && op.kernel == KernelClass::kNoop) ||
         (op.kind == OpKind::kHostDispatch && op.seconds <= 0);
}

void grow(std::vector<float>& v, std::size_t n) {
  if (v.size() < n) v.assign(n, 1.0f);
}
}  // namespace

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  return cpus;
}

void run_on(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : cpus) CPU_SET(c, &set);
  (void)::sched_setaffinity(0, sizeof set, &set);
}

RealBackend::RealBackend(KernelTable* kernels, RealBackendOptions options)
    : kernels_(kernels), options_(std::move(options)), t0_(std::chrono::steady_clock::now()) {}

RealBackend::~RealBackend() {
  gpu_streams_.reset();  // waits for GPU ops still running; they report under mutex_
  {
    std::lock_guard lock(mutex_);
    for (auto& w : workers_) {
      if (!w) continue;
      w->stop = true;
      w->seq.fetch_add(1, std::memory_order_release);
    }
  }
  for (auto& w : workers_) {
    if (!w) continue;
    w->seq.notify_one();
    w->thread.join();
  }
}

void RealBackend::prepare(const Machine& machine, const OpGraph& graph,
                         const StreamTable& streams, CompletionSink& sink) {
  for (OpId id = 0; id < graph.size(); ++id)
    if (graph.op(id).fixed_time)  // a recorded duration has no work to run for real
      throw std::invalid_argument("op '" + std::string(graph.name(id)) +
                                  "' has a recorded duration: it can only be simulated");
  streams_ = &streams;
  sink_ = &sink;
  // Grows only: a backend reused by a later scheduler keeps its workers (and their threads).
  if (workers_.size() < streams.size()) workers_.resize(streams.size());
  on_gpu_.assign(streams.size(), false);
  for (StreamIndex s = 0; s < streams.size(); ++s)
    on_gpu_[s] = machine.device(streams.info(s).device).kind == DeviceKind::kGpu;
  allowed_cpus_ = allowed_cpus();
  stream_cpu_.assign(streams.size(), -1);
  if (options_.pin_streams)
    for (StreamIndex s = 0; s < streams.size(); ++s) {
      const int core = pinned_core(machine, streams, s, static_cast<int>(allowed_cpus_.size()));
      if (core >= 0) stream_cpu_[s] = allowed_cpus_[static_cast<std::size_t>(core)];
    }
  gpu_streams_.reset();
  why_no_gpu_.clear();
  if (!machine.gpus().empty()) {
    std::shared_ptr<GpuRuntime> runtime = options_.gpu_runtime;
    if (!runtime) runtime = opsim::gpu_runtime(&why_no_gpu_);
    const auto machine_gpus = machine.gpus();
    if (runtime && runtime->device_count() < static_cast<int>(machine_gpus.size())) {
      why_no_gpu_ = "machine '" + machine.name() + "' has " + std::to_string(machine_gpus.size()) +
                    " GPUs, this host " + std::to_string(runtime->device_count());
      runtime = nullptr;
    }
    if (runtime) {
      // The machine's i-th GPU is CUDA device i.
      GpuPlacement placement;
      placement.device_gpu.assign(machine.devices().size(), -1);
      for (std::size_t i = 0; i < machine_gpus.size(); ++i)
        placement.device_gpu[machine_gpus[i]] = static_cast<int>(i);
      for (StreamIndex s = 0; s < streams.size(); ++s)
        placement.stream_gpu.push_back(placement.device_gpu[streams.info(s).device]);
      try {
        gpu_streams_ = runtime->open_streams(
            std::move(placement),
            [this](OpId op, std::int64_t start, std::int64_t end, std::exception_ptr error) {
              on_gpu_completed(op, start, end, std::move(error));
            });
      } catch (const std::exception& e) {
        why_no_gpu_ = e.what();
      }
    }
  }
  int threads = options_.blas_threads;
  if (threads <= 0) {
    int hw = std::max(1u, std::thread::hardware_concurrency());
    // The GPU completion thread polls on a core of its own while GPU ops run: a BLAS thread
    // sharing that core would hold back every GEMM it takes part in.
    if (hw > 1 && gpu_streams_) --hw;
    const auto cpus = machine.cpus();
    const std::uint32_t compute =
        cpus.empty() ? 1 : std::max(1u, streams.count(cpus.front(), StreamKind::kCompute));
    threads = std::max(1, hw / static_cast<int>(compute));
  }
  cpu::set_blas_threads(threads);
  // A pinned worker's OpenBLAS helper threads would share its one core (GEMMs ran 30 % slower
  // so): compute streams of several BLAS threads float (pinned_core() pins them only
  // where each has one, unless blas_threads asks for more).
  if (threads > 1)
    for (StreamIndex s = 0; s < streams.size(); ++s)
      if (streams.info(s).kind == StreamKind::kCompute) stream_cpu_[s] = -1;
  for (auto& w : workers_)  // kept from an earlier run: its stream may sit elsewhere now
    if (w && w->stream < streams.size()) place(*w);
  // The run's time starts here: closing the last run's GPU streams and opening new ones
  // (waiting for events, creating a completion thread) is set-up, not the run.
  t0_ = std::chrono::steady_clock::now();
}

void RealBackend::launch_on_gpu(const OpLaunch& l) {
  try {
    if (!gpu_streams_)
      throw NoGpu("op '" + std::string(to_string(l.op->kind)) + "' on " +
                  streams_->info(l.stream).name + " cannot run for real: " + why_no_gpu_);
    Op op = *l.op;
    op.device = l.device;
    gpu_streams_->enqueue(
        l.id, op, l.stream,
        kernels_ != nullptr ? kernels_->take_stream_kernel(l.id) : StreamKernel{});
  } catch (...) {
    // Failed before it ran: reported done at once (successors still run, as after a kernel
    // error), and rethrown from run_until().
    if (!error_) error_ = std::current_exception();
    const TimeNs t = now_ns();
    inline_done_.push_back(Completion{l.id, t, t});
  }
}

void RealBackend::on_gpu_completed(OpId op, std::int64_t start_steady_ns, std::int64_t end_steady_ns,
                                  std::exception_ptr error) {
  const std::int64_t t0 =
      std::chrono::duration_cast<std::chrono::nanoseconds>(t0_.time_since_epoch()).count();
  std::unique_lock lock(completion_mutex_);
  if (error && !error_) error_ = std::move(error);
  try {
    report(Completion{op, start_steady_ns - t0, end_steady_ns - t0});
  } catch (...) {
    if (!error_) error_ = std::current_exception();
  }
  wake_caller_if_needed();
}

TimeNs RealBackend::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              t0_)
      .count();
}

RealBackend::Worker& RealBackend::worker_for(StreamIndex stream) {
  auto& slot = workers_.at(stream);
  if (!slot) {
    slot = std::make_unique<Worker>();
    slot->stream = stream;
    slot->stream_name = streams_->info(stream).name;
    Worker* w = slot.get();
    slot->thread = std::thread([this, w] { worker_loop(*w); });
    place(*w);
  }
  return *slot;
}

void RealBackend::place(Worker& w) {
  if (allowed_cpus_.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (stream_cpu_[w.stream] >= 0)
    CPU_SET(stream_cpu_[w.stream], &set);
  else
    for (const int c : allowed_cpus_) CPU_SET(c, &set);
  // Best effort: a CPU taken away since prepare() leaves the worker where it was.
  (void)::pthread_setaffinity_np(w.thread.native_handle(), sizeof set, &set);
}

void RealBackend::launch(const OpLaunch& l) {
  ++in_flight_;
  Kernel kernel = kernels_ != nullptr ? kernels_->take(l.id) : Kernel{};
  if (!kernel && options_.inline_noops && runs_nothing(*l.op) &&
      (kernels_ == nullptr || !kernels_->has_stream_kernel(l.id))) {
    // Reported once the scheduler call that launched it returns (never inside launch()).
    const TimeNs t = now_ns();
    inline_done_.push_back(Completion{l.id, t, t});
    return;
  }
  if (on_gpu_[l.stream]) {
    launch_on_gpu(l);
    return;
  }
  if (!kernel && options_.host_dispatch_on_caller && l.op->kind == OpKind::kHostDispatch) {
    // A caller waiting in run_until() is woken for it once the launching report is done.
    caller_tasks_.push_back(Task{l.id, *l.op, {}});
    return;
  }
  Worker& w = worker_for(l.stream);
  const bool was_idle = w.tasks.empty();
  // The op is copied: the graph may grow (and move its ops) while the worker runs.
  w.tasks.push_back(Task{l.id, *l.op, std::move(kernel)});
  w.tasks.back().op.device = l.device;
  // A worker looks at its queue under mutex_ before it waits, so only a push onto an empty
  // queue can find it waiting. One that launches onto its own stream (a chain) takes the op
  // next without waiting. Others are signalled once mutex_ is released (unlock_and_wake):
  // signalled now, a polling worker would at once block on the mutex, or preempt this
  // thread on its core while the launches still to make (another stream's next op) wait.
  if (was_idle && tls_current_worker != &w &&
      std::find(to_wake_.begin(), to_wake_.end(), &w) == to_wake_.end())
    to_wake_.push_back(&w);
}

void RealBackend::worker_loop(Worker& w) {
  // Named after its stream (15 characters at most), so perf, top and gdb tell workers apart.
  pthread_setname_np(pthread_self(), ("opsim:" + w.stream_name).substr(0, 15).c_str());
  tls_current_worker = &w;
  std::unique_lock lock(completion_mutex_);
  for (;;) {
    if (w.stop) return;
    if (w.tasks.empty()) {
      // Read under mutex_: a push after this look bumps it, so the wait cannot miss it.
      const std::uint32_t seen = w.seq.load(std::memory_order_relaxed);
      lock.unlock();
      spin_then_wait(w.seq, seen);
      lock.lock();
      continue;
    }
    Task task = std::move(w.tasks.front());
    w.tasks.pop_front();
    lock.unlock();
    const TimeNs start = now_ns();
    std::exception_ptr failure;
    try {
      execute(w, task);
    } catch (...) {
      failure = std::current_exception();
    }
    task.kernel = nullptr;  // release captured buffers before the op is reported done
    const TimeNs end = now_ns();
    lock.lock();
    if (failure && !error_) error_ = failure;
    // This thread runs the scheduler's reaction itself: successors launched onto this
    // stream are this loop's next tasks.
    try {
      report(Completion{task.id, start, end});
    } catch (...) {  // nobody to throw to here: the caller rethrows it from run_until()
      if (!error_) error_ = std::current_exception();
    }
    wake_caller_if_needed();
  }
}

void RealBackend::execute(Worker& w, Task& task) {
  if (task.kernel) {
    task.kernel();
    return;
  }
  const Op& op = task.op;
  switch (op.kind) {
    case OpKind::kHostDispatch:
      cpu::busy_wait(op.seconds);
      return;
    case OpKind::kCompute: {
      if (op.kernel == KernelClass::kNoop) return;
      if (op.kernel == KernelClass::kGemm && op.flops > 0) {
        const auto n =
            static_cast<std::size_t>(std::max(1.0, std::round(std::cbrt(op.flops / 2.0))));
        w.operands.reserve(n * n);
        grow(w.gemm_output, n * n);
        cpu::sgemm(w.operands.source(), w.operands.destination(), w.gemm_output.data(), n, n, n);
        return;
      }
      const auto n = static_cast<std::size_t>(op.bytes / sizeof(float) / 2);
      w.operands.reserve(n);
      cpu::add(w.operands.source(), w.operands.source(), w.operands.destination(), n);
      return;
    }
    case OpKind::kCopy: {
      const auto n = static_cast<std::size_t>(op.bytes / sizeof(float));
      w.operands.reserve(n);
      std::memcpy(w.operands.destination(), w.operands.source(), n * sizeof(float));
      return;
    }
    case OpKind::kDiskRead:
    case OpKind::kDiskWrite: {
      if (!w.disk) {
        w.disk = std::make_unique<DiskFile>(options_.scratch_dir);
        if (!w.disk->note().empty()) {
          std::lock_guard lock(mutex_);
          disk_note_ = w.disk->note();
        }
      }
      const auto bytes = static_cast<std::uint64_t>(op.bytes);
      if (op.pattern == AccessPattern::kRandom && op.block_bytes > 0) {
        // Random requests inside the first 64 MiB of written blocks, block-aligned.
        constexpr std::uint64_t kRegionBytes = 64ull << 20;
        const std::uint64_t block = std::max<std::uint64_t>(op.block_bytes, DiskFile::kAlignBytes);
        w.disk->fill();
        for (std::uint64_t done = 0; done < bytes; done += block) {
          w.rng ^= w.rng << 13, w.rng ^= w.rng >> 7, w.rng ^= w.rng << 17;
          const std::uint64_t offset = (w.rng % (kRegionBytes / block)) * block;
          if (op.kind == OpKind::kDiskRead)
            w.disk->read(offset, block, block);
          else
            w.disk->write(offset, block, block);
        }
        return;
      }
      if (op.kind == OpKind::kDiskWrite) {
        w.disk->write_next(bytes, op.block_bytes);
      } else {
        w.disk->read_next(bytes, op.block_bytes);
      }
      return;
    }
  }
}

void RealBackend::report(const Completion& c) {
  --in_flight_;
  sink_->on_op_completed(c.id, c.start_ns, c.end_ns);
  report_inline_noops();
}

void RealBackend::report_inline_noops() {
  while (!inline_done_.empty()) {
    inline_batch_.clear();
    inline_batch_.swap(inline_done_);
    for (const Completion& c : inline_batch_) {
      --in_flight_;
      sink_->on_op_completed(c.id, c.start_ns, c.end_ns);
    }
  }
}

bool RealBackend::caller_may_return(const std::function<bool()>& done) const {
  // After a kernel error the caller waits for nothing in flight, then rethrows.
  return in_flight_ == 0 || !caller_tasks_.empty() || (!error_ && done());
}

void RealBackend::wake_caller_if_needed() {
  if (caller_done_ == nullptr || !caller_may_return(*caller_done_)) return;
  caller_done_ = nullptr;
  wake_caller_ = true;
}

void RealBackend::Mutex::lock() {
  // Critical sections are short (a report, an issued op): a thread that finds the mutex
  // held spins a little before sleeping in the kernel, which would cost the holder a futex
  // wake-up on unlock, and the sleeper microseconds to wake.
  for (int i = 0; i < kLockSpins; ++i) {
    if (backend_.mutex_.try_lock()) return;
    __builtin_ia32_pause();
  }
  backend_.mutex_.lock();
}

void RealBackend::unlock_and_wake() {
  if (to_wake_.empty() && !wake_caller_) {
    mutex_.unlock();
    return;
  }
  // Signalled after unlocking, so that a woken thread finds the mutex free. A waiter read
  // its counter under mutex_, before this holder's push, so the bump cannot be missed.
  thread_local std::vector<Worker*> waking;
  waking.swap(to_wake_);
  const bool wake_caller = std::exchange(wake_caller_, false);
  mutex_.unlock();
  for (Worker* w : waking) {
    w->seq.fetch_add(1, std::memory_order_release);
    w->seq.notify_one();
  }
  waking.clear();
  if (wake_caller) {
    if (options_.caller_polls) {
      caller_seq_.fetch_add(1, std::memory_order_release);
      caller_seq_.notify_one();
    } else {
      caller_cv_.notify_one();
    }
  }
}

void RealBackend::run_until_idle() {
  run_until([] { return false; });
}

void RealBackend::run_until(const std::function<bool()>& done) {
  std::unique_lock lock(completion_mutex_);
  if (sink_ == nullptr) return;
  for (;;) {
    report_inline_noops();  // e.g. frees the program submitted
    if (in_flight_ == 0 || (!error_ && done())) break;
    if (!caller_tasks_.empty()) {
      // The program's own dispatch work, on the program's thread.
      Task task = std::move(caller_tasks_.front());
      caller_tasks_.pop_front();
      lock.unlock();
      const TimeNs start = now_ns();
      cpu::busy_wait(task.op.seconds);
      const TimeNs end = now_ns();
      lock.lock();
      report(Completion{task.id, start, end});
      continue;
    }
    // Wait until a worker's report makes caller_may_return() hold; it clears caller_done_.
    caller_done_ = &done;
    if (options_.caller_polls) {
      const std::uint32_t seen = caller_seq_.load(std::memory_order_relaxed);
      lock.unlock();
      spin_then_wait(caller_seq_, seen);
      lock.lock();
    } else {
      // A condition variable, as MXNet's WaitToRead blocks: no spinning first (unlike
      // std::atomic::wait, which spins and yields for microseconds before sleeping). It
      // releases mutex_ itself, so the wake-ups this thread's launches deferred go first (a
      // report in between clears caller_done_, and the wait returns at once).
      if (!to_wake_.empty()) {
        lock.unlock();
        lock.lock();
      }
      std::unique_lock raw(mutex_, std::adopt_lock);
      caller_cv_.wait(raw, [&] { return caller_done_ == nullptr; });
      raw.release();
    }
    caller_done_ = nullptr;
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

std::string RealBackend::disk_note() const {
  std::lock_guard lock(mutex_);
  return disk_note_;
}

std::size_t RealBackend::worker_count() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& w : workers_) n += w ? 1 : 0;
  return n;
}

}  // namespace opsim
