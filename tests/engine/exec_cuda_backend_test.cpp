// The CUDA backend on a real GPU: cuBLAS GEMM, elementwise kernels and copies through the
// scheduler. Without a GPU every test skips, saying why.
#include <gtest/gtest.h>

#include "engine/exec/cuda_backend.hpp"
#include "engine/scheduler.hpp"

namespace opsim {
namespace {

Machine gpu_machine(int gpus) {
  Machine m("cuda-test");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("pcie_sw0");
  m.add_link("pcie_cpu0", cpu, sw, LinkModel::pcie(3, 16));
  for (int i = 0; i < gpus; ++i) {
    const DeviceId g = m.add_gpu("gpu" + std::to_string(i), GpuModel{});
    m.add_link("pcie_gpu" + std::to_string(i), g, sw, LinkModel::pcie(3, 16));
  }
  m.seal();
  return m;
}

TEST(ExecCudaBackend, NoGpuIsAClearErrorNotACrash) {
  std::string why;
  if (CudaBackend::device_count(&why) > 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(why.empty());
  EXPECT_THROW(CudaBackend(), NoGpu);
}

TEST(ExecCudaBackend, GemmCopiesAndDependenciesOnAGpu) {
  std::string why;
  if (CudaBackend::device_count(&why) == 0) GTEST_SKIP() << why;
  const Machine m = gpu_machine(1);
  OpGraph g;
  Op gemm;
  gemm.kind = OpKind::kCompute;
  gemm.kernel = KernelClass::kGemm;
  gemm.device = *m.find_device("gpu0");
  gemm.flops = 2.0 * 1024 * 1024 * 1024;
  const OpId a = g.add(gemm, "gemm");
  Op copy;
  copy.kind = OpKind::kCopy;
  copy.device = gemm.device;
  copy.peer = *m.find_device("cpu0");
  copy.bytes = 4 << 20;
  const OpId b = g.add(copy, "copy to cpu");
  g.add_dependency(a, b);
  CudaBackend backend;
  Scheduler s(m, g, backend);
  s.submit_all();
  s.run();
  EXPECT_EQ(s.finished_count(), 2u);
  EXPECT_GT(s.end_ns(a), s.start_ns(a));
  EXPECT_GE(s.start_ns(b), s.end_ns(a));
}

}  // namespace
}  // namespace opsim
