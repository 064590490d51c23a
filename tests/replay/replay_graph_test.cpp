// Replay of small traces written in code: each dependency kind a real trace has, checked by
// the replayed times it must give.
#include "replay/replay_graph.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"
#include "replay/replay_run.hpp"
#include "tests/replay/replay_trace_builder.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim::replay {
namespace {

using testing::TraceBuilder;

ReplayResult replay(const std::vector<KinetoTrace>& traces,
                    const std::string& topology = "pcie-switch:2") {
  const ReplayGraph g = build_replay_graph(traces, resolve_topology(topology));
  return run_replay_isolated(g, traces);
}

// One step: the host launches a kernel, then synchronizes and waits for it.
KinetoTrace launch_then_sync(double kernel_us) {
  TraceBuilder b;
  const auto main = b.thread(100);
  b.step(main, 3, 50, 1150)
      .runtime(main, "cudaLaunchKernel", 100, 10, 1)
      .kernel("sgemm_128x64", 115, kernel_us, 7, 1)
      .runtime(main, "cudaStreamSynchronize", 200, 115 + 1000 - 200 + 5, 2)
      .cpu_op(main, "aten::item", 1150, 40);
  return b.build();
}

TEST(ReplayGraph, RecordedTimesGiveTheRecordedStep) {
  const ReplayResult r = replay({launch_then_sync(1000)});
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].name, "ProfilerStep#3");
  EXPECT_NEAR(r.steps[0].recorded_s, 1150e-6, 1e-12);
  // The kernel's 5 us between its launch returning and its start are the GPU's own: kept.
  EXPECT_NEAR(r.steps[0].replayed_s, 1150e-6, 1e-9);
  EXPECT_EQ(r.steps[0].error, 0);
}

TEST(ReplayGraph, ASynchronizeWaitsForTheSimulatedKernelNotItsRecordedLength) {
  KinetoTrace trace = launch_then_sync(1000);
  trace.gpu_events[0].duration_ns *= 2;  // the same step with a kernel twice as long
  const ReplayResult r = replay({trace});
  // The call returns as the kernel ends: the edited trace has no time after its end to keep.
  EXPECT_NEAR(r.steps[0].replayed_s, 2145e-6, 1e-9);
  EXPECT_NEAR(r.steps[0].replayed_breakdown.compute_s, 2000e-6, 1e-9);
  EXPECT_NEAR(r.steps[0].replayed_breakdown.host_bound_idle_s, 145e-6, 1e-9);
}

// A GPU-bound step: the host queues 40 kernels of 100 us (10 us per launch), then waits.
KinetoTrace gpu_bound_step(double kernel_scale) {
  TraceBuilder b;
  const auto main = b.thread(100);
  b.step(main, 7, 0, 4120);
  double gpu_free_us = 0;
  for (int i = 0; i < 40; ++i) {
    b.runtime(main, "cudaLaunchKernel", 10 + 10.0 * i, 8, i + 1);
    const double start_us = std::max(gpu_free_us + 2, 10 + 10.0 * i + 13);
    b.kernel("volta_sgemm_128x64_nn", start_us, 100, 7, i + 1);
    gpu_free_us = start_us + 100;
  }
  b.runtime(main, "cudaDeviceSynchronize", 420, gpu_free_us - 420 + 4, 100);
  KinetoTrace t = b.build();
  for (GpuEvent& e : t.gpu_events)
    e.duration_ns = static_cast<TraceNs>(e.duration_ns * kernel_scale);
  return t;
}

TEST(ReplayGraph, DoublingTheKernelsOfAGpuBoundStepAboutDoublesIt) {
  const ReplayResult recorded = replay({gpu_bound_step(1.0)});
  EXPECT_LT(std::abs(recorded.steps[0].error), 0.01);
  const ReplayResult doubled = replay({gpu_bound_step(2.0)});
  // A replay that kept the recorded host timeline would give 1.0.
  EXPECT_GT(doubled.steps[0].replayed_s / recorded.steps[0].replayed_s, 1.9);
}

