// A CPU op's time: the roofline, with a memory-bound pass paying one DRAM first access.
#include <gtest/gtest.h>

#include "hw_models/cpu_model.hpp"

namespace opsim {
namespace {

TEST(CpuOpTime, AMemoryBoundPassPaysOneFirstAccessThenStreams) {
  CpuModel cpu;
  cpu.memory_pass_rates = {{64e6, 10e9}};
  cpu.dram.first_access_s = 100e-9;
  EXPECT_DOUBLE_EQ(cpu.op_time_s(0, 64e6, 1.0, 1.0), 100e-9 + 64e6 / 10e9);
  cpu.dram.first_access_s = 1e-3;
  EXPECT_DOUBLE_EQ(cpu.op_time_s(0, 64e6, 1.0, 1.0), 1e-3 + 64e6 / 10e9);
  // A core at half speed streams at half the rate; the first access does not scale.
  EXPECT_DOUBLE_EQ(cpu.op_time_s(0, 64e6, 0.5, 1.0), 1e-3 + 64e6 / 5e9);
}

TEST(CpuOpTime, AComputeBoundOpHidesTheFirstAccess) {
  CpuModel cpu;
  cpu.dram.first_access_s = 100e-9;
  const double flops = 2.0 * 1024 * 1024 * 1024;
  const double compute_s = flops / (cpu.peak_flops_per_s() * cpu.efficiency);
  EXPECT_DOUBLE_EQ(cpu.op_time_s(flops, 12e6, 1.0, 1.0), compute_s);
  // No bytes: no memory access to pay for.
  EXPECT_DOUBLE_EQ(cpu.op_time_s(flops, 0, 1.0, 1.0), compute_s);
}

}  // namespace
}  // namespace opsim
