#include "experiments/cli/sweep_spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_set>

#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "hw_models/units.hpp"

namespace opsim {
namespace {

constexpr double kMostSizeBytes = 9007199254740992.0;  // 2^53, as --bytes
constexpr std::size_t kMostPoints = 10'000'000;

// A spec key that is an axis: its CSV column, and which kinds of point it applies to.
struct AxisKey {
  const char* key;
  const char* column;
  unsigned kinds;  // bit per SweepKind
};

constexpr unsigned bit(SweepKind kind) {
  return 1u << static_cast<unsigned>(kind);
}
constexpr unsigned kAllKinds = 0xF;
constexpr unsigned kGradientKinds = bit(SweepKind::kStrategy) | bit(SweepKind::kCollective);

// In grid order: the first varies slowest. `set` keys come where "set" stands.
constexpr AxisKey kAxisKeys[] = {
    {"workloads", "workload", bit(SweepKind::kWorkload)},
    {"traces", "trace", bit(SweepKind::kReplay)},
    {"topologies", "topology", kAllKinds},
    {"gpus", "gpus", kGradientKinds},
    {"gpus_per_server", "gpus_per_server", bit(SweepKind::kCollective)},
    {"bytes", "bytes", kGradientKinds},
    {"link_bandwidth_scale", "link_bandwidth_scale", kAllKinds},
    {"set", "", kAllKinds},
    {"comm_only", "comm_only", bit(SweepKind::kStrategy)},
    {"kernels", "kernels", bit(SweepKind::kReplay)},
    {"replay_collectives", "replay_collectives", bit(SweepKind::kReplay)},
    {"strategies", "strategy", bit(SweepKind::kStrategy)},
    {"collectives", "op", bit(SweepKind::kCollective)},
    {"algorithms", "algorithm", bit(SweepKind::kCollective)},
    {"protocols", "protocol", bit(SweepKind::kCollective)},
};

const char* const kKindKeys[] = {"strategies", "collectives", "workloads", "traces"};

std::string key_list() {
  std::string list;
  for (const AxisKey& axis : kAxisKeys) list += std::string(list.empty() ? "" : ", ") + axis.key;
  return list + ", zip";
}

// Messages quote the file's own text (keys, values, yaml-cpp's complaint about a character),
// which may hold line breaks; the message stays one line.
InputError input_error(std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::replace(message.begin(), message.end(), '\r', ' ');
  return InputError(message);
}

// The shortest text that reads back as the same double ("0.58", not "0.57999999999999996").
std::string exact(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

std::string whole_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", value);
  return text;
}

class SpecReader {
 public:
  SpecReader(const YAML::Node& root, std::string path) : root_(root), path_(std::move(path)) {}

  SweepSpec read() {
    if (!root_.IsMap())
      throw input_error(path_ + ":1:1: the spec must be a mapping (" + key_list() + ")");
    check_keys();
    spec_.kind = kind();
    for (const AxisKey& axis : kAxisKeys) read_axis(axis);
    read_zip();
    check_point_count();
    return std::move(spec_);
  }

 private:
  std::string place(const YAML::Node& node) const {
    return path_ + ":" + std::to_string(node.Mark().line + 1) + ":" +
           std::to_string(node.Mark().column + 1);
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& key,
                         const std::string& what) const {
    throw input_error(place(node) + ": " + key + ": " + what);
  }

  void check_keys() {
    std::vector<std::string> seen;
    for (const auto& entry : root_) {
      if (!entry.first.IsScalar())
        throw input_error(place(entry.first) + ": keys must be plain words (" + key_list() + ")");
      const std::string key = entry.first.as<std::string>();
      const bool known =
          key == "zip" || std::any_of(std::begin(kAxisKeys), std::end(kAxisKeys),
                                      [&](const AxisKey& a) { return key == a.key; });
      if (!known)
        throw input_error(place(entry.first) + ": unknown key '" + key + "' (" + key_list() + ")");
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        throw input_error(place(entry.first) + ": key '" + key + "' appears twice");
      seen.push_back(key);
    }
  }

