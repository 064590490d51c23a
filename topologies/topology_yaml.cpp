#include "topologies/topology_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/edit_distance.hpp"
#include "common/input_error.hpp"
#include "hw_models/model_presets.hpp"
#include "hw_models/units.hpp"

namespace opsim {
namespace {

using Keys = std::span<const std::string_view>;

constexpr std::string_view kTopKeysData[] = {"name", "description", "nodes", "devices", "links"};
constexpr Keys kTopKeys{kTopKeysData};
constexpr std::string_view kNodeKeysData[] = {"name", "devices", "links"};
constexpr Keys kNodeKeys{kNodeKeysData};
constexpr std::string_view kKindsData[] = {"cpu", "gpu", "switch", "nic", "disk"};
constexpr Keys kKinds{kKindsData};
constexpr std::string_view kCpuKeysData[] = {"name",
                                             "kind",
                                             "model",
                                             "cores",
                                             "clock",
                                             "simd_fp32_lanes",
                                             "fma_units",
                                             "efficiency",
                                             "dispatch_latency",
                                             "compute_streams",
                                             "all_streams_busy_speed",
                                             "beside_dispatch_speed",
                                             "disk_io_cores",
                                             "disk_read_speed_one_busy",
                                             "disk_read_speed_all_busy",
                                             "disk_write_speed_one_busy",
                                             "disk_write_speed_all_busy",
                                             "copy_streams",
                                             "copy_stream_bandwidth",
                                             "copy_stream_rates",
                                             "copies_together_rates",
                                             "core_pass_speeds",
                                             "core_copy_speeds",
                                             "core_gemm_speeds",
                                             "dram",
                                             "memory_pass_rates"};
constexpr Keys kCpuKeys{kCpuKeysData};
constexpr std::string_view kPassRateKeysData[] = {"working_set", "bandwidth"};
constexpr Keys kPassRateKeys{kPassRateKeysData};
constexpr std::string_view kCopyRateKeysData[] = {"bytes", "bandwidth"};
constexpr Keys kCopyRateKeys{kCopyRateKeysData};
constexpr std::string_view kDramKeysData[] = {"channels", "bandwidth_per_channel", "first_access",
                                              "burst_word", "capacity"};
constexpr Keys kDramKeys{kDramKeysData};
constexpr std::string_view kGpuKeysData[] = {"name",
                                             "kind",
                                             "model",
                                             "fp32_peak",
                                             "fp16_peak",
                                             "memory_bandwidth",
                                             "memory_size",
                                             "launch_latency",
                                             "copy_launch_latency",
                                             "min_dependent_op",
                                             "min_queued_op",
                                             "copy_engines",
                                             "compute_streams",
                                             "efficiency",
                                             "sgemm_rates"};
constexpr Keys kGpuKeys{kGpuKeysData};
constexpr std::string_view kGemmRateKeysData[] = {"n", "rate"};
constexpr Keys kGemmRateKeys{kGemmRateKeysData};
constexpr std::string_view kPlainKeysData[] = {"name", "kind"};
constexpr Keys kPlainKeys{kPlainKeysData};
constexpr std::string_view kDiskKeysData[] = {"name",
                                              "kind",
                                              "type",
                                              "rpm",
                                              "seek",
                                              "bandwidth",
                                              "generation",
                                              "lanes",
                                              "access_latency",
                                              "read_bandwidth",
                                              "write_bandwidth",
                                              "read_iops",
                                              "write_iops",
                                              "queues",
                                              "random_read_wait_beside_sequential",
                                              "sequential_read_beside_random",
                                              "sequential_read_beside_write",
                                              "sequential_reads_together",
                                              "sequential_write_beside_read"};
constexpr Keys kDiskKeys{kDiskKeysData};
constexpr std::string_view kDiskTypesData[] = {"hdd", "ssd", "nvme"};
constexpr Keys kDiskTypes{kDiskTypesData};
constexpr std::string_view kLinkKeysData[] = {
    "name",  "between",   "type",    "generation",  "lanes",
    "count", "bandwidth", "latency", "full_duplex", "duplex_bandwidth"};
constexpr Keys kLinkKeys{kLinkKeysData};
constexpr std::string_view kLinkTypesData[] = {"pcie", "nvlink", "ethernet",
                                               "sata", "memory", "generic"};
constexpr Keys kLinkTypes{kLinkTypesData};

std::string join(Keys keys) {
  std::string out;
  for (std::string_view k : keys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

/// "(did you mean 'x'?)" for a close match, else "(valid: a, b, c)".
std::string suggestion(std::string_view got, Keys valid) {
  std::string_view best;
  std::size_t best_distance = SIZE_MAX;
  for (std::string_view v : valid) {
    const std::size_t d = edit_distance(got, v);
    if (d < best_distance) {
      best_distance = d;
      best = v;
    }
  }
  if (best_distance <= std::max<std::size_t>(2, got.size() / 3))
    return "(did you mean '" + std::string(best) + "'?)";
  return "(valid: " + join(valid) + ")";
}

bool contains(Keys keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string node_type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "'" + node.Scalar() + "'";
  }
}

std::optional<double> parse_hz(std::string_view text) {
  std::string s(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  if (s.size() >= 2 && s.compare(s.size() - 2, 2, "Hz") == 0) s.resize(s.size() - 2);
  return parse_count(s);
}

std::optional<double> parse_plain(std::string_view text) {
  return parse_count(text);
}

/// What a quantity field holds: its parser and how an error describes it.
struct Quantity {
  std::optional<double> (*parse)(std::string_view);
  const char* noun;     // "a bandwidth"
  const char* example;  // "'16GB/s', '10Gbit/s' or bytes per second"
};

constexpr Quantity kBandwidth{parse_bytes_per_s, "a bandwidth",
                              "'16GB/s', '10Gbit/s' or bytes per second"};
constexpr Quantity kDuration{parse_seconds, "a duration", "'100ns', '1.5us', '8ms' or seconds"};
constexpr Quantity kSize{parse_bytes, "a size", "'16GB', '512MiB' or bytes"};
constexpr Quantity kRate{parse_flops_per_s, "a compute rate", "'15.7TFLOPS' or flops per second"};
constexpr Quantity kClock{parse_hz, "a clock", "'3.0GHz' or Hz"};
constexpr Quantity kNumber{parse_plain, "a number", "'7200', '500k' or '1.5e5'"};

enum class Bound { kPositive, kNonNegative };

/// Reads one document; remembers where each device was defined for later errors.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    std::string message = source_;
    if (!mark.is_null()) {
      message += ':' + std::to_string(mark.line + 1) + ':' + std::to_string(mark.column + 1);
    }
    message += ": " + what;
    std::replace(message.begin(), message.end(), '\n', ' ');
    throw InputError(message);
  }

  /// Checks `node` is a map whose keys are unique and all in `allowed`.
  void check_map(const YAML::Node& node, Keys allowed, const std::string& what) const {
    if (!node.IsMap()) fail(node.Mark(), what + " must be a map, got " + node_type_name(node));
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: it-> returns a temporary proxy
      if (!key.IsScalar()) fail(key.Mark(), "keys of " + what + " must be plain words");
      const std::string& k = key.Scalar();
      if (!contains(allowed, k))
        fail(key.Mark(), "unknown key '" + k + "' in " + what + " " + suggestion(k, allowed));
      if (!seen.insert(k).second) fail(key.Mark(), "duplicate key '" + k + "' in " + what);
    }
  }

