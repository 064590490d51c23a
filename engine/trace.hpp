// The trace model both worlds produce: lanes (streams, links), spans (ops on lanes, and
// transfers on the links they crossed), dependencies and counters. Self-contained strings
// and integer nanoseconds, so it can be written, read back and compared byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw_models/units.hpp"

namespace opsim {

enum class LaneKind : std::uint8_t { kCompute, kCopy, kHost, kIo, kLink };

std::string_view to_string(LaneKind kind);

struct TraceLane {
  std::string name;      ///< "gpu0/compute0", "pcie_gpu0 up"
  std::string node;      ///< server the lane belongs to ("server0"); links: the node of their first end
  std::string device;    ///< device name, or the link name for link lanes
  LaneKind kind = LaneKind::kCompute;
  double capacity_bytes_per_s = 0;  ///< link lanes: per-direction bandwidth

  bool operator==(const TraceLane&) const = default;
};

struct TraceSpan {
  std::uint32_t op = 0;    ///< index into Trace::ops
  std::uint32_t lane = 0;  ///< index into Trace::lanes
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;

  bool operator==(const TraceSpan&) const = default;
};

struct TraceOp {
  std::string name;
  std::string op_class;  ///< "gemm", "reduce", "copy", "disk_read", "dispatch" ...
  std::string device;    ///< where it ran (copies: source)
  std::string peer;      ///< copies and disk ops: the other end
  double flops = 0;
  double bytes = 0;
  std::uint32_t lane = 0;  ///< the stream lane it ran on
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;

  bool operator==(const TraceOp&) const = default;
};

struct TraceCounterSample {
  TimeNs at_ns = 0;
  double value = 0;

  bool operator==(const TraceCounterSample&) const = default;
};

struct TraceCounter {
  std::string name;  ///< "memory gpu0", "utilization pcie_gpu0 up"
  std::string unit;  ///< "bytes", "fraction"
  std::vector<TraceCounterSample> samples;
  std::string node;    ///< server it belongs to (memory counters); empty for link counters
  std::string device;  ///< device (memory counters) or link lane name (utilization counters)

  bool operator==(const TraceCounter&) const = default;
};

struct Trace {
  std::string title;    ///< "tree on pcie-switch-4gpu"
  std::string backend;  ///< "sim" or "real"
  std::string machine;  ///< topology name
  std::vector<TraceLane> lanes;
  std::vector<TraceOp> ops;
  std::vector<TraceSpan> link_spans;  ///< transfers on the link lanes they crossed
  std::vector<std::pair<std::uint32_t, std::uint32_t>> dependencies;  ///< (before, after) op indices
  std::vector<TraceCounter> counters;

  TimeNs makespan_ns() const;

  bool operator==(const Trace&) const = default;
};

}  // namespace opsim
