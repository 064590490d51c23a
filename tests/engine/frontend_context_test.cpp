// The asynchronous array frontend: results against a reference, read/write dependency
// tracking, concurrency of independent ops, the in-flight window, and recording.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/exec/cpu_kernels.hpp"
#include "engine/frontend/context.hpp"
#include "engine/frontend/host_machine.hpp"

namespace opsim::frontend {
namespace {

ContextOptions window_options(std::uint32_t window) {
  ContextOptions o;
  o.max_in_flight_ops = window;
  return o;
}

ContextOptions record_options(double dispatch_s) {
  ContextOptions o;
  o.mode = Mode::kRecord;
  o.dispatch_s = dispatch_s;
  return o;
}

std::vector<float> reference_gemm(const std::vector<float>& a, const std::vector<float>& b,
                                  std::size_t m, std::size_t n, std::size_t k) {
  std::vector<float> c(m * n, 0.0f);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::size_t p = 0; p < k; ++p) acc += static_cast<double>(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = static_cast<float>(acc);
    }
  return c;
}

TEST(FrontendContext, GemmMatchesAReferenceImplementation) {
  Context ctx(host_machine());
  const std::size_t m = 67, k = 45, n = 33;
  Array a = ctx.random(cpu(), m, k, 1);
  Array b = ctx.random(cpu(), k, n, 2);
  Array c = ctx.dot(a, b);
  const auto got = ctx.to_host(c);
  const auto want = reference_gemm(ctx.to_host(a), ctx.to_host(b), m, n, k);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4) << "element " << i;
  // Random values really are in [-1, 1) and not constant.
  const auto av = ctx.to_host(a);
  EXPECT_NE(av[0], av[1]);
  for (float v : av) ASSERT_TRUE(v >= -1.0f && v < 1.0f);
}

TEST(FrontendContext, TransposedGemmMatchesAReference) {
  Context ctx(host_machine());
  Array a = ctx.random(cpu(), 20, 30, 1);  // used as a^T: 30 x 20
  Array b = ctx.random(cpu(), 40, 20, 2);  // used as b^T: 20 x 40
  const auto got = ctx.to_host(ctx.dot(a, b, true, true));
  const auto av = ctx.to_host(a), bv = ctx.to_host(b);
  std::vector<float> at(30 * 20), bt(20 * 40);
  for (std::size_t i = 0; i < 20; ++i)
    for (std::size_t j = 0; j < 30; ++j) at[j * 20 + i] = av[i * 30 + j];
  for (std::size_t i = 0; i < 40; ++i)
    for (std::size_t j = 0; j < 20; ++j) bt[j * 40 + i] = bv[i * 20 + j];
  const auto want = reference_gemm(at, bt, 30, 40, 20);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4) << "element " << i;
  EXPECT_THROW(ctx.dot(a, b), std::invalid_argument);  // 20x30 * 40x20 does not chain
}

TEST(FrontendContext, ElementwiseAndSumMatchAReference) {
  Context ctx(host_machine());
  Array a = ctx.random(cpu(), 100, 37, 3);
  Array b = ctx.random(cpu(), 100, 37, 4);
  Array s = ctx.add(a, b);
  Array p = ctx.mul(a, b);
  Array total = ctx.sum(p);
  const auto av = ctx.to_host(a), bv = ctx.to_host(b), sv = ctx.to_host(s), pv = ctx.to_host(p);
  double ref_total = 0;
  for (std::size_t i = 0; i < av.size(); ++i) {
    ASSERT_FLOAT_EQ(sv[i], av[i] + bv[i]);
    ASSERT_FLOAT_EQ(pv[i], av[i] * bv[i]);
    ref_total += static_cast<double>(av[i] * bv[i]);
  }
  EXPECT_NEAR(ctx.item(total), ref_total, 1e-3);
  EXPECT_FLOAT_EQ(ctx.item(ctx.sum(ctx.full(cpu(), 10, 10, 0.5f))), 50.0f);
  Array copied = ctx.copy_to(a, cpu());
  EXPECT_EQ(ctx.to_host(copied), av);
}

TEST(FrontendContext, AWriteWaitsForEarlierReads) {
  Context ctx(host_machine());
  Array y = ctx.full(cpu(), 512, 512, 1.0f);
  Array before = ctx.sum(y);  // reads y = 1
  Array big = ctx.random(cpu(), 512, 512, 5);
  Array slow = ctx.dot(big, big);                      // keeps a stream busy meanwhile
  ctx.axpy(y, 1.0f, ctx.full(cpu(), 512, 512, 1.0f));  // y = 2: must not overtake `before`
  Array after = ctx.sum(y);
  EXPECT_FLOAT_EQ(ctx.item(before), 512.0f * 512.0f);
  EXPECT_FLOAT_EQ(ctx.item(after), 2.0f * 512.0f * 512.0f);
  ctx.wait_to_read(slow);
  const Scheduler& s = *ctx.scheduler();
  EXPECT_GE(s.start_ns(after.producer()), s.end_ns(before.producer()));
}

