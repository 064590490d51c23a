#include "experiments/calibration/memcpy_sizes.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace opsim::calibration {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// The path of this process's dynamic loader (ld-linux-*.so.*) from its own mappings.
std::string loader_path() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const std::string file = path.substr(path.rfind('/') + 1);
    if (file.rfind("ld-linux", 0) == 0) return path;
  }
  return {};
}

}  // namespace

std::optional<std::uint64_t> parse_non_temporal_threshold(std::string_view text) {
  constexpr std::string_view kKey = "glibc.cpu.x86_non_temporal_threshold:";
  const auto at = text.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string rest(text.substr(at + kKey.size(), 40));
  char* end = nullptr;
  const unsigned long long value = std::strtoull(rest.c_str(), &end, 0);
  if (end == rest.c_str() || value == 0) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

std::optional<std::uint64_t> memcpy_non_temporal_threshold_bytes() {
#if defined(__x86_64__) && defined(__GLIBC__)
  const std::string loader = loader_path();
  if (loader.empty() || loader.find('\'') != std::string::npos) return std::nullopt;
  const std::string command = "'" + loader + "' --list-tunables 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return std::nullopt;
  std::string output;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    output.append(buffer.data(), n);
  return parse_non_temporal_threshold(output);
#else
  return std::nullopt;
#endif
}

std::vector<std::size_t> memcpy_calibration_sizes(std::size_t largest_bytes,
                                                  std::optional<std::uint64_t> threshold_bytes) {
  std::vector<std::size_t> sizes;
  for (std::size_t mb : {8, 32, 64, 96})
    if (mb * kMiB < largest_bytes) sizes.push_back(mb * kMiB);
  if (!threshold_bytes || sizes.empty()) return sizes;
  const std::uint64_t t = *threshold_bytes;
  if (t <= sizes.front() + kThresholdMarginBytes || t + kThresholdMarginBytes >= largest_bytes)
    return sizes;
  std::erase_if(sizes, [t](std::size_t s) { return s + kMiB > t && s < t + kMiB; });
  sizes.push_back(static_cast<std::size_t>(t - kThresholdMarginBytes));
  sizes.push_back(static_cast<std::size_t>(t + kThresholdMarginBytes));
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::string memcpy_measurement_name(std::size_t bytes, int streams) {
  const std::string prefix =
      streams > 1 ? "memcpy " + std::to_string(streams) + " streams " : std::string("memcpy ");
  if (bytes % kMiB == 0) return prefix + std::to_string(bytes / kMiB) + " MiB";
  char text[48];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / kMiB);
  return prefix + text;
}

}  // namespace opsim::calibration
