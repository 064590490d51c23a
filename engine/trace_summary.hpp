// Numbers a user wants after a run, computed from a Trace alone so that they work on
// traces loaded from files: makespan, bytes moved, per-link-direction bytes, busy time and
// utilization, the busiest link, peak memory, how busy each lane was; and the same for a
// time range (the GUI's range selection).
//
//   TraceSummary s = summarize_trace(trace);
//   // 480 MB over a 16 GB/s link direction in a 60 ms run: s.links[0].utilization == 0.5
#pragma once

#include <string>
#include <vector>

#include "engine/trace.hpp"

namespace opsim {

/// One direction of one link.
struct LinkUsage {
  std::uint32_t lane = 0;           ///< index into Trace::lanes
  std::string name;                 ///< lane name, "pcie_gpu0 gpu0→pcie_sw0"
  double capacity_bytes_per_s = 0;  ///< per-direction bandwidth
  double bytes = 0;                 ///< bytes of all transfers that crossed it
  TimeNs busy_ns = 0;               ///< union of its transfer spans
  double utilization = 0;           ///< bytes / (capacity × makespan); 0 if either is 0
};

struct LaneBusy {
  std::uint32_t lane = 0;
  std::string name;
  TimeNs busy_ns = 0;        ///< union of the lane's spans (within the range, for ranges)
  double busy_fraction = 0;  ///< busy_ns / makespan (or / range length)
};

struct DevicePeakMemory {
  std::string device;
  double peak_bytes = 0;
};

struct TraceSummary {
  double makespan_s = 0;
  double bytes_moved = 0;        ///< sum of bytes over ops that move data (copies and disk I/O)
  std::vector<LinkUsage> links;  ///< link lanes, in lane order
  std::string busiest_link;      ///< name of the link lane with the highest utilization; "" if none
  double busiest_link_utilization = 0;
  std::vector<DevicePeakMemory> peak_memory;  ///< per "bytes" counter, in counter order
  /// Peak of memory in use summed over all devices at one instant.
  double peak_memory_bytes_total = 0;
  std::vector<LaneBusy> lanes;  ///< every lane, in lane order
};

struct IdleGap {
  std::uint32_t lane = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

struct RangeSummary {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::vector<LaneBusy> lanes;  ///< busy time inside the range, fraction of the range length
  /// Bytes moved inside the range: each data-moving op's bytes prorated by the part of its
  /// span inside the range (zero-length ops count fully when they lie inside it).
  double bytes_moved = 0;
  std::vector<IdleGap> idle_gaps;  ///< per lane in lane order, then by time; whole range if unused
};

/// An op moves data when it has a peer (copies, disk reads and writes).
bool moves_data(const TraceOp& op);

TraceSummary summarize_trace(const Trace& trace);
/// A few lines for a terminal: makespan, bytes moved, busiest link, each link direction's
/// bytes / busy time / utilization, peak memory. Ends with a newline.
std::string format_trace_summary(const TraceSummary& summary);
/// Summary of [start_ns, end_ns); an empty or inverted range gives zero fractions, no gaps.
RangeSummary summarize_range(const Trace& trace, TimeNs start_ns, TimeNs end_ns);

}  // namespace opsim
