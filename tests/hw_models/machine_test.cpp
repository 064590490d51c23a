#include "hw_models/machine.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "hw_models/roofline.hpp"

namespace opsim {
namespace {

// Four GPUs and a CPU behind one PCIe switch, plus NVLink between gpu0 and gpu1.
Machine small_server() {
  Machine m("small");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("sw0");
  m.add_link("pcie_cpu0", cpu, sw, LinkModel::pcie(3, 16));
  for (int i = 0; i < 4; ++i) {
    const DeviceId gpu = m.add_gpu("gpu" + std::to_string(i), GpuModel{});
    m.add_link("pcie_gpu" + std::to_string(i), gpu, sw, LinkModel::pcie(3, 16));
  }
  m.add_link("nvlink01", *m.find_device("gpu0"), *m.find_device("gpu1"), LinkModel::nvlink(2, 2));
  m.seal();
  return m;
}

TEST(Machine, RoutesThroughSwitchWithDirections) {
  Machine m = small_server();
  const auto gpu2 = *m.find_device("gpu2");
  const auto gpu3 = *m.find_device("gpu3");
  auto hops = m.route(gpu2, gpu3);
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_EQ(m.link(hops[0].link).name, "pcie_gpu2");
  EXPECT_TRUE(hops[0].forward);  // gpu2 is link.a: up towards the switch
  EXPECT_EQ(m.link(hops[1].link).name, "pcie_gpu3");
  EXPECT_FALSE(hops[1].forward);  // into gpu3, which is link.a
  EXPECT_TRUE(m.route(gpu2, gpu2).empty());
}

TEST(Machine, PrefersDirectNvlinkAndNeverRelaysThroughGpus) {
  Machine m = small_server();
  const auto gpu0 = *m.find_device("gpu0");
  const auto gpu1 = *m.find_device("gpu1");
  auto direct = m.route(gpu0, gpu1);
  ASSERT_EQ(direct.size(), 1u);
  EXPECT_EQ(m.link(direct[0].link).name, "nvlink01");
  EXPECT_DOUBLE_EQ(m.route_bytes_per_s(gpu0, gpu1), 50e9);
  // gpu1 -> gpu2 could go gpu1-nvlink-gpu0-pcie... but GPUs do not forward.
  auto via_switch = m.route(gpu1, *m.find_device("gpu2"));
  ASSERT_EQ(via_switch.size(), 2u);
  EXPECT_EQ(m.link(via_switch[0].link).name, "pcie_gpu1");
}

TEST(Machine, RejectsDuplicatesAndMissingRoutes) {
  Machine m("bad");
  const DeviceId a = m.add_gpu("gpu0", GpuModel{});
  EXPECT_THROW(m.add_gpu("gpu0", GpuModel{}), std::invalid_argument);
  const DeviceId b = m.add_gpu("gpu1", GpuModel{});
  EXPECT_THROW(m.add_link("self", a, a, LinkModel{}), std::invalid_argument);
  LinkModel zero;
  zero.bytes_per_s = 0;
  EXPECT_THROW(m.add_link("zero", a, b, zero), std::invalid_argument);
  m.seal();
  EXPECT_THROW(m.route(a, b), std::invalid_argument);
}

// Four servers of two GPUs, each server's GPUs and NIC on a PCIe switch; the NICs on two
// leaves joined by two spines, one of them narrower; and a GPU linked to nothing.
Machine small_fat_tree() {
  Machine m("fat-tree");
  const DeviceId leaves[2] = {m.add_switch("leaf0"), m.add_switch("leaf1")};
  const DeviceId spines[2] = {m.add_switch("spine0"), m.add_switch("spine1")};
  for (int l = 0; l < 2; ++l)
    for (int s = 0; s < 2; ++s)
      m.add_link("leaf" + std::to_string(l) + "-spine" + std::to_string(s), leaves[l], spines[s],
                 s == 0 ? LinkModel::infiniband(200) : LinkModel::infiniband(400));
  for (int server = 0; server < 4; ++server) {
    const std::string tag = std::to_string(server);
    const DeviceId sw = m.add_switch("pcie" + tag);
    const DeviceId nic = m.add_nic("nic" + tag);
    m.add_link("pcie-nic" + tag, sw, nic, LinkModel::pcie(4, 16));
    m.add_link("nic-leaf" + tag, nic, leaves[server % 2], LinkModel::infiniband(400));
    for (int g = 0; g < 2; ++g) {
      const DeviceId gpu = m.add_gpu("gpu" + tag + std::to_string(g), GpuModel{});
      m.add_link("pcie-gpu" + tag + std::to_string(g), gpu, sw, LinkModel::pcie(4, 16));
    }
  }
  m.add_gpu("lonely", GpuModel{});
  m.seal();
  return m;
}

TEST(Machine, ASourceAskedForManyRoutesGetsTheRoutesOfSearchesForEachAlone) {
  const Machine asked_for_all = small_fat_tree();
  const DeviceId lonely = *asked_for_all.find_device("lonely");
  const auto devices = static_cast<DeviceId>(asked_for_all.devices().size());
  for (DeviceId src = 0; src < devices; ++src) {
    if (src == lonely) continue;
    for (DeviceId dst = 0; dst < devices; ++dst) {
      if (dst == lonely) {
        EXPECT_THROW(asked_for_all.route(src, dst), std::invalid_argument);
        continue;
      }
      const Machine asked_for_one(asked_for_all);  // a copy starts with no routes
      const std::span<const Hop> alone = asked_for_one.route(src, dst);
      const std::span<const Hop> among_many = asked_for_all.route(src, dst);
      EXPECT_TRUE(std::equal(alone.begin(), alone.end(), among_many.begin(), among_many.end()))
          << asked_for_all.device(src).name << " to " << asked_for_all.device(dst).name;
    }
  }
  // Across the leaves the route takes the wider spine.
  const auto across =
      asked_for_all.route(*asked_for_all.find_device("gpu00"), *asked_for_all.find_device("gpu10"));
  ASSERT_EQ(across.size(), 8u);
  EXPECT_EQ(asked_for_all.link(across[3].link).name, "leaf0-spine1");
  EXPECT_THROW(asked_for_all.route(lonely, 0), std::invalid_argument);
}

TEST(Machine, HostCpuAndNodes) {
  Machine m("cluster");
  m.add_node("server0");
  const DeviceId cpu0 = m.add_cpu("cpu0", CpuModel{});
  const DeviceId gpu0 = m.add_gpu("gpu0", GpuModel{});
  m.add_link("l0", cpu0, gpu0, LinkModel::pcie(3, 16));
  m.add_node("server1");
  const DeviceId cpu1 = m.add_cpu("cpu1", CpuModel{});
  const DeviceId gpu1 = m.add_gpu("gpu1", GpuModel{});
  m.add_link("l1", cpu1, gpu1, LinkModel::pcie(3, 16));
  m.add_link("eth", cpu0, cpu1, LinkModel::ethernet(10));
  m.seal();
  EXPECT_EQ(m.node_names().size(), 2u);
  EXPECT_EQ(m.device(gpu1).node, 1u);
  EXPECT_EQ(m.host_cpu_of(gpu1), cpu1);
  EXPECT_EQ(m.route(gpu0, gpu1).size(), 3u);
  EXPECT_NEAR(m.route_latency_s(gpu0, gpu1), 1e-6 + 10e-6 + 1e-6, 1e-12);
  // Copies keep working after the machine is copied (the route cache is per instance).
  Machine copy = m;
  EXPECT_EQ(copy.route(gpu0, gpu1).size(), 3u);
}

TEST(HardwareModels, PeaksAndRoofline) {
  CpuModel cpu;
  cpu.cores = 8;
  cpu.clock_hz = 3e9;
  cpu.simd_fp32_lanes = 8;
  cpu.fma_units = 2;
  EXPECT_DOUBLE_EQ(cpu.peak_flops_per_s(), 8 * 3e9 * 8 * 2 * 2);
  EXPECT_DOUBLE_EQ(LinkModel::pcie(3, 16).bytes_per_s, 0.985e9 * 16);
  EXPECT_DOUBLE_EQ(LinkModel::nvlink(2, 2).bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(LinkModel::ethernet(10).bytes_per_s, 1.25e9);
  // Compute bound: 2e12 flops at 10 TFLOP/s x 0.5 = 0.4 s, plus 5 us launch.
  EXPECT_DOUBLE_EQ(roofline_time_s(2e12, 1e9, 10e12, 900e9, 5e-6, 0.5), 0.4 + 5e-6);
  // Memory bound.
  EXPECT_DOUBLE_EQ(roofline_time_s(1e6, 900e9, 10e12, 900e9, 0, 1.0), 1.0);
  DramModel dram;
  EXPECT_DOUBLE_EQ(dram.bytes_per_s(), 2 * 25.6e9);
}

}  // namespace
}  // namespace opsim

namespace opsim {
namespace {
TEST(HardwareModels, DiskSpeedBesideComputeIsLinearFromOneBusyStreamToAll) {
  CpuModel cpu;
  cpu.compute_streams = 4;
  cpu.disk_read_speed_one_busy = 0.9;
  cpu.disk_read_speed_all_busy = 0.6;
  cpu.disk_write_speed_all_busy = 0.5;  // one busy: 1 (not measured)
  EXPECT_EQ(cpu.disk_speed_beside_compute(false, 0), 1.0);
  EXPECT_DOUBLE_EQ(cpu.disk_speed_beside_compute(false, 1), 0.9);
  EXPECT_DOUBLE_EQ(cpu.disk_speed_beside_compute(false, 2), 0.8);
  EXPECT_DOUBLE_EQ(cpu.disk_speed_beside_compute(false, 4), 0.6);
  EXPECT_DOUBLE_EQ(cpu.disk_speed_beside_compute(false, 9), 0.6);  // more ops than streams
  EXPECT_DOUBLE_EQ(cpu.disk_speed_beside_compute(true, 3), 1.0 - 0.5 * 2 / 3);
  cpu.compute_streams = 1;  // one stream: busy is all busy
  EXPECT_DOUBLE_EQ(cpu.disk_speed_beside_compute(true, 1), 0.5);
}

TEST(HardwareModels, MemoryPassRateByWorkingSet) {
  CpuModel cpu;
  cpu.dram.channels = 1;
  cpu.dram.bytes_per_s_per_channel = 20e9;
  cpu.efficiency = 0.5;
  EXPECT_DOUBLE_EQ(cpu.memory_pass_bytes_per_s(1e9), 10e9);  // nothing measured: DRAM x eff
  cpu.memory_pass_rates = {{2e6, 30e9}, {8e6, 20e9}, {128e6, 15e9}};
  EXPECT_DOUBLE_EQ(cpu.memory_pass_bytes_per_s(1e6), 30e9);  // below the smallest set
  EXPECT_DOUBLE_EQ(cpu.memory_pass_bytes_per_s(2e6), 30e9);
  EXPECT_NEAR(cpu.memory_pass_bytes_per_s(4e6), 25e9, 1e3);  // halfway in log size
  EXPECT_DOUBLE_EQ(cpu.memory_pass_bytes_per_s(8e6), 20e9);
  EXPECT_NEAR(cpu.memory_pass_bytes_per_s(32e6), 17.5e9, 1e3);
  EXPECT_DOUBLE_EQ(cpu.memory_pass_bytes_per_s(1e9), 15e9);  // beyond the largest
}
TEST(HardwareModels, SgemmPeakBySize) {
  GpuModel gpu;
  gpu.fp32_flops_per_s = 50e12;
  EXPECT_EQ(gpu.sgemm_peak_flops_per_s(2e9), 50e12);  // no rates: the fp32 peak at every size
  gpu.sgemm_rates = {{512, 10e12}, {1024, 30e12}, {4096, 50e12}};
  auto cube = [](double n) { return 2 * n * n * n; };
  EXPECT_DOUBLE_EQ(gpu.sgemm_peak_flops_per_s(cube(256)), 10e12);  // below the smallest
  EXPECT_NEAR(gpu.sgemm_peak_flops_per_s(cube(512)), 10e12, 1e3);
  EXPECT_NEAR(gpu.sgemm_peak_flops_per_s(cube(1024)), 30e12, 1e3);
  EXPECT_NEAR(gpu.sgemm_peak_flops_per_s(cube(2048)), 40e12, 1e3);  // halfway in log n
  EXPECT_DOUBLE_EQ(gpu.sgemm_peak_flops_per_s(cube(8192)), 50e12);  // beyond the largest
  // A non-square GEMM at the rate of the square one of as many flops: 2048 x 2048 x 256 has
  // the flops of a 1024 cube.
  EXPECT_NEAR(gpu.sgemm_peak_flops_per_s(2.0 * 2048 * 2048 * 256), 30e12, 1e3);
}
}  // namespace
}  // namespace opsim
