// Presets load with the right shape, route sensibly, and round-trip through the YAML dump.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "common/input_error.hpp"
#include "hw_models/model_presets.hpp"
#include "topologies/embedded_presets.hpp"
#include "topologies/topology_catalog.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

DeviceId id(const Machine& m, const std::string& name) {
  auto found = m.find_device(name);
  EXPECT_TRUE(found.has_value()) << name;
  return found.value_or(0);
}

/// Device names along the route, endpoints included.
std::vector<std::string> path(const Machine& m, const std::string& from, const std::string& to) {
  DeviceId at = id(m, from);
  std::vector<std::string> names{from};
  for (const Hop& hop : m.route(at, id(m, to))) {
    const Link& link = m.link(hop.link);
    at = hop.forward ? link.b : link.a;
    names.push_back(m.device(at).name);
  }
  return names;
}

const Link* link_between(const Machine& m, const std::string& x, const std::string& y) {
  const DeviceId a = id(m, x), b = id(m, y);
  for (const Link& link : m.links())
    if ((link.a == a && link.b == b) || (link.a == b && link.b == a)) return &link;
  return nullptr;
}

TEST(TopologyPresets, AllPresetsAreEmbeddedAndListed) {
  std::set<std::string> names;
  for (const auto& preset : embedded_presets()) names.insert(std::string(preset.name));
  EXPECT_EQ(names,
            (std::set<std::string>{"cluster-2x4gpu", "cluster-2x4gpu-100gbe", "desktop-1gpu",
                                   "dgx-a100", "dgx-h100", "dgx1-v100", "pcie-switch-4gpu"}));
  std::map<std::string, TopologyInfo> infos;
  for (const TopologyInfo& info : list_topologies()) infos[info.name] = info;
  EXPECT_EQ(infos.at("dgx1-v100").gpus, 8);
  EXPECT_EQ(infos.at("dgx-a100").gpus, 8);
  EXPECT_EQ(infos.at("dgx-h100").gpus, 8);
  EXPECT_EQ(infos.at("pcie-switch-4gpu").gpus, 4);
  EXPECT_EQ(infos.at("desktop-1gpu").gpus, 1);
  EXPECT_EQ(infos.at("cluster-2x4gpu").gpus, 8);
  EXPECT_FALSE(infos.at("dgx1-v100").family);
  ASSERT_TRUE(infos.count("nvlink-ring:N"));
  EXPECT_TRUE(infos.at("nvlink-ring:N").family);
  EXPECT_FALSE(infos.at("nvlink-ring:N").gpus.has_value());
  EXPECT_TRUE(infos.count("pcie-switch:N"));
  EXPECT_TRUE(infos.count("cluster:MxG[@GBITS]"));
  for (const auto& [name, info] : infos) {
    EXPECT_FALSE(info.description.empty()) << name;
    EXPECT_NO_THROW(resolve_topology(info.example)) << info.example;
  }
}

TEST(TopologyPresets, Desktop) {
  const Machine m = resolve_topology("desktop-1gpu");
  EXPECT_EQ(m.cpus().size(), 1u);
  EXPECT_EQ(m.gpus().size(), 1u);
  const auto disks = m.devices_of_kind(DeviceKind::kDisk);
  ASSERT_EQ(disks.size(), 2u);
  const Device& nvme = m.device(id(m, "nvme0"));
  const Device& hdd = m.device(id(m, "hdd0"));
  EXPECT_EQ(nvme.disk.kind, DiskKind::kNvme);
  EXPECT_DOUBLE_EQ(nvme.disk.read_bytes_per_s, 0.9 * 0.985e9 * 4);
  EXPECT_EQ(hdd.disk.kind, DiskKind::kHdd);
  EXPECT_NEAR(hdd.disk.access_s, 4e-3 + 30.0 / 7200, 1e-12);  // seek + half a turn ≈ 8.2 ms
  EXPECT_EQ(hdd.disk.queues, 1);
  const Link* gpu_link = link_between(m, "gpu0", "cpu0");
  ASSERT_NE(gpu_link, nullptr);
  EXPECT_EQ(gpu_link->model.kind, LinkKind::kPcie);
  EXPECT_DOUBLE_EQ(gpu_link->model.bytes_per_s, 0.985e9 * 16);
  const Link* sata = link_between(m, "hdd0", "cpu0");
  ASSERT_NE(sata, nullptr);
  EXPECT_EQ(sata->model.kind, LinkKind::kSata);
  EXPECT_FALSE(sata->model.full_duplex);
  EXPECT_EQ(m.device(id(m, "gpu0")).gpu.fp32_flops_per_s, 11.34e12);
}

