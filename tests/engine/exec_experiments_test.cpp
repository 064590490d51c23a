// The book's experiments on the real backend of this host (and the recorded programs
// replayed, which is the path the simulator takes).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/input_error.hpp"
#include "engine/exec/gpu_runtime.hpp"
#include "engine/exec/real_backend.hpp"
#include "engine/frontend/host_machine.hpp"
#include "experiments/book/experiment.hpp"
#include "topologies/topology_families.hpp"

namespace opsim::book {
namespace {

void print(const ExperimentResult& r) {
  for (const Variant& v : r.variants)
    std::printf("%s [%s] %-28s %10.3f ms  peak %10.1f MB  ops %zu\n", r.experiment.c_str(),
                r.backend.c_str(), v.name.c_str(), v.wall_s * 1e3, v.peak_memory_bytes / 1e6,
                v.trace.ops.size());
  for (const std::string& n : r.notes) std::printf("note: %s\n", n.c_str());
}

TEST(ExecExperiments, AsyncIsFasterThanSyncForTinyOps) {
  ExperimentOptions o;
  o.repeats = 5;  // the fastest of 5: this 2-vCPU host is shared
  // Up to 3 attempts a second apart: at times the host gives this guest's two vCPUs about one
  // core's worth (two threads scaled 1.0-1.2x over one, measured), and for a while every
  // async run then costs ~4 us per op instead of ~1 us (a context switch per hand-off).
  ExperimentResult r;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    r = run_experiment("async", o);
    print(r);
    const Variant* sync = r.find("sync");
    const Variant* async = r.find("async");
    ASSERT_TRUE(sync && async);
    if (sync->wall_s >= 2.0 * async->wall_s) break;
  }
  const Variant* sync = r.find("sync");
  const Variant* async = r.find("async");
  // The book's setting: a wait blocks the program thread on a condition variable until the
  // op's completion wakes it, a kernel sleep and wake-up per op; issuing them all and waiting
  // once costs one. Measured: 4.6-11x on the 2-vCPU dev VM (sync ~6 ms, async ~1 ms for 1000
  // ops); 2.5x on a 16-core H100 host (sync 10-12 ms, async 4.0-4.4 ms), where wake-ups are
  // cheaper and the completion path costs more per op.
  EXPECT_GE(sync->wall_s, 2.0 * async->wall_s);
  // With polling waits sync gets much cheaper; reported, not asserted (it depends on whether
  // both threads have a core: this host has 2 vCPUs shared with other work).
  const Variant* sync_poll = r.find("sync, polling wait");
  const Variant* async_poll = r.find("async, polling wait");
  ASSERT_TRUE(sync_poll && async_poll);
  std::printf("blocking waits: sync/async %.1fx; polling waits: %.1fx\n",
              sync->wall_s / async->wall_s, sync_poll->wall_s / async_poll->wall_s);
}

// GPUs this host can run real ops on (0 without a driver, a device or CUDA in the build).
int host_gpus() {
  const std::shared_ptr<GpuRuntime> runtime = gpu_runtime();
  return runtime ? runtime->device_count() : 0;
}

// Group A's matmuls end and group B's start, from a variant's trace (A on the CPU's stream
// 0; B on the GPU, or on the CPU's stream 1 without one).
struct GroupTimes {
  TimeNs a_end = 0;
  TimeNs b_start = INT64_MAX;
};
GroupTimes group_times(const Variant& v) {
  const std::string b_lane = host_gpus() > 0 ? "gpu0/compute0" : "cpu0/compute1";
  GroupTimes t;
  for (const TraceOp& op : v.trace.ops) {
    if (op.name != "dot") continue;
    const std::string& lane = v.trace.lanes[op.lane].name;
    if (lane == "cpu0/compute0") t.a_end = std::max(t.a_end, op.end_ns);
    if (lane == b_lane) t.b_start = std::min(t.b_start, op.start_ns);
  }
  return t;
}

TEST(ExecExperiments, CpuGpuWithoutBarrierOverlapsTheGroups) {
  // No GPU here: the second group runs on a second CPU stream, each group's GEMMs on one
  // thread. Without the barrier the second group starts while the first still runs, with it
  // only after the first has finished, and the run takes less than the groups one after the
  // other (measured here: 30-42 ms against 59-63 ms; fastest of 5 on 2 shared vCPUs).
  ExperimentOptions o;
  o.matmul_n = 512;
  o.repeats = 5;
  // Up to 3 attempts a second apart, as above: while the host gives this guest about one
  // core, the two groups' threads take turns and cannot overlap.
  ExperimentResult r;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    r = run_experiment("cpu-gpu", o);
    print(r);
    const Variant* without = r.find("without barrier");
    ASSERT_TRUE(without != nullptr && r.variants.size() == 4u);
    const GroupTimes wo = group_times(*without);
    if (wo.b_start < wo.a_end && without->wall_s < r.variants[0].wall_s + r.variants[1].wall_s)
      break;
  }
  ASSERT_EQ(r.variants.size(), 4u);
  EXPECT_EQ(r.notes.empty(), host_gpus() > 0);  // says what stands in for a missing GPU
  const Variant* with = r.find("with barrier");
  const Variant* without = r.find("without barrier");
  ASSERT_TRUE(with && without);
  const GroupTimes w = group_times(*with);
  const GroupTimes wo = group_times(*without);
  EXPECT_GE(w.b_start, w.a_end);
  EXPECT_LT(wo.b_start, wo.a_end);
  const double a = r.variants[0].wall_s, b = r.variants[1].wall_s, parts = a + b;
  std::printf("sum of parts %.3f ms, without barrier %.3f ms\n", parts * 1e3,
              without->wall_s * 1e3);
  // Overlap saves at most the shorter group. With a GPU that is a few percent of the whole
  // (an H100's 10 matmuls of 512 take ~1 ms, that host's CPU group 25-30 ms), below the
  // run-to-run noise: there the timeline above is the check; the time, where it can show.
  if (std::min(a, b) > 0.2 * parts) {
    EXPECT_LT(without->wall_s, parts);
  }
}