  /// Where `key` itself is written in `map` (the value's mark can be on a later line).
  static YAML::Mark key_mark(const YAML::Node& map, std::string_view key) {
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->first.Mark();
    return map.Mark();
  }

  YAML::Node required(const YAML::Node& map, const char* key, const std::string& what) const {
    YAML::Node value = map[key];
    if (!value) fail(map.Mark(), what + " is missing required key '" + key + "'");
    return value;
  }

  std::string text(const YAML::Node& value, std::string_view key) const {
    if (!value.IsScalar() || value.Scalar().empty())
      fail(value.Mark(),
           "'" + std::string(key) + "' must be a word or text, got " + node_type_name(value));
    return value.Scalar();
  }

  long integer(const YAML::Node& value, std::string_view key, long min, long max) const {
    if (!value.IsScalar())
      fail(value.Mark(),
           "'" + std::string(key) + "' must be an integer, got " + node_type_name(value));
    const std::string& s = value.Scalar();
    long result = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), result);
    if (ec != std::errc() || end != s.data() + s.size())
      fail(value.Mark(), "'" + std::string(key) + "' must be an integer, got '" + s + "'");
    if (result < min || result > max)
      fail(value.Mark(), "'" + std::string(key) + "' must be from " + std::to_string(min) + " to " +
                             std::to_string(max) + ", got " + s);
    return result;
  }

  bool boolean(const YAML::Node& value, std::string_view key) const {
    const std::string s = value.IsScalar() ? lower(value.Scalar()) : std::string();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    fail(value.Mark(),
         "'" + std::string(key) + "' must be true or false, got " + node_type_name(value));
  }

  double fraction(const YAML::Node& value, std::string_view key) const {
    const double v = quantity(value, key, kNumber, Bound::kPositive);
    if (v > 1.0)
      fail(value.Mark(), "'" + std::string(key) + "' must be in (0, 1], got " + value.Scalar());
    return v;
  }

  double quantity(const YAML::Node& value, std::string_view key, const Quantity& q,
                  Bound bound) const {
    const std::string k = "'" + std::string(key) + "'";
    const char* sign = bound == Bound::kPositive ? "positive" : "zero or positive";
    if (!value.IsScalar())
      fail(value.Mark(),
           k + " must be " + q.noun + " such as " + q.example + ", got " + node_type_name(value));
    const std::string& s = value.Scalar();
    const std::string l = lower(s);
    if (l.find("nan") != std::string::npos || l.find("inf") != std::string::npos)
      fail(value.Mark(), k + " must be a finite " + sign + " number, got '" + s + "'");
    // The unit parsers refuse negatives; say so rather than "bad unit".
    const char* begin = s.c_str();
    char* end = nullptr;
    const double leading = std::strtod(begin, &end);
    if (end != begin && leading < 0)
      fail(value.Mark(), k + " must be " + sign + ", got '" + s + "'");
    const std::optional<double> parsed = q.parse(s);
    if (!parsed)
      fail(value.Mark(), k + " must be " + q.noun + " such as " + q.example + ", got '" + s + "'");
    if (!std::isfinite(*parsed))
      fail(value.Mark(), k + " must be a finite " + sign + " number, got '" + s + "'");
    if (bound == Bound::kPositive && !(*parsed > 0))
      fail(value.Mark(), k + " must be positive, got '" + s + "'");
    return *parsed;
  }

  /// Sets `target` from map[key] when present.
  template <typename Setter>
  void optional(const YAML::Node& map, const char* key, Setter&& set) const {
    if (YAML::Node value = map[key]) set(value);
  }

  Machine parse(std::string_view text_view);

 private:
  void parse_device(Machine& machine, const YAML::Node& node);
  void parse_link(Machine& machine, const YAML::Node& node);
  CpuModel parse_cpu(const YAML::Node& node, const std::string& what) const;
  GpuModel parse_gpu(const YAML::Node& node, const std::string& what) const;
  DiskModel parse_disk(const YAML::Node& node, const std::string& what) const;
  LinkModel parse_link_model(const YAML::Node& node, const std::string& what) const;
  void check_gpus_reach_cpus(const Machine& machine) const;

  std::string source_;
  std::vector<YAML::Mark> device_marks_;
  std::map<std::string, YAML::Mark> link_marks_;
};

