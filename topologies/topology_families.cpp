#include "topologies/topology_families.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <utility>
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
                         int& next_switch, const GpuModel& gpu_model = *gpu_model_preset("v100"),
                         const LinkModel& pcie = book_pcie()) {
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
  std::vector<DeviceId> gpu_ids;
  for (int i = 0; i < gpus; ++i)
    gpu_ids.push_back(m.add_gpu("gpu" + std::to_string(first_gpu + i), gpu_model));

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

namespace {

/// "gpu12" -> {"gpu", 12}; a name without a trailing number -> {name, -1}.
std::pair<std::string, int> split_number(const std::string& name) {
  std::size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size()) return {name, -1};
  return {name.substr(0, digits), std::stoi(name.substr(digits))};
}

/// Copies `server` into `m` as server `index`, renumbering each device prefix globally.
/// Returns the copy's NICs in the server's order.
std::vector<DeviceId> add_server_copy(Machine& m, const Machine& server, int index) {
  std::map<std::string, int> per_server;  // devices per prefix
  for (const Device& d : server.devices()) ++per_server[split_number(d.name).first];
  std::vector<DeviceId> ids;
  std::vector<DeviceId> nics;
  for (const Device& d : server.devices()) {
    Device copy = d;
    const auto [prefix, number] = split_number(d.name);
    copy.name = number < 0 ? prefix + std::to_string(index)
                           : prefix + std::to_string(number + index * per_server[prefix]);
    ids.push_back(m.add_device(std::move(copy)));
    if (d.kind == DeviceKind::kNic) nics.push_back(ids.back());
  }
  for (const Link& link : server.links()) {
    const DeviceId a = ids[link.a], b = ids[link.b];
    m.add_link(m.device(a).name + "-" + m.device(b).name, a, b, link.model);
  }
  return nics;
}

}  // namespace

Machine make_ib_cluster_machine(int nodes, int gpus_per_node, double nic_gbit_per_s,
                                double oversubscription, const Machine* server) {
  char speed[32], ratio[32];
  std::snprintf(speed, sizeof speed, "%g", nic_gbit_per_s);
  std::snprintf(ratio, sizeof ratio, "%g", oversubscription);
  Machine m("ib-cluster:" + std::to_string(nodes) + "x" + std::to_string(gpus_per_node) + "@" +
            speed + "/" + ratio);
  m.set_description(std::to_string(nodes) + " servers of " + std::to_string(gpus_per_node) +
                    (server ? " H100s (as dgx-h100)" : " H100s on PCIe 5.0 switches") + ", one " +
                    speed +
                    " Gbit/s InfiniBand NIC per GPU on a rail-optimized fat tree (leaf per "
                    "rail, spine oversubscribed " +
                    ratio + ":1)");
  if (server != nullptr) m.mutable_collectives() = server->collectives();
  std::vector<std::vector<DeviceId>> nics;  // per server, in rail order
  int next_switch = 0;
  const LinkModel pcie = LinkModel::pcie(5, 16);
  for (int s = 0; s < nodes; ++s) {
    m.add_node("server" + std::to_string(s));
    if (server) {
      nics.push_back(add_server_copy(m, *server, s));
      continue;
    }
    add_pcie_server(m, "cpu" + std::to_string(s), gpus_per_node, s * gpus_per_node, next_switch,
                    *gpu_model_preset("h100"), pcie);
    std::vector<DeviceId> server_nics;
    for (int i = 0; i < gpus_per_node; ++i) {
      const DeviceId gpu = *m.find_device("gpu" + std::to_string(s * gpus_per_node + i));
      const Link& up = m.link(m.links_of(gpu).front());
      const DeviceId leaf = up.a == gpu ? up.b : up.a;
      const DeviceId nic = m.add_nic("nic" + std::to_string(s * gpus_per_node + i));
      m.add_link(m.device(nic).name + "-" + m.device(leaf).name, nic, leaf, pcie);
      server_nics.push_back(nic);
    }
    nics.push_back(std::move(server_nics));
  }
  m.add_node("network");
  const std::size_t rails = nics.front().size();
  const LinkModel nic_link = LinkModel::infiniband(nic_gbit_per_s);
  std::vector<DeviceId> leaves;
  for (std::size_t r = 0; r < rails; ++r)
    leaves.push_back(m.add_switch("ibleaf" + std::to_string(r)));
  for (const auto& server_nics : nics)
    for (std::size_t r = 0; r < rails; ++r)
      m.add_link(m.device(server_nics[r]).name + "-" + m.device(leaves[r]).name, server_nics[r],
                 leaves[r], nic_link);
  if (rails > 1) {
    const DeviceId spine = m.add_switch("ibspine0");
    LinkModel uplink = nic_link;
    uplink.bytes_per_s = nic_link.bytes_per_s * nodes / oversubscription;
    for (DeviceId leaf : leaves) m.add_link(m.device(leaf).name + "-ibspine0", leaf, spine, uplink);
  }
  m.seal();
  return m;
}

}  // namespace opsim
