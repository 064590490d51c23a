// The spec that `opsim sweep SPEC` reads: what each point simulates (a gradient-sync
// strategy, a collective, a workload file or a replayed trace) and the axes whose values it
// crosses. YAML (docs/sweeps.md has every key):
//
//   topologies: [pcie-switch-4gpu, nvlink-ring:8]
//   strategies: [tree, ring]
//   bytes: [16MB, 160MB]
//   set: {gpu0-sw0.bandwidth: [8GB/s, 16GB/s]}
//   zip: [[topologies, gpus]]     # axes that vary together
//
//   SweepSpec spec = load_sweep_spec("rings.yaml");   // throws opsim::InputError
//   for (const SweepPoint& point : sweep_points(spec)) ...
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace opsim {

/// What one point runs.
enum class SweepKind { kStrategy, kCollective, kWorkload, kReplay };

/// One axis: its CSV column and its values, as canonical text (sizes in plain bytes, flags
/// true/false, numbers as read back exactly).
struct SweepAxis {
  std::string column;  ///< "topology", "bytes", "gpu0-sw0.bandwidth", ...
  std::vector<std::string> values;
};

struct SweepSpec {
  SweepKind kind = SweepKind::kStrategy;
  /// In grid order: the first varies slowest. A zip group's axes sit together.
  std::vector<SweepAxis> axes;
  /// Axes (indexes into `axes`) that vary together, each group's values of equal count.
  std::vector<std::vector<std::size_t>> zip_groups;
};

/// One point: a value of every axis, in the spec's axis order.
struct SweepPoint {
  std::vector<std::string> values;
};

/// Parses a sweep spec from YAML `text`; `source_name` (usually the path) starts every error
/// message. Throws opsim::InputError with one line "SOURCE:LINE:COL: KEY: what is wrong".
SweepSpec parse_sweep_spec(std::string_view text, std::string_view source_name);

/// Reads and parses a sweep spec file. An unreadable file is an InputError too.
SweepSpec load_sweep_spec(const std::string& path);

/// Every point in grid order: the last axis varies fastest; a zip group moves as one axis.
std::vector<SweepPoint> sweep_points(const SweepSpec& spec);

/// The value of `column` at `point`, or `fallback` when the spec has no such axis.
std::string point_value(const SweepSpec& spec, const SweepPoint& point, std::string_view column,
                        std::string_view fallback = "");

/// 16 hex digits: a hash (FNV-1a, 64 bits) of the point's columns and values. Equal
/// parameters give equal keys, in every run and on every machine.
std::string point_key(const SweepSpec& spec, const SweepPoint& point);

/// "ring on nvlink-ring:8, bytes=16000000": the point in words, for messages.
std::string describe_point(const SweepSpec& spec, const SweepPoint& point);

}  // namespace opsim
