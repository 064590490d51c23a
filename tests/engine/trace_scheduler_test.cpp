// The recorder attached to the real Scheduler, driven by a small fixed-rate event backend
// (durations from bytes / 16 GB/s and flops / 1 TFLOP/s; no sharing), so that the observer
// calls come in the order and with the arguments the scheduler really makes.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <queue>
#include <sstream>

#include "engine/chrome_trace_reader.hpp"
#include "engine/chrome_trace_rules.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "engine/run_summary.hpp"
#include "engine/scheduler.hpp"
#include "engine/trace_recorder.hpp"
#include "trace_test_support.hpp"

namespace opsim {
namespace {

class FixedRateBackend final : public Backend {
 public:
  std::string_view name() const override { return "sim"; }
  void prepare(const Machine&, const OpGraph&, const StreamTable&, CompletionSink& sink) override {
    sink_ = &sink;
  }
  void launch(const OpLaunch& l) override {
    const double seconds = l.op->kind == OpKind::kCompute ? l.op->flops / 1e12 : l.op->bytes / 16e9;
    events_.push({now_ + seconds_to_ns(seconds), seq_++, now_, l.id});
  }
  void run_until_idle() override {
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ = e.end_ns;
      sink_->on_op_completed(e.op, e.start_ns, e.end_ns);
    }
  }
  TimeNs now_ns() const override { return now_; }

 private:
  struct Event {
    TimeNs end_ns;
    std::uint64_t seq;
    TimeNs start_ns;
    OpId op;
    bool operator>(const Event& o) const {
      return std::tie(end_ns, seq) > std::tie(o.end_ns, o.seq);
    }
  };
  CompletionSink* sink_ = nullptr;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  TimeNs now_ = 0;
  std::uint64_t seq_ = 0;
};

TEST(TraceWithScheduler, GatherToCpuThenBroadcast) {
  const Machine m = test::small_machine();
  const DeviceId cpu0 = *m.find_device("cpu0");
  OpGraph g;
  std::vector<OpId> gathers;
  for (const char* gpu : {"gpu0", "gpu1"}) {
    Op copy{.kind = OpKind::kCopy, .device = *m.find_device(gpu), .peer = cpu0};
    copy.bytes = 160e6;  // 10 ms at 16 GB/s
    copy.alloc_bytes = 160e6;
    gathers.push_back(g.add(copy, std::string("gather ") + gpu));
  }
  Op reduce{.kind = OpKind::kCompute, .kernel = KernelClass::kReduce, .device = cpu0};
  reduce.flops = 4e9;  // 4 ms
  reduce.release_bytes = 160e6;
  const OpId r = g.add(reduce, "reduce");
  for (OpId id : gathers) g.add_dependency(id, r);
  for (const char* gpu : {"gpu0", "gpu1"}) {
    Op copy{.kind = OpKind::kCopy, .device = cpu0, .peer = *m.find_device(gpu)};
    copy.bytes = 160e6;
    g.add_dependency(r, g.add(copy, std::string("broadcast ") + gpu));
  }
  g.validate(m);

  FixedRateBackend backend;
  Scheduler scheduler(m, g, backend);
  TraceRecorder recorder(m, g, "gather", std::string(backend.name()));  // own StreamTable
  scheduler.add_observer(recorder);
  scheduler.submit_all();
  scheduler.run();
  const Trace t = recorder.finish();

  ASSERT_EQ(t.ops.size(), 5u);
  EXPECT_EQ(t.makespan_ns(), 24 * test::kMs);
  EXPECT_EQ(t.ops[2].start_ns, 10 * test::kMs);
  EXPECT_EQ(t.dependencies.size(), 4u);
  // Both gathers cross pcie_cpu0 sw→cpu0 at once: 2 × 160 MB in 24 ms at 16 GB/s.
  const RunSummary s = summarize_run(t);
  EXPECT_DOUBLE_EQ(s.bytes_moved, 4 * 160e6);
  bool found = false;
  for (const LinkUsage& link : s.links) {
    if (link.name == "pcie_cpu0 pcie_sw0\u2192cpu0") {
      found = true;
      EXPECT_DOUBLE_EQ(link.bytes, 320e6);
      EXPECT_EQ(link.busy_ns, 10 * test::kMs);
      EXPECT_NEAR(link.utilization, 320e6 / (16e9 * 0.024), 1e-12);
    }
  }
  EXPECT_TRUE(found);
  // Memory on cpu0 rises to 320 MB with the gathers and falls by 160 MB after the reduce.
  double peak = 0;
  for (const DevicePeakMemory& p : s.peak_memory) {
    if (p.device == "cpu0") peak = p.peak_bytes;
  }
  EXPECT_DOUBLE_EQ(peak, 320e6);

  std::ostringstream out;
  write_chrome_trace(t, out);
  EXPECT_TRUE(check_chrome_trace_rules(nlohmann::json::parse(out.str())).empty());
}

// Overhead of recording on a large graph. Timing is machine-dependent, so it only runs when
// OPSIM_TRACE_PERF is set; it prints the numbers.
TEST(TraceWithScheduler, RecorderOverheadOnALargeGraph) {
  const char* env = std::getenv("OPSIM_TRACE_PERF");
  if (env == nullptr) GTEST_SKIP() << "set OPSIM_TRACE_PERF=<ops> to measure";
  const std::size_t ops = std::strtoull(env, nullptr, 10);
  const Machine m = test::small_machine();
  const DeviceId gpu0 = *m.find_device("gpu0");
  const DeviceId gpu1 = *m.find_device("gpu1");
  OpGraph g;
  g.reserve(ops);
  for (std::size_t i = 0; i < ops; ++i) {
    Op copy{.kind = OpKind::kCopy, .device = i % 2 ? gpu0 : gpu1, .peer = i % 2 ? gpu1 : gpu0};
    copy.bytes = 1e6;
    const OpId id = g.add(copy, "c" + std::to_string(i));
    if (i >= 2) g.add_dependency(id - 2, id);
  }
  auto run = [&](bool record) {
    const auto t0 = std::chrono::steady_clock::now();
    FixedRateBackend backend;
    Scheduler scheduler(m, g, backend);
    TraceRecorder recorder(m, g, scheduler.streams(), "perf", "sim");
    if (record) scheduler.add_observer(recorder);
    scheduler.submit_all();
    scheduler.run();
    const auto t1 = std::chrono::steady_clock::now();
    if (!record) {
      std::printf("plain: run %.3f s\n", std::chrono::duration<double>(t1 - t0).count());
      return;
    }
    const Trace trace = recorder.finish();
    const auto t2 = std::chrono::steady_clock::now();
    const std::string path = std::string(OPSIM_BINARY_DIR) + "/trace_perf.json";
    write_chrome_trace(trace, std::filesystem::path(path));
    const auto t3 = std::chrono::steady_clock::now();
    const bool same = read_chrome_trace(path) == trace;
    const auto t4 = std::chrono::steady_clock::now();
    std::printf(
        "recorded: run %.3f s, finish %.3f s (%zu link spans), write %.3f s (%.0f MB), read %.3f "
        "s (%s)\n",
        std::chrono::duration<double>(t1 - t0).count(),
        std::chrono::duration<double>(t2 - t1).count(), trace.link_spans.size(),
        std::chrono::duration<double>(t3 - t2).count(),
        static_cast<double>(std::filesystem::file_size(path)) / 1e6,
        std::chrono::duration<double>(t4 - t3).count(), same ? "equal" : "DIFFERENT");
    EXPECT_TRUE(same);
    std::filesystem::remove(path);
  };
  run(false);
  run(true);
}

}  // namespace
}  // namespace opsim