TEST(FrontendContext, OpsOnDisjointArraysRunConcurrently) {
  Context ctx(host_machine());
  Array a = ctx.random(cpu(), 400, 400, 1);
  Array b = ctx.random(cpu(), 400, 400, 2);
  ctx.waitall();
  Array c = ctx.dot(a, a);
  Array d = ctx.dot(b, b);
  const TimeNs d_issued = ctx.now_ns();
  ctx.waitall();
  const Scheduler& s = *ctx.scheduler();
  const OpId x = c.producer(), y = d.producer();
  // Independent GEMMs go to different in-order streams, so they can run at once (the
  // backend test ExecRealBackend.OpsOnDifferentStreamsRunAtTheSameTime proves they do; wall
  // times here depend on the machine's load). Unless the first had finished before the
  // second was issued: a worker reports it at once, and the second takes the idle stream.
  if (s.end_ns(x) > d_issued) {
    EXPECT_NE(s.stream_of(x), s.stream_of(y));
  }
  // A dependent op lands after both.
  Array e = ctx.add(c, d);
  ctx.wait_to_read(e);
  EXPECT_GE(s.start_ns(e.producer()), std::max(s.end_ns(x), s.end_ns(y)));
}

TEST(FrontendContext, TheWindowBoundsUnfinishedOps) {
  Context ctx(host_machine(), window_options(4));
  Array x = ctx.random(cpu(), 64, 64, 1);
  std::size_t worst = 0;
  for (int i = 0; i < 200; ++i) {
    x = ctx.add(x, x);
    const Scheduler& s = *ctx.scheduler();
    const auto guard = s.lock();  // workers update the counts as they finish ops
    worst = std::max(worst, s.submitted_count() - s.finished_count());
  }
  ctx.waitall();
  EXPECT_LE(worst, 5u);  // 4 before the call blocks, plus the one it then issues
  EXPECT_GE(worst, 2u);
}

TEST(FrontendContext, FreedArraysReleaseTheirMemory) {
  Context ctx(host_machine());
  {
    Array a = ctx.full(cpu(), 256, 256, 1.0f);
    Array b = ctx.full(cpu(), 256, 256, 2.0f);
    ctx.waitall();
  }
  ctx.waitall();
  EXPECT_DOUBLE_EQ(ctx.peak_memory_bytes(cpu()), 2 * 256 * 256 * 4.0);
  Array c = ctx.full(cpu(), 256, 256, 1.0f);
  ctx.waitall();
  EXPECT_DOUBLE_EQ(ctx.peak_memory_bytes(cpu()), 2 * 256 * 256 * 4.0);  // reused, not grown
}

TEST(FrontendContext, AMissingGpuInARealRunIsAClearError) {
  Context ctx(host_machine());  // this host's GPUs, if any: gpu(64) is not among them
  try {
    ctx.random(gpu(64), 2, 2, 1);
    FAIL() << "expected NoSuchDevice";
  } catch (const InputError& e) {  // the program's mistake, not ours: the CLI exits 2
    EXPECT_NE(dynamic_cast<const NoSuchDevice*>(&e), nullptr) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpu(64)"), std::string::npos) << e.what();
  }
}

TEST(FrontendContext, RecordingModelsDispatchAndWaits) {
  Machine m = host_machine();
  Context ctx(m, record_options(1e-3));
  Array a = ctx.random(cpu(), 8, 8, 1);
  Array b = ctx.add(a, a);
  ctx.wait_to_read(b);
  Array c = ctx.mul(b, b);
  EXPECT_EQ(ctx.issued_ops(), 3u);
  const OpGraph& g = ctx.graph();
  std::size_t dispatches = 0, waits = 0;
  for (OpId id = 0; id < g.size(); ++id) {
    if (g.op(id).kind != OpKind::kHostDispatch) continue;
    (g.op(id).seconds > 0 ? dispatches : waits) += 1;
  }
  EXPECT_EQ(dispatches, 3u);
  EXPECT_EQ(waits, 1u);
  // The wait makes the third dispatch depend on b's producer.
  bool wait_depends_on_b = false;
  g.for_each_successor(b.producer(), [&](OpId s) {
    if (g.op(s).kind == OpKind::kHostDispatch) wait_depends_on_b = true;
  });
  EXPECT_TRUE(wait_depends_on_b);
  EXPECT_TRUE(ctx.to_host(c) == std::vector<float>(64, 0.0f));
}

TEST(FrontendContext, ARecordedProgramRunsOnTheRealBackend) {
  Machine m = host_machine();
  Context ctx(m, record_options(1e-3));
  {
    Array a = ctx.random(cpu(), 64, 64, 1);
    for (int i = 0; i < 5; ++i) a = ctx.add(a, a);
    ctx.waitall();
  }  // the arrays' free ops are recorded too
  RealBackend backend;
  const RecordedRun summary = run_recorded(m, ctx.graph(), backend);
  // Six dispatches of 1 ms each run in program order on the host stream.
  EXPECT_GE(summary.makespan_ns, 6'000'000);
  EXPECT_GT(summary.peak_memory_bytes[0], 0.0);
}

}  // namespace
}  // namespace opsim::frontend
