// The real backend behind the shared scheduler: dependencies respected on a large random DAG,
// real host busy time, real file I/O, kernel errors surfacing on the calling thread.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <thread>

#include "engine/exec/real_backend.hpp"
#include "engine/exec/cpu_kernels.hpp"
#include "engine/frontend/host_machine.hpp"
#include "engine/scheduler.hpp"

namespace opsim {
namespace {

Machine two_cpu_machine() {
  Machine m("stress");
  CpuModel cpu;
  cpu.compute_streams = 3;
  cpu.copy_streams = 2;
  const DeviceId c0 = m.add_cpu("cpu0", cpu);
  const DeviceId c1 = m.add_cpu("cpu1", cpu);
  m.add_link("qpi", c0, c1, LinkModel{});
  m.seal();
  return m;
}

// Every op starts no earlier than each of its predecessors ended, and all ops finished.
void expect_dependencies_respected(const OpGraph& g, const Scheduler& s) {
  ASSERT_EQ(s.finished_count(), g.size());
  std::size_t violations = 0;
  for (OpId id = 0; id < g.size(); ++id) {
    g.for_each_successor(id, [&](OpId succ) {
      if (s.start_ns(succ) < s.end_ns(id)) ++violations;
    });
  }
  EXPECT_EQ(violations, 0u);
}

OpGraph random_dag(std::size_t ops, std::uint32_t seed) {
  std::mt19937 rng(seed);
  OpGraph g;
  g.reserve(ops);
  for (std::size_t i = 0; i < ops; ++i) {
    Op op;
    const unsigned r = rng() % 10;
    op.device = static_cast<DeviceId>(rng() % 2);
    if (r < 6) {
      op.kind = OpKind::kCompute;
      op.kernel = KernelClass::kNoop;
    } else if (r < 8) {
      op.kind = OpKind::kCompute;
      op.kernel = KernelClass::kElementwise;
      op.bytes = 256;
    } else {
      op.kind = OpKind::kCopy;
      op.peer = 1 - op.device;
      op.bytes = 512;
    }
    const OpId id = g.add(op, "op");
    const unsigned preds = id == 0 ? 0 : rng() % 4;
    for (unsigned p = 0; p < preds; ++p) {
      const std::uint32_t back = 1 + rng() % std::min<std::uint32_t>(id, 64);
      g.add_dependency(id - back, id);
    }
  }
  return g;
}

TEST(ExecRealBackend, RandomDagOf100kOpsRespectsEveryDependency) {
  const Machine m = two_cpu_machine();
  const OpGraph g = random_dag(100'000, 7);
  RealBackend backend;
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  expect_dependencies_respected(g, s);
  EXPECT_GE(backend.worker_count(), 4u);  // compute and memcpy streams on both CPUs ran work
}

TEST(ExecRealBackend, RandomDagWithEveryOpOnAWorkerThread) {
  const Machine m = two_cpu_machine();
  const OpGraph g = random_dag(20'000, 11);
  RealBackendOptions options;
  options.inline_noops = false;
  RealBackend backend(nullptr, options);
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  expect_dependencies_respected(g, s);
}

// Every op gets a kernel, so every op runs on a worker thread, and the worker that finishes
// an op runs the scheduler and starts its successors (on its own stream: as its next op).
// Each kernel checks that its predecessors' kernels ran. The flags are plain bytes: a
// successor started without a happens-before edge from its predecessors is also a data race
// that ThreadSanitizer reports.
void expect_kernels_see_their_predecessors(const OpGraph& g, RealBackendOptions options,
                                           SchedulerOptions scheduler_options = {}) {
  const Machine m = two_cpu_machine();
  const auto predecessors = g.predecessor_lists();
  std::vector<char> ran(g.size(), 0);
  std::atomic<std::size_t> violations{0};
  KernelTable kernels;
  for (OpId id = 0; id < g.size(); ++id) {
    kernels.set(id, [&ran, &violations, &predecessors, id] {
      for (OpId p : predecessors[id])
        if (!ran[p]) violations.fetch_add(1, std::memory_order_relaxed);
      ran[id] = 1;
    });
  }
  RealBackend backend(&kernels, options);
  Scheduler s(m, g, backend, scheduler_options);
  s.submit_all();
  s.run();
  EXPECT_EQ(violations.load(), 0u);
  EXPECT_EQ(std::count(ran.begin(), ran.end(), 1), static_cast<std::ptrdiff_t>(g.size()));
  expect_dependencies_respected(g, s);
}

TEST(ExecRealBackend, WorkersRunSuccessorsOfARandomDagInOrder) {
  const OpGraph g = random_dag(20'000, 13);
  for (bool pipeline : {true, false}) {
    SCOPED_TRACE(pipeline ? "pipelined streams" : "one op per stream at a time");
    RealBackendOptions options;
    options.inline_noops = false;
    options.pipeline_streams = pipeline;
    expect_kernels_see_their_predecessors(g, options);
  }
}

TEST(ExecRealBackend, WorkersRunSuccessorsUnderAnInFlightWindow) {
  const OpGraph g = random_dag(5'000, 17);
  RealBackendOptions options;
  options.inline_noops = false;
  expect_kernels_see_their_predecessors(g, options, SchedulerOptions{.max_in_flight = 3});
}

TEST(ExecRealBackend, AChainRunsInOrderOnOneWorker) {
  // A successor on the finishing worker's own stream is that worker's next op.
  OpGraph g;
  Op op;
  op.kind = OpKind::kCompute;
  op.kernel = KernelClass::kNoop;
  op.device = 0;
  constexpr std::size_t kOps = 50'000;
  for (std::size_t i = 0; i < kOps; ++i) {
    const OpId id = g.add(op, "link");
    if (i > 0) g.add_dependency(id - 1, id);
  }
  RealBackendOptions options;
  options.inline_noops = false;
  expect_kernels_see_their_predecessors(g, options);
  const Machine m = two_cpu_machine();
  RealBackend backend(nullptr, options);
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  expect_dependencies_respected(g, s);
  EXPECT_EQ(backend.worker_count(), 1u);
}

TEST(ExecRealBackend, MixedOpsMeetOnWorkersInlineAndTheCallerThread) {
  // No-ops complete inline (queued by the worker's launch, reported after its report), host
  // dispatch runs on the thread in run() (woken by the worker that launched it), the rest
  // on workers; with a blocking (non-polling) caller.
  std::mt19937 rng(5);
  OpGraph g;
  for (std::size_t i = 0; i < 3'000; ++i) {
    Op op;
    op.device = static_cast<DeviceId>(rng() % 2);
    const unsigned r = rng() % 10;
    if (r < 3) {
      op.kind = OpKind::kCompute;
      op.kernel = KernelClass::kNoop;
    } else if (r < 4) {
      op.kind = OpKind::kHostDispatch;
      op.device = 0;
      op.seconds = 1e-6;
    } else {
      op.kind = OpKind::kCompute;
      op.kernel = KernelClass::kElementwise;
      op.bytes = 256;
    }
    const OpId id = g.add(op, "op");
    const unsigned preds = id == 0 ? 0 : 1 + rng() % 3;
    for (unsigned p = 0; p < preds; ++p)
      g.add_dependency(id - 1 - rng() % std::min<std::uint32_t>(id, 16), id);
  }
  const Machine m = two_cpu_machine();
  for (bool caller_polls : {false, true}) {
    RealBackendOptions options;
    options.caller_polls = caller_polls;
    RealBackend backend(nullptr, options);
    Scheduler s(m, g, backend);
    s.submit_all();
    s.run();
    expect_dependencies_respected(g, s);
  }
}

TEST(ExecRealBackend, OpsOnDifferentStreamsRunAtTheSameTime) {
  // Each kernel waits until the other has started: serialised execution would time out.
  const Machine m = frontend::host_machine();
  OpGraph g;
  Op op;
  op.kind = OpKind::kCompute;
  op.kernel = KernelClass::kElementwise;
  op.device = 0;
  op.stream = 0;
  const OpId a = g.add(op, "a");
  op.stream = 1;
  const OpId b = g.add(op, "b");
  std::atomic<int> started{0};
  std::atomic<int> met{0};
  auto rendezvous = [&] {
    started.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (started.load() < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    if (started.load() == 2) met.fetch_add(1);
  };
  KernelTable kernels;
  kernels.set(a, rendezvous);
  kernels.set(b, rendezvous);
  RealBackend backend(&kernels);
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  EXPECT_EQ(met.load(), 2);
  EXPECT_NE(s.stream_of(a), s.stream_of(b));
  EXPECT_LT(std::max(s.start_ns(a), s.start_ns(b)), std::min(s.end_ns(a), s.end_ns(b)));
}

// Each CPU stream's worker runs on the core pinned_core() names (the simulator gives the
// stream that core's speed), the rest float over every CPU the process may use; with
// pin_streams off, every worker floats.
TEST(ExecRealBackend, WorkersRunOnTheCoresTheirStreamsArePinnedTo) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  const int cores = static_cast<int>(cpus.size());
  Machine m("pinned");
  CpuModel model;
  model.compute_streams = std::max(2, cores);
  model.copy_streams = 2;
  const DeviceId cpu = m.add_cpu("cpu0", model);
  m.seal();
  const StreamTable streams(m);
  for (const bool pin : {true, false}) {
    OpGraph g;
    std::vector<std::vector<int>> ran_on;
    auto add = [&](OpKind kind, std::uint32_t stream) {
      Op op;
      op.kind = kind;
      op.kernel = KernelClass::kElementwise;
      op.device = cpu;
      op.peer = cpu;
      op.bytes = 64;
      op.stream = stream;
      ran_on.emplace_back();
      return g.add(op, "op");
    };
    for (int i = 0; i < model.compute_streams; ++i) add(OpKind::kCompute, i);
    for (int j = 0; j < model.copy_streams; ++j) add(OpKind::kCopy, j);
    KernelTable kernels;
    for (OpId id = 0; id < g.size(); ++id)
      kernels.set(id, [&ran_on, id] {
        cpu_set_t mine;
        CPU_ZERO(&mine);
        if (::sched_getaffinity(0, sizeof mine, &mine) != 0) return;
        for (int c = 0; c < CPU_SETSIZE; ++c)
          if (CPU_ISSET(c, &mine)) ran_on[id].push_back(c);
      });
    RealBackendOptions options;
    options.pin_streams = pin;
    RealBackend backend(&kernels, options);
    Scheduler s(m, g, backend);
    s.submit_all();
    s.run();
    int pinned = 0;
    for (OpId id = 0; id < g.size(); ++id) {
      const int core = pin ? pinned_core(m, streams, s.stream_of(id), cores) : -1;
      pinned += core >= 0 ? 1 : 0;
      EXPECT_EQ(ran_on[id], core >= 0 ? std::vector<int>{cpus[core]} : cpus)
          << streams.info(s.stream_of(id)).name << (pin ? " pinned" : " floating");
    }
    // Every compute and memcpy stream has a core of its own or shares one, where there are two.
    EXPECT_EQ(pinned, pin && cores > 1 ? model.compute_streams + model.copy_streams : 0);
  }
}

TEST(ExecRealBackend, HostDispatchIsRealBusyTime) {
  const Machine m = frontend::host_machine();
  OpGraph g;
  Op op;
  op.kind = OpKind::kHostDispatch;
  op.device = 0;
  op.seconds = 3e-3;
  const OpId a = g.add(op, "dispatch a");
  const OpId b = g.add(op, "dispatch b");
  g.add_dependency(a, b);
  RealBackend backend;
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  EXPECT_GE(s.end_ns(a) - s.start_ns(a), 3'000'000);
  EXPECT_GE(s.start_ns(b), s.end_ns(a));
  EXPECT_GE(s.makespan_ns(), 6'000'000);
}

TEST(ExecRealBackend, KernelsRunWithTheirDataAndErrorsReachTheCaller) {
  const Machine m = frontend::host_machine();
  OpGraph g;
  Op op;
  op.kind = OpKind::kCompute;
  op.kernel = KernelClass::kElementwise;
  op.device = 0;
  const OpId a = g.add(op, "ok");
  const OpId b = g.add(op, "throws");
  g.add_dependency(a, b);
  KernelTable kernels;
  int value = 0;
  kernels.set(a, [&value] { value = 42; });
  kernels.set(b, [] { throw std::runtime_error("kernel failed"); });
  RealBackend backend(&kernels);
  Scheduler s(m, g, backend);
  s.submit_all();
  EXPECT_THROW(s.run(), std::runtime_error);
  EXPECT_EQ(value, 42);
  EXPECT_FALSE(kernels.has(a));  // moved out at launch
}

TEST(ExecRealBackend, DiskOpsWriteAndReadARealFile) {
  const Machine m = frontend::host_machine();
  const DeviceId disk = *m.find_device("disk0");
  OpGraph g;
  Op write;
  write.kind = OpKind::kDiskWrite;
  write.device = disk;
  write.peer = 0;
  write.bytes = 8 << 20;
  Op read = write;
  read.kind = OpKind::kDiskRead;
  const OpId w = g.add(write, "write 8 MiB");
  const OpId r = g.add(read, "read 8 MiB");
  g.add_dependency(w, r);
  Op random_read = read;
  random_read.pattern = AccessPattern::kRandom;
  random_read.block_bytes = 4096;
  random_read.bytes = 64 * 4096;
  const OpId rr = g.add(random_read, "64 random 4 KiB reads");
  g.add_dependency(r, rr);
  RealBackendOptions options;
  options.scratch_dir = OPSIM_BINARY_DIR;
  RealBackend backend(nullptr, options);
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  // 8 MiB cannot move in under 0.5 ms on any disk here (that would be 16 GB/s).
  EXPECT_GT(s.end_ns(w) - s.start_ns(w), 500'000);
  EXPECT_GT(s.end_ns(r) - s.start_ns(r), 500'000);
  EXPECT_GT(s.end_ns(rr) - s.start_ns(rr), 0);
  if (!backend.disk_note().empty()) std::printf("note: %s\n", backend.disk_note().c_str());
  // Scratch files are removed when the backend goes away.
}

TEST(ExecRealBackend, BlasThreadsAreSplitAcrossComputeStreams) {
  const Machine m = frontend::host_machine();
  OpGraph g;
  Op op;
  op.kind = OpKind::kCompute;
  op.kernel = KernelClass::kGemm;
  op.device = 0;
  op.flops = 2.0 * 64 * 64 * 64;
  g.add(op, "gemm");
  RealBackendOptions options;
  options.blas_threads = 1;
  RealBackend backend(nullptr, options);
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  EXPECT_EQ(s.finished_count(), 1u);
  EXPECT_EQ(cpu::blas_threads(), 1);
}

}  // namespace
}  // namespace opsim
