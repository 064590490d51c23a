#include "experiments/cli/sweep_spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>

#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "hw_models/units.hpp"

namespace opsim {
namespace {

// Messages quote the file's own text (keys, values, yaml-cpp's complaint about a character),
// which may hold line breaks; the message stays one line.
InputError input_error(std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::replace(message.begin(), message.end(), '\r', ' ');
  return InputError(message);
}

SweepSpec spec_from_yaml(const YAML::Node& root, const std::string& path) {
  auto place = [&](const YAML::Node& node) {
    return path + ":" + std::to_string(node.Mark().line + 1) + ":" +
           std::to_string(node.Mark().column + 1);
  };
  if (!root.IsMap())
    throw input_error(path + ": the spec must be a mapping (topologies, strategies, bytes, ...)");
  SweepSpec spec;
  auto strings = [&](const char* key, bool required) {
    std::vector<std::string> out;
    const YAML::Node node = root[key];
    if (!node) {
      if (required) throw input_error(path + ": missing '" + key + "'");
      return out;
    }
    if (node.IsScalar()) return std::vector<std::string>{node.as<std::string>()};
    if (!node.IsSequence() || node.size() == 0)
      throw input_error(place(node) + ": '" + key + "' must be a non-empty list");
    for (const auto& item : node) {
      if (!item.IsScalar())
        throw input_error(place(item) + ": '" + key + "' entries must be plain values");
      out.push_back(item.as<std::string>());
    }
    return out;
  };
  std::vector<std::string> seen;
  for (const auto& entry : root) {
    if (!entry.first.IsScalar())
      throw input_error(place(entry.first) +
                        ": keys must be plain words (topologies, strategies, " +
                        "bytes, gpus, comm_only)");
    const std::string key = entry.first.as<std::string>();
    if (key != "topologies" && key != "strategies" && key != "bytes" && key != "gpus" &&
        key != "comm_only")
      throw input_error(place(entry.first) + ": unknown key '" + key +
                        "' (topologies, strategies, bytes, gpus, comm_only)");
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw input_error(place(entry.first) + ": key '" + key + "' appears twice");
    seen.push_back(key);
  }
  spec.topologies = strings("topologies", true);
  spec.strategies = strings("strategies", true);
  for (const std::string& text : strings("bytes", true)) {
    auto bytes = parse_bytes(text);
    if (!bytes || !(*bytes >= 1024) || *bytes > 9007199254740992.0)
      throw input_error(place(root["bytes"]) + ": cannot read '" + text +
                        "' as a size from 1 KiB to 2^53 bytes");
    spec.bytes.push_back(*bytes);
  }
  if (root["gpus"]) {
    spec.gpus.clear();
    for (const std::string& text : strings("gpus", false)) {
      char* end = nullptr;
      const long n = std::strtol(text.c_str(), &end, 10);
      if (*end != '\0' || n < 2 || n > 1'000'000)
        throw input_error(place(root["gpus"]) + ": '" + text + "' is not a GPU count >= 2");
      spec.gpus.push_back(static_cast<int>(n));
    }
  }
  if (root["comm_only"]) {
    try {
      spec.comm_only = root["comm_only"].as<bool>();
    } catch (const YAML::Exception&) {
      throw input_error(place(root["comm_only"]) + ": 'comm_only' must be true or false");
    }
  }
  return spec;
}

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
  } catch (const YAML::Exception& e) {
    throw_syntax_error(e, path);
  }
  return spec_from_yaml(root, path);
}

SweepSpec load_sweep_spec(const std::string& path) {
  // Regular files only (a FIFO would block), and a spec is small.
  constexpr std::uint64_t kMostSpecBytes = std::uint64_t{16} << 20;
  return parse_sweep_spec(read_input_file(path, "sweep spec", kMostSpecBytes), path);
}

}  // namespace opsim
