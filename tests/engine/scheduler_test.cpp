// Tests the scheduler's own decisions (readiness, in-order streams, stream choice,
// in-flight window, memory accounting) against a small discrete-event backend defined
// here, in which every op takes op.seconds (or 1 ms). The SimGrid and real backends have
// their own tests.
#include "engine/scheduler.hpp"

#include <gtest/gtest.h>

#include <map>
#include <queue>

namespace opsim {
namespace {

class FixedDurationBackend final : public Backend {
 public:
  std::string_view name() const override { return "fixed"; }
  void prepare(const Machine&, const OpGraph&, const StreamTable&, CompletionSink& sink) override {
    sink_ = &sink;
  }
  void launch(const OpLaunch& launch) override {
    const double seconds = launch.op->seconds > 0 ? launch.op->seconds : 1e-3;
    pending_.push({now_ns_ + seconds_to_ns(seconds), launch.id, now_ns_});
    ++launches_;
    max_in_flight_ = std::max(max_in_flight_, pending_.size());
  }
  void run_until_idle() override {
    while (!pending_.empty()) {
      const Event e = pending_.top();
      pending_.pop();
      now_ns_ = e.end_ns;
      sink_->on_op_completed(e.op, e.start_ns, e.end_ns);
    }
  }
  TimeNs now_ns() const override { return now_ns_; }
  std::size_t max_in_flight_ = 0;
  std::size_t launches_ = 0;

