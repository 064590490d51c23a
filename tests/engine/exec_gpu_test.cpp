// GPUs in real runs: the scheduler's GPU streams on CUDA streams (cuBLAS, kernels, copies,
// event timing) and frontend arrays in GPU memory. With a usable GPU the results are checked
// against the CPU kernels; without one, what a user gets instead is checked: a clear error
// naming the op or device and the reason, never a crash or a silent CPU stand-in.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>

#include "engine/exec/real_backend.hpp"
#include "engine/exec/cpu_kernels.hpp"
#include "engine/exec/gpu_runtime.hpp"
#include "engine/frontend/context.hpp"
#include "engine/frontend/host_machine.hpp"
#include "engine/scheduler.hpp"

namespace opsim {
namespace {

using frontend::Array;
using frontend::Context;

bool have_gpus(int wanted, std::string* why) {
  const std::shared_ptr<GpuRuntime> runtime = gpu_runtime(why);
  if (!runtime) return false;
  if (runtime->device_count() < wanted) {
    *why = "this host has " + std::to_string(runtime->device_count()) + " GPU(s), the test needs " +
           std::to_string(wanted);
    return false;
  }
  return true;
}

Machine gpu_machine(int gpus) {
  frontend::HostMachineOptions options;
  options.gpus = gpus;
  return frontend::host_machine(options);
}

// A GEMM on gpu0, then its result copied to the CPU, then a CPU op after the copy.
struct GpuGraph {
  OpGraph graph;
  OpId gemm = 0, copy = 0, after = 0;
};
GpuGraph gemm_copy_graph(const Machine& m) {
  GpuGraph g;
  Op gemm;
  gemm.kind = OpKind::kCompute;
  gemm.kernel = KernelClass::kGemm;
  gemm.device = *m.find_device("gpu0");
  gemm.flops = 2.0 * 1024 * 1024 * 1024;
  g.gemm = g.graph.add(gemm, "gemm");
  Op copy;
  copy.kind = OpKind::kCopy;
  copy.device = gemm.device;
  copy.peer = *m.find_device("cpu0");
  copy.bytes = 4 << 20;
  g.copy = g.graph.add(copy, "copy to cpu");
  Op host;
  host.kind = OpKind::kCompute;
  host.kernel = KernelClass::kElementwise;
  host.device = copy.peer;
  host.bytes = 1 << 20;
  g.after = g.graph.add(host, "cpu add");
  g.graph.add_dependency(g.gemm, g.copy);
  g.graph.add_dependency(g.copy, g.after);
  return g;
}

TEST(ExecGpu, WithoutAGpuTheRuntimeSaysWhy) {
  std::string why;
  if (have_gpus(1, &why)) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(gpu_runtime(), nullptr);
  EXPECT_NE(why.find("no usable GPU"), std::string::npos) << why;
  // The host machine then describes no GPU.
  EXPECT_TRUE(frontend::host_machine().gpus().empty());
}

TEST(ExecGpu, TheCudaPluginLoadsAndExportsItsEntryPoint) {
#ifndef OPSIM_CUDA_PLUGIN
  GTEST_SKIP() << "this build has no CUDA plug-in (configured without the CUDA toolkit)";
#else
  // Loaded by hand: gpu_runtime() only loads it where a driver is. Every symbol resolves
  // (RTLD_NOW) against the CUDA toolkit's libraries, so a GPU host will not meet a link error.
  void* plugin = dlopen(OPSIM_CUDA_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(plugin, nullptr) << dlerror();
  using Open = GpuRuntime* (*)(std::string*);
  auto open = reinterpret_cast<Open>(dlsym(plugin, "opsim_open_cuda_runtime"));
  ASSERT_NE(open, nullptr);
  std::string why;
  std::unique_ptr<GpuRuntime> runtime(open(&why));
  if (runtime) {
    EXPECT_GT(runtime->device_count(), 0);
  } else {
    EXPECT_NE(why.find("no usable GPU"), std::string::npos) << why;
  }
#endif
}

TEST(ExecGpu, GpuOpsWithoutAGpuFailClearlyAndTheRestStillRuns) {
  std::string why;
  if (have_gpus(1, &why)) GTEST_SKIP() << "a GPU is present";
  const Machine m = gpu_machine(1);
  GpuGraph g = gemm_copy_graph(m);
  RealBackend backend;
  Scheduler s(m, g.graph, backend);
  s.submit_all();
  try {
    s.run();
    FAIL() << "expected NoGpu";
  } catch (const NoGpu& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("gpu0"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot run for real"), std::string::npos) << message;
    EXPECT_NE(message.find("no usable GPU"), std::string::npos) << message;
  }
  // Successors of a failed op still run (as after a kernel error): nothing hangs.
  EXPECT_EQ(s.finished_count(), 3u);
  EXPECT_GT(s.end_ns(g.after), s.start_ns(g.after));
}

TEST(ExecGpu, GpuArraysWithoutAGpuAreAClearError) {
  std::string why;
  if (have_gpus(1, &why)) GTEST_SKIP() << "a GPU is present";
  Context ctx(gpu_machine(1));
  Array a = ctx.random(frontend::cpu(), 4, 4, 1);  // the CPU part still works
  try {
    ctx.random(frontend::gpu(0), 2, 2, 1);
    FAIL() << "expected NoSuchDevice";
  } catch (const frontend::NoSuchDevice& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("gpu(0)"), std::string::npos) << message;
    EXPECT_NE(message.find("no usable GPU"), std::string::npos) << message;
  }
  EXPECT_EQ(ctx.to_host(a).size(), 16u);
}

TEST(ExecGpu, ScratchGemmAndCopyRunInDependencyOrder) {
  std::string why;
  if (!have_gpus(1, &why)) GTEST_SKIP() << why;
  const Machine m = gpu_machine(1);
  GpuGraph g = gemm_copy_graph(m);
  RealBackend backend;
  Scheduler s(m, g.graph, backend);
  s.submit_all();
  s.run();
  EXPECT_EQ(s.finished_count(), 3u);
  EXPECT_GT(s.end_ns(g.gemm), s.start_ns(g.gemm));
  EXPECT_GE(s.start_ns(g.copy), s.end_ns(g.gemm));
  EXPECT_GE(s.start_ns(g.after), s.end_ns(g.copy));
  // 2 GFLOP in well under a second on any GPU CUDA 13 supports, and more than a microsecond.
  const TimeNs gemm_ns = s.end_ns(g.gemm) - s.start_ns(g.gemm);
  EXPECT_GT(gemm_ns, 1'000);
  EXPECT_LT(gemm_ns, 1'000'000'000);
  std::printf("GPU GEMM n=1024: %.3f ms; 4 MiB copy to host: %.3f ms\n", gemm_ns / 1e6,
              (s.end_ns(g.copy) - s.start_ns(g.copy)) / 1e6);
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
}

TEST(ExecGpu, FrontendArraysOnAGpuMatchTheCpuKernels) {
  std::string why;
  if (!have_gpus(1, &why)) GTEST_SKIP() << why;
  Context ctx(gpu_machine(1));
  const auto g = frontend::gpu(0);
  const std::size_t m = 96, k = 64, n = 80;
  Array a = ctx.random(g, m, k, 1);
  Array b = ctx.random(g, k, n, 2);
  Array at = ctx.random(g, k, m, 3);  // for op(a) = a^T
  // Same seed, same values, on either device.
  std::vector<float> a_ref(m * k), b_ref(k * n), at_ref(k * m);
  cpu::fill_random(a_ref.data(), a_ref.size(), 1);
  cpu::fill_random(b_ref.data(), b_ref.size(), 2);
  cpu::fill_random(at_ref.data(), at_ref.size(), 3);
  EXPECT_EQ(ctx.to_host(a), a_ref);

  std::vector<float> c_ref(m * n), ct_ref(m * n);
  cpu::sgemm(a_ref.data(), b_ref.data(), c_ref.data(), m, n, k);
  cpu::sgemm(at_ref.data(), b_ref.data(), ct_ref.data(), m, n, k, true, false);
  expect_near_all(ctx.to_host(ctx.dot(a, b)), c_ref, 1e-4f);
  expect_near_all(ctx.to_host(ctx.dot(at, b, true, false)), ct_ref, 1e-4f);

  Array sum_ab = ctx.add(a, a);
  Array prod = ctx.mul(a, a);
  std::vector<float> add_ref(m * k), mul_ref(m * k);
  cpu::add(a_ref.data(), a_ref.data(), add_ref.data(), add_ref.size());
  cpu::mul(a_ref.data(), a_ref.data(), mul_ref.data(), mul_ref.size());
  expect_near_all(ctx.to_host(sum_ab), add_ref, 0);
  expect_near_all(ctx.to_host(prod), mul_ref, 0);
  EXPECT_NEAR(ctx.item(ctx.sum(a)), cpu::sum(a_ref.data(), a_ref.size()), 1e-3);

  Array y = ctx.full(g, m, k, 1.0f);
  ctx.axpy(y, 0.5f, a);
  std::vector<float> axpy_ref(m * k);
  for (std::size_t i = 0; i < axpy_ref.size(); ++i) axpy_ref[i] = 1.0f + 0.5f * a_ref[i];
  expect_near_all(ctx.to_host(y), axpy_ref, 1e-6f);

  // CPU -> GPU -> CPU, asynchronously, in dependency order.
  Array h = ctx.random(frontend::cpu(), m, k, 4);
  Array back = ctx.copy_to(ctx.add(ctx.copy_to(h, g), a), frontend::cpu());
  std::vector<float> h_ref(m * k), back_ref(m * k);
  cpu::fill_random(h_ref.data(), h_ref.size(), 4);
  cpu::add(h_ref.data(), a_ref.data(), back_ref.data(), back_ref.size());
  expect_near_all(ctx.to_host(back), back_ref, 0);
  ctx.waitall();
  EXPECT_GT(ctx.peak_memory_bytes(g), 0.0);
}

TEST(ExecGpu, PeerCopiesBetweenTwoGpus) {
  std::string why;
  if (!have_gpus(2, &why)) GTEST_SKIP() << why;
  Context ctx(gpu_machine(2));
  Array a = ctx.random(frontend::gpu(0), 256, 256, 7);
  Array b = ctx.copy_to(a, frontend::gpu(1));
  Array c = ctx.add(b, b);
  std::vector<float> ref(256 * 256), twice(256 * 256);
  cpu::fill_random(ref.data(), ref.size(), 7);
  cpu::add(ref.data(), ref.data(), twice.data(), twice.size());
  expect_near_all(ctx.to_host(c), twice, 0);
}

}  // namespace
}  // namespace opsim