TEST(TopologyPresets, PcieSwitch4GpuIsTheBooksServer) {
  const Machine m = resolve_topology("pcie-switch-4gpu");
  EXPECT_EQ(m.gpus().size(), 4u);
  EXPECT_EQ(m.cpus().size(), 1u);
  EXPECT_EQ(m.devices_of_kind(DeviceKind::kSwitch).size(), 1u);
  ASSERT_EQ(m.links().size(), 5u);
  for (const Link& link : m.links()) {
    EXPECT_EQ(link.model.bytes_per_s, 16e9) << link.name;
    EXPECT_EQ(link.model.latency_s, 0.0) << link.name;
    EXPECT_TRUE(link.model.full_duplex);
  }
  EXPECT_EQ(path(m, "gpu0", "gpu1"), (std::vector<std::string>{"gpu0", "sw0", "gpu1"}));
  EXPECT_EQ(path(m, "gpu3", "cpu0"), (std::vector<std::string>{"gpu3", "sw0", "cpu0"}));
  // The family with N = 4 is the same machine.
  EXPECT_EQ(machine_difference(m, resolve_topology("pcie-switch:4"), true), "");
}

TEST(TopologyPresets, Dgx1HybridCubeMesh) {
  const Machine m = resolve_topology("dgx1-v100");
  ASSERT_EQ(m.gpus().size(), 8u);
  EXPECT_EQ(m.cpus().size(), 2u);
  std::map<std::string, int> nvlinks;  // per GPU, counting bonded links
  std::set<std::pair<std::string, std::string>> neighbours;
  int total = 0;
  for (const Link& link : m.links()) {
    if (link.model.kind != LinkKind::kNvlink) continue;
    const std::string a = m.device(link.a).name, b = m.device(link.b).name;
    nvlinks[a] += link.model.count;
    nvlinks[b] += link.model.count;
    total += link.model.count;
    neighbours.insert({a, b});
    neighbours.insert({b, a});
    EXPECT_DOUBLE_EQ(link.model.bytes_per_s, 25e9 * link.model.count) << link.name;
  }
  EXPECT_EQ(total, 24);
  EXPECT_EQ(neighbours.size(), 32u);  // 16 joined pairs
  for (DeviceId gpu : m.gpus()) EXPECT_EQ(nvlinks[m.device(gpu).name], 6) << m.device(gpu).name;
  // Doubled pairs as in nvidia-smi topo -m (NV2).
  EXPECT_EQ(link_between(m, "gpu0", "gpu3")->model.count, 2);
  EXPECT_EQ(link_between(m, "gpu0", "gpu4")->model.count, 2);
  EXPECT_EQ(link_between(m, "gpu0", "gpu1")->model.count, 1);
  EXPECT_EQ(link_between(m, "gpu0", "gpu5"), nullptr);

  for (DeviceId x : m.gpus()) {
    for (DeviceId y : m.gpus()) {
      if (x == y) continue;
      const std::string a = m.device(x).name, b = m.device(y).name;
      const auto hops = m.route(x, y);
      if (neighbours.count({a, b})) {
        ASSERT_EQ(hops.size(), 1u) << a << "->" << b;
        EXPECT_EQ(m.link(hops[0].link).model.kind, LinkKind::kNvlink);
        continue;
      }
      // Not neighbours: over PCIe through switches and CPUs, never through another GPU.
      const auto names = path(m, a, b);
      for (std::size_t i = 1; i + 1 < names.size(); ++i)
        EXPECT_NE(m.device(id(m, names[i])).kind, DeviceKind::kGpu) << a << "->" << b;
      for (const Hop& hop : hops) EXPECT_NE(m.link(hop.link).model.kind, LinkKind::kNvlink);
    }
  }
  EXPECT_EQ(path(m, "gpu0", "gpu5"),
            (std::vector<std::string>{"gpu0", "sw0", "cpu0", "cpu1", "sw2", "gpu5"}));
  EXPECT_EQ(path(m, "gpu1", "cpu0"), (std::vector<std::string>{"gpu1", "sw0", "cpu0"}));
  EXPECT_EQ(m.device(id(m, "cpu0")).cpu.cores, 20);
}