TEST(ExecExperiments, MlpMemoryGrowsWithoutABarrierAndTheWindowBoundsIt) {
  ExperimentOptions o;
  o.mlp_batches = 40;
  o.mlp_batch = 256;
  o.mlp_inputs = 256;
  o.mlp_hidden1 = 256;
  o.mlp_hidden2 = 128;
  o.window = 8;
  const ExperimentResult r = run_experiment("mlp-memory", o);
  print(r);
  const Variant* with = r.find("with barrier");
  const Variant* without = r.find("without barrier");
  const Variant* window = r.find("without barrier, window 8");
  ASSERT_TRUE(with && without && window);
  EXPECT_GT(without->peak_memory_bytes, with->peak_memory_bytes);
  // Bound: parameters and constants, plus at most `window` unfinished ops each allocating at
  // most the largest array of a step (256 x 256 floats), plus one step's live arrays.
  const double floats = 4.0;
  const double params = (256.0 * 256 + 256.0 * 128 + 128 + 256) * floats;
  const double largest = 256.0 * 256 * floats;
  const double step_live = 16 * largest;
  EXPECT_LE(window->peak_memory_bytes, params + 8 * largest + step_live);
  EXPECT_LT(window->peak_memory_bytes, without->peak_memory_bytes);
}

TEST(ExecExperiments, SimulatedAsyncOnTheHostMachineFollowsTheBook) {
  // SimGrid, each variant in a child process. t1 = 10 us per op (the CPU model's dispatch_s).
  ExperimentOptions o;
  o.backend = "sim";
  o.tiny_ops = 1000;
  const ExperimentResult r = run_experiment("async", o);
  print(r);
  const Variant* sync = r.find("sync");
  const Variant* async = r.find("async");
  ASSERT_TRUE(sync && async);
  EXPECT_GE(async->wall_s, 1000 * 10e-6);  // N t1: dispatch cannot be hidden
  EXPECT_GT(sync->wall_s, async->wall_s);  // N (t1 + t2 + t3) > t1 + N t2 + t3
  EXPECT_EQ(async->trace.backend, "sim");
}

TEST(ExecExperiments, SimulatedMlpMemoryGrowsWithoutABarrier) {
  ExperimentOptions o;
  o.backend = "sim";
  o.mlp_batches = 20;
  o.window = 6;
  const ExperimentResult r = run_experiment("mlp-memory", o);
  print(r);
  const Variant* with = r.find("with barrier");
  const Variant* without = r.find("without barrier");
  const Variant* window = r.find("without barrier, window 6");
  ASSERT_TRUE(with && without && window);
  EXPECT_GT(without->peak_memory_bytes, with->peak_memory_bytes);
  EXPECT_LT(window->peak_memory_bytes, without->peak_memory_bytes);
}

TEST(ExecExperiments, ComputeCopyWithoutAGpuSaysWhy) {
  if (host_gpus() > 0) GTEST_SKIP() << "a GPU is present";
  const ExperimentResult r = run_experiment("compute-copy", ExperimentOptions{});
  EXPECT_TRUE(r.variants.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("no usable GPU"), std::string::npos);
}

TEST(ExecExperiments, UnknownNamesAndBackendsAreInputErrors) {
  EXPECT_THROW(run_experiment("nope", ExperimentOptions{}), InputError);
  ExperimentOptions o;
  o.backend = "quantum";
  EXPECT_THROW(run_experiment("async", o), InputError);
}

