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
#include "engine/scheduler.hpp"
#include "engine/trace_recorder.hpp"
#include "engine/trace_summary.hpp"
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
    gathers.push_back(g.add(copy, std::string("gather ") + gpu));
    g.add_memory_effect(gathers.back(), {.alloc_bytes = 160e6});
  }
  Op reduce{.kind = OpKind::kCompute, .kernel = KernelClass::kReduce, .device = cpu0};
  reduce.flops = 4e9;  // 4 ms
  const OpId r = g.add(reduce, "reduce");
  g.add_memory_effect(r, {.release_bytes = 160e6});
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
  const TraceSummary s = summarize_trace(t);
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

}  // namespace
}  // namespace opsim
