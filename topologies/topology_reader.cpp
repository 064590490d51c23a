#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "common/closest_name.hpp"
#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "hw_models/model_presets.hpp"
#include "topologies/topology_yaml.hpp"
#include "topologies/yaml_fields.hpp"

namespace opsim {
namespace {

using namespace topology_yaml;

constexpr std::string_view kTopKeysData[] = {"name",    "description", "nodes",
                                             "devices", "links",       "collectives"};
constexpr Keys kTopKeys{kTopKeysData};
constexpr std::string_view kNodeKeysData[] = {"name", "devices", "links"};
constexpr Keys kNodeKeys{kNodeKeysData};
constexpr std::string_view kKindsData[] = {"cpu", "gpu", "switch", "nic", "disk"};
constexpr Keys kKinds{kKindsData};
constexpr std::string_view kPlainKeysData[] = {"name", "kind"};
constexpr Keys kPlainKeys{kPlainKeysData};
constexpr std::string_view kSwitchKeysData[] = {"name", "kind", "in_switch_reduction"};
constexpr Keys kSwitchKeys{kSwitchKeysData};
constexpr std::string_view kDiskTypesData[] = {"hdd", "ssd", "nvme"};
constexpr Keys kDiskTypes{kDiskTypesData};
constexpr std::string_view kLinkTypesData[] = {"pcie", "nvlink", "ethernet", "infiniband",
                                               "roce", "sata",   "memory",   "generic"};
constexpr Keys kLinkTypes{kLinkTypesData};

/// `leading` keys, then every row's key, then `trailing` ones: what a map may hold.
template <typename Model>
std::vector<std::string_view> keys_of(std::initializer_list<std::string_view> leading,
                                      std::span<const ParameterRow<Model>> rows,
                                      std::initializer_list<std::string_view> trailing = {}) {
  std::vector<std::string_view> keys(leading);
  for (const ParameterRow<Model>& row : rows) keys.push_back(row.key);
  keys.insert(keys.end(), trailing);
  return keys;
}

// Built on first use: the tables live in other translation units, initialized in any order.
Keys cpu_keys() {
  static const auto keys = keys_of({"name", "kind", "model"}, cpu_parameters(), {"dram"});
  return keys;
}
Keys dram_keys() {
  static const auto keys = keys_of({}, dram_parameters());
  return keys;
}
Keys gpu_keys() {
  static const auto keys = keys_of({"name", "kind", "model"}, gpu_parameters());
  return keys;
}
Keys disk_keys() {
  static const auto keys =
      keys_of({"name", "kind", "type", "rpm", "seek", "bandwidth", "generation", "lanes"},
              disk_parameters());
  return keys;
}
Keys collective_keys() {
  static const auto keys = keys_of({}, collective_parameters());
  return keys;
}
Keys link_keys() {
  static const auto keys =
      keys_of({"name", "between", "type", "generation", "lanes", "count"}, link_parameters());
  return keys;
}

/// Reads one document; remembers where each device was defined for later errors.
class Reader : public FieldReader {
 public:
  explicit Reader(std::string source) : FieldReader(source), source_(std::move(source)) {}

  /// Where `key` itself is written in `map` (the value's mark can be on a later line).
  static YAML::Mark key_mark(const YAML::Node& map, std::string_view key) {
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->first.Mark();
    return map.Mark();
  }

  Machine parse(std::string_view text_view);

 private:
  void parse_device(Machine& machine, const YAML::Node& node);
  void parse_link(Machine& machine, const YAML::Node& node);
  CpuModel parse_cpu(const YAML::Node& node, const std::string& what) const;
  GpuModel parse_gpu(const YAML::Node& node, const std::string& what) const;
  DiskModel parse_disk(const YAML::Node& node, const std::string& what) const;
  DiskModel disk_of_type(const YAML::Node& node, const std::string& what) const;
  LinkModel parse_link_model(const YAML::Node& node, const std::string& what) const;
  LinkModel link_of_type(const YAML::Node& node, const std::string& what) const;
  void check_gpus_reach_cpus(const Machine& machine) const;