TEST(ReplayGraph, RecordedStreamWaitOrdersTheStreams) {
  TraceBuilder b;
  const auto main = b.thread(100);
  b.runtime(main, "cudaLaunchKernel", 0, 10, 1)
      .kernel("volta_sgemm", 12, 500, 7, 1)
      .runtime(main, "cudaEventRecord", 20, 2, 2)
      .runtime(main, "cudaStreamWaitEvent", 30, 2, 3)
      .runtime(main, "cudaLaunchKernel", 40, 10, 4)
      .kernel("elementwise_kernel", 514, 100, 20, 4)
      .stream_wait(3, 20, 7, 2);
  const KinetoTrace trace = b.build();
  const ReplayGraph g = build_replay_graph({trace}, resolve_topology("pcie-switch:1"));
  EXPECT_EQ(g.counts.cross_stream_edges, 1);
  const ReplayResult r = run_replay_isolated(g, {trace});
  const OpId second = g.gpu_ops[1].op;
  // After the first kernel's end (512 us), plus the 2 us the recording shows it took to start.
  EXPECT_EQ(r.simulation.start_ns[second] + g.gpu_ops[1].lead_ns, 514'000);
}

TEST(ReplayGraph, StreamWaitIsReadOffTheRecordingWithoutCudaSyncEvents) {
  TraceBuilder b;
  const auto main = b.thread(100);
  b.runtime(main, "cudaLaunchKernel", 0, 10, 1)
      .kernel("volta_sgemm", 12, 500, 7, 1)
      .runtime(main, "cudaLaunchKernel", 40, 10, 4)
      .kernel("elementwise_kernel", 514, 100, 20, 4);
  const KinetoTrace trace = b.build();
  const ReplayGraph g = build_replay_graph({trace}, resolve_topology("pcie-switch:1"));
  EXPECT_EQ(g.counts.inferred_cross_stream_edges, 1);
  // Without the edge, the second kernel would start at 50 us, when its launch returned.
  const ReplayResult r = run_replay_isolated(g, {trace});
  EXPECT_EQ(r.simulation.start_ns[g.gpu_ops[1].op], 512'000);
}

TEST(ReplayGraph, APollingLoopIsAWaitForTheKernelItSawEnd) {
  // The host polls (cudaEventQuery every 20 us) until kernel b, queued behind a, has ended.
  auto trace_with_first_kernel_us = [](double a_us) {
    TraceBuilder b;
    const auto main = b.thread(100);
    b.step(main, 1, 0, 1100)
        .runtime(main, "cudaLaunchKernel", 5, 10, 1)
        .kernel("a", 15, 500, 7, 1)
        .runtime(main, "cudaLaunchKernel", 20, 10, 2)
        .kernel("b", 515, 500, 7, 2);
    for (int i = 0; i < 50; ++i) b.runtime(main, "cudaEventQuery", 30 + 20.0 * i, 5);
    b.cpu_op(main, "aten::add", 1030, 60);
    KinetoTrace t = b.build();
    t.gpu_events[0].duration_ns = static_cast<TraceNs>(a_us * 1000);
    return t;
  };
  const ReplayResult same = replay({trace_with_first_kernel_us(500)});
  EXPECT_LT(std::abs(same.steps[0].error), 0.01);
  const ReplayResult longer = replay({trace_with_first_kernel_us(1000)});
  EXPECT_NEAR(longer.steps[0].replayed_s - same.steps[0].replayed_s, 500e-6, 1e-9);
}

TEST(ReplayGraph, ACollectiveStartsWhenEveryRankHasReachedIt) {
  // Rank 0 reaches the allreduce at 100 us and waits for rank 1, which comes at 400 us;
  // the transfer itself takes 200 us (rank 1's recorded part).
  TraceBuilder a("rank0.json"), b("rank1.json");
  const auto t0 = a.thread(1), t1 = b.thread(2);
  a.runtime(t0, "cudaLaunchKernel", 90, 10, 1)
      .collective("ncclKernel_AllReduce", 100, 500, 40, 1, 1024);
  b.runtime(t1, "cudaLaunchKernel", 390, 10, 1)
      .collective("ncclKernel_AllReduce", 400, 200, 40, 1, 1024);
  const std::vector<KinetoTrace> traces = {a.build(), b.build()};
  const ReplayGraph g = build_replay_graph(traces, resolve_topology("pcie-switch:2"));
  EXPECT_EQ(g.counts.collectives, 1);
  const ReplayResult r = run_replay_isolated(g, traces);
  for (const GpuOpInfo& op : g.gpu_ops) {
    EXPECT_EQ(r.simulation.start_ns[op.op], 400'000) << "rank " << op.rank;
    EXPECT_EQ(r.simulation.end_ns[op.op], 600'000) << "rank " << op.rank;
  }
  EXPECT_NEAR(r.steps[0].replayed_breakdown.communication_exposed_s, 200e-6, 1e-9);
}

// A 16 MB allreduce of two ranks: as recorded it takes 200 us; modelled, a ring over
// pcie-switch:2's 16 GB/s links moves 2(n-1)/n x 16 MB per hop: 1 ms.
std::vector<KinetoTrace> allreduce_of_two_ranks() {
  TraceBuilder a("rank0.json"), b("rank1.json");
  const auto t0 = a.thread(1), t1 = b.thread(2);
  a.runtime(t0, "cudaLaunchKernel", 90, 10, 1)
      .collective("ncclKernel_AllReduce", 100, 500, 40, 1, 4'000'000);
  b.runtime(t1, "cudaLaunchKernel", 390, 10, 1)
      .collective("ncclKernel_AllReduce", 400, 200, 40, 1, 4'000'000);
  return {a.build(), b.build()};
}

TEST(ReplayGraph, AModelledCollectiveIsARingOnTheMachine) {
  const auto traces = allreduce_of_two_ranks();
  ReplayOptions options;
  options.collectives = CollectiveTiming::kModelled;
  const ReplayGraph g = build_replay_graph(traces, resolve_topology("pcie-switch:2"), options);
  EXPECT_EQ(g.counts.collectives_modelled, 1);
  const ReplayResult r = run_replay_isolated(g, traces);
  for (const GpuOpInfo& op : g.gpu_ops)  // both ranks leave the collective when the ring ends
    EXPECT_NEAR(static_cast<double>(r.simulation.end_ns[op.op]), 400'000 + 1'000'000, 1'000);
}

TEST(ReplayGraph, RanksReplicateATraceWithItsCollectivesOverAll) {
  const auto traces = allreduce_of_two_ranks();
  ReplayOptions options;
  options.collectives = CollectiveTiming::kModelled;
  options.ranks = 4;
  const ReplayGraph g = build_replay_graph(traces, resolve_topology("pcie-switch:4"), options);
  EXPECT_EQ(g.trace_of_rank, (std::vector<std::uint32_t>{0, 1, 0, 1}));
  EXPECT_EQ(g.counts.collectives, 1);
  const ReplayResult r = run_replay_isolated(g, traces);
  ASSERT_EQ(r.steps.size(), 4u);
  // Four GPUs behind two switch levels: 2(n-1)/n = 1.5 x 16 MB over the 16 GB/s hops.
  for (const GpuOpInfo& op : g.gpu_ops)
    EXPECT_NEAR(static_cast<double>(r.simulation.end_ns[op.op]), 400'000 + 1'500'000, 20'000);
}

TEST(ReplayGraph, ModelledKernelsOfACpuTraceTakeTheCpuModelsTime) {
  // A CPU-only step: 100 us of Python, then a 512 x 1024 x 256 GEMM (inside aten::linear,
  // which only the inner aten::mm's shapes describe) that took 3 ms, then 50 us more.
  TraceBuilder b;
  const auto main = b.thread(100);
  b.step(main, 0, 0, 3150)
      .cpu_op(main, "aten::linear", 100, 3000)
      .cpu_op(main, "aten::mm", 100, 3000, {{512, 1024}, {1024, 256}});
  const KinetoTrace trace = b.build();
  ReplayOptions options;
  options.kernels = KernelTiming::kModelled;
  const Machine machine = resolve_topology("pcie-switch:1");
  const ReplayGraph g = build_replay_graph({trace}, machine, options);
  EXPECT_EQ(g.counts.kernels_from_shapes, 1);
  const ReplayResult r = run_replay_isolated(g, {trace});
  const double flops = 2.0 * 512 * 1024 * 256, bytes = 4.0 * (512 * 1024 + 1024 * 256 + 512 * 256);
  const double model_s = machine.device(machine.cpus().front()).cpu.op_time_s(flops, bytes, 1, 1);
  EXPECT_NEAR(r.steps[0].replayed_s, 150e-6 + model_s, 1e-8);
  EXPECT_GT(std::abs(r.steps[0].replayed_s - r.steps[0].recorded_s), 1e-5);  // not a copy
}

TEST(ReplayGraph, ATraceWithoutStepsIsOneStep) {
  TraceBuilder b;
  const auto main = b.thread(100);
  b.runtime(main, "cudaLaunchKernel", 0, 10, 1).kernel("k", 10, 300, 7, 1);
  const ReplayResult r = replay({b.build()});
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].name, "whole trace");
  EXPECT_NEAR(r.steps[0].recorded_s, 310e-6, 1e-12);
  EXPECT_NEAR(r.steps[0].replayed_s, 310e-6, 1e-9);
}

TEST(ReplayGraph, AGpuOnlyTraceKeepsItsStreamsTimes) {
  TraceBuilder b;
  b.kernel("a", 50, 100, 7, -1).kernel("b", 160, 40, 7, -1).kernel("c", 60, 10, 9, -1);
  const ReplayResult r = replay({b.build()});
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_NEAR(r.steps[0].replayed_s, 200e-6, 1e-9);
  EXPECT_EQ(r.steps[0].error, 0);
}

TEST(ReplayGraph, AStepOnAThreadWithoutRuntimeCallsKeepsItsLength) {
  TraceBuilder b;
  const auto main = b.thread(100), loader = b.thread(101);
  b.step(loader, 5, 10, 500).cpu_op(loader, "aten::cat", 20, 30);
  b.runtime(main, "cudaLaunchKernel", 0, 10, 1).kernel("k", 12, 800, 7, 1);
  const ReplayResult r = replay({b.build()});
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_NEAR(r.steps[0].replayed_s, 500e-6, 1e-9);
}

TEST(ReplayGraph, AMachineWithTooFewGpusIsRefused) {
  TraceBuilder a("a.json"), b("b.json");
  a.thread(1);
  b.thread(2);
  a.kernel("k", 0, 1, 7, -1);
  b.kernel("k", 0, 1, 7, -1);
  try {
    build_replay_graph({a.build(), b.build()}, resolve_topology("pcie-switch:1"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(
        e.what(),
        "machine 'pcie-switch:1' has 1 GPU; the traces need 2 (a.json 1 GPU, b.json 1 GPU)");
  }
}

}  // namespace
}  // namespace opsim::replay
