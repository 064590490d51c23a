#include "topologies/topology_catalog.hpp"

#include <charconv>
#include <filesystem>
#include <string>

#include "common/input_error.hpp"
#include "topologies/embedded_presets.hpp"
#include "topologies/topology_families.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

constexpr int kMaxRingGpus = 16384;
constexpr int kMaxSwitchGpus = 16384;
constexpr int kMaxServers = 4096;
constexpr int kMaxGpusPerServer = 256;
constexpr double kDefaultClusterGbitPerS = 100.0;
constexpr double kDefaultIbGbitPerS = 400.0;  // NDR
constexpr double kMaxOversubscription = 64.0;

const EmbeddedPreset* find_preset(std::string_view name) {
  for (const EmbeddedPreset& preset : embedded_presets())
    if (preset.name == name) return &preset;
  return nullptr;
}

/// The whole of `text` as an integer in [min, max], else nullopt.
std::optional<int> whole_int(std::string_view text, int min, int max) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    return std::nullopt;
  return value;
}

[[noreturn]] void bad_family(std::string_view spec, const std::string& what) {
  throw InputError("bad topology '" + std::string(spec) + "': " + what);
}

bool starts_with(std::string_view s, std::string_view head) {
  return s.substr(0, head.size()) == head;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

Machine resolve_cluster(std::string_view spec, std::string_view arg) {
  const std::string usage =
      "expected cluster:MxG or cluster:MxG@GBITS with 1 <= M <= " + std::to_string(kMaxServers) +
      ", 1 <= G <= " + std::to_string(kMaxGpusPerServer) +
      " and an Ethernet speed in Gbit/s (e.g. cluster:2x4@10)";
  double gbit_per_s = kDefaultClusterGbitPerS;
  if (auto at = arg.find('@'); at != std::string_view::npos) {
    const std::string_view speed = arg.substr(at + 1);
    double value = 0;
    auto [end, ec] = std::from_chars(speed.data(), speed.data() + speed.size(), value);
    if (speed.empty() || ec != std::errc() || end != speed.data() + speed.size() || !(value > 0) ||
        value > 1e6)
      bad_family(spec, usage);
    gbit_per_s = value;
    arg = arg.substr(0, at);
  }
  const auto x = arg.find('x');
  if (x == std::string_view::npos) bad_family(spec, usage);
  auto servers = whole_int(arg.substr(0, x), 1, kMaxServers);
  auto gpus = whole_int(arg.substr(x + 1), 1, kMaxGpusPerServer);
  if (!servers || !gpus) bad_family(spec, usage);
  return make_cluster_machine(*servers, *gpus, gbit_per_s);
}

/// The whole of `text` as a number in [min, max], else nullopt.
std::optional<double> whole_number(std::string_view text, double min, double max) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(value >= min) ||
      !(value <= max))
    return std::nullopt;
  return value;
}

Machine resolve_ib_cluster(std::string_view spec, std::string_view arg) {
  const std::string usage =
      "expected ib-cluster:NODESxGPUS[@GBITS][/OVERSUB] with 1 <= NODES <= " +
      std::to_string(kMaxServers) + ", 1 <= GPUS <= " + std::to_string(kMaxGpusPerServer) +
      ", GBITS the Gbit/s of each NIC (default 400) and OVERSUB the spine's oversubscription "
      "ratio from 1 to 64 (default 1), e.g. ib-cluster:4x8@200/2";
  double oversubscription = 1.0;
  if (auto slash = arg.find('/'); slash != std::string_view::npos) {
    auto value = whole_number(arg.substr(slash + 1), 1.0, kMaxOversubscription);
    if (!value) bad_family(spec, usage);
    oversubscription = *value;
    arg = arg.substr(0, slash);
  }
  double gbit_per_s = kDefaultIbGbitPerS;
  if (auto at = arg.find('@'); at != std::string_view::npos) {
    auto value = whole_number(arg.substr(at + 1), 1e-3, 1e6);
    if (!value) bad_family(spec, usage);
    gbit_per_s = *value;
    arg = arg.substr(0, at);
  }
  const auto x = arg.find('x');
  if (x == std::string_view::npos) bad_family(spec, usage);
  auto nodes = whole_int(arg.substr(0, x), 1, kMaxServers);
  auto gpus = whole_int(arg.substr(x + 1), 1, kMaxGpusPerServer);
  if (!nodes || !gpus) bad_family(spec, usage);
  if (*gpus == 8) {
    const Machine dgx = resolve_topology("dgx-h100");
    return make_ib_cluster_machine(*nodes, *gpus, gbit_per_s, oversubscription, &dgx);
  }
  return make_ib_cluster_machine(*nodes, *gpus, gbit_per_s, oversubscription, nullptr);
}

