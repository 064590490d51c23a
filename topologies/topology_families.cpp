#include "topologies/topology_families.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "hw_models/model_presets.hpp"

namespace opsim {
namespace {

constexpr int kSwitchFanOut = 4;

LinkModel book_pcie() {
  LinkModel link = LinkModel::pcie(3, 16);
  link.bytes_per_s = kBookPcieBytesPerS;
  link.latency_s = 0.0;
  return link;
}

/// Adds cpu, its switch tree and `gpus` GPUs numbered from `first_gpu`, then their links:
/// cpu-root first, switch-switch next, GPU-leaf last. `next_switch` numbers switches
/// globally. Returns the CPU.
DeviceId add_pcie_server(Machine& m, const std::string& cpu_name, int gpus, int first_gpu,
                         int& next_switch) {
  const DeviceId cpu = m.add_cpu(cpu_name, *cpu_model_preset("default"));
  // Levels of the tree, leaves first: each level has ceil(previous / fan-out) switches.
  std::vector<std::vector<DeviceId>> levels;
  int width = (gpus + kSwitchFanOut - 1) / kSwitchFanOut;
  while (true) {
    std::vector<DeviceId> level;
    for (int i = 0; i < width; ++i)
      level.push_back(m.add_switch("sw" + std::to_string(next_switch++)));
    levels.push_back(std::move(level));
    if (width == 1) break;
    width = (width + kSwitchFanOut - 1) / kSwitchFanOut;
  }
  const GpuModel v100 = *gpu_model_preset("v100");
  std::vector<DeviceId> gpu_ids;
  for (int i = 0; i < gpus; ++i)
    gpu_ids.push_back(m.add_gpu("gpu" + std::to_string(first_gpu + i), v100));

  const LinkModel pcie = book_pcie();
  auto name_of = [&](DeviceId id) { return m.device(id).name; };
  const DeviceId root = levels.back().front();
  m.add_link(name_of(cpu) + "-" + name_of(root), cpu, root, pcie);
  for (std::size_t l = levels.size() - 1; l > 0; --l) {
    for (std::size_t i = 0; i < levels[l - 1].size(); ++i) {
      const DeviceId child = levels[l - 1][i];
      const DeviceId parent = levels[l][i / kSwitchFanOut];
      m.add_link(name_of(child) + "-" + name_of(parent), child, parent, pcie);
    }
  }
  for (int i = 0; i < gpus; ++i) {
    const DeviceId leaf = levels.front()[static_cast<std::size_t>(i / kSwitchFanOut)];
    m.add_link(name_of(gpu_ids[i]) + "-" + name_of(leaf), gpu_ids[i], leaf, pcie);
  }
  return cpu;
}

}  // namespace

Machine make_pcie_switch_machine(int gpus) {
  Machine m("pcie-switch:" + std::to_string(gpus));
  m.set_description(std::to_string(gpus) +
                    " V100s and the CPU behind PCIe switches, 16 GB/s per direction per link, "
                    "zero latency (the book's PCIe server)");
  int next_switch = 0;
  add_pcie_server(m, "cpu0", gpus, 0, next_switch);
  m.seal();
  return m;
}

Machine make_nvlink_ring_machine(int gpus) {
  Machine m("nvlink-ring:" + std::to_string(gpus));
  m.set_description(std::to_string(gpus) +
                    " V100s in a ring of single NVLink 2.0 links (25 GB/s per direction, zero "
                    "latency), host CPU on PCIe");
  int next_switch = 0;
  add_pcie_server(m, "cpu0", gpus, 0, next_switch);
  LinkModel nvlink = LinkModel::nvlink(2, 1);
  nvlink.latency_s = 0.0;
  const auto gpu_ids = m.gpus();
  const int links = gpus == 2 ? 1 : gpus;
  for (int i = 0; i < links; ++i) {
    const DeviceId a = gpu_ids[static_cast<std::size_t>(i)];
    const DeviceId b = gpu_ids[static_cast<std::size_t>((i + 1) % gpus)];
    m.add_link(m.device(a).name + "-" + m.device(b).name, a, b, nvlink);
  }
  m.seal();
  return m;
}

Machine make_cluster_machine(int servers, int gpus_per_server, double ethernet_gbit_per_s) {
  char speed[32];
  std::snprintf(speed, sizeof speed, "%g", ethernet_gbit_per_s);
  Machine m("cluster:" + std::to_string(servers) + "x" + std::to_string(gpus_per_server) + "@" +
            speed);
  m.set_description(std::to_string(servers) + " servers of " + std::to_string(gpus_per_server) +
                    " V100s behind a PCIe switch, joined by " + speed +
                    " Gbit/s Ethernet through one switch; CPUs host the parameter servers");
  int next_switch = 0;
  std::vector<DeviceId> nics;
  for (int s = 0; s < servers; ++s) {
    m.add_node("server" + std::to_string(s));
    const DeviceId cpu = add_pcie_server(m, "cpu" + std::to_string(s), gpus_per_server,
                                         s * gpus_per_server, next_switch);
    const DeviceId nic = m.add_nic("nic" + std::to_string(s));
    m.add_link(m.device(cpu).name + "-" + m.device(nic).name, cpu, nic, book_pcie());
    nics.push_back(nic);
  }
  m.add_node("network");
  const DeviceId eth = m.add_switch("ethsw0");
  const LinkModel ethernet = LinkModel::ethernet(ethernet_gbit_per_s);
  for (DeviceId nic : nics) m.add_link(m.device(nic).name + "-ethsw0", nic, eth, ethernet);
  m.seal();
  return m;
}

}  // namespace opsim
