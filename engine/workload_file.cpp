#include "engine/workload_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "common/closest_name.hpp"
#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "engine/json_input.hpp"
#include "hw_models/units.hpp"

namespace opsim {
namespace {

using nlohmann::json;

// " (did you mean 'x'?)" for a key, else " (valid: a, b, ...)": the keys are few.
std::string key_suggestion(std::string_view key, const std::vector<std::string>& keys) {
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  return " " + name_suggestion(key, views);
}

// " (did you mean 'x'?)" for an op or device name close to one of `names`, else nothing:
// a workload's names may be too many to list.
std::string name_hint(std::string_view name, const std::vector<std::string>& names) {
  const std::vector<std::string_view> views(names.begin(), names.end());
  const std::optional<std::string_view> best = closest_name(name, views);
  return best ? " (did you mean '" + std::string(*best) + "'?)" : "";
}

// The largest values a workload may give; a simulated time that still leaves int64
// nanoseconds is refused by the simulator, naming the op.
constexpr double kMostBytes = 9007199254740992.0;  // 2^53
constexpr double kMostQuantity = 1e30;             // flops, seconds: beyond any real op
constexpr double kMostGemmSide = 1 << 30;

std::string shortest(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  if (std::strtod(text, nullptr) != value) std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// Reads one op object, reporting errors at "FILE: ops[i] ('name')".
class OpReader {
 public:
  OpReader(const WorkloadFile& file, const Machine& machine, std::size_t index, const json& object)
      : machine_(machine), object_(object) {
    place_ = file.source + ": ops[" + std::to_string(index) + "]";
    if (object.is_object() && object.contains("name") && object["name"].is_string())
      place_ += " ('" + object["name"].get<std::string>() + "')";
  }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(place_ + ": " + what); }

  void allow_keys(std::vector<std::string> keys) const {
    keys.insert(keys.end(), {"name", "kind", "after", "stream", "alloc", "release"});
    for (const auto& [key, value] : object_.items()) {
      (void)value;
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        fail("unknown key '" + key + "'" + key_suggestion(key, keys));
    }
  }

  const json* find(const char* key) const {
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  std::string text(const char* key, bool required = true) const {
    const json* value = find(key);
    if (!value) {
      if (required) fail(std::string("missing '") + key + "'");
      return "";
    }
    if (!value->is_string()) fail(std::string("'") + key + "' must be a string");
    return value->get<std::string>();
  }

  DeviceId device(const char* key, std::initializer_list<DeviceKind> kinds) const {
    const std::string device_name = text(key);
    auto id = machine_.find_device(device_name);
    if (!id) {
      std::vector<std::string> names;
      for (const Device& d : machine_.devices()) names.push_back(d.name);
      // A GPU workload on a machine without GPUs (e.g. a profile calibrated on a host
      // without one) says so rather than suggesting a CPU.
      if (device_name.rfind("gpu", 0) == 0 && machine_.gpus().empty())
        fail(std::string("'") + key + "': unknown device '" + device_name + "': topology '" +
             machine_.name() + "' has no GPU");
      fail(std::string("'") + key + "': unknown device '" + device_name + "' in topology '" +
           machine_.name() + "'" + name_hint(device_name, names));
    }
    const DeviceKind kind = machine_.device(*id).kind;
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
      fail(std::string("'") + key + "': device '" + device_name + "' is a " +
           std::string(to_string(kind)) + ", which cannot do this");
    return *id;
  }

  // A quantity: a number in base units or a string with units. Must be finite and >= 0
  // (> 0 where `positive`).
  double quantity(const char* key, std::optional<double> (*parse)(std::string_view), bool required,
                  bool positive, double fallback = 0, double most = kMostQuantity) const {
    const json* value = find(key);
    if (!value) {
      if (required) fail(std::string("missing '") + key + "'");
      return fallback;
    }
    double number = 0;
    if (value->is_number()) {
      number = value->get<double>();
    } else if (value->is_string()) {
      auto parsed = parse(value->get<std::string>());
      if (!parsed)
        fail(std::string("'") + key + "': cannot read '" + value->get<std::string>() +
             "' as a size with units");
      number = *parsed;
    } else {
      fail(std::string("'") + key + "' must be a number or a string with units");
    }
    if (!std::isfinite(number) || number < 0)
      fail(std::string("'") + key + "' must be finite and >= 0");
    if (positive && number <= 0) fail(std::string("'") + key + "' must be > 0");
    if (number > most) fail(std::string("'") + key + "' must be at most " + shortest(most));
    return number;
  }

  // A byte count: a whole number from 0 (1 where `positive`) to 2^53, the largest that a
  // double holds exactly.
  double byte_count(const char* key, bool required, bool positive) const {
    const double bytes = quantity(key, parse_bytes, required, positive, 0, kMostBytes);
    if (bytes != std::floor(bytes))
      fail(std::string("'") + key + "' must be a whole number of bytes, got " + shortest(bytes));
    return bytes;
  }

  const std::string& place() const { return place_; }

 private:
  const Machine& machine_;
  const json& object_;
  std::string place_;
};

std::optional<double> parse_plain(std::string_view text) {
  return parse_count(text);
}

Op read_op(const OpReader& r, const std::string& kind) {
  Op op;
  if (kind == "compute") {
    r.allow_keys({"device", "kernel", "flops", "bytes", "gemm", "dtype"});
    op.kind = OpKind::kCompute;
    op.device =
        r.find("device") ? r.device("device", {DeviceKind::kCpu, DeviceKind::kGpu}) : kNoDevice;
    const std::string kernel = r.text("kernel", false);
    static const std::map<std::string, KernelClass> kKernels = {
        {"gemm", KernelClass::kGemm},
        {"elementwise", KernelClass::kElementwise},
        {"reduce", KernelClass::kReduce},
        {"fill", KernelClass::kFill},
        {"noop", KernelClass::kNoop}};
    if (kernel.empty()) {
      op.kernel = r.find("gemm") ? KernelClass::kGemm : KernelClass::kElementwise;
    } else {
      auto it = kKernels.find(kernel);
      if (it == kKernels.end())
        r.fail("unknown kernel '" + kernel + "' (gemm, elementwise, reduce, fill, noop)");
      op.kernel = it->second;
    }
    const std::string dtype = r.text("dtype", false);
    if (dtype == "f16" || dtype == "fp16")
      op.dtype = DataType::kF16;
    else if (!dtype.empty() && dtype != "f32" && dtype != "fp32")
      r.fail("unknown dtype '" + dtype + "' (f32, f16)");
    const double element_bytes = op.dtype == DataType::kF16 ? 2.0 : 4.0;
    if (const json* gemm = r.find("gemm")) {
      if (!gemm->is_object()) r.fail("'gemm' must be an object {\"m\":..,\"n\":..,\"k\":..}");
      double dims[3];
      const char* names[3] = {"m", "n", "k"};
      for (int i = 0; i < 3; ++i) {
        auto it = gemm->find(names[i]);
        if (it == gemm->end() || !it->is_number() || !(it->get<double>() >= 1) ||
            it->get<double>() > kMostGemmSide || it->get<double>() != std::floor(it->get<double>()))
          r.fail(std::string("'gemm.") + names[i] + "' must be a whole number from 1 to 2^30");
        dims[i] = it->get<double>();
      }
      for (const auto& [key, value] : gemm->items()) {
        (void)value;
        if (key != "m" && key != "n" && key != "k") r.fail("unknown key 'gemm." + key + "'");
      }
      op.flops = 2.0 * dims[0] * dims[1] * dims[2];
      op.bytes = element_bytes * (dims[0] * dims[2] + dims[2] * dims[1] + dims[0] * dims[1]);
      if (r.find("flops") || r.find("bytes"))
        r.fail("give either 'gemm' or 'flops'/'bytes', not both");
    } else {
      op.flops = r.quantity("flops", parse_plain, false, false);
      op.bytes = r.byte_count("bytes", false, false);
    }
  } else if (kind == "copy") {
    r.allow_keys({"from", "to", "bytes"});
    op.kind = OpKind::kCopy;
    op.device = r.device("from", {DeviceKind::kCpu, DeviceKind::kGpu});
    op.peer = r.device("to", {DeviceKind::kCpu, DeviceKind::kGpu});
    op.bytes = r.byte_count("bytes", true, true);
  } else if (kind == "disk_read" || kind == "disk_write") {
    const bool read = kind == "disk_read";
    r.allow_keys({"disk", read ? "to" : "from", "bytes", "pattern", "block"});
    op.kind = read ? OpKind::kDiskRead : OpKind::kDiskWrite;
    op.device = r.device("disk", {DeviceKind::kDisk});
    op.peer = r.device(read ? "to" : "from", {DeviceKind::kCpu, DeviceKind::kGpu});
    op.bytes = r.byte_count("bytes", true, true);
    const std::string pattern = r.text("pattern", false);
    if (pattern == "random")
      op.pattern = AccessPattern::kRandom;
    else if (!pattern.empty() && pattern != "sequential")
      r.fail("'pattern' must be 'sequential' or 'random'");
    if (op.pattern == AccessPattern::kRandom) {
      const double block = r.byte_count("block", true, true);
      if (block > 4294967295.0) r.fail("'block' must be below 4 GiB");
      op.block_bytes = static_cast<std::uint32_t>(block);
    } else if (r.find("block")) {
      r.fail("'block' applies to random access only");
    }
  } else if (kind == "dispatch") {
    r.allow_keys({"device", "seconds"});
    op.kind = OpKind::kHostDispatch;
    op.device = r.device("device", {DeviceKind::kCpu});
    op.seconds = r.quantity("seconds", parse_seconds, true, false);
  } else {
    r.fail("unknown kind '" + kind + "' (compute, copy, disk_read, disk_write, dispatch)");
  }
  if (const json* stream = r.find("stream")) {
    if (!stream->is_number_integer() || stream->get<long long>() < 0 ||
        stream->get<long long>() > 1'000'000)
      r.fail("'stream' must be a whole number from 0 to 1000000");
    op.stream = static_cast<std::int32_t>(stream->get<long long>());
  }
  return op;
}

MemoryEffect read_memory_effect(const OpReader& r) {
  return {r.byte_count("alloc", false, false), r.byte_count("release", false, false)};
}

// Per device: no op allocates more than the device's memory, and the ops release no more
// than they allocate (what is released must have been allocated by some op before it).
void check_memory_balance(const WorkloadFile& file, const Machine& machine, const OpGraph& graph) {
  std::vector<double> allocated(machine.devices().size(), 0), released(allocated.size(), 0);
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    const MemoryEffect memory = graph.memory_effect(id);
    if (memory.alloc_bytes == 0 && memory.release_bytes == 0) continue;
    const std::string place =
        file.source + ": ops[" + std::to_string(id) + "] ('" + std::string(graph.name(id)) + "')";
    const DeviceId on = op.result_device();
    if (on >= machine.devices().size() || !machine.device(on).has_memory())
      throw InputError(place + ": 'alloc'/'release' need an op whose result is in a CPU's or " +
                       "GPU's memory");
    const Device& device = machine.device(on);
    const double capacity =
        device.kind == DeviceKind::kGpu ? device.gpu.memory_bytes : device.cpu.dram.capacity_bytes;
    if (capacity > 0 && memory.alloc_bytes > capacity)
      throw InputError(place + ": 'alloc' of " + format_bytes(memory.alloc_bytes) + " exceeds " +
                       device.name + "'s memory of " + format_bytes(capacity));
    allocated[on] += memory.alloc_bytes;
    released[on] += memory.release_bytes;
  }
  for (DeviceId d = 0; d < allocated.size(); ++d)
    if (released[d] > allocated[d])
      throw InputError(file.source + ": the ops release " + format_bytes(released[d]) + " on " +
                       machine.device(d).name + " but allocate only " + format_bytes(allocated[d]));
}

}  // namespace

WorkloadFile parse_workload_json(std::string_view text, std::string_view source) {
  WorkloadFile file;
  file.source = std::string(source);
  file.document = parse_json_input(text, file.source);
  const json& doc = file.document;
  if (!doc.is_object())
    throw InputError(file.source + ": the top level must be an object with \"ops\"");
  for (const auto& [key, value] : doc.items()) {
    (void)value;
    static const std::vector<std::string> kKeys = {"name", "topology", "description", "ops",
                                                   "max_in_flight"};
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      throw InputError(file.source + ": unknown top-level key '" + key + "'" +
                       key_suggestion(key, kKeys));
  }
  if (!doc.contains("ops") || !doc["ops"].is_array())
    throw InputError(file.source + ": missing \"ops\" (an array of ops)");
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) throw InputError(file.source + ": \"name\" must be a string");
    file.name = doc["name"].get<std::string>();
  } else {
    file.name = std::filesystem::path(file.source).stem().string();
  }
  if (doc.contains("max_in_flight")) {
    const json& window = doc["max_in_flight"];
    if (!window.is_number_integer() || window.get<long long>() < 0 ||
        window.get<long long>() > 1'000'000)
      throw InputError(file.source +
                       ": \"max_in_flight\" must be a whole number from 0 (no bound) to 1000000");
  }
  if (doc.contains("topology")) {
    if (!doc["topology"].is_string())
      throw InputError(file.source + ": \"topology\" must be a string");
    file.topology = doc["topology"].get<std::string>();
  }
  return file;
}

