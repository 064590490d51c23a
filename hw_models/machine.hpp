// A machine (or cluster) as the simulator and the scheduler see it: devices joined by
// full-duplex links, grouped into servers ("nodes"). Built with chained calls, then
// seal()ed; after seal() it is immutable apart from the route cache.
//
//   Machine m("two-gpus");
//   auto cpu = m.add_cpu("cpu0", CpuModel{});
//   auto sw = m.add_switch("pcie_sw0");
//   auto gpu = m.add_gpu("gpu0", GpuModel{});
//   m.add_link("pcie_gpu0", gpu, sw, LinkModel::pcie(3, 16));
//   m.add_link("pcie_cpu0", cpu, sw, LinkModel::pcie(3, 16));
//   m.seal();
//   auto hops = m.route(cpu, gpu);   // cpu0 -> pcie_sw0 -> gpu0
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hw_models/collective_model.hpp"
#include "hw_models/cpu_model.hpp"
#include "hw_models/disk_model.hpp"
#include "hw_models/gpu_model.hpp"
#include "hw_models/link_model.hpp"

namespace opsim {

using DeviceId = std::uint32_t;
using LinkId = std::uint32_t;
inline constexpr DeviceId kNoDevice = UINT32_MAX;

/// Switches, CPUs (root complexes) and NICs forward traffic; GPUs and disks are endpoints.
enum class DeviceKind { kCpu, kGpu, kSwitch, kNic, kDisk };

std::string_view to_string(DeviceKind kind);

struct Device {
  std::string name;
  DeviceKind kind = DeviceKind::kCpu;
  std::uint32_t node = 0;  ///< index of the server it sits in (Machine::node_names)
  CpuModel cpu;            ///< meaningful when kind == kCpu
  GpuModel gpu;            ///< meaningful when kind == kGpu
  DiskModel disk;          ///< meaningful when kind == kDisk
  /// A switch that reduces in the switch (NVLink SHARP, NVLS: third-generation NVSwitch).
  bool reduces_in_switch = false;

  bool forwards_traffic() const {
    return kind == DeviceKind::kSwitch || kind == DeviceKind::kCpu || kind == DeviceKind::kNic;
  }
  /// Devices that own memory can be the source or destination of a copy.
  bool has_memory() const { return kind == DeviceKind::kCpu || kind == DeviceKind::kGpu; }
};

struct Link {
  std::string name;
  DeviceId a = kNoDevice;
  DeviceId b = kNoDevice;
  LinkModel model;
};

/// One link crossed in one direction: `forward` means from link.a to link.b.
struct Hop {
  LinkId link = 0;
  bool forward = true;
  bool operator==(const Hop&) const = default;
};

class Machine {
 public:
  explicit Machine(std::string name = "machine");
  Machine(const Machine& other);
  Machine& operator=(const Machine& other);
  Machine(Machine&&) noexcept;
  Machine& operator=(Machine&&) noexcept;
  ~Machine();

  /// Adds a server; devices added afterwards belong to it. A machine starts with one
  /// server named after the machine.
  std::uint32_t add_node(std::string node_name);
  DeviceId add_cpu(std::string device_name, const CpuModel& model);
  DeviceId add_gpu(std::string device_name, const GpuModel& model);
  DeviceId add_switch(std::string device_name);
  DeviceId add_nic(std::string device_name);
  DeviceId add_disk(std::string device_name, const DiskModel& model);
  DeviceId add_device(Device device);
  LinkId add_link(std::string link_name, DeviceId a, DeviceId b, const LinkModel& model);
  /// Checks names are unique and links join distinct known devices; throws
  /// std::invalid_argument otherwise. Must be called before route().
  void seal();

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const std::string& description() const { return description_; }
  void set_description(std::string text) { description_ = std::move(text); }
  /// How NCCL-style collectives use this machine (protocol latencies and efficiencies).
  const CollectiveModel& collectives() const { return collectives_; }
  CollectiveModel& mutable_collectives() { return collectives_; }

  std::span<const Device> devices() const { return devices_; }
  std::span<const Link> links() const { return links_; }
  std::span<const std::string> node_names() const { return node_names_; }
  const Device& device(DeviceId id) const { return devices_.at(id); }
  Device& mutable_device(DeviceId id) { return devices_.at(id); }
  const Link& link(LinkId id) const { return links_.at(id); }
  Link& mutable_link(LinkId id) { return links_.at(id); }
  std::optional<DeviceId> find_device(std::string_view device_name) const;
  std::optional<LinkId> find_link(std::string_view link_name) const;
  /// All devices of a kind, in the order they were added.
  std::vector<DeviceId> devices_of_kind(DeviceKind kind) const;
  std::vector<DeviceId> gpus() const { return devices_of_kind(DeviceKind::kGpu); }
  std::vector<DeviceId> cpus() const { return devices_of_kind(DeviceKind::kCpu); }
  /// The CPU of the same server that hosts `device` (nearest by hops); for a CPU, itself.
  DeviceId host_cpu_of(DeviceId device) const;
  /// Links touching a device, in insertion order.
  std::span<const LinkId> links_of(DeviceId device) const { return adjacency_.at(device); }

  /// Fewest-hops path from src to dst where only switches, CPUs and NICs forward; ties go
  /// to the path with the widest bottleneck, then to the lowest link ids. Empty when
  /// src == dst. Throws std::invalid_argument when no path exists. Thread-safe, cached.
  std::span<const Hop> route(DeviceId src, DeviceId dst) const;
  /// Sum of link latencies along the route.
  double route_latency_s(DeviceId src, DeviceId dst) const;
  /// Narrowest per-direction bandwidth along the route.
  double route_bytes_per_s(DeviceId src, DeviceId dst) const;

 private:
  std::vector<Hop> compute_route(DeviceId src, DeviceId dst) const;
  [[noreturn]] void throw_no_route(DeviceId src, DeviceId dst) const;

  std::string name_;
  std::string description_;
  CollectiveModel collectives_;
  std::vector<std::string> node_names_;
  std::vector<Device> devices_;
  std::vector<Link> links_;
  std::vector<std::vector<LinkId>> adjacency_;
  std::unordered_map<std::string, DeviceId> device_index_;
  std::unordered_map<std::string, LinkId> link_index_;
  bool sealed_ = false;

  struct RouteCache;
  std::unique_ptr<RouteCache> route_cache_;
};

}  // namespace opsim
