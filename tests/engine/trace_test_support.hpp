// A small machine and hand-made traces shared by the trace tests.
#pragma once

#include <string>

#include "engine/trace.hpp"
#include "hw_models/machine.hpp"

namespace opsim::test {

// Server "rig": cpu0, pcie_sw0, gpu0, gpu1, disk0; server "server1": cpu1.
// Links (ids in this order): pcie_cpu0 (cpu0-pcie_sw0), pcie_gpu0 (gpu0-pcie_sw0),
// pcie_gpu1 (gpu1-pcie_sw0), sata0 (disk0-cpu0, half duplex), eth0 (cpu0-cpu1). All 16 GB/s
// (each way where full duplex).
inline Machine small_machine() {
  Machine m("rig");
  const LinkModel link{LinkKind::kPcie, 16e9, 0.0, true, 1};
  const DeviceId cpu0 = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("pcie_sw0");
  const DeviceId gpu0 = m.add_gpu("gpu0", GpuModel{});
  const DeviceId gpu1 = m.add_gpu("gpu1", GpuModel{});
  const DeviceId disk0 = m.add_disk("disk0", DiskModel{});
  m.add_node("server1");
  const DeviceId cpu1 = m.add_cpu("cpu1", CpuModel{});
  m.add_link("pcie_cpu0", cpu0, sw, link);
  m.add_link("pcie_gpu0", gpu0, sw, link);
  m.add_link("pcie_gpu1", gpu1, sw, link);
  LinkModel sata = link;
  sata.full_duplex = false;  // one lane for both directions
  m.add_link("sata0", disk0, cpu0, sata);
  m.add_link("eth0", cpu0, cpu1, link);
  m.seal();
  return m;
}

inline constexpr TimeNs kMs = 1'000'000;

// One copy of 480 MB on a 16 GB/s link direction from 0 to 30 ms, one compute op from 0 to
// 60 ms, three overlapping transfers on a second link direction.
inline Trace hand_made_trace() {
  Trace t;
  t.title = "hand \"made\", with a \\ and ünïcödé";
  t.backend = "sim";
  t.machine = "rig";
  t.lanes = {
      {"gpu0/compute0", "rig", "gpu0", LaneKind::kCompute, 0},
      {"gpu0/copy-out", "rig", "gpu0", LaneKind::kCopy, 0},
      {"cpu0/memcpy0", "rig", "cpu0", LaneKind::kCopy, 0},
      {"pcie_gpu0 gpu0\u2192pcie_sw0", "rig", "pcie_gpu0", LaneKind::kLink, 16e9},
      {"eth0 cpu0\u2192cpu1", "rig", "eth0", LaneKind::kLink, 12.5e9},
  };
  t.ops = {
      {"gemm, \"big\"\n", "gemm", "gpu0", "", 2e12, 1.5e9, 0, 0, 60 * kMs},
      {"copy0", "copy", "gpu0", "cpu0", 0, 480e6, 1, 0, 30 * kMs},
      {"send0", "copy", "cpu0", "cpu1", 0, 0.1, 2, 10 * kMs, 20 * kMs},
      {"send1", "copy", "cpu0", "cpu1", 1e-7, 125e6, 2, 15 * kMs, 25 * kMs},
      {"send2", "copy", "cpu0", "cpu1", 0, 3, 2, 12 * kMs, 18 * kMs + 1},
  };
  t.link_spans = {
      {1, 3, 0, 30 * kMs},
      {2, 4, 10 * kMs, 20 * kMs},
      {3, 4, 15 * kMs, 25 * kMs},
      {4, 4, 12 * kMs, 18 * kMs + 1},
  };
  t.dependencies = {{0, 1}, {1, 2}, {1, 3}, {2, 4}};
  t.counters = {
      {"memory gpu0", "bytes", {{0, 100}, {10 * kMs, 300}, {20 * kMs, 0}}, "rig", "gpu0"},
      {"memory cpu0", "bytes", {{5 * kMs, 50}, {15 * kMs, 400}}, "rig", "cpu0"},
      {"utilization eth0 cpu0\u2192cpu1",
       "fraction",
       {{10 * kMs, 0.25}, {25 * kMs, 0}},
       "",
       "eth0 cpu0\u2192cpu1"},
  };
  return t;
}

}  // namespace opsim::test