std::string valid_names() {
  std::string names;
  for (const TopologyInfo& info : list_topologies()) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names + ", or a path to a .yaml file";
}

}  // namespace

std::optional<std::string_view> preset_topology_yaml(std::string_view name) {
  if (const EmbeddedPreset* preset = find_preset(name)) return preset->yaml;
  return std::nullopt;
}

Machine resolve_topology(std::string_view name) {
  if (const EmbeddedPreset* preset = find_preset(name))
    return parse_topology_yaml(preset->yaml, preset->source);
  if (starts_with(name, "nvlink-ring:")) {
    auto n = whole_int(name.substr(12), 2, kMaxRingGpus);
    if (!n) bad_family(name, "N must be an integer from 2 to " + std::to_string(kMaxRingGpus));
    return make_nvlink_ring_machine(*n);
  }
  if (starts_with(name, "pcie-switch:")) {
    auto n = whole_int(name.substr(12), 1, kMaxSwitchGpus);
    if (!n) bad_family(name, "N must be an integer from 1 to " + std::to_string(kMaxSwitchGpus));
    return make_pcie_switch_machine(*n);
  }
  if (starts_with(name, "cluster:")) return resolve_cluster(name, name.substr(8));
  if (starts_with(name, "ib-cluster:")) return resolve_ib_cluster(name, name.substr(11));
  const std::string path(name);
  std::error_code ec;
  if (name.find('/') != std::string_view::npos || ends_with(name, ".yaml") ||
      ends_with(name, ".yml") || std::filesystem::exists(path, ec))
    return load_topology_file(path);
  throw InputError("unknown topology '" + path + "' (valid: " + valid_names() + ")");
}

std::vector<TopologyInfo> list_topologies() {
  std::vector<TopologyInfo> result;
  for (const EmbeddedPreset& preset : embedded_presets()) {
    const Machine machine = parse_topology_yaml(preset.yaml, preset.source);
    result.push_back({std::string(preset.name), machine.description(),
                      static_cast<int>(machine.gpus().size()), false, std::string(preset.name)});
  }
  result.push_back({"nvlink-ring:N",
                    "N V100s in a ring of single NVLink 2.0 links (25 GB/s per direction, zero "
                    "latency), host CPU on PCIe; 2 <= N <= " +
                        std::to_string(kMaxRingGpus),
                    std::nullopt, true, "nvlink-ring:8"});
  result.push_back({"pcie-switch:N",
                    "N V100s and the CPU behind PCIe switches (fan-out 4), 16 GB/s per link, "
                    "zero latency; 1 <= N <= " +
                        std::to_string(kMaxSwitchGpus),
                    std::nullopt, true, "pcie-switch:4"});
  result.push_back({"cluster:MxG[@GBITS]",
                    "M servers of G GPUs (as pcie-switch:G) with NICs on one Ethernet switch; "
                    "GBITS Gbit/s Ethernet, default 100",
                    std::nullopt, true, "cluster:2x4@10"});
  result.push_back({"ib-cluster:NODESxGPUS[@GBITS][/OVERSUB]",
                    "NODES servers of GPUS H100s (as dgx-h100 for 8, else on PCIe 5.0 "
                    "switches), one InfiniBand NIC per GPU on a rail-optimized fat tree: leaf "
                    "per rail, spine oversubscribed OVERSUB:1 (default 1); GBITS Gbit/s per "
                    "NIC, default 400 (NDR)",
                    std::nullopt, true, "ib-cluster:2x8"});
  return result;
}

}  // namespace opsim