TEST(TopologyPresets, ClusterOfTwoServers) {
  const Machine m = resolve_topology("cluster-2x4gpu");
  const auto nodes = m.node_names();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0], "server0");
  EXPECT_EQ(nodes[1], "server1");
  EXPECT_EQ(nodes[2], "network");
  EXPECT_EQ(m.gpus().size(), 8u);
  EXPECT_EQ(m.cpus().size(), 2u);
  for (int g = 0; g < 8; ++g)
    EXPECT_EQ(m.device(id(m, "gpu" + std::to_string(g))).node, g < 4 ? 0u : 1u);
  EXPECT_EQ(m.host_cpu_of(id(m, "gpu5")), id(m, "cpu1"));
  EXPECT_EQ(path(m, "gpu0", "gpu4"),
            (std::vector<std::string>{"gpu0", "sw0", "cpu0", "nic0", "ethsw0", "nic1", "cpu1",
                                      "sw1", "gpu4"}));
  EXPECT_DOUBLE_EQ(m.route_bytes_per_s(id(m, "cpu0"), id(m, "cpu1")), 10e9 / 8);
  EXPECT_DOUBLE_EQ(m.route_latency_s(id(m, "cpu0"), id(m, "cpu1")), 2 * 10e-6);
  EXPECT_EQ(path(m, "gpu0", "gpu1"), (std::vector<std::string>{"gpu0", "sw0", "gpu1"}));

  const Machine fast = resolve_topology("cluster-2x4gpu-100gbe");
  EXPECT_DOUBLE_EQ(fast.route_bytes_per_s(id(fast, "cpu0"), id(fast, "cpu1")), 100e9 / 8);
  // The families with the same parameters are the same machines.
  EXPECT_EQ(machine_difference(m, resolve_topology("cluster:2x4@10"), true), "");
  EXPECT_EQ(machine_difference(fast, resolve_topology("cluster:2x4"), true), "");
  EXPECT_NE(machine_difference(m, fast, true), "");
}

TEST(TopologyPresets, EveryPresetRoundTripsThroughTheDump) {
  for (const auto& preset : embedded_presets()) {
    SCOPED_TRACE(std::string(preset.name));
    const Machine original = resolve_topology(preset.name);
    const std::string text = dump_topology_yaml(original);
    const Machine again = parse_topology_yaml(text, "dump.yaml");
    EXPECT_EQ(machine_difference(original, again), "");
    EXPECT_EQ(dump_topology_yaml(again), text);  // stable
  }
}

TEST(TopologyPresets, FamiliesRoundTripThroughTheDump) {
  for (const char* spec : {"nvlink-ring:8", "pcie-switch:9", "cluster:3x2@25"}) {
    SCOPED_TRACE(spec);
    const Machine original = resolve_topology(spec);
    const Machine again = parse_topology_yaml(dump_topology_yaml(original), "dump.yaml");
    EXPECT_EQ(machine_difference(original, again), "");
  }
}

