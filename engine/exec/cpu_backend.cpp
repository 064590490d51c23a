#include "engine/exec/cpu_backend.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <optional>

#include "engine/exec/cpu_kernels.hpp"
#include "engine/exec/disk_file.hpp"

namespace opsim {

struct CpuBackend::Worker {
  std::thread thread;
  std::atomic<std::uint32_t> seq{0};  // bumped after each push; the worker waits on it
  std::mutex mutex;
  std::deque<Task> tasks;  // guarded by mutex: launched, not yet started, in stream order
  bool stop = false;       // guarded by mutex
  StreamIndex stream = 0;
  std::string stream_name;
  // Scratch for ops with no kernel attached; touched only by this worker.
  std::vector<float> scratch_a, scratch_b, scratch_c;
  std::unique_ptr<DiskFile> disk;
  std::uint64_t disk_offset = 0;
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

bool runs_nothing(const Op& op) {
  return (op.kind == OpKind::kCompute && op.kernel == KernelClass::kNoop) ||
         (op.kind == OpKind::kHostDispatch && op.seconds <= 0);
}

void grow(std::vector<float>& v, std::size_t n) {
  if (v.size() < n) v.assign(n, 1.0f);
}
}  // namespace

CpuBackend::CpuBackend(KernelTable* kernels, CpuBackendOptions options)
    : kernels_(kernels), options_(std::move(options)), t0_(std::chrono::steady_clock::now()) {}

CpuBackend::~CpuBackend() {
  for (auto& w : workers_) {
    if (!w) continue;
    {
      std::lock_guard lock(w->mutex);
      w->stop = true;
    }
    w->seq.fetch_add(1, std::memory_order_release);
    w->seq.notify_one();
    w->thread.join();
  }
}

void CpuBackend::prepare(const Machine& machine, const OpGraph& /*graph*/,
                         const StreamTable& streams, CompletionSink& sink) {
  streams_ = &streams;
  sink_ = &sink;
  workers_.resize(streams.size());
  int threads = options_.blas_threads;
  if (threads <= 0) {
    const int hw = std::max(1u, std::thread::hardware_concurrency());
    const auto cpus = machine.cpus();
    const std::uint32_t compute =
        cpus.empty() ? 1 : std::max(1u, streams.count(cpus.front(), StreamKind::kCompute));
    threads = std::max(1, hw / static_cast<int>(compute));
  }
  cpu::set_blas_threads(threads);
  t0_ = std::chrono::steady_clock::now();
}

TimeNs CpuBackend::now_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              t0_)
      .count();
}

CpuBackend::Worker& CpuBackend::worker_for(StreamIndex stream) {
  auto& slot = workers_.at(stream);
  if (!slot) {
    slot = std::make_unique<Worker>();
    slot->stream = stream;
    slot->stream_name = streams_->info(stream).name;
    Worker* w = slot.get();
    slot->thread = std::thread([this, w] { worker_loop(*w); });
  }
  return *slot;
}

void CpuBackend::launch(const OpLaunch& l) {
  ++in_flight_;
  Kernel kernel = kernels_ != nullptr ? kernels_->take(l.id) : Kernel{};
  if (!kernel && options_.inline_noops && runs_nothing(*l.op)) {
    const TimeNs t = now_ns();
    inline_done_.push_back(Completion{l.id, t, t});
    return;
  }
  if (!kernel && options_.host_dispatch_on_caller && l.op->kind == OpKind::kHostDispatch) {
    caller_tasks_.push_back(Task{l.id, *l.op, {}});
    return;
  }
  Worker& w = worker_for(l.stream);
  // The op is copied: the graph may grow (and move its ops) while the worker runs.
  Task task{l.id, *l.op, std::move(kernel)};
  task.op.device = l.device;
  {
    std::lock_guard lock(w.mutex);
    w.tasks.push_back(std::move(task));
  }
  // A polling worker sees the bump at once. Waking a sleeping one is deferred to the end
  // of the batch of completions being handled: the woken worker may preempt this thread
  // on its core, and the launches still to make (another stream's next op) would wait
  // for that op to finish while the other core idles.
  w.seq.fetch_add(1, std::memory_order_release);
  if (handling_completions_) {
    if (std::find(to_wake_.begin(), to_wake_.end(), &w) == to_wake_.end()) to_wake_.push_back(&w);
  } else {
    w.seq.notify_one();
  }
}