CpuModel Reader::parse_cpu(const YAML::Node& node, const std::string& what) const {
  check_map(node, kCpuKeys, what);
  CpuModel cpu;
  optional(node, "model", [&](const YAML::Node& v) {
    const std::string name = text(v, "model");
    auto preset = cpu_model_preset(name);
    if (!preset)
      fail(v.Mark(),
           "unknown CPU model '" + name + "' (valid: " + join(cpu_model_preset_names()) + ")");
    cpu = *preset;
  });
  optional(node, "cores", [&](auto& v) { cpu.cores = int(integer(v, "cores", 1, 1 << 20)); });
  optional(node, "clock",
           [&](auto& v) { cpu.clock_hz = quantity(v, "clock", kClock, Bound::kPositive); });
  optional(node, "simd_fp32_lanes",
           [&](auto& v) { cpu.simd_fp32_lanes = int(integer(v, "simd_fp32_lanes", 1, 1024)); });
  optional(node, "fma_units",
           [&](auto& v) { cpu.fma_units = int(integer(v, "fma_units", 1, 64)); });
  optional(node, "efficiency", [&](auto& v) { cpu.efficiency = fraction(v, "efficiency"); });
  optional(node, "dispatch_latency", [&](auto& v) {
    cpu.dispatch_s = quantity(v, "dispatch_latency", kDuration, Bound::kNonNegative);
  });
  optional(node, "compute_streams",
           [&](auto& v) { cpu.compute_streams = int(integer(v, "compute_streams", 1, 1 << 16)); });
  optional(node, "all_streams_busy_speed",
           [&](auto& v) { cpu.all_streams_busy_speed = fraction(v, "all_streams_busy_speed"); });
  optional(node, "beside_dispatch_speed",
           [&](auto& v) { cpu.beside_dispatch_speed = fraction(v, "beside_dispatch_speed"); });
  for (auto [key, field] : kDiskSpeedBesideComputeFields)
    optional(node, key, [&, key = key, field = field](auto& v) { cpu.*field = fraction(v, key); });
  optional(node, "disk_io_cores", [&](auto& v) {
    cpu.disk_io_cores = quantity(v, "disk_io_cores", kNumber, Bound::kNonNegative);
    if (cpu.disk_io_cores > cpu.cores)
      fail(v.Mark(), "'disk_io_cores' must be at most the CPU's cores (" +
                         std::to_string(cpu.cores) + "), got " + v.Scalar());
  });
  optional(node, "copy_streams",
           [&](auto& v) { cpu.copy_streams = int(integer(v, "copy_streams", 1, 1 << 16)); });
  optional(node, "copy_stream_bandwidth", [&](auto& v) {
    cpu.copy_stream_bytes_per_s =
        quantity(v, "copy_stream_bandwidth", kBandwidth, Bound::kNonNegative);
  });
  optional(node, "dram", [&](const YAML::Node& d) {
    check_map(d, kDramKeys, "the dram of " + what);
    DramModel& dram = cpu.dram;
    optional(d, "channels", [&](auto& v) { dram.channels = int(integer(v, "channels", 1, 1024)); });
    optional(d, "bandwidth_per_channel", [&](auto& v) {
      dram.bytes_per_s_per_channel =
          quantity(v, "bandwidth_per_channel", kBandwidth, Bound::kPositive);
    });
    optional(d, "first_access", [&](auto& v) {
      dram.first_access_s = quantity(v, "first_access", kDuration, Bound::kNonNegative);
    });
    optional(d, "burst_word", [&](auto& v) {
      dram.burst_word_s = quantity(v, "burst_word", kDuration, Bound::kNonNegative);
    });
    optional(d, "capacity", [&](auto& v) {
      dram.capacity_bytes = quantity(v, "capacity", kSize, Bound::kPositive);
    });
  });
  // A list of rates at increasing sizes: {<size_key>: SIZE, bandwidth: RATE}.
  auto size_rates = [&](const char* key, const char* size_key, const Keys& keys,
                        std::vector<MemoryPassRate>& rates) {
    optional(node, key, [&](const YAML::Node& list) {
      const std::string k = key;
      if (!list.IsSequence())
        fail(list.Mark(), "'" + k + "' must be a list such as [{" + size_key +
                              ": 8MB, bandwidth: 30GB/s}], got " + node_type_name(list));
      for (const YAML::Node& item : list) {
        check_map(item, keys, "an entry of " + k + " of " + what);
        MemoryPassRate rate;
        rate.working_set_bytes =
            quantity(required(item, size_key, k + " entry"), size_key, kSize, Bound::kPositive);
        rate.bytes_per_s = quantity(required(item, "bandwidth", k + " entry"), "bandwidth",
                                    kBandwidth, Bound::kPositive);
        if (!rates.empty() && rate.working_set_bytes <= rates.back().working_set_bytes)
          fail(item.Mark(),
               k + " of " + what + " must list increasing " + size_key + " values, one rate each");
        rates.push_back(rate);
      }
    });
  };
  size_rates("memory_pass_rates", "working_set", kPassRateKeys, cpu.memory_pass_rates);
  size_rates("copy_stream_rates", "bytes", kCopyRateKeys, cpu.copy_stream_rates);
  size_rates("copies_together_rates", "bytes", kCopyRateKeys, cpu.copies_together_rates);
  // A factor per core, in core order: [1.1, 0.9].
  auto core_speeds = [&](const char* key, std::vector<double>& speeds) {
    optional(node, key, [&](const YAML::Node& list) {
      const std::string k = key;
      if (!list.IsSequence())
        fail(list.Mark(), "'" + k + "' must be a list of one speed factor per core such as " +
                              "[1.1, 0.9], got " + node_type_name(list));
      for (const YAML::Node& item : list)
        speeds.push_back(quantity(item, key, kNumber, Bound::kPositive));
      if (speeds.size() > static_cast<std::size_t>(cpu.cores))
        fail(list.Mark(), "'" + k + "' of " + what + " lists " + std::to_string(speeds.size()) +
                              " speeds for " + std::to_string(cpu.cores) + " cores");
    });
  };
  core_speeds("core_pass_speeds", cpu.core_pass_speeds);
  core_speeds("core_copy_speeds", cpu.core_copy_speeds);
  core_speeds("core_gemm_speeds", cpu.core_gemm_speeds);
  return cpu;
}