TEST(TopologyPresets, DumpUsesReadableUnits) {
  const std::string text = dump_topology_yaml(resolve_topology("pcie-switch-4gpu"));
  EXPECT_NE(text.find("bandwidth: 16GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("fp32_peak: 15.7TFLOPS"), std::string::npos) << text;
  EXPECT_NE(text.find("memory_size: 16GB"), std::string::npos) << text;
  EXPECT_NE(text.find("clock: 3GHz"), std::string::npos) << text;
}

TEST(TopologyPresets, MachineDifferenceSeesAChangedField) {
  const Machine a = resolve_topology("dgx1-v100");
  Machine b = a;
  EXPECT_EQ(machine_difference(a, b), "");
  b.mutable_link(3).model.bytes_per_s *= 1.0000001;
  EXPECT_NE(machine_difference(a, b).find("link 3"), std::string::npos);
  Machine c = a;
  c.mutable_device(0).cpu.dram.first_access_s *= 1.5;
  EXPECT_NE(machine_difference(a, c).find("dram"), std::string::npos);
}

TEST(TopologyYaml, EveryModelFieldIsSettable) {
  const Machine m = parse_topology_yaml(R"(
name: everything
description: "every field: set"
devices:
  - name: cpu0
    kind: cpu
    model: xeon-e5-2698v4
    cores: 12
    clock: 2.5GHz
    simd_fp32_lanes: 16
    fma_units: 1
    efficiency: 0.5
    dispatch_latency: 20us
    compute_streams: 2
    all_streams_busy_speed: 0.9
    beside_dispatch_speed: 0.6
    disk_io_cores: 0.75
    disk_read_speed_one_busy: 0.85
    disk_read_speed_all_busy: 0.65
    disk_write_speed_one_busy: 0.8
    disk_write_speed_all_busy: 0.75
    copy_streams: 3
    dram: {channels: 6, bandwidth_per_channel: 21.3GB/s, first_access: 90ns, capacity: 384GiB}
  - {name: gpu0, kind: gpu, model: a100, fp32_peak: 20TFLOPS, fp16_peak: 300 TFLOP/s, memory_bandwidth: 2TB/s,
     memory_size: 80GB, launch_latency: 4us, copy_launch_latency: 200us, min_dependent_op: 15us,
     min_queued_op: 9.5us, copy_engines: 3,
     compute_streams: 4, efficiency: 0.7}
  - {name: hdd0, kind: disk, type: hdd, rpm: 5400, seek: 10ms, bandwidth: 100MB/s, queues: 2}
  - {name: nvme0, kind: disk, type: nvme, generation: 4, lanes: 4, read_iops: 250k, write_iops: 1e5,
     access_latency: 50us, read_bandwidth: 7GB/s, write_bandwidth: 5GB/s}
  - {name: ssd0, kind: disk, type: ssd}
  - {name: sw0, kind: switch}
  - {name: nic0, kind: nic}
links:
  - {name: up, between: [gpu0, sw0], type: pcie, generation: 4, lanes: 8, duplex_bandwidth: 24GB/s}
  - {between: [sw0, cpu0], type: pcie, bandwidth: 10Gbit/s, latency: 250ns, full_duplex: false}
  - {between: [nic0, cpu0], type: ethernet, bandwidth: 25Gbit/s, latency: 2us}
  - {between: [hdd0, cpu0], type: sata, bandwidth: 6e8}
  - {between: [nvme0, cpu0], type: memory, bandwidth: 1GB/s}
  - {between: [ssd0, sw0], type: nvlink, generation: 3, count: 2}
)",
                                        "all.yaml");
  const CpuModel& cpu = m.device(id(m, "cpu0")).cpu;
  EXPECT_EQ(cpu.cores, 12);
  EXPECT_EQ(cpu.clock_hz, 2.5e9);
  EXPECT_EQ(cpu.simd_fp32_lanes, 16);
  EXPECT_EQ(cpu.fma_units, 1);
  EXPECT_EQ(cpu.efficiency, 0.5);
  EXPECT_DOUBLE_EQ(cpu.dispatch_s, 20e-6);
  EXPECT_EQ(cpu.compute_streams, 2);
  EXPECT_EQ(cpu.all_streams_busy_speed, 0.9);
  EXPECT_EQ(cpu.beside_dispatch_speed, 0.6);
  EXPECT_EQ(cpu.disk_io_cores, 0.75);
  EXPECT_EQ(cpu.disk_read_speed_one_busy, 0.85);
  EXPECT_EQ(cpu.disk_read_speed_all_busy, 0.65);
  EXPECT_EQ(cpu.disk_write_speed_one_busy, 0.8);
  EXPECT_EQ(cpu.disk_write_speed_all_busy, 0.75);
  EXPECT_EQ(cpu.copy_streams, 3);
  EXPECT_EQ(cpu.dram.channels, 6);
  EXPECT_DOUBLE_EQ(cpu.dram.bytes_per_s_per_channel, 21.3e9);
  EXPECT_DOUBLE_EQ(cpu.dram.first_access_s, 90e-9);
  EXPECT_EQ(cpu.dram.capacity_bytes, 384.0 * 1024 * 1024 * 1024);
  const GpuModel& gpu = m.device(id(m, "gpu0")).gpu;
  EXPECT_EQ(gpu.fp32_flops_per_s, 20e12);
  EXPECT_EQ(gpu.fp16_flops_per_s, 300e12);
  EXPECT_EQ(gpu.memory_bytes_per_s, 2e12);
  EXPECT_EQ(gpu.memory_bytes, 80e9);
  EXPECT_DOUBLE_EQ(gpu.launch_s, 4e-6);
  EXPECT_DOUBLE_EQ(gpu.copy_launch_s, 200e-6);
  EXPECT_DOUBLE_EQ(gpu.dependent_op_min_s, 15e-6);
  EXPECT_DOUBLE_EQ(gpu.queued_op_min_s, 9.5e-6);
  EXPECT_EQ(gpu.copy_engines, 3);
  EXPECT_EQ(gpu.compute_streams, 4);
  EXPECT_EQ(gpu.efficiency, 0.7);
  const DiskModel& hdd = m.device(id(m, "hdd0")).disk;
  EXPECT_DOUBLE_EQ(hdd.access_s, 10e-3 + 30.0 / 5400);
  EXPECT_DOUBLE_EQ(hdd.read_iops, 1.0 / hdd.access_s);
  EXPECT_EQ(hdd.read_bytes_per_s, 100e6);
  EXPECT_EQ(hdd.queues, 2);
  const DiskModel& nvme = m.device(id(m, "nvme0")).disk;
  EXPECT_EQ(nvme.read_iops, 250e3);
  EXPECT_EQ(nvme.write_iops, 1e5);
  EXPECT_DOUBLE_EQ(nvme.access_s, 50e-6);
  EXPECT_EQ(nvme.read_bytes_per_s, 7e9);
  EXPECT_EQ(nvme.write_bytes_per_s, 5e9);
  EXPECT_EQ(nvme.queues, 8);  // from DiskModel::nvme
  EXPECT_EQ(m.device(id(m, "ssd0")).disk.kind, DiskKind::kSataSsd);

  const Link& up = m.link(*m.find_link("up"));
  EXPECT_DOUBLE_EQ(up.model.bytes_per_s, 1.969e9 * 8);
  EXPECT_EQ(up.model.latency_s, 1e-6);
  EXPECT_EQ(up.model.duplex_bytes_per_s, 24e9);
  const Link& slow = m.link(*m.find_link("sw0-cpu0"));
  EXPECT_EQ(slow.model.bytes_per_s, 1.25e9);
  EXPECT_DOUBLE_EQ(slow.model.latency_s, 250e-9);
  EXPECT_FALSE(slow.model.full_duplex);
  const Link& eth = m.link(*m.find_link("nic0-cpu0"));
  EXPECT_EQ(eth.model.kind, LinkKind::kEthernet);
  EXPECT_EQ(eth.model.bytes_per_s, 25e9 / 8);
  EXPECT_DOUBLE_EQ(eth.model.latency_s, 2e-6);
  EXPECT_EQ(m.link(*m.find_link("hdd0-cpu0")).model.kind, LinkKind::kSata);
  const Link& bus = m.link(*m.find_link("nvme0-cpu0"));
  EXPECT_EQ(bus.model.kind, LinkKind::kMemoryBus);
  EXPECT_EQ(bus.model.bytes_per_s, 1e9);
  const Link& nv = m.link(*m.find_link("ssd0-sw0"));
  EXPECT_EQ(nv.model.bytes_per_s, 50e9);
  EXPECT_EQ(nv.model.count, 2);
  EXPECT_EQ(m.description(), "every field: set");
  EXPECT_EQ(machine_difference(m, parse_topology_yaml(dump_topology_yaml(m), "d.yaml")), "");
}

TEST(TopologyYaml, SavedFileResolvesToTheSameMachine) {
  const auto dir = std::filesystem::temp_directory_path() / "opsim_topology_save_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "dgx.yaml").string();
  const Machine original = resolve_topology("dgx1-v100");
  save_topology_file(original, path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(machine_difference(original, resolve_topology(path)), "");
  EXPECT_EQ(machine_difference(original, load_topology_file(path)), "");
  // A path with no slash and no .yaml is still found when the file exists.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  std::filesystem::rename("dgx.yaml", "dgx-box");
  EXPECT_EQ(resolve_topology("dgx-box").gpus().size(), 8u);
  std::filesystem::current_path(cwd);
  EXPECT_THROW(save_topology_file(original, (dir / "missing-dir" / "x.yaml").string()), InputError);
  std::filesystem::remove_all(dir);
}

TEST(TopologyYaml, SgemmRatesRoundTrip) {
  const Machine m = parse_topology_yaml(R"(
name: measured-gpu
devices:
  - {name: cpu0, kind: cpu}
  - {name: gpu0, kind: gpu, fp32_peak: 49TFLOPS, efficiency: 1,
     sgemm_rates: [{n: 512, rate: 10TFLOPS}, {n: 1024, rate: 34.8TFLOPS}, {n: 2048, rate: 49TFLOPS}]}
links:
  - {between: [gpu0, cpu0], type: pcie}
)",
                                        "g.yaml");
  const GpuModel& gpu = m.device(id(m, "gpu0")).gpu;
  ASSERT_EQ(gpu.sgemm_rates.size(), 3u);
  EXPECT_EQ(gpu.sgemm_rates[0].n, 512);
  EXPECT_DOUBLE_EQ(gpu.sgemm_rates[1].flops_per_s, 34.8e12);
  const Machine again = parse_topology_yaml(dump_topology_yaml(m), "again.yaml");
  EXPECT_EQ(machine_difference(m, again), "");
  Machine changed = again;
  changed.mutable_device(id(changed, "gpu0")).gpu.sgemm_rates[1].flops_per_s = 35e12;
  EXPECT_NE(machine_difference(m, changed).find("sgemm_rates"), std::string::npos);
}

TEST(TopologyYaml, MemoryPassRatesRoundTrip) {
  const Machine m = parse_topology_yaml(R"(
name: measured
devices:
  - {name: cpu0, kind: cpu, copy_stream_bandwidth: 12GB/s, beside_dispatch_speed: 0.55,
     cores: 2, core_pass_speeds: [1.02, 0.98], core_copy_speeds: [0.75, 1.3],
     core_gemm_speeds: [0.9, 1.1],
     memory_pass_rates: [{working_set: 2MiB, bandwidth: 30GB/s},
                                                {working_set: 128MiB, bandwidth: 15GB/s}],
     copy_stream_rates: [{bytes: 96MiB, bandwidth: 7.3GB/s}, {bytes: 128MiB, bandwidth: 11.7GB/s}],
     copies_together_rates: [{bytes: 96MiB, bandwidth: 14GB/s}, {bytes: 128MiB, bandwidth: 20GB/s}]}
  - {name: disk0, kind: disk, type: ssd, random_read_wait_beside_sequential: 330us,
     sequential_read_beside_random: 250MB/s, sequential_read_beside_write: 300MB/s,
     sequential_write_beside_read: 200MB/s, sequential_reads_together: 1.5GB/s}
links:
  - {between: [disk0, cpu0], type: sata, bandwidth: 6Gbit/s}
)",
                                        "m.yaml");
  EXPECT_EQ(m.device(id(m, "disk0")).disk.random_read_wait_beside_sequential_s, 330e-6);
  EXPECT_EQ(m.device(id(m, "disk0")).disk.sequential_read_beside_random_bytes_per_s, 250e6);
  EXPECT_EQ(m.device(id(m, "disk0")).disk.sequential_read_beside_write_bytes_per_s, 300e6);
  EXPECT_EQ(m.device(id(m, "disk0")).disk.sequential_write_beside_read_bytes_per_s, 200e6);
  EXPECT_EQ(m.device(id(m, "disk0")).disk.sequential_reads_together_bytes_per_s, 1.5e9);
  const CpuModel& cpu = m.device(id(m, "cpu0")).cpu;
  ASSERT_EQ(cpu.memory_pass_rates.size(), 2u);
  EXPECT_EQ(cpu.memory_pass_rates[0].working_set_bytes, 2.0 * (1 << 20));
  EXPECT_EQ(cpu.memory_pass_rates[1].bytes_per_s, 15e9);
  EXPECT_EQ(cpu.copy_stream_bytes_per_s, 12e9);
  const Machine again = parse_topology_yaml(dump_topology_yaml(m), "again.yaml");
  EXPECT_EQ(machine_difference(m, again), "");
  Machine changed = again;
  changed.mutable_device(id(changed, "cpu0")).cpu.memory_pass_rates[1].bytes_per_s = 16e9;
  EXPECT_NE(machine_difference(m, changed), "");
  EXPECT_EQ(again.device(id(again, "cpu0")).cpu.beside_dispatch_speed, 0.55);
  changed = again;
  changed.mutable_device(id(changed, "cpu0")).cpu.beside_dispatch_speed = 1.0;
  EXPECT_NE(machine_difference(m, changed), "");
  ASSERT_EQ(cpu.copy_stream_rates.size(), 2u);
  EXPECT_EQ(cpu.copy_stream_rates[0].working_set_bytes, 96.0 * (1 << 20));
  EXPECT_EQ(cpu.copy_stream_bytes_per_s_for(96.0 * (1 << 20)), 7.3e9);
  changed = again;
  changed.mutable_device(id(changed, "cpu0")).cpu.copy_stream_rates[0].bytes_per_s = 7e9;
  EXPECT_EQ(machine_difference(m, changed), "device 0 ('cpu0'): copy_stream_rates");
  ASSERT_EQ(cpu.copies_together_rates.size(), 2u);
  EXPECT_EQ(again.device(id(again, "cpu0")).cpu.copies_together_rates[0].bytes_per_s, 14e9);
  EXPECT_DOUBLE_EQ(cpu.copy_dram_use_per_byte(96.0 * (1 << 20)), 20.0 / 14);
  changed = again;
  changed.mutable_device(id(changed, "cpu0")).cpu.copies_together_rates[1].bytes_per_s = 21e9;
  EXPECT_EQ(machine_difference(m, changed), "device 0 ('cpu0'): copies_together_rates");
  EXPECT_EQ(again.device(id(again, "cpu0")).cpu.core_pass_speeds, (std::vector{1.02, 0.98}));
  EXPECT_EQ(again.device(id(again, "cpu0")).cpu.core_copy_speeds, (std::vector{0.75, 1.3}));
  EXPECT_EQ(again.device(id(again, "cpu0")).cpu.core_gemm_speeds, (std::vector{0.9, 1.1}));
  changed = again;
  changed.mutable_device(id(changed, "cpu0")).cpu.core_copy_speeds[1] = 1.2;
  EXPECT_EQ(machine_difference(m, changed), "device 0 ('cpu0'): core_copy_speeds");
}