  SweepKind kind() const {
    std::vector<const char*> given;
    for (const char* key : kKindKeys)
      if (root_[key]) given.push_back(key);
    if (given.size() != 1) {
      const YAML::Node at = given.size() > 1 ? root_[given[1]] : root_;
      throw input_error(place(at) + ": " + (given.empty() ? "spec" : given[1]) +
                        ": a spec runs one kind of point: exactly one of strategies, "
                        "collectives, workloads, traces");
    }
    const std::string key = given.front();
    if (key == "strategies") return SweepKind::kStrategy;
    if (key == "collectives") return SweepKind::kCollective;
    if (key == "workloads") return SweepKind::kWorkload;
    return SweepKind::kReplay;
  }

  // A list (or one plain value) of plain values.
  std::vector<YAML::Node> items(const YAML::Node& node, const std::string& key) const {
    if (node.IsScalar()) return {node};
    if (!node.IsSequence() || node.size() == 0) fail(node, key, "must be a non-empty list");
    std::vector<YAML::Node> out;
    for (const auto& item : node) out.push_back(item);
    return out;
  }
  std::string text(const YAML::Node& item, const std::string& key) const {
    if (!item.IsScalar()) fail(item, key, "entries must be plain values");
    const std::string value = item.as<std::string>();
    if (value.empty()) fail(item, key, "an entry is empty");
    return value;
  }

  void read_axis(const AxisKey& axis) {
    const YAML::Node node = root_[axis.key];
    const std::string key = axis.key;
    if (!node) {
      const bool required =
          key == "topologies"
              ? (spec_.kind == SweepKind::kStrategy || spec_.kind == SweepKind::kCollective)
              : key == "bytes" && (bit(spec_.kind) & kGradientKinds);
      if (required) throw input_error(path_ + ":1:1: " + key + ": missing (" + needs() + ")");
      return;
    }
    if (!(axis.kinds & bit(spec_.kind)))
      fail(node, key, "does not apply to " + std::string(kind_word()) + " sweeps");
    if (key == "set") return read_set(node);
    SweepAxis out{axis.column, {}};
    for (const YAML::Node& item : items(node, key)) out.values.push_back(value_of(key, item));
    add_axis(std::move(out), node, key);
  }

  std::string needs() const {
    return spec_.kind == SweepKind::kStrategy ? "strategies need topologies and bytes"
                                              : "collectives need topologies and bytes";
  }
  const char* kind_word() const {
    switch (spec_.kind) {
      case SweepKind::kStrategy:
        return "strategy";
      case SweepKind::kCollective:
        return "collective";
      case SweepKind::kWorkload:
        return "workload";
      case SweepKind::kReplay:
        return "trace";
    }
    return "";
  }

  std::string value_of(const std::string& key, const YAML::Node& item) const {
    if (key == "traces" && item.IsSequence()) {  // one job's traces, one per rank
      std::string joined;
      for (const auto& path : items(item, key))
        joined += (joined.empty() ? "" : ";") + text(path, key);
      return joined;
    }
    const std::string value = text(item, key);
    if (key == "bytes") return bytes_value(item, value);
    if (key == "gpus") return gpu_count(item, key, value, 2);
    if (key == "gpus_per_server") return gpu_count(item, key, value, 1);
    if (key == "comm_only") {
      try {
        return item.as<bool>() ? "true" : "false";
      } catch (const YAML::Exception&) {
        fail(item, key, "'" + value + "' is not true or false");
      }
    }
    if (key == "link_bandwidth_scale") {
      char* end = nullptr;
      const double scale = std::strtod(value.c_str(), &end);
      if (*end != '\0' || !std::isfinite(scale) || !(scale > 0) || scale > 1e9)
        fail(item, key, "'" + value + "' is not a number from above 0 to 1e9");
      return exact(scale);
    }
    if (key == "kernels" || key == "replay_collectives") {
      if (value != "recorded" && value != "modelled")
        fail(item, key, "'" + value + "' is not recorded or modelled");
    }
    return value;
  }

  // `gpus` (from 2) and `gpus_per_server` (from 1): a whole count up to 1000000.
  std::string gpu_count(const YAML::Node& item, const std::string& key, const std::string& value,
                        long least) const {
    char* end = nullptr;
    const long n = std::strtol(value.c_str(), &end, 10);
    if (*end != '\0' || n < least || n > 1'000'000)
      fail(item, key,
           "'" + value + "' is not a GPU count from " + std::to_string(least) + " to 1000000");
    return std::to_string(n);
  }