GpuModel Reader::parse_gpu(const YAML::Node& node, const std::string& what) const {
  check_map(node, kGpuKeys, what);
  GpuModel gpu;
  optional(node, "model", [&](const YAML::Node& v) {
    const std::string name = text(v, "model");
    auto preset = gpu_model_preset(name);
    if (!preset)
      fail(v.Mark(),
           "unknown GPU model '" + name + "' (valid: " + join(gpu_model_preset_names()) + ")");
    gpu = *preset;
  });
  optional(node, "fp32_peak", [&](auto& v) {
    gpu.fp32_flops_per_s = quantity(v, "fp32_peak", kRate, Bound::kPositive);
  });
  optional(node, "fp16_peak", [&](auto& v) {
    gpu.fp16_flops_per_s = quantity(v, "fp16_peak", kRate, Bound::kPositive);
  });
  optional(node, "memory_bandwidth", [&](auto& v) {
    gpu.memory_bytes_per_s = quantity(v, "memory_bandwidth", kBandwidth, Bound::kPositive);
  });
  optional(node, "memory_size", [&](auto& v) {
    gpu.memory_bytes = quantity(v, "memory_size", kSize, Bound::kPositive);
  });
  optional(node, "launch_latency", [&](auto& v) {
    gpu.launch_s = quantity(v, "launch_latency", kDuration, Bound::kNonNegative);
  });
  optional(node, "copy_launch_latency", [&](auto& v) {
    gpu.copy_launch_s = quantity(v, "copy_launch_latency", kDuration, Bound::kNonNegative);
  });
  optional(node, "min_dependent_op", [&](auto& v) {
    gpu.dependent_op_min_s = quantity(v, "min_dependent_op", kDuration, Bound::kNonNegative);
  });
  optional(node, "min_queued_op", [&](auto& v) {
    gpu.queued_op_min_s = quantity(v, "min_queued_op", kDuration, Bound::kNonNegative);
  });
  optional(node, "copy_engines",
           [&](auto& v) { gpu.copy_engines = int(integer(v, "copy_engines", 1, 64)); });
  optional(node, "compute_streams",
           [&](auto& v) { gpu.compute_streams = int(integer(v, "compute_streams", 1, 1024)); });
  optional(node, "efficiency", [&](auto& v) { gpu.efficiency = fraction(v, "efficiency"); });
  // SGEMM's rate by size: [{n: 1024, rate: 35TFLOPS}, {n: 2048, rate: 49TFLOPS}].
  optional(node, "sgemm_rates", [&](const YAML::Node& list) {
    if (!list.IsSequence())
      fail(list.Mark(), "'sgemm_rates' must be a list such as [{n: 1024, rate: 35TFLOPS}], got " +
                            node_type_name(list));
    for (const YAML::Node& item : list) {
      check_map(item, kGemmRateKeys, "an entry of sgemm_rates of " + what);
      GemmRate rate;
      rate.n =
          static_cast<double>(integer(required(item, "n", "sgemm_rates entry"), "n", 1, 1 << 20));
      rate.flops_per_s =
          quantity(required(item, "rate", "sgemm_rates entry"), "rate", kRate, Bound::kPositive);
      if (!gpu.sgemm_rates.empty() && rate.n <= gpu.sgemm_rates.back().n)
        fail(item.Mark(),
             "sgemm_rates of " + what + " must list increasing n values, one rate each");
      gpu.sgemm_rates.push_back(rate);
    }
  });
  return gpu;
}

DiskModel Reader::parse_disk(const YAML::Node& node, const std::string& what) const {
  check_map(node, kDiskKeys, what);
  const YAML::Node type_node = required(node, "type", what);
  const std::string type = text(type_node, "type");
  if (!contains(kDiskTypes, type))
    fail(type_node.Mark(), "unknown disk type '" + type + "' " + suggestion(type, kDiskTypes));
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
  DiskModel disk;
  if (type == "hdd") {
    double rpm = 7200, seek_s = 4e-3, bytes_per_s = 160e6;
    optional(node, "rpm", [&](auto& v) { rpm = quantity(v, "rpm", kNumber, Bound::kPositive); });
    optional(node, "seek",
             [&](auto& v) { seek_s = quantity(v, "seek", kDuration, Bound::kNonNegative); });
    optional(node, "bandwidth", [&](auto& v) {
      bytes_per_s = quantity(v, "bandwidth", kBandwidth, Bound::kPositive);
    });
    disk = DiskModel::hdd(rpm, seek_s, bytes_per_s);
  } else if (type == "ssd") {
    disk = DiskModel::sata_ssd();
  } else {
    int generation = 3, lanes = 4;
    optional(node, "generation",
             [&](auto& v) { generation = int(integer(v, "generation", 3, 5)); });
    optional(node, "lanes", [&](auto& v) { lanes = int(integer(v, "lanes", 1, 16)); });
    disk = DiskModel::nvme(generation, lanes);
  }
  optional(node, "access_latency", [&](auto& v) {
    disk.access_s = quantity(v, "access_latency", kDuration, Bound::kNonNegative);
  });
  optional(node, "read_bandwidth", [&](auto& v) {
    disk.read_bytes_per_s = quantity(v, "read_bandwidth", kBandwidth, Bound::kPositive);
  });
  optional(node, "write_bandwidth", [&](auto& v) {
    disk.write_bytes_per_s = quantity(v, "write_bandwidth", kBandwidth, Bound::kPositive);
  });
  optional(node, "read_iops",
           [&](auto& v) { disk.read_iops = quantity(v, "read_iops", kNumber, Bound::kPositive); });
  optional(node, "write_iops", [&](auto& v) {
    disk.write_iops = quantity(v, "write_iops", kNumber, Bound::kPositive);
  });
  optional(node, "queues", [&](auto& v) { disk.queues = int(integer(v, "queues", 1, 1 << 16)); });
  optional(node, "random_read_wait_beside_sequential", [&](auto& v) {
    disk.random_read_wait_beside_sequential_s =
        quantity(v, "random_read_wait_beside_sequential", kDuration, Bound::kNonNegative);
  });
  optional(node, "sequential_read_beside_random", [&](auto& v) {
    disk.sequential_read_beside_random_bytes_per_s =
        quantity(v, "sequential_read_beside_random", kBandwidth, Bound::kPositive);
  });
  optional(node, "sequential_read_beside_write", [&](auto& v) {
    disk.sequential_read_beside_write_bytes_per_s =
        quantity(v, "sequential_read_beside_write", kBandwidth, Bound::kPositive);
  });
  optional(node, "sequential_write_beside_read", [&](auto& v) {
    disk.sequential_write_beside_read_bytes_per_s =
        quantity(v, "sequential_write_beside_read", kBandwidth, Bound::kPositive);
  });
  optional(node, "sequential_reads_together", [&](auto& v) {
    disk.sequential_reads_together_bytes_per_s =
        quantity(v, "sequential_reads_together", kBandwidth, Bound::kPositive);
  });
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
  const Keys own = kind == "cpu"    ? kCpuKeys
                   : kind == "gpu"  ? kGpuKeys
                   : kind == "disk" ? kDiskKeys
                                    : kPlainKeys;
  if (contains(kKinds, kind) && node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : std::string();
      if (contains(own, k)) continue;
      for (auto [other, keys] :
           {std::pair{"cpu", kCpuKeys}, {"gpu", kGpuKeys}, {"disk", kDiskKeys}})
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
  } else if (kind == "switch" || kind == "nic") {
    device.kind = kind == "nic" ? DeviceKind::kNic : DeviceKind::kSwitch;
    check_map(node, kPlainKeys, what);
  } else {
    fail(kind_node.Mark(), "unknown device kind '" + kind + "' " + suggestion(kind, kKinds));
  }
  try {
    machine.add_device(std::move(device));
  } catch (const std::exception& e) {
    fail(node.Mark(), e.what());
  }
  device_marks_.push_back(node.Mark());
}