TEST(TopologyYaml, NameDefaultsToTheFileStem) {
  const Machine m = parse_topology_yaml("devices: [{name: cpu0, kind: cpu}]\n", "lab/box-7.yaml");
  EXPECT_EQ(m.name(), "box-7");
}

TEST(ModelPresets, GpusAndCpus) {
  EXPECT_EQ(gpu_model_preset("a100")->fp32_flops_per_s, 19.5e12);
  EXPECT_EQ(gpu_model_preset("h100")->memory_bytes, 80e9);
  EXPECT_EQ(gpu_model_preset("v100")->fp32_flops_per_s, 15.7e12);
  EXPECT_LT(gpu_model_preset("gtx1080ti")->fp16_flops_per_s,
            gpu_model_preset("gtx1080ti")->fp32_flops_per_s);
  EXPECT_FALSE(gpu_model_preset("v200").has_value());
  EXPECT_FALSE(cpu_model_preset("pentium").has_value());
  for (auto name : gpu_model_preset_names()) EXPECT_TRUE(gpu_model_preset(name)) << name;
  for (auto name : cpu_model_preset_names()) EXPECT_TRUE(cpu_model_preset(name)) << name;
  const auto names = gpu_model_preset_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  // 20 cores x 2.2 GHz x 8 lanes x 2 FMA x 2 flops.
  EXPECT_DOUBLE_EQ(cpu_model_preset("xeon-e5-2698v4")->peak_flops_per_s(), 1408e9);
}

}  // namespace
}  // namespace opsim