 private:
  struct Event {
    TimeNs end_ns;
    OpId op;
    TimeNs start_ns;
    bool operator>(const Event& o) const {
      return end_ns != o.end_ns ? end_ns > o.end_ns : op > o.op;
    }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<>> pending_;
  CompletionSink* sink_ = nullptr;
  TimeNs now_ns_ = 0;
};

Machine one_gpu_two_streams() {
  Machine m("m");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  GpuModel gpu_model;
  gpu_model.compute_streams = 2;
  const DeviceId gpu = m.add_gpu("gpu0", gpu_model);
  m.add_link("pcie", cpu, gpu, LinkModel::pcie(3, 16));
  m.seal();
  return m;
}

Op timed(DeviceId device, double seconds, int stream = -1) {
  Op op;
  op.kind = OpKind::kCompute;
  op.device = device;
  op.seconds = seconds;
  op.stream = stream;
  return op;
}

TEST(Scheduler, SameStreamRunsInOrderOtherStreamsOverlap) {
  const Machine m = one_gpu_two_streams();
  OpGraph g;
  const OpId a = g.add(timed(1, 2e-3, 0), "a");
  const OpId b = g.add(timed(1, 2e-3, 0), "b");
  const OpId c = g.add(timed(1, 2e-3, 1), "c");
  FixedDurationBackend backend;
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  EXPECT_EQ(s.start_ns(a), 0);
  EXPECT_EQ(s.start_ns(b), 2'000'000);  // waits for a on stream 0
  EXPECT_EQ(s.start_ns(c), 0);          // stream 1 runs at once
  EXPECT_EQ(s.makespan_ns(), 4'000'000);
  EXPECT_EQ(s.streams().info(s.stream_of(c)).name, "gpu0/compute1");
}

TEST(Scheduler, DependenciesAndUnpinnedOpsSpreadOverStreams) {
  const Machine m = one_gpu_two_streams();
  OpGraph g;
  const OpId a = g.add(timed(1, 1e-3), "a");
  const OpId b = g.add(timed(1, 1e-3), "b");
  const OpId c = g.add(timed(kNoDevice, 1e-3), "c after a and b");
  g.add_dependency(a, c);
  g.add_dependency(b, c);
  FixedDurationBackend backend;
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  EXPECT_NE(s.stream_of(a), s.stream_of(b));  // least-loaded choice spreads them
  EXPECT_EQ(s.start_ns(c), 1'000'000);
  EXPECT_EQ(s.placed_device(c), 1u);  // the GPU
}

TEST(Scheduler, InFlightWindowBoundsConcurrency) {
  Machine m("cpu-only");
  CpuModel cpu;
  cpu.compute_streams = 8;
  m.add_cpu("cpu0", cpu);
  m.seal();
  OpGraph g;
  for (int i = 0; i < 32; ++i) g.add(timed(0, 1e-3), "op");
  FixedDurationBackend unbounded_backend;
  {
    Scheduler s(m, g, unbounded_backend);
    s.submit_all();
    s.run();
    EXPECT_EQ(s.makespan_ns(), 4'000'000);  // 8 streams x 4 rounds
  }
  EXPECT_EQ(unbounded_backend.max_in_flight_, 8u);
  FixedDurationBackend bounded_backend;
  Scheduler s(m, g, bounded_backend, SchedulerOptions{3});
  s.submit_all();
  s.run();
  EXPECT_EQ(bounded_backend.max_in_flight_, 3u);
  EXPECT_EQ(s.finished_count(), 32u);
  EXPECT_EQ(s.makespan_ns(), 11'000'000);  // ceil(32 / 3) rounds
}

TEST(Scheduler, CopyEnginesByDirection) {
  const Machine m = one_gpu_two_streams();
  OpGraph g;
  Op h2d;
  h2d.kind = OpKind::kCopy;
  h2d.device = 0;
  h2d.peer = 1;
  h2d.bytes = 1e6;
  Op d2h = h2d;
  std::swap(d2h.device, d2h.peer);
  const OpId in = g.add(h2d, "h2d");
  const OpId out = g.add(d2h, "d2h");
  FixedDurationBackend backend;
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  EXPECT_EQ(s.streams().info(s.stream_of(in)).name, "gpu0/copy-in");
  EXPECT_EQ(s.streams().info(s.stream_of(out)).name, "gpu0/copy-out");
  EXPECT_EQ(s.start_ns(out), 0);  // the two directions run at once
}

TEST(Scheduler, KernelCopiesRunOnChannelLanesNotTheCopyEngines) {
  // Two copy engines. Eight copies out of the GPU on streams 0..7: as DMA copies they take
  // the engines modulo 2, four rounds; as kernel copies (NCCL's channels) each has a lane.
  Machine m("m");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  GpuModel gpu_model;
  gpu_model.copy_engines = 2;
  const DeviceId gpu = m.add_gpu("gpu0", gpu_model);
  m.add_link("pcie", cpu, gpu, LinkModel::pcie(3, 16));
  m.seal();
  for (const bool kernel : {false, true}) {
    SCOPED_TRACE(kernel);
    OpGraph g;
    for (int c = 0; c < 8; ++c) {
      Op copy;
      copy.kind = OpKind::kCopy;
      copy.device = gpu;
      copy.peer = cpu;
      copy.stream = c;
      copy.seconds = 1e-3;
      copy.kernel_copy = kernel;
      g.add(copy, "c");
    }
    FixedDurationBackend backend;
    Scheduler s(m, g, backend);
    s.submit_all();
    s.run();
    EXPECT_EQ(s.makespan_ns(), kernel ? 1'000'000 : 4'000'000);
    EXPECT_EQ(s.streams().info(s.stream_of(7)).name, kernel ? "gpu0/channel7" : "gpu0/copy-in");
    EXPECT_EQ(s.streams().count(gpu, StreamKind::kChannel),
              static_cast<std::uint32_t>(kGpuChannelLanes));
  }
}

TEST(Scheduler, DynamicSubmitWaitsOnlyForUnfinishedPredecessors) {
  const Machine m = one_gpu_two_streams();
  OpGraph g;
  const OpId a = g.add(timed(1, 1e-3, 0), "a");
  FixedDurationBackend backend;
  Scheduler s(m, g, backend);
  s.submit(a, {});
  s.run();
  ASSERT_TRUE(s.finished(a));
  const OpId b = g.add(timed(1, 1e-3, 1), "b");
  g.add_dependency(a, b);
  const OpId preds[] = {a};
  s.submit(b, preds);
  s.run();
  EXPECT_TRUE(s.finished(b));
  EXPECT_EQ(s.start_ns(b), 1'000'000);
}

TEST(Scheduler, WithoutOpTimesSameScheduleAndFinishedStillKnown) {
  const Machine m = one_gpu_two_streams();
  OpGraph g;
  const OpId a = g.add(timed(1, 1e-3, 0), "a");
  const OpId b = g.add(timed(1, 2e-3, 1), "b");
  const OpId c = g.add(timed(1, 1e-3, 0), "c after b");
  g.add_dependency(b, c);
  FixedDurationBackend backend;
  SchedulerOptions options;
  options.keep_op_times = false;
  Scheduler s(m, g, backend, options);
  s.submit(a, {});
  EXPECT_FALSE(s.finished(b));  // not submitted yet
  s.run();
  EXPECT_TRUE(s.finished(a));
  EXPECT_FALSE(s.finished(b));
  EXPECT_EQ(s.start_ns(a), -1);  // not kept
  s.submit(b, {});
  const OpId preds[] = {a, b};  // a finished: only b is waited for
  s.submit(c, preds);
  s.run();
  EXPECT_TRUE(s.finished(b));
  EXPECT_TRUE(s.finished(c));
  EXPECT_EQ(s.end_ns(c), -1);
  EXPECT_EQ(s.makespan_ns(), 4'000'000);  // a 1 ms, then b 2 ms, then c 1 ms
}

TEST(Scheduler, TracksPeakMemoryPerDevice) {
  const Machine m = one_gpu_two_streams();
  OpGraph g;
  const OpId a = g.add(timed(1, 1e-3, 0), "alloc");
  const OpId b = g.add(timed(1, 1e-3, 0), "use and free");
  g.add_memory_effect(a, {.alloc_bytes = 100});
  g.add_memory_effect(b, {.alloc_bytes = 25});
  g.add_memory_effect(b, {.alloc_bytes = 25, .release_bytes = 150});  // effects add up
  g.add_dependency(a, b);
  FixedDurationBackend backend;
  Scheduler s(m, g, backend);
  struct Watch : SchedulerObserver {
    std::vector<double> levels;
    void on_memory_changed(DeviceId, double bytes, TimeNs) override { levels.push_back(bytes); }
  } watch;
  s.add_observer(watch);
  s.submit_all();
  s.run();
  EXPECT_DOUBLE_EQ(s.peak_memory_bytes(1), 150);
  EXPECT_EQ(watch.levels, (std::vector<double>{100, 150, 0}));
}

}  // namespace
}  // namespace opsim