LinkModel Reader::parse_link_model(const YAML::Node& node, const std::string& what) const {
  const YAML::Node type_node = required(node, "type", what);
  const std::string type = text(type_node, "type");
  if (!contains(kLinkTypes, type))
    fail(type_node.Mark(), "unknown link type '" + type + "' " + suggestion(type, kLinkTypes));
  if (YAML::Node v = node["lanes"]; v && type != "pcie")
    fail(v.Mark(), "key 'lanes' applies only to pcie links");
  if (YAML::Node v = node["generation"]; v && type != "pcie" && type != "nvlink")
    fail(v.Mark(), "key 'generation' applies only to pcie and nvlink links");
  int count = 1;
  optional(node, "count", [&](auto& v) { count = int(integer(v, "count", 1, 64)); });
  std::optional<double> bandwidth;
  optional(node, "bandwidth",
           [&](auto& v) { bandwidth = quantity(v, "bandwidth", kBandwidth, Bound::kPositive); });

  LinkModel model;
  if (type == "pcie") {
    int generation = 3, lanes = 16;
    optional(node, "generation",
             [&](auto& v) { generation = int(integer(v, "generation", 1, 5)); });
    optional(node, "lanes", [&](auto& v) { lanes = int(integer(v, "lanes", 1, 32)); });
    model = LinkModel::pcie(generation, lanes);
  } else if (type == "nvlink") {
    int generation = 2;
    optional(node, "generation",
             [&](auto& v) { generation = int(integer(v, "generation", 1, 4)); });
    model = LinkModel::nvlink(generation, count);
  } else {
    if (!bandwidth)
      fail(node.Mark(), what + " of type " + type + " is missing required key 'bandwidth'");
    if (type == "ethernet") {
      model = LinkModel::ethernet(*bandwidth * 8.0 / 1e9);
    } else {
      model.kind = type == "sata"     ? LinkKind::kSata
                   : type == "memory" ? LinkKind::kMemoryBus
                                      : LinkKind::kGeneric;
      model.latency_s = 0.0;
    }
  }
  model.count = count;
  if (bandwidth) model.bytes_per_s = *bandwidth;  // exact, not recomputed by a factory
  optional(node, "latency", [&](auto& v) {
    model.latency_s = quantity(v, "latency", kDuration, Bound::kNonNegative);
  });
  optional(node, "full_duplex", [&](auto& v) { model.full_duplex = boolean(v, "full_duplex"); });
  optional(node, "duplex_bandwidth", [&](auto& v) {
    if (!model.full_duplex)
      fail(v.Mark(), "key 'duplex_bandwidth' applies only to full-duplex links");
    model.duplex_bytes_per_s = quantity(v, "duplex_bandwidth", kBandwidth, Bound::kPositive);
  });
  return model;
}