void CpuBackend::worker_loop(Worker& w) {
  // Named after its stream (15 characters at most), so perf, top and gdb tell workers apart.
  pthread_setname_np(pthread_self(), ("opsim:" + w.stream_name).substr(0, 15).c_str());
  Task task;
  for (;;) {
    // Read the counter before looking at the queue: a push after the look changes it, so
    // the wait below cannot miss it.
    const std::uint32_t seen = w.seq.load(std::memory_order_acquire);
    bool have = false;
    {
      std::lock_guard lock(w.mutex);
      if (!w.tasks.empty()) {
        task = std::move(w.tasks.front());
        w.tasks.pop_front();
        have = true;
      } else if (w.stop) {
        return;
      }
    }
    if (!have) {
      spin_then_wait(w.seq, seen);
      continue;
    }
    const TimeNs start = now_ns();
    try {
      execute(w, task);
    } catch (...) {
      std::lock_guard lock(done_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    task.kernel = nullptr;  // release captured buffers before the op is reported done
    post(Completion{task.id, start, now_ns()});
  }
}

void CpuBackend::execute(Worker& w, Task& task) {
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
        grow(w.scratch_a, n * n);
        grow(w.scratch_b, n * n);
        grow(w.scratch_c, n * n);
        cpu::sgemm(w.scratch_a.data(), w.scratch_b.data(), w.scratch_c.data(), n, n, n);
        return;
      }
      const auto n = static_cast<std::size_t>(op.bytes / sizeof(float) / 2);
      grow(w.scratch_a, n);
      grow(w.scratch_b, n);
      cpu::add(w.scratch_a.data(), w.scratch_a.data(), w.scratch_b.data(), n);
      return;
    }
    case OpKind::kCopy: {
      const auto n = static_cast<std::size_t>(op.bytes / sizeof(float));
      grow(w.scratch_a, n);
      grow(w.scratch_b, n);
      std::memcpy(w.scratch_b.data(), w.scratch_a.data(), n * sizeof(float));
      return;
    }
    case OpKind::kDiskRead:
    case OpKind::kDiskWrite: {
      if (!w.disk) {
        namespace fs = std::filesystem;
        const fs::path dir = options_.scratch_dir.empty() ? fs::temp_directory_path()
                                                          : fs::path(options_.scratch_dir);
        std::string file = "opsim-" + std::to_string(::getpid()) + "-" + w.stream_name + ".bin";
        for (char& c : file)
          if (c == '/') c = '-';
        w.disk = std::make_unique<DiskFile>((dir / file).string());
        if (!w.disk->note().empty()) {
          std::lock_guard lock(done_mutex_);
          disk_note_ = w.disk->note();
        }
      }
      const auto bytes = static_cast<std::uint64_t>(op.bytes);
      if (op.pattern == AccessPattern::kRandom && op.block_bytes > 0) {
        // Random requests inside a 64 MiB region, block-aligned.
        constexpr std::uint64_t kRegionBytes = 64ull << 20;
        const std::uint64_t block = std::max<std::uint64_t>(op.block_bytes, DiskFile::kAlignBytes);
        if (op.kind == OpKind::kDiskRead) w.disk->ensure_size(kRegionBytes);
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
        w.disk->write(w.disk_offset, bytes, op.block_bytes);
        w.disk_offset += bytes;
      } else {
        w.disk->read(0, bytes, op.block_bytes);
      }
      return;
    }
  }
}

void CpuBackend::post(const Completion& completion) {
  bool caller_blocked = false;
  {
    std::lock_guard lock(done_mutex_);
    done_.push_back(completion);
    caller_blocked = caller_blocked_;
  }
  done_seq_.fetch_add(1, std::memory_order_release);
  if (caller_blocked)
    done_cv_.notify_one();
  else
    done_seq_.notify_one();
}

// Reports every completion available now; true if any was reported.
bool CpuBackend::drain() {
  bool any = false;
  for (;;) {
    batch_.clear();
    if (!inline_done_.empty()) {
      batch_.swap(inline_done_);
    } else {
      std::lock_guard lock(done_mutex_);
      if (error_) {
        std::exception_ptr e = error_;
        error_ = nullptr;
        std::rethrow_exception(e);
      }
      batch_.swap(done_);
    }
    if (batch_.empty()) return any;
    any = true;
    handling_completions_ = true;
    try {
      for (const Completion& c : batch_) {
        --in_flight_;
        sink_->on_op_completed(c.id, c.start_ns, c.end_ns);
      }
    } catch (...) {
      wake_deferred();
      throw;
    }
    wake_deferred();
  }
}

void CpuBackend::wake_deferred() {
  handling_completions_ = false;
  for (Worker* w : to_wake_) w->seq.notify_one();
  to_wake_.clear();
}

void CpuBackend::run_until_idle() {
  run_until([] { return false; });
}

void CpuBackend::run_until(const std::function<bool()>& done) {
  if (sink_ == nullptr) return;
  for (;;) {
    const std::uint32_t seq = done_seq_.load(std::memory_order_acquire);
    const bool any = drain();
    if (done()) return;
    if (in_flight_ == 0) return;
    if (any) continue;
    if (!caller_tasks_.empty()) {
      // The program's own dispatch work, run after every launch of the batch is made.
      Task task = std::move(caller_tasks_.front());
      caller_tasks_.pop_front();
      const TimeNs start = now_ns();
      cpu::busy_wait(task.op.seconds);
      inline_done_.push_back(Completion{task.id, start, now_ns()});
      continue;
    }
    if (options_.caller_polls) {
      spin_then_wait(done_seq_, seq);
    } else {
      // A condition variable, as MXNet's WaitToRead blocks: no spinning first (unlike
      // std::atomic::wait, which spins and yields for microseconds before sleeping).
      std::unique_lock lock(done_mutex_);
      caller_blocked_ = true;
      done_cv_.wait(lock, [&] { return !done_.empty() || error_ != nullptr; });
      caller_blocked_ = false;
    }
  }
}

std::string CpuBackend::disk_note() const {
  std::lock_guard lock(done_mutex_);
  return disk_note_;
}

std::size_t CpuBackend::worker_count() const {
  std::size_t n = 0;
  for (const auto& w : workers_) n += w ? 1 : 0;
  return n;
}

}  // namespace opsim