TEST(ExecExperiments, TheRecordedAsyncProgramModelsDispatchAndWaits) {
  // The sim path: record, then hand the graph to a backend. Here the backend is the real
  // CPU one, so each recorded 20 us dispatch is real busy time.
  ExperimentOptions o;
  o.backend = "sim";
  o.tiny_ops = 200;
  o.dispatch_s = 20e-6;
  o.make_sim_backend = [](const Machine&) { return std::make_unique<RealBackend>(); };
  const ExperimentResult r = run_experiment("async", o);
  print(r);
  const Variant* sync = r.find("sync");
  const Variant* async = r.find("async");
  ASSERT_TRUE(sync && async);
  // t1 per op is paid either way (wall times of a replay on this shared 2-vCPU host are too
  // noisy to compare; the simulator's are exact).
  EXPECT_GE(async->wall_s, 200 * 20e-6);
  EXPECT_GE(sync->wall_s, 200 * 20e-6);
  EXPECT_EQ(sync->trace.ops.size(), async->trace.ops.size() + 200);  // one wait per op
  // Every dispatch is on the host lane, in program order.
  std::size_t host_ops = 0;
  for (const TraceOp& op : async->trace.ops) host_ops += op.op_class == "dispatch" ? 1 : 0;
  EXPECT_GE(host_ops, 200u);
}

}  // namespace
}  // namespace opsim::book

namespace opsim::book {
namespace {

TEST(ExecExperiments, SimulatedDataParallelOverlapsBackwardWithBucketedSync) {
  ExperimentOptions o;
  o.backend = "sim";
  o.machine = make_pcie_switch_machine(4);
  o.dp_strategy = "ring";
  const ExperimentResult r = run_experiment("data-parallel", o);
  print(r);
  const Variant* serial = r.find("sync after backward");
  const Variant* overlapped = r.find("backward overlapped with bucketed sync");
  ASSERT_TRUE(serial && overlapped);
  EXPECT_LT(overlapped->wall_s, serial->wall_s);
  // Overlap hides at most the sync of all but the last bucket.
  EXPECT_GT(overlapped->wall_s, 0.5 * serial->wall_s);
}

TEST(ExecExperiments, DataParallelWithoutAGpuSaysWhy) {
  if (host_gpus() > 0) GTEST_SKIP() << "a GPU is present";
  const ExperimentResult r = run_experiment("data-parallel", ExperimentOptions{});
  EXPECT_TRUE(r.variants.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("no usable GPU"), std::string::npos);
}

}  // namespace
}  // namespace opsim::book

namespace opsim::book {
namespace {

TEST(ExecExperiments, SimulatedCpuGpuAndComputeCopyFollowTheBook) {
  ExperimentOptions o;
  o.backend = "sim";
  o.machine = make_pcie_switch_machine(1);
  o.matmul_n = 2048;
  const ExperimentResult cg = run_experiment("cpu-gpu", o);
  print(cg);
  ASSERT_EQ(cg.variants.size(), 4u);
  const double parts = cg.variants[0].wall_s + cg.variants[1].wall_s;
  const double longest = std::max(cg.variants[0].wall_s, cg.variants[1].wall_s);
  const Variant* without = cg.find("without barrier");
  const Variant* barrier = cg.find("with barrier");
  ASSERT_TRUE(without && barrier && cg.find("gpu"));
  EXPECT_LT(without->wall_s, barrier->wall_s);  // the barrier costs the GPU part
  EXPECT_LT(without->wall_s, parts);            // not the sum ...
  EXPECT_LT(without->wall_s, 1.05 * longest);   // ... about the longer part
  const ExperimentResult cc = run_experiment("compute-copy", o);
  print(cc);
  const Variant* with = cc.find("with barrier");
  const Variant* no_barrier = cc.find("without barrier");
  ASSERT_TRUE(with && no_barrier);
  EXPECT_LT(no_barrier->wall_s, with->wall_s);  // copies overlap later matmuls
}

}  // namespace
}  // namespace opsim::book

namespace opsim::book {
namespace {

TEST(ExecExperiments, ComputeCopyOnAGpuOverlapsCopiesWithCompute) {
  if (host_gpus() == 0) GTEST_SKIP() << "no usable GPU on this host";
  ExperimentOptions o;
  o.matmul_n = 2048;
  o.repeats = 3;
  const ExperimentResult r = run_experiment("compute-copy", o);
  print(r);
  const Variant* with = r.find("with barrier");
  const Variant* without = r.find("without barrier");
  ASSERT_TRUE(with && without);
  // The copy of y[i-1] runs on a copy engine while y[i] is computed.
  EXPECT_LT(without->wall_s, with->wall_s);
}

TEST(ExecExperiments, RealDataParallelRunsOnTwoOrMoreGpus) {
  if (host_gpus() < 2) GTEST_SKIP() << "this host has fewer than 2 usable GPUs";
  ExperimentOptions o;
  o.dp_strategy = "ring";
  const ExperimentResult r = run_experiment("data-parallel", o);
  print(r);
  ASSERT_EQ(r.variants.size(), 2u);
  for (const Variant& v : r.variants) {
    EXPECT_GT(v.wall_s, 0.0);
    EXPECT_EQ(v.trace.backend, "real");
  }
}

}  // namespace
}  // namespace opsim::book