void Reader::parse_link(Machine& machine, const YAML::Node& node) {
  if (!node.IsMap()) fail(node.Mark(), "a link must be a map, got " + node_type_name(node));
  check_map(node, kLinkKeys, "link");
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
    machine.set_description(v.Scalar());
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

// ---- writing -------------------------------------------------------------------------

std::string shortest(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  (void)ec;
  return std::string(buffer, end);
}

struct Unit {
  double scale;
  const char* suffix;
};

/// The shortest text, with a unit where possible, that parses back to exactly `value`.
/// Unit parsers multiply (100 * 1e-9 is not the double 100e-9), so a plain number wins
/// when no unit spelling is exact.
std::string exact(double value, std::initializer_list<Unit> units,
                  std::optional<double> (*parse)(std::string_view)) {
  if (value == 0) return "0";
  std::string best = shortest(value);
  char plain[64];
  std::snprintf(plain, sizeof plain, "%.15g", value);
  if (auto back = parse(plain); back && *back == value && std::strlen(plain) <= best.size())
    best = plain;
  for (const Unit& unit : units) {
    if (value < unit.scale) continue;
    char rounded[64];
    std::snprintf(rounded, sizeof rounded, "%.15g", value / unit.scale);
    for (const std::string& number : {std::string(rounded), shortest(value / unit.scale)}) {
      const std::string s = number + unit.suffix;
      auto back = parse(s);
      if (back && *back == value && s.size() <= best.size() + 3) {
        best = s;
        return best;
      }
    }
  }
  return best;
}

std::string bandwidth_text(double v) {
  return exact(v, {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}}, parse_bytes_per_s);
}
std::string size_text(double v) {
  return exact(v, {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}}, parse_bytes);
}
std::string duration_text(double v) {
  return exact(v, {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}, parse_seconds);
}
std::string rate_text(double v) {
  return exact(v, {{1e12, "TFLOPS"}, {1e9, "GFLOPS"}}, parse_flops_per_s);
}
std::string clock_text(double v) {
  return exact(v, {{1e9, "GHz"}, {1e6, "MHz"}}, parse_hz);
}
std::string number_text(double v) {
  return exact(v, {{1e6, "M"}, {1e3, "k"}}, parse_plain);
}

void emit_device(YAML::Emitter& out, const Device& d) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << d.name;
  out << YAML::Key << "kind" << YAML::Value << std::string(to_string(d.kind));
  switch (d.kind) {
    case DeviceKind::kCpu: {
      const CpuModel& c = d.cpu;
      out << YAML::Key << "cores" << YAML::Value << c.cores;
      out << YAML::Key << "clock" << YAML::Value << clock_text(c.clock_hz);
      out << YAML::Key << "simd_fp32_lanes" << YAML::Value << c.simd_fp32_lanes;
      out << YAML::Key << "fma_units" << YAML::Value << c.fma_units;
      out << YAML::Key << "efficiency" << YAML::Value << number_text(c.efficiency);
      out << YAML::Key << "dispatch_latency" << YAML::Value << duration_text(c.dispatch_s);
      out << YAML::Key << "compute_streams" << YAML::Value << c.compute_streams;
      if (c.all_streams_busy_speed != 1.0)
        out << YAML::Key << "all_streams_busy_speed" << YAML::Value
            << number_text(c.all_streams_busy_speed);
      if (c.beside_dispatch_speed != 1.0)
        out << YAML::Key << "beside_dispatch_speed" << YAML::Value
            << number_text(c.beside_dispatch_speed);
      if (c.disk_io_cores > 0)
        out << YAML::Key << "disk_io_cores" << YAML::Value << number_text(c.disk_io_cores);
      for (auto [key, field] : kDiskSpeedBesideComputeFields)
        if (c.*field != 1.0) out << YAML::Key << key << YAML::Value << number_text(c.*field);
      out << YAML::Key << "copy_streams" << YAML::Value << c.copy_streams;
      if (c.copy_stream_bytes_per_s > 0)
        out << YAML::Key << "copy_stream_bandwidth" << YAML::Value
            << bandwidth_text(c.copy_stream_bytes_per_s);
      out << YAML::Key << "dram" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "channels" << YAML::Value << c.dram.channels;
      out << YAML::Key << "bandwidth_per_channel" << YAML::Value
          << bandwidth_text(c.dram.bytes_per_s_per_channel);
      out << YAML::Key << "first_access" << YAML::Value << duration_text(c.dram.first_access_s);
      out << YAML::Key << "burst_word" << YAML::Value << duration_text(c.dram.burst_word_s);
      out << YAML::Key << "capacity" << YAML::Value << size_text(c.dram.capacity_bytes);
      out << YAML::EndMap;
      auto size_rates = [&](const char* key, const char* size_key,
                            const std::vector<MemoryPassRate>& rates) {
        if (rates.empty()) return;
        out << YAML::Key << key << YAML::Value << YAML::BeginSeq;
        for (const MemoryPassRate& r : rates)
          out << YAML::BeginMap << YAML::Key << size_key << YAML::Value
              << size_text(r.working_set_bytes) << YAML::Key << "bandwidth" << YAML::Value
              << bandwidth_text(r.bytes_per_s) << YAML::EndMap;
        out << YAML::EndSeq;
      };
      size_rates("memory_pass_rates", "working_set", c.memory_pass_rates);
      size_rates("copy_stream_rates", "bytes", c.copy_stream_rates);
      size_rates("copies_together_rates", "bytes", c.copies_together_rates);
      auto core_speeds = [&](const char* key, const std::vector<double>& speeds) {
        if (speeds.empty()) return;
        out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (const double speed : speeds) out << number_text(speed);
        out << YAML::EndSeq;
      };
      core_speeds("core_pass_speeds", c.core_pass_speeds);
      core_speeds("core_copy_speeds", c.core_copy_speeds);
      core_speeds("core_gemm_speeds", c.core_gemm_speeds);
      break;
    }
    case DeviceKind::kGpu: {
      const GpuModel& g = d.gpu;
      out << YAML::Key << "fp32_peak" << YAML::Value << rate_text(g.fp32_flops_per_s);
      out << YAML::Key << "fp16_peak" << YAML::Value << rate_text(g.fp16_flops_per_s);
      out << YAML::Key << "memory_bandwidth" << YAML::Value << bandwidth_text(g.memory_bytes_per_s);
      out << YAML::Key << "memory_size" << YAML::Value << size_text(g.memory_bytes);
      out << YAML::Key << "launch_latency" << YAML::Value << duration_text(g.launch_s);
      if (g.copy_launch_s > 0)
        out << YAML::Key << "copy_launch_latency" << YAML::Value << duration_text(g.copy_launch_s);
      if (g.dependent_op_min_s > 0)
        out << YAML::Key << "min_dependent_op" << YAML::Value
            << duration_text(g.dependent_op_min_s);
      if (g.queued_op_min_s > 0)
        out << YAML::Key << "min_queued_op" << YAML::Value << duration_text(g.queued_op_min_s);
      out << YAML::Key << "copy_engines" << YAML::Value << g.copy_engines;
      out << YAML::Key << "compute_streams" << YAML::Value << g.compute_streams;
      out << YAML::Key << "efficiency" << YAML::Value << number_text(g.efficiency);
      if (!g.sgemm_rates.empty()) {
        out << YAML::Key << "sgemm_rates" << YAML::Value << YAML::BeginSeq;
        for (const GemmRate& r : g.sgemm_rates)
          out << YAML::BeginMap << YAML::Key << "n" << YAML::Value << static_cast<long>(r.n)
              << YAML::Key << "rate" << YAML::Value << rate_text(r.flops_per_s) << YAML::EndMap;
        out << YAML::EndSeq;
      }
      break;
    }
    case DeviceKind::kDisk: {
      const DiskModel& k = d.disk;
      out << YAML::Key << "type" << YAML::Value << std::string(to_string(k.kind));
      out << YAML::Key << "access_latency" << YAML::Value << duration_text(k.access_s);
      out << YAML::Key << "read_bandwidth" << YAML::Value << bandwidth_text(k.read_bytes_per_s);
      out << YAML::Key << "write_bandwidth" << YAML::Value << bandwidth_text(k.write_bytes_per_s);
      out << YAML::Key << "read_iops" << YAML::Value << number_text(k.read_iops);
      out << YAML::Key << "write_iops" << YAML::Value << number_text(k.write_iops);
      out << YAML::Key << "queues" << YAML::Value << k.queues;
      if (k.random_read_wait_beside_sequential_s > 0)
        out << YAML::Key << "random_read_wait_beside_sequential" << YAML::Value
            << duration_text(k.random_read_wait_beside_sequential_s);
      if (k.sequential_read_beside_random_bytes_per_s > 0)
        out << YAML::Key << "sequential_read_beside_random" << YAML::Value
            << bandwidth_text(k.sequential_read_beside_random_bytes_per_s);
      if (k.sequential_read_beside_write_bytes_per_s > 0)
        out << YAML::Key << "sequential_read_beside_write" << YAML::Value
            << bandwidth_text(k.sequential_read_beside_write_bytes_per_s);
      if (k.sequential_reads_together_bytes_per_s > 0)
        out << YAML::Key << "sequential_reads_together" << YAML::Value
            << bandwidth_text(k.sequential_reads_together_bytes_per_s);
      if (k.sequential_write_beside_read_bytes_per_s > 0)
        out << YAML::Key << "sequential_write_beside_read" << YAML::Value
            << bandwidth_text(k.sequential_write_beside_read_bytes_per_s);
      break;
    }
    case DeviceKind::kSwitch:
    case DeviceKind::kNic:
      break;
  }
  out << YAML::EndMap;
}

