#include "engine/workload_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/edit_distance.hpp"
#include "common/input_error.hpp"
#include "hw_models/units.hpp"

namespace opsim {
namespace {

using nlohmann::json;

std::string line_col_of(std::string_view text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

std::string suggestion(std::string_view word, const std::vector<std::string>& choices) {
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& c : choices) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

// Reads one op object, reporting errors at "FILE: ops[i] ('name')".
class OpReader {
 public:
  OpReader(const WorkloadFile& file, const Machine& machine, std::size_t index, const json& object)
      : file_(file), machine_(machine), index_(index), object_(object) {
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
        fail("unknown key '" + key + "'" + suggestion(key, keys));
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
           machine_.name() + "'" + suggestion(device_name, names));
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
                  bool positive, double fallback = 0) const {
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
    return number;
  }

  const std::string& place() const { return place_; }

 private:
  const WorkloadFile& file_;
  const Machine& machine_;
  std::size_t index_;
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
        if (it == gemm->end() || !it->is_number() || !(it->get<double>() > 0))
          r.fail(std::string("'gemm.") + names[i] + "' must be a number > 0");
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
      op.bytes = r.quantity("bytes", parse_bytes, false, false);
    }
  } else if (kind == "copy") {
    r.allow_keys({"from", "to", "bytes"});
    op.kind = OpKind::kCopy;
    op.device = r.device("from", {DeviceKind::kCpu, DeviceKind::kGpu});
    op.peer = r.device("to", {DeviceKind::kCpu, DeviceKind::kGpu});
    op.bytes = r.quantity("bytes", parse_bytes, true, true);
  } else if (kind == "disk_read" || kind == "disk_write") {
    const bool read = kind == "disk_read";
    r.allow_keys({"disk", read ? "to" : "from", "bytes", "pattern", "block"});
    op.kind = read ? OpKind::kDiskRead : OpKind::kDiskWrite;
    op.device = r.device("disk", {DeviceKind::kDisk});
    op.peer = r.device(read ? "to" : "from", {DeviceKind::kCpu, DeviceKind::kGpu});
    op.bytes = r.quantity("bytes", parse_bytes, true, true);
    const std::string pattern = r.text("pattern", false);
    if (pattern == "random")
      op.pattern = AccessPattern::kRandom;
    else if (!pattern.empty() && pattern != "sequential")
      r.fail("'pattern' must be 'sequential' or 'random'");
    if (op.pattern == AccessPattern::kRandom) {
      const double block = r.quantity("block", parse_bytes, true, true);
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
      r.fail("'stream' must be a whole number >= 0");
    op.stream = static_cast<std::int32_t>(stream->get<long long>());
  }
  op.alloc_bytes = r.quantity("alloc", parse_bytes, false, false);
  op.release_bytes = r.quantity("release", parse_bytes, false, false);
  return op;
}

}  // namespace

WorkloadFile parse_workload_json(std::string_view text, std::string_view source) {
  WorkloadFile file;
  file.source = std::string(source);
  try {
    file.document = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 3, column 5: ".
    const auto colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError(file.source + ":" + line_col_of(text, e.byte == 0 ? 0 : e.byte - 1) +
                     ": invalid JSON: " + what);
  }
  const json& doc = file.document;
  if (!doc.is_object())
    throw InputError(file.source + ": the top level must be an object with \"ops\"");
  for (const auto& [key, value] : doc.items()) {
    (void)value;
    static const std::vector<std::string> kKeys = {"name", "topology", "description", "ops",
                                                   "max_in_flight"};
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      throw InputError(file.source + ": unknown top-level key '" + key + "'" +
                       suggestion(key, kKeys));
  }
  if (!doc.contains("ops") || !doc["ops"].is_array())
    throw InputError(file.source + ": missing \"ops\" (an array of ops)");
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) throw InputError(file.source + ": \"name\" must be a string");
    file.name = doc["name"].get<std::string>();
  } else {
    file.name = std::filesystem::path(file.source).stem().string();
  }
  if (doc.contains("topology")) {
    if (!doc["topology"].is_string())
      throw InputError(file.source + ": \"topology\" must be a string");
    file.topology = doc["topology"].get<std::string>();
  }
  return file;
}

WorkloadFile load_workload_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open workload file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_workload_json(buffer.str(), path);
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
    by_name.emplace(name, graph.add(op, name));
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    OpReader reader(file, machine, i, ops[i]);
    const json* after = reader.find("after");
    if (!after) continue;
    if (!after->is_array()) reader.fail("'after' must be an array of op names");
    std::vector<std::string> names;
    for (const auto& [n, id] : by_name) names.push_back(n);
    for (const json& dependency : *after) {
      if (!dependency.is_string()) reader.fail("'after' must list op names (strings)");
      const std::string before = dependency.get<std::string>();
      auto it = by_name.find(before);
      if (it == by_name.end())
        reader.fail("'after': no op named '" + before + "'" + suggestion(before, names));
      if (it->second == i) reader.fail("an op cannot come after itself");
      graph.add_dependency(it->second, static_cast<OpId>(i));
    }
  }
  graph.validate(machine, file.source);
  return graph;
}

}  // namespace opsim