  std::string bytes_value(const YAML::Node& item, const std::string& value) const {
    // A strategy's chunks of a gradient under 1 KiB would move in under the 1 ns step.
    const double least = spec_.kind == SweepKind::kStrategy ? 1024 : 1;
    const auto bytes = parse_bytes(value);
    if (!bytes || !(*bytes >= least) || *bytes > kMostSizeBytes)
      fail(item, "bytes",
           "cannot read '" + value + "' as a size from " + (least > 1 ? "1 KiB" : "1 byte") +
               " to 2^53 bytes");
    return whole_number(std::floor(*bytes));
  }

  // set: {NAME.FIELD: [VALUE, ...]}: one axis per key; what_if.hpp checks the values when a
  // point applies them to its machine.
  void read_set(const YAML::Node& node) {
    if (!node.IsMap() || node.size() == 0)
      fail(node, "set", "must map NAME.FIELD keys to lists of values");
    for (const auto& entry : node) {
      const std::string field = text(entry.first, "set");
      const std::size_t dot = field.find('.');
      if (dot == 0 || dot == std::string::npos || dot + 1 == field.size() ||
          field.find_first_of("=,\" ") != std::string::npos)
        fail(entry.first, "set", "'" + field + "' is not NAME.FIELD (e.g. gpu0-sw0.bandwidth)");
      SweepAxis axis{field, {}};
      for (const YAML::Node& item : items(entry.second, "set." + field))
        axis.values.push_back(text(item, "set." + field));
      add_axis(std::move(axis), entry.first, "set." + field);
    }
  }

  void add_axis(SweepAxis axis, const YAML::Node& node, const std::string& key) {
    std::unordered_set<std::string_view> seen;
    for (const std::string& value : axis.values)
      if (!seen.insert(value).second) fail(node, key, "'" + value + "' appears twice");
    spec_.axes.push_back(std::move(axis));
    axis_keys_.push_back(key);
  }

  // zip: [[topologies, gpus], ...]: the named axes vary together, value by value.
  void read_zip() {
    const YAML::Node node = root_["zip"];
    if (!node) return;
    if (!node.IsSequence() || node.size() == 0)
      fail(node, "zip", "must be a list of groups, e.g. [[topologies, gpus]]");
    std::vector<bool> zipped(spec_.axes.size(), false);
    for (const auto& group : node) {
      if (!group.IsSequence() || group.size() < 2)
        fail(group, "zip", "each group must list at least two axes, e.g. [topologies, gpus]");
      std::vector<std::size_t> members;
      for (const auto& name : group) {
        const std::string key = text(name, "zip");
        const auto found = std::find(axis_keys_.begin(), axis_keys_.end(), key);
        if (found == axis_keys_.end())
          fail(name, "zip", "'" + key + "' is not an axis of this spec (set keys: set.NAME.FIELD)");
        const std::size_t index = static_cast<std::size_t>(found - axis_keys_.begin());
        if (zipped[index]) fail(name, "zip", "'" + key + "' is in more than one group");
        zipped[index] = true;
        if (spec_.axes[index].values.size() !=
            spec_.axes[members.empty() ? index : members[0]].values.size())
          fail(name, "zip",
               "'" + key + "' has " + std::to_string(spec_.axes[index].values.size()) +
                   " values, '" + axis_keys_[members[0]] + "' " +
                   std::to_string(spec_.axes[members[0]].values.size()) +
                   ": zipped axes need as many values each");
        members.push_back(index);
      }
      std::sort(members.begin(), members.end());  // the group stands where its first axis does
      spec_.zip_groups.push_back(members);
    }
    regroup();
  }

  // Moves each zip group's other axes next to its first, so that the grid order keeps a
  // group together.
  void regroup() {
    std::vector<std::size_t> order;
    std::vector<bool> follower(spec_.axes.size(), false);
    for (const auto& group : spec_.zip_groups)
      for (std::size_t i = 1; i < group.size(); ++i) follower[group[i]] = true;
    for (std::size_t i = 0; i < spec_.axes.size(); ++i) {
      if (follower[i]) continue;
      const auto group = std::find_if(spec_.zip_groups.begin(), spec_.zip_groups.end(),
                                      [&](const auto& g) { return g.front() == i; });
      if (group == spec_.zip_groups.end())
        order.push_back(i);
      else
        order.insert(order.end(), group->begin(), group->end());
    }
    std::vector<SweepAxis> axes;
    std::vector<std::size_t> position(spec_.axes.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      position[order[i]] = i;
      axes.push_back(std::move(spec_.axes[order[i]]));
    }
    spec_.axes = std::move(axes);
    for (auto& group : spec_.zip_groups)
      for (std::size_t& member : group) member = position[member];
  }