namespace opsim {
namespace {

// The examples in topologies/README.md are real, parseable topologies.
TEST(TopologyYaml, ReadmeExamplesParse) {
  std::ifstream in(std::string(OPSIM_SOURCE_DIR) + "/topologies/README.md");
  ASSERT_TRUE(in) << "README not found";
  std::string line, block;
  bool inside = false;
  int examples = 0;
  while (std::getline(in, line)) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      const Machine m = parse_topology_yaml(block, "README.md example");
      EXPECT_GE(m.gpus().size(), 2u);
      ++examples;
    } else if (inside) {
      block += line + "\n";
    }
  }
  EXPECT_EQ(examples, 3);
}

}  // namespace
}  // namespace opsim

namespace opsim {
namespace {

struct Transfer {
  std::string from, to;
  double bytes;
};

// Bandwidth-only bound of one phase of concurrent transfers: the busiest link direction's
// bytes over its bandwidth. With zero latency and max-min sharing this is the phase time.
double phase_s(const Machine& m, const std::vector<Transfer>& transfers) {
  std::map<std::pair<LinkId, bool>, double> load;
  for (const Transfer& t : transfers)
    for (const Hop& hop : m.route(*m.find_device(t.from), *m.find_device(t.to)))
      load[{hop.link, hop.forward}] += t.bytes;
  double worst = 0;
  for (const auto& [key, bytes] : load)
    worst = std::max(worst, bytes / m.link(key.first).model.bytes_per_s);
  return worst;
}

TEST(TopologyPresets, BookArithmeticOnThePcieServer) {
  const Machine m = resolve_topology("pcie-switch-4gpu");
  const double s = 160e6;
  const std::vector<std::string> g = {"gpu0", "gpu1", "gpu2", "gpu3"};
  // Aggregate on GPU0, then broadcast: 30 + 30 ms.
  const double gpu0 = phase_s(m, {{g[1], g[0], s}, {g[2], g[0], s}, {g[3], g[0], s}}) +
                      phase_s(m, {{g[0], g[1], s}, {g[0], g[2], s}, {g[0], g[3], s}});
  EXPECT_NEAR(gpu0, 60e-3, 1e-12);
  std::vector<Transfer> up, down;
  for (const auto& x : g) {
    up.push_back({x, "cpu0", s});
    down.push_back({"cpu0", x, s});
  }
  EXPECT_NEAR(phase_s(m, up) + phase_s(m, down), 80e-3, 1e-12);
  // Each GPU reduces a quarter: reduce-scatter then all-gather, 7.5 + 7.5 ms.
  std::vector<Transfer> quarters;
  for (const auto& x : g)
    for (const auto& y : g)
      if (x != y) quarters.push_back({x, y, s / 4});
  EXPECT_NEAR(2 * phase_s(m, quarters), 15e-3, 1e-12);
}

TEST(TopologyPresets, RingFormulaOnTheNvlinkRing) {
  for (int n : {2, 8}) {
    const Machine m = resolve_topology("nvlink-ring:" + std::to_string(n));
    const double s = 160e6;
    std::vector<Transfer> step;
    for (int i = 0; i < n; ++i)
      step.push_back({"gpu" + std::to_string(i), "gpu" + std::to_string((i + 1) % n), s / n});
    EXPECT_NEAR(2 * (n - 1) * phase_s(m, step), 2.0 * (n - 1) / n * s / 25e9, 1e-12) << n;
  }
}

// DGX A100 / H100: 8 GPUs, each with one NVLink port of its total per-direction bandwidth
// to one aggregate NVSwitch; every GPU pair crosses it in two hops and a ring allreduce is
// bound by one port: 2(n-1)/n * S/B.
void expect_nvswitch_box(const std::string& name, int generation, int links,
                         double per_gpu_bytes_per_s, double gpu_memory_bytes_per_s,
                         const std::string& gpu7_switch) {
  SCOPED_TRACE(name);
  const Machine m = resolve_topology(name);
  ASSERT_EQ(m.gpus().size(), 8u);
  EXPECT_EQ(m.cpus().size(), 2u);
  EXPECT_EQ(m.devices_of_kind(DeviceKind::kNic).size(), 8u);
  const DeviceId nvswitch = id(m, "nvsw0");
  for (DeviceId gpu : m.gpus()) {
    double nvlink_bytes_per_s = 0;
    int nvlinks = 0;
    for (LinkId l : m.links_of(gpu)) {
      const Link& link = m.link(l);
      if (link.model.kind != LinkKind::kNvlink) continue;
      EXPECT_EQ(link.a == gpu ? link.b : link.a, nvswitch);
      nvlink_bytes_per_s += link.model.bytes_per_s;
      nvlinks += link.model.count;
    }
    EXPECT_EQ(nvlinks, links) << m.device(gpu).name;
    EXPECT_DOUBLE_EQ(nvlink_bytes_per_s, per_gpu_bytes_per_s) << m.device(gpu).name;
    EXPECT_DOUBLE_EQ(m.device(gpu).gpu.memory_bytes_per_s, gpu_memory_bytes_per_s);
    EXPECT_DOUBLE_EQ(m.device(gpu).gpu.memory_bytes, 80e9);
  }
  for (const Link& link : m.links()) {
    if (link.model.kind == LinkKind::kNvlink) {
      EXPECT_DOUBLE_EQ(link.model.bytes_per_s, 25e9 * link.model.count) << generation;
    }
  }
  for (DeviceId x : m.gpus())
    for (DeviceId y : m.gpus()) {
      if (x == y) continue;
      EXPECT_EQ(path(m, m.device(x).name, m.device(y).name),
                (std::vector<std::string>{m.device(x).name, "nvsw0", m.device(y).name}));
      EXPECT_DOUBLE_EQ(m.route_bytes_per_s(x, y), per_gpu_bytes_per_s);
    }
  // GPUs and NICs reach the CPUs over PCIe.
  EXPECT_EQ(path(m, "gpu0", "cpu0"), (std::vector<std::string>{"gpu0", "sw0", "cpu0"}));
  EXPECT_EQ(path(m, "gpu7", "nic7"), (std::vector<std::string>{"gpu7", gpu7_switch, "nic7"}));
  // Ring allreduce, bandwidth term: 2(n-1) steps of S/n over each GPU's port.
  const int n = 8;
  const double s = 1e9;
  std::vector<Transfer> step;
  for (int i = 0; i < n; ++i)
    step.push_back({"gpu" + std::to_string(i), "gpu" + std::to_string((i + 1) % n), s / n});
  EXPECT_NEAR(2 * (n - 1) * phase_s(m, step), 2.0 * (n - 1) / n * s / per_gpu_bytes_per_s, 1e-12);
  // All-to-all within the box: each GPU's port carries 7/8 of its data each way.
  std::vector<Transfer> all;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) all.push_back({"gpu" + std::to_string(i), "gpu" + std::to_string(j), s / n});
  EXPECT_NEAR(phase_s(m, all), (n - 1) * s / n / per_gpu_bytes_per_s, 1e-12);
}

TEST(TopologyPresets, DgxA100NvswitchFabric) {
  expect_nvswitch_box("dgx-a100", 3, 12, 300e9, 2039e9, "sw3");
  const Machine m = resolve_topology("dgx-a100");
  EXPECT_DOUBLE_EQ(m.device(id(m, "gpu0")).gpu.fp16_flops_per_s, 312e12);
  EXPECT_EQ(m.device(id(m, "cpu0")).cpu.cores, 64);
  EXPECT_DOUBLE_EQ(link_between(m, "gpu0", "sw0")->model.bytes_per_s, 1.969e9 * 16);
}

TEST(TopologyPresets, DgxH100NvswitchFabric) {
  expect_nvswitch_box("dgx-h100", 4, 18, 450e9, 3.35e12, "sw7");
  const Machine m = resolve_topology("dgx-h100");
  // Each GPU shares its PCIe switch with its own NIC only (rail affinity).
  EXPECT_EQ(path(m, "gpu1", "nic1"), (std::vector<std::string>{"gpu1", "sw1", "nic1"}));
  EXPECT_EQ(path(m, "gpu1", "nic0"),
            (std::vector<std::string>{"gpu1", "sw1", "cpu0", "sw0", "nic0"}));
  EXPECT_EQ(path(m, "gpu5", "cpu1"), (std::vector<std::string>{"gpu5", "sw5", "cpu1"}));
  EXPECT_DOUBLE_EQ(m.device(id(m, "gpu0")).gpu.fp16_flops_per_s, 989.4e12);
  EXPECT_EQ(m.device(id(m, "cpu0")).cpu.cores, 56);
  EXPECT_DOUBLE_EQ(link_between(m, "gpu0", "sw0")->model.bytes_per_s, 3.938e9 * 16);
}

}  // namespace
}  // namespace opsim
