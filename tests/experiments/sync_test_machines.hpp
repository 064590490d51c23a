// Machines for the synchronization tests, built in code (no topology files): the book's
// 4-GPU PCIe-switch server, a DGX-1 (V100) hybrid cube mesh, a small cluster and a big ring.
#pragma once

#include <string>

#include "hw_models/machine.hpp"

namespace opsim::testing {

/// Zero-latency link at `bytes_per_s` each way, as in the book's arithmetic.
inline LinkModel flat_link(LinkKind kind, double bytes_per_s) {
  LinkModel model;
  model.kind = kind;
  model.bytes_per_s = bytes_per_s;
  model.latency_s = 0;
  return model;
}

/// The book's Fig. 12.7.2: a CPU and `gpus` GPUs behind one PCIe switch, 16 GB/s per link.
inline Machine switch_server(int gpus = 4, double bytes_per_s = 16e9) {
  Machine m("book-4gpu");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId sw = m.add_switch("pcie_sw0");
  m.add_link("pcie_cpu0", cpu, sw, flat_link(LinkKind::kPcie, bytes_per_s));
  for (int i = 0; i < gpus; ++i) {
    const DeviceId gpu = m.add_gpu("gpu" + std::to_string(i), GpuModel{});
    m.add_link("pcie_gpu" + std::to_string(i), gpu, sw, flat_link(LinkKind::kPcie, bytes_per_s));
  }
  m.seal();
  return m;
}

/// DGX-1 with V100s: two CPUs, four PCIe switches with two GPUs each, and the hybrid cube
/// mesh of 24 NVLinks (six per GPU), as `nvidia-smi topo -m` and NCCL's topology dump show
/// it: quads {0,1,2,3} and {4,5,6,7} fully connected, GPU i joined to GPU i+4, doubled
/// links 0-3, 0-4, 1-2, 1-5, 2-3, 4-7, 5-6, 6-7. Each NVLink 25 GB/s per direction.
inline Machine dgx1() {
  Machine m("dgx1");
  DeviceId cpu[2];
  DeviceId gpu[8];
  for (int c = 0; c < 2; ++c) cpu[c] = m.add_cpu("cpu" + std::to_string(c), CpuModel{});
  m.add_link("qpi", cpu[0], cpu[1], flat_link(LinkKind::kGeneric, 20e9));
  for (int s = 0; s < 4; ++s) {
    const DeviceId sw = m.add_switch("pcie_sw" + std::to_string(s));
    m.add_link("pcie_up" + std::to_string(s), sw, cpu[s / 2], LinkModel::pcie(3, 16));
    for (int k = 0; k < 2; ++k) {
      const int g = 2 * s + k;
      gpu[g] = m.add_gpu("gpu" + std::to_string(g), GpuModel{});
      m.add_link("pcie_gpu" + std::to_string(g), gpu[g], sw, LinkModel::pcie(3, 16));
    }
  }
  const int mesh[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1},
                         {1, 5, 2}, {2, 3, 2}, {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1},
                         {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};
  for (const auto& [a, b, count] : mesh)
    m.add_link("nvlink" + std::to_string(a) + std::to_string(b), gpu[a], gpu[b],
               LinkModel::nvlink(2, count));
  m.seal();
  return m;
}

/// `servers` servers, each a CPU, a PCIe switch with `gpus` GPUs at 16 GB/s and a NIC on
/// the CPU; the NICs meet at one Ethernet switch at `ethernet_bytes_per_s`.
inline Machine cluster(int servers, int gpus, double ethernet_bytes_per_s = 12.5e9) {
  Machine m("cluster");
  std::vector<DeviceId> nics;
  for (int s = 0; s < servers; ++s) {
    const std::string p = "s" + std::to_string(s) + "/";
    m.add_node("server" + std::to_string(s));
    const DeviceId cpu = m.add_cpu(p + "cpu0", CpuModel{});
    const DeviceId sw = m.add_switch(p + "pcie_sw0");
    m.add_link(p + "pcie_cpu0", cpu, sw, flat_link(LinkKind::kPcie, 16e9));
    for (int g = 0; g < gpus; ++g) {
      const DeviceId gpu = m.add_gpu(p + "gpu" + std::to_string(g), GpuModel{});
      m.add_link(p + "pcie_gpu" + std::to_string(g), gpu, sw, flat_link(LinkKind::kPcie, 16e9));
    }
    nics.push_back(m.add_nic(p + "nic0"));
    m.add_link(p + "pcie_nic0", nics.back(), cpu, flat_link(LinkKind::kPcie, 16e9));
  }
  const DeviceId eth = m.add_switch("eth_sw");
  for (int s = 0; s < servers; ++s)
    m.add_link("eth" + std::to_string(s), nics[s], eth,
               flat_link(LinkKind::kEthernet, ethernet_bytes_per_s));
  m.seal();
  return m;
}

/// `leaves` PCIe switches of `per_leaf` GPUs under one root switch and a CPU.
inline Machine pcie_tree(int leaves, int per_leaf) {
  Machine m("pcie-tree");
  const DeviceId cpu = m.add_cpu("cpu0", CpuModel{});
  const DeviceId root = m.add_switch("root");
  m.add_link("pcie_cpu0", cpu, root, flat_link(LinkKind::kPcie, 16e9));
  for (int l = 0; l < leaves; ++l) {
    const DeviceId sw = m.add_switch("sw" + std::to_string(l));
    m.add_link("up" + std::to_string(l), sw, root, flat_link(LinkKind::kPcie, 16e9));
    for (int g = 0; g < per_leaf; ++g) {
      const std::string name = "gpu" + std::to_string(l * per_leaf + g);
      m.add_link("pcie_" + name, m.add_gpu(name, GpuModel{}), sw, flat_link(LinkKind::kPcie, 16e9));
    }
  }
  m.seal();
  return m;
}

}  // namespace opsim::testing