WorkloadFile load_workload_file(const std::string& path) {
  return parse_workload_json(read_input_file(path, "workload file"), path);
}

OpGraph build_workload_graph(const WorkloadFile& file, const Machine& machine) {
  const json& ops = file.document.at("ops");
  if (ops.empty()) throw InputError(file.source + ": \"ops\" is empty");
  OpGraph graph;
  graph.reserve(ops.size());
  std::map<std::string, OpId> by_name;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const json& object = ops[i];
    OpReader reader(file, machine, i, object);
    if (!object.is_object()) reader.fail("each op must be an object");
    const std::string name = reader.text("name");
    if (name.empty()) reader.fail("'name' must not be empty");
    if (by_name.count(name)) reader.fail("duplicate op name '" + name + "'");
    const Op op = read_op(reader, reader.text("kind"));
    const OpId id = graph.add(op, name);
    graph.add_memory_effect(id, read_memory_effect(reader));
    by_name.emplace(name, id);
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    OpReader reader(file, machine, i, ops[i]);
    const json* after = reader.find("after");
    if (!after) continue;
    if (!after->is_array()) reader.fail("'after' must be an array of op names");
    for (const json& dependency : *after) {
      if (!dependency.is_string()) reader.fail("'after' must list op names (strings)");
      const std::string& before = dependency.get_ref<const std::string&>();
      auto it = by_name.find(before);
      if (it == by_name.end()) {
        std::vector<std::string> names;
        for (const auto& [n, id] : by_name) names.push_back(n);
        reader.fail("'after': no op named '" + before + "'" + name_hint(before, names));
      }
      if (it->second == i) reader.fail("an op cannot come after itself");
      graph.add_dependency(it->second, static_cast<OpId>(i));
    }
  }
  check_memory_balance(file, machine, graph);
  graph.validate(machine, file.source);
  return graph;
}

}  // namespace opsim