  std::string source_;
  std::vector<YAML::Mark> device_marks_;
  std::map<std::string, YAML::Mark> link_marks_;
};

CpuModel Reader::parse_cpu(const YAML::Node& node, const std::string& what) const {
  check_map(node, cpu_keys(), what);
  CpuModel cpu;
  optional(node, "model", [&](const YAML::Node& v) {
    const std::string name = text(v, "model");
    auto preset = cpu_model_preset(name);
    if (!preset)
      fail(v.Mark(), "unknown CPU model '" + name +
                         "' (valid: " + join_names(cpu_model_preset_names()) + ")");
    cpu = *preset;
  });
  // Rows bounded by the cores read them from the same map, cores first in the table.
  for (const CpuParameter& row : cpu_parameters())
    optional(node, row.key,
             [&](const YAML::Node& v) { read(cpu_parameters(), row, v, cpu, what, cpu.cores); });
  optional(node, "dram", [&](const YAML::Node& d) {
    // A key older files wrote: say why it went rather than only that it is unknown.
    if (d.IsMap() && d["burst_word"])
      fail(d["burst_word"].Mark(),
           "key 'burst_word' is no longer read: the DRAM streams at channels x "
           "bandwidth_per_channel; remove it");
    check_map(d, dram_keys(), "the dram of " + what);
    read_all(dram_parameters(), d, cpu.dram, "the dram of " + what);
  });
  return cpu;
}

GpuModel Reader::parse_gpu(const YAML::Node& node, const std::string& what) const {
  check_map(node, gpu_keys(), what);
  GpuModel gpu;
  optional(node, "model", [&](const YAML::Node& v) {
    const std::string name = text(v, "model");
    auto preset = gpu_model_preset(name);
    if (!preset)
      fail(v.Mark(), "unknown GPU model '" + name +
                         "' (valid: " + join_names(gpu_model_preset_names()) + ")");
    gpu = *preset;
  });
  read_all(gpu_parameters(), node, gpu, what);
  return gpu;
}

// The disk its type's factory makes from the factory's own keys (rpm, generation, ...).
DiskModel Reader::disk_of_type(const YAML::Node& node, const std::string& what) const {
  const YAML::Node type_node = required(node, "type", what);
  const std::string type = text(type_node, "type");
  if (!contains(kDiskTypes, type))
    fail(type_node.Mark(), "unknown disk type '" + type + "' " + name_suggestion(type, kDiskTypes));
  // Factory parameters belong to one type each; a stray one is a mistake worth reporting.
  auto only_for = [&](const char* key, const char* owner) {
    if (YAML::Node v = node[key]; v && type != owner)
      fail(v.Mark(), std::string("key '") + key + "' applies only to " + owner + " disks");
  };
  only_for("rpm", "hdd");
  only_for("seek", "hdd");
  only_for("bandwidth", "hdd");
  only_for("generation", "nvme");
  only_for("lanes", "nvme");
  if (type == "hdd") {
    double rpm = 7200, seek_s = 4e-3, bytes_per_s = 160e6;
    // 1e6 rpm: disks spin at 5400 to 15000.
    optional(node, "rpm",
             [&](auto& v) { rpm = quantity(v, "rpm", kNumber, Bound::kPositive, 1e6); });
    optional(node, "seek",
             [&](auto& v) { seek_s = quantity(v, "seek", kDuration, Bound::kNonNegative); });
    optional(node, "bandwidth", [&](auto& v) {
      bytes_per_s = quantity(v, "bandwidth", kBandwidth, Bound::kPositive);
    });
    return DiskModel::hdd(rpm, seek_s, bytes_per_s);
  }
  if (type == "ssd") return DiskModel::sata_ssd();
  int generation = 3, lanes = 4;
  optional(node, "generation", [&](auto& v) { generation = int(integer(v, "generation", 3, 5)); });
  optional(node, "lanes", [&](auto& v) { lanes = int(integer(v, "lanes", 1, 16)); });
  return DiskModel::nvme(generation, lanes);
}

DiskModel Reader::parse_disk(const YAML::Node& node, const std::string& what) const {
  check_map(node, disk_keys(), what);
  DiskModel disk = disk_of_type(node, what);
  read_all(disk_parameters(), node, disk, what);
  return disk;
}

void Reader::parse_device(Machine& machine, const YAML::Node& node) {
  if (!node.IsMap()) fail(node.Mark(), "a device must be a map, got " + node_type_name(node));
  const std::string name = text(required(node, "name", "device"), "name");
  const std::string what = "device '" + name + "'";
  const YAML::Node kind_node = required(node, "kind", what);
  const std::string kind = text(kind_node, "kind");
  if (auto existing = machine.find_device(name)) {
    fail(node["name"].Mark(), "duplicate device name '" + name + "' (first defined at line " +
                                  std::to_string(device_marks_[*existing].line + 1) + ")");
  }
  // A key of another kind (cores on a gpu) deserves a clearer word than "unknown key".
  const Keys own = kind == "cpu"      ? cpu_keys()
                   : kind == "gpu"    ? gpu_keys()
                   : kind == "disk"   ? disk_keys()
                   : kind == "switch" ? kSwitchKeys
                                      : kPlainKeys;
  if (contains(kKinds, kind) && node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : std::string();
      if (contains(own, k)) continue;
      for (auto [other, keys] :
           {std::pair{"cpu", cpu_keys()}, {"gpu", gpu_keys()}, {"disk", disk_keys()}})
        if (other != kind && contains(keys, k))
          fail(it->first.Mark(), "key '" + k + "' applies to " + other + " devices, not to " +
                                     what + " of kind " + kind);
    }
  }
  Device device;
  device.name = name;
  if (kind == "cpu") {
    device.kind = DeviceKind::kCpu;
    device.cpu = parse_cpu(node, what);
  } else if (kind == "gpu") {
    device.kind = DeviceKind::kGpu;
    device.gpu = parse_gpu(node, what);
  } else if (kind == "disk") {
    device.kind = DeviceKind::kDisk;
    device.disk = parse_disk(node, what);
  } else if (kind == "switch") {
    device.kind = DeviceKind::kSwitch;
    check_map(node, kSwitchKeys, what);
    optional(node, "in_switch_reduction", [&](const YAML::Node& v) {
      device.reduces_in_switch = boolean(v, "in_switch_reduction");
    });
  } else if (kind == "nic") {
    device.kind = DeviceKind::kNic;
    check_map(node, kPlainKeys, what);
  } else {
    fail(kind_node.Mark(), "unknown device kind '" + kind + "' " + name_suggestion(kind, kKinds));
  }
  try {
    machine.add_device(std::move(device));
  } catch (const std::exception& e) {
    fail(node.Mark(), e.what());
  }
  device_marks_.push_back(node.Mark());
}

// The link its type's factory makes from the factory's own keys (`count`, `generation`,
// `lanes`); `bandwidth` feeds the factory as well as being the link's own parameter.
LinkModel Reader::link_of_type(const YAML::Node& node, const std::string& what) const {
  const YAML::Node type_node = required(node, "type", what);
  const std::string type = text(type_node, "type");
  if (!contains(kLinkTypes, type))
    fail(type_node.Mark(), "unknown link type '" + type + "' " + name_suggestion(type, kLinkTypes));
  if (YAML::Node v = node["lanes"]; v && type != "pcie")
    fail(v.Mark(), "key 'lanes' applies only to pcie links");
  if (YAML::Node v = node["generation"];
      v && type != "pcie" && type != "nvlink" && type != "infiniband")
    fail(v.Mark(), "key 'generation' applies only to pcie, nvlink and infiniband links");
  // `count` makes an nvlink link's bandwidth (25 GB/s per link); it would change nothing
  // beside a bandwidth given, or on a link of another type.
  if (YAML::Node v = node["count"]; v && type != "nvlink")
    fail(v.Mark(), "key 'count' applies only to nvlink links (its bandwidth is 25 GB/s x count)");
  if (YAML::Node v = node["count"]; v && node["bandwidth"])
    fail(v.Mark(),
         "give an nvlink link either 'count' or 'bandwidth': a bandwidth replaces "
         "count x 25 GB/s");
  int count = 1;
  optional(node, "count", [&](auto& v) { count = int(integer(v, "count", 1, 64)); });
  if (type == "pcie") {
    int generation = 3, lanes = 16;
    optional(node, "generation",
             [&](auto& v) { generation = int(integer(v, "generation", 1, 5)); });
    optional(node, "lanes", [&](auto& v) { lanes = int(integer(v, "lanes", 1, 32)); });
    return LinkModel::pcie(generation, lanes);
  }
  if (type == "nvlink") {
    int generation = 2;
    optional(node, "generation",
             [&](auto& v) { generation = int(integer(v, "generation", 1, 4)); });
    return LinkModel::nvlink(generation, count);
  }
  if (type == "infiniband") {
    // InfiniBand rates by name (4x links): EDR 100, HDR 200, NDR 400, XDR 800 Gbit/s.
    static constexpr std::string_view kGenerationsData[] = {"edr", "hdr", "ndr", "xdr"};
    static constexpr double kGbits[] = {100, 200, 400, 800};
    const YAML::Node v = node["generation"];
    if (v && node["bandwidth"])
      fail(v.Mark(),
           "give an infiniband link either 'generation' or 'bandwidth': a bandwidth replaces "
           "the generation's rate");
    double gbits = 200;  // HDR
    if (v) {
      const std::string generation = text(v, "generation");
      const Keys generations{kGenerationsData};
      if (!contains(generations, generation))
        fail(v.Mark(), "unknown infiniband generation '" + generation + "' " +
                           name_suggestion(generation, generations) +
                           " (edr 100, hdr 200, ndr 400, xdr 800 Gbit/s)");
      for (std::size_t i = 0; i < std::size(kGenerationsData); ++i)
        if (kGenerationsData[i] == generation) gbits = kGbits[i];
    }
    return LinkModel::infiniband(gbits);
  }
  if (!node["bandwidth"])
    fail(node.Mark(), what + " of type " + type + " is missing required key 'bandwidth'");
  const double bandwidth = quantity(node["bandwidth"], "bandwidth", kBandwidth, Bound::kPositive);
  if (type == "ethernet") return LinkModel::ethernet(bandwidth * 8.0 / 1e9);
  if (type == "roce") return LinkModel::roce(bandwidth * 8.0 / 1e9);
  LinkModel model;
  model.kind = type == "sata"     ? LinkKind::kSata
               : type == "memory" ? LinkKind::kMemoryBus
                                  : LinkKind::kGeneric;
  model.latency_s = 0.0;
  return model;
}

LinkModel Reader::parse_link_model(const YAML::Node& node, const std::string& what) const {
  LinkModel model = link_of_type(node, what);
  // The table's figures win over the factory's: a bandwidth given is exact, not recomputed.
  read_all(link_parameters(), node, model, what);
  return model;
}

void Reader::parse_link(Machine& machine, const YAML::Node& node) {
  if (!node.IsMap()) fail(node.Mark(), "a link must be a map, got " + node_type_name(node));
  check_map(node, link_keys(), "link");
  const YAML::Node between = required(node, "between", "link");
  if (!between.IsSequence() || between.size() != 2)
    fail(between.Mark(), "'between' must be a list of two device names, such as [gpu0, sw0]");
  DeviceId ends[2] = {kNoDevice, kNoDevice};
  std::string end_names[2];
  for (std::size_t i = 0; i < 2; ++i) {
    end_names[i] = text(between[i], "between");
  }
  std::string name = end_names[0] + "-" + end_names[1];
  optional(node, "name", [&](auto& v) { name = text(v, "name"); });
  const std::string what = "link '" + name + "'";
  for (std::size_t i = 0; i < 2; ++i) {
    auto id = machine.find_device(end_names[i]);
    if (!id) fail(between[i].Mark(), what + " refers to unknown device '" + end_names[i] + "'");
    ends[i] = *id;
  }
  if (ends[0] == ends[1])
    fail(between.Mark(), what + " joins device '" + end_names[0] + "' to itself");
  const YAML::Mark name_mark = node["name"] ? node["name"].Mark() : node.Mark();
  if (auto it = link_marks_.find(name); it != link_marks_.end()) {
    fail(name_mark, "duplicate link name '" + name + "' (first defined at line " +
                        std::to_string(it->second.line + 1) + "); give one of them a 'name'");
  }
  const LinkModel model = parse_link_model(node, what);
  try {
    machine.add_link(name, ends[0], ends[1], model);
  } catch (const std::exception& e) {
    fail(node.Mark(), e.what());
  }
  link_marks_.emplace(name, node.Mark());
}

void Reader::check_gpus_reach_cpus(const Machine& machine) const {
  // One breadth-first search from all CPUs over forwarding devices, the same rule as
  // Machine::route: a GPU it reaches has a route to some CPU.
  const auto devices = machine.devices();
  std::vector<char> reached(devices.size(), 0);
  std::deque<DeviceId> frontier;
  for (DeviceId cpu : machine.cpus()) {
    reached[cpu] = 1;
    frontier.push_back(cpu);
  }
  while (!frontier.empty()) {
    const DeviceId here = frontier.front();
    frontier.pop_front();
    if (!devices[here].forwards_traffic()) continue;
    for (LinkId link_id : machine.links_of(here)) {
      const Link& link = machine.link(link_id);
      const DeviceId next = link.a == here ? link.b : link.a;
      if (!reached[next]) {
        reached[next] = 1;
        frontier.push_back(next);
      }
    }
  }
  for (DeviceId id = 0; id < devices.size(); ++id) {
    const Device& d = devices[id];
    if (reached[id] || (d.kind != DeviceKind::kGpu && d.kind != DeviceKind::kDisk)) continue;
    fail(device_marks_[id], std::string(to_string(d.kind)) + " '" + d.name +
                                "' has no route to any CPU (GPUs and disks do not forward "
                                "traffic; link it to a switch or a CPU)");
  }
}

Machine Reader::parse(std::string_view text_view) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text_view));
  } catch (const YAML::Exception& e) {
    fail(e.mark, "YAML syntax error: " + e.msg);
  }
  const YAML::Mark top;  // line 1, column 1
  if (!root || root.IsNull())
    fail(top, "the topology is empty; expected a map with 'devices' and 'links'");
  check_map(root, kTopKeys, "the topology");

  std::string name = source_;
  if (auto slash = name.find_last_of('/'); slash != std::string::npos) name.erase(0, slash + 1);
  if (auto dot = name.find_last_of('.'); dot != std::string::npos && dot > 0) name.resize(dot);
  optional(root, "name", [&](auto& v) { name = text(v, "name"); });
  Machine machine(name);
  optional(root, "description", [&](const YAML::Node& v) {
    if (!v.IsScalar()) fail(v.Mark(), "'description' must be text, got " + node_type_name(v));
    // Checked as names are (valid UTF-8, no control character but line breaks): it is
    // written back to traces and files and must read back the same. Empty is allowed.
    machine.set_description(v.Scalar().empty() ? std::string() : text(v, "description"));
  });

  optional(root, "collectives", [&](const YAML::Node& v) {
    check_map(v, collective_keys(), "'collectives'");
    read_all(collective_parameters(), v, machine.mutable_collectives(), "'collectives'");
  });

  auto sequence = [&](const YAML::Node& map, const char* key) -> YAML::Node {
    YAML::Node list = map[key];
    if (list && !list.IsSequence() && !list.IsNull())
      fail(list.Mark(), std::string("'") + key + "' must be a list, got " + node_type_name(list));
    return list;
  };

  std::vector<YAML::Node> link_lists;
  if (YAML::Node nodes = sequence(root, "nodes"); nodes && nodes.size() > 0) {
    if (YAML::Node loose = root["devices"]; loose && loose.size() > 0)
      fail(key_mark(root, "devices"),
           "when 'nodes' is given every device must be in a node; move these "
           "devices into one (e.g. a node named 'network')");
    std::map<std::string, YAML::Mark> node_marks;
    for (const YAML::Node& server : nodes) {
      check_map(server, kNodeKeys, "node");
      const YAML::Node name_node = required(server, "name", "node");
      const std::string node_name = text(name_node, "name");
      if (auto it = node_marks.find(node_name); it != node_marks.end())
        fail(name_node.Mark(), "duplicate node name '" + node_name + "' (first defined at line " +
                                   std::to_string(it->second.line + 1) + ")");
      node_marks.emplace(node_name, name_node.Mark());
      const YAML::Node devices = sequence(server, "devices");
      if (!devices || devices.size() == 0)
        fail(server.Mark(), "node '" + node_name + "' has no devices");
      machine.add_node(node_name);
      for (const YAML::Node& device : devices) parse_device(machine, device);
      if (YAML::Node links = sequence(server, "links")) link_lists.push_back(links);
    }
  } else {
    if (YAML::Node devices = sequence(root, "devices")) {
      for (const YAML::Node& device : devices) parse_device(machine, device);
    }
  }
  if (YAML::Node links = sequence(root, "links")) link_lists.push_back(links);
  for (const YAML::Node& links : link_lists) {
    for (const YAML::Node& link : links) parse_link(machine, link);
  }
  if (machine.devices().empty()) fail(top, "the topology has no devices");
  try {
    machine.seal();
  } catch (const std::exception& e) {
    fail(top, e.what());
  }
  check_gpus_reach_cpus(machine);
  return machine;
}

}  // namespace

Machine parse_topology_yaml(std::string_view text, std::string_view source_name) {
  Reader reader{std::string(source_name)};
  try {
    return reader.parse(text);
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise still gets file and place
    reader.fail(e.mark, "YAML error: " + e.msg);
  }
}

Machine load_topology_file(const std::string& path) {
  // A machine description is small; 64 MiB bounds what yaml-cpp is asked to hold.
  constexpr std::uint64_t kMostTopologyBytes = std::uint64_t{64} << 20;
  return parse_topology_yaml(read_input_file(path, "topology file", kMostTopologyBytes), path);
}

}  // namespace opsim