void emit_link(YAML::Emitter& out, const Machine& machine, const Link& link) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << link.name;
  out << YAML::Key << "between" << YAML::Value << YAML::Flow << YAML::BeginSeq
      << machine.device(link.a).name << machine.device(link.b).name << YAML::EndSeq;
  out << YAML::Key << "type" << YAML::Value << std::string(to_string(link.model.kind));
  out << YAML::Key << "bandwidth" << YAML::Value << bandwidth_text(link.model.bytes_per_s);
  out << YAML::Key << "latency" << YAML::Value << duration_text(link.model.latency_s);
  out << YAML::Key << "full_duplex" << YAML::Value << link.model.full_duplex;
  if (link.model.duplex_bytes_per_s > 0)
    out << YAML::Key << "duplex_bandwidth" << YAML::Value
        << bandwidth_text(link.model.duplex_bytes_per_s);
  out << YAML::Key << "count" << YAML::Value << link.model.count;
  out << YAML::EndMap;
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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path + ": cannot read topology file (" + std::strerror(errno) + ")");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read topology file (read error)");
  return parse_topology_yaml(buffer.str(), path);
}

std::string dump_topology_yaml(const Machine& machine) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << machine.name();
  if (!machine.description().empty())
    out << YAML::Key << "description" << YAML::Value << machine.description();
  const auto nodes = machine.node_names();
  const bool single = nodes.size() == 1 && nodes[0] == machine.name();
  if (single) {
    out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
    for (const Device& d : machine.devices()) emit_device(out, d);
    out << YAML::EndSeq;
  } else {
    out << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
    for (std::uint32_t n = 0; n < nodes.size(); ++n) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << nodes[n];
      out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
      for (const Device& d : machine.devices())
        if (d.node == n) emit_device(out, d);
      out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
  for (const Link& link : machine.links()) emit_link(out, machine, link);
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

void save_topology_file(const Machine& machine, const std::string& path) {
  const std::string text = dump_topology_yaml(machine);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(path + ": cannot write topology file (" + std::strerror(errno) + ")");
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw InputError(path + ": cannot write topology file (write error)");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw InputError(path + ": cannot write topology file (" + reason + ")");
  }
}