  void check_point_count() const {
    double points = 1;
    std::vector<bool> zipped(spec_.axes.size(), false);
    for (const auto& group : spec_.zip_groups) {
      points *= static_cast<double>(spec_.axes[group.front()].values.size());
      for (std::size_t member : group) zipped[member] = true;
    }
    for (std::size_t i = 0; i < spec_.axes.size(); ++i)
      if (!zipped[i]) points *= static_cast<double>(spec_.axes[i].values.size());
    if (points > static_cast<double>(kMostPoints))
      throw input_error(path_ + ":1:1: spec: " + whole_number(points) + " points, more than the " +
                        std::to_string(kMostPoints) + " one sweep runs; split it");
  }

  YAML::Node root_;
  std::string path_;
  SweepSpec spec_;
  std::vector<std::string> axis_keys_;  // spec key of each axis ("bytes", "set.gpu0.x")
};

[[noreturn]] void throw_syntax_error(const YAML::Exception& e, const std::string& path) {
  throw input_error(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                    std::to_string(e.mark.column + 1) + ": " + e.msg);
}

}  // namespace

SweepSpec parse_sweep_spec(std::string_view text, std::string_view source_name) {
  const std::string path(source_name);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
    return SpecReader(root, path).read();
  } catch (const YAML::Exception& e) {
    throw_syntax_error(e, path);
  }
}

SweepSpec load_sweep_spec(const std::string& path) {
  // Regular files only (a FIFO would block), and a spec is small.
  constexpr std::uint64_t kMostSpecBytes = std::uint64_t{16} << 20;
  return parse_sweep_spec(read_input_file(path, "sweep spec", kMostSpecBytes), path);
}

std::vector<SweepPoint> sweep_points(const SweepSpec& spec) {
  // Dimensions: a plain axis, or a zip group (its axes share one counter).
  std::vector<std::vector<std::size_t>> dimensions;
  std::vector<bool> done(spec.axes.size(), false);
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    if (done[i]) continue;
    std::vector<std::size_t> dimension = {i};
    for (const auto& group : spec.zip_groups)
      if (group.front() == i) dimension = group;
    for (std::size_t member : dimension) done[member] = true;
    dimensions.push_back(dimension);
  }
  std::vector<std::size_t> counter(dimensions.size(), 0);
  std::vector<SweepPoint> points;
  while (true) {
    SweepPoint point;
    point.values.resize(spec.axes.size());
    for (std::size_t d = 0; d < dimensions.size(); ++d)
      for (std::size_t axis : dimensions[d])
        point.values[axis] = spec.axes[axis].values[counter[d]];
    points.push_back(std::move(point));
    std::size_t d = dimensions.size();
    while (d > 0) {
      --d;
      if (++counter[d] < spec.axes[dimensions[d].front()].values.size()) break;
      counter[d] = 0;
      if (d == 0) return points;
    }
    if (dimensions.empty()) return points;
  }
}

std::string point_value(const SweepSpec& spec, const SweepPoint& point, std::string_view column,
                        std::string_view fallback) {
  for (std::size_t i = 0; i < spec.axes.size(); ++i)
    if (spec.axes[i].column == column) return point.values[i];
  return std::string(fallback);
}

std::string point_key(const SweepSpec& spec, const SweepPoint& point) {
  // Sorted by column, so that reordering a spec's keys or zip groups keeps every key.
  std::map<std::string, std::string> sorted;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) sorted[spec.axes[i].column] = point.values[i];
  std::uint64_t hash = 0xcbf29ce484222325ull;
  auto mix = [&](std::string_view text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 0x100000001b3ull;
    }
    hash ^= 0xff;  // a separator no text holds
    hash *= 0x100000001b3ull;
  };
  for (const auto& [column, value] : sorted) {
    mix(column);
    mix(value);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string describe_point(const SweepSpec& spec, const SweepPoint& point) {
  std::string text;
  for (std::size_t i = 0; i < spec.axes.size(); ++i)
    text += (text.empty() ? "" : ", ") + spec.axes[i].column + "=" + point.values[i];
  return text;
}

}  // namespace opsim