std::string machine_difference(const Machine& a, const Machine& b, bool ignore_names) {
  std::ostringstream diff;
  auto differ = [&](bool different, const std::string& what) {
    if (different && diff.tellp() == 0) diff << what;
  };
  if (!ignore_names) {
    differ(a.name() != b.name(), "name '" + a.name() + "' vs '" + b.name() + "'");
    differ(a.description() != b.description(), "description differs");
  }
  // A single server named after its machine is the implicit default node.
  auto nodes_of = [&](const Machine& m) {
    std::vector<std::string> names(m.node_names().begin(), m.node_names().end());
    if (ignore_names && names.size() == 1 && names[0] == m.name()) names[0].clear();
    return names;
  };
  differ(nodes_of(a) != nodes_of(b), "node names differ");
  differ(a.devices().size() != b.devices().size(), "device counts differ");
  differ(a.links().size() != b.links().size(), "link counts differ");
  if (diff.tellp() != 0) return diff.str();
  for (std::size_t i = 0; i < a.devices().size(); ++i) {
    const Device& x = a.devices()[i];
    const Device& y = b.devices()[i];
    const std::string at = "device " + std::to_string(i) + " ('" + x.name + "'): ";
    differ(x.name != y.name, at + "name vs '" + y.name + "'");
    differ(x.kind != y.kind, at + "kind");
    differ(x.node != y.node, at + "node");
    if (x.kind == DeviceKind::kCpu && y.kind == x.kind) {
      const CpuModel &p = x.cpu, &q = y.cpu;
      differ(p.cores != q.cores || p.clock_hz != q.clock_hz ||
                 p.simd_fp32_lanes != q.simd_fp32_lanes || p.fma_units != q.fma_units ||
                 p.efficiency != q.efficiency || p.dispatch_s != q.dispatch_s ||
                 p.compute_streams != q.compute_streams || p.copy_streams != q.copy_streams ||
                 p.copy_stream_bytes_per_s != q.copy_stream_bytes_per_s ||
                 p.all_streams_busy_speed != q.all_streams_busy_speed ||
                 p.beside_dispatch_speed != q.beside_dispatch_speed ||
                 p.disk_io_cores != q.disk_io_cores ||
                 std::ranges::any_of(kDiskSpeedBesideComputeFields,
                                     [&](auto key) { return p.*key.second != q.*key.second; }),
             at + "cpu model");
      differ(p.dram.channels != q.dram.channels ||
                 p.dram.bytes_per_s_per_channel != q.dram.bytes_per_s_per_channel ||
                 p.dram.first_access_s != q.dram.first_access_s ||
                 p.dram.burst_word_s != q.dram.burst_word_s ||
                 p.dram.capacity_bytes != q.dram.capacity_bytes,
             at + "dram model");
      auto same_rates = [](const std::vector<MemoryPassRate>& u,
                           const std::vector<MemoryPassRate>& v) {
        bool same = u.size() == v.size();
        for (std::size_t r = 0; same && r < u.size(); ++r)
          same = u[r].working_set_bytes == v[r].working_set_bytes &&
                 u[r].bytes_per_s == v[r].bytes_per_s;
        return same;
      };
      differ(!same_rates(p.memory_pass_rates, q.memory_pass_rates), at + "memory pass rates");
      differ(!same_rates(p.copy_stream_rates, q.copy_stream_rates), at + "copy stream rates");
      differ(!same_rates(p.copies_together_rates, q.copies_together_rates),
             at + "copies together rates");
      differ(p.core_pass_speeds != q.core_pass_speeds || p.core_copy_speeds != q.core_copy_speeds ||
                 p.core_gemm_speeds != q.core_gemm_speeds,
             at + "per-core speeds");
    }
    if (x.kind == DeviceKind::kGpu && y.kind == x.kind) {
      const GpuModel &p = x.gpu, &q = y.gpu;
      differ(p.fp32_flops_per_s != q.fp32_flops_per_s || p.fp16_flops_per_s != q.fp16_flops_per_s ||
                 p.memory_bytes_per_s != q.memory_bytes_per_s || p.memory_bytes != q.memory_bytes ||
                 p.launch_s != q.launch_s || p.copy_launch_s != q.copy_launch_s ||
                 p.dependent_op_min_s != q.dependent_op_min_s ||
                 p.queued_op_min_s != q.queued_op_min_s || p.copy_engines != q.copy_engines ||
                 p.compute_streams != q.compute_streams || p.efficiency != q.efficiency,
             at + "gpu model");
      bool same_gemm_rates = p.sgemm_rates.size() == q.sgemm_rates.size();
      for (std::size_t r = 0; same_gemm_rates && r < p.sgemm_rates.size(); ++r)
        same_gemm_rates = p.sgemm_rates[r].n == q.sgemm_rates[r].n &&
                          p.sgemm_rates[r].flops_per_s == q.sgemm_rates[r].flops_per_s;
      differ(!same_gemm_rates, at + "sgemm rates");
    }
    if (x.kind == DeviceKind::kDisk && y.kind == x.kind) {
      const DiskModel &p = x.disk, &q = y.disk;
      differ(
          p.kind != q.kind || p.access_s != q.access_s ||
              p.read_bytes_per_s != q.read_bytes_per_s ||
              p.write_bytes_per_s != q.write_bytes_per_s || p.read_iops != q.read_iops ||
              p.write_iops != q.write_iops || p.queues != q.queues ||
              p.random_read_wait_beside_sequential_s != q.random_read_wait_beside_sequential_s ||
              p.sequential_read_beside_random_bytes_per_s !=
                  q.sequential_read_beside_random_bytes_per_s ||
              p.sequential_read_beside_write_bytes_per_s !=
                  q.sequential_read_beside_write_bytes_per_s ||
              p.sequential_reads_together_bytes_per_s != q.sequential_reads_together_bytes_per_s ||
              p.sequential_write_beside_read_bytes_per_s !=
                  q.sequential_write_beside_read_bytes_per_s,
          at + "disk model");
    }
  }
  for (std::size_t i = 0; i < a.links().size(); ++i) {
    const Link& x = a.links()[i];
    const Link& y = b.links()[i];
    const std::string at = "link " + std::to_string(i) + " ('" + x.name + "'): ";
    differ(x.name != y.name, at + "name vs '" + y.name + "'");
    differ(x.a != y.a || x.b != y.b, at + "ends");
    differ(x.model.kind != y.model.kind, at + "type");
    differ(
        x.model.bytes_per_s != y.model.bytes_per_s,
        at + "bandwidth " + shortest(x.model.bytes_per_s) + " vs " + shortest(y.model.bytes_per_s));
    differ(x.model.latency_s != y.model.latency_s, at + "latency");
    differ(x.model.full_duplex != y.model.full_duplex, at + "full_duplex");
    differ(x.model.duplex_bytes_per_s != y.model.duplex_bytes_per_s, at + "duplex_bandwidth");
    differ(x.model.count != y.model.count, at + "count");
  }
  return diff.str();
}

}  // namespace opsim
