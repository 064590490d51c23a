// Writes a Trace as Chrome trace-event JSON that Perfetto and chrome://tracing open, and
// that read_chrome_trace() turns back into the same Trace.
//
// Layout: one process per server (pid 1, 2, ... in lane order) holding its stream lanes,
// then one "links" process holding the link-direction lanes. Every lane gets one thread
// per concurrent sub-lane (greedy interval partitioning), because overlapping complete
// events on one tid are out of spec. Ops are "X" events (cat "op", link hops cat "link")
// with ts/dur in microseconds at nanosecond precision and args name, class, device, peer,
// bytes, flops, start_ns, end_ns, op, lane; dependencies are flow events "s"/"f" (bp "e");
// counters are "C" events. opsim's own model (title, backend, machine, lanes, counters) is
// kept under "otherData": {"opsim": {...}}.
//
//   write_chrome_trace(trace, "tree.json");   // atomic; byte-identical for the same trace
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <utility>
#include <vector>

#include "engine/trace.hpp"

namespace opsim {

/// Greedy interval partitioning: assigns each [start_ns, end_ns) interval the lowest
/// sub-lane free at its start (intervals that only touch may share). Returns one sub-lane
/// index per interval, in input order; deterministic, and uses the fewest sub-lanes.
std::vector<std::uint32_t> partition_into_sub_lanes(
    const std::vector<std::pair<TimeNs, TimeNs>>& intervals);

/// Streams the trace as Chrome JSON to `out` (one event per line).
void write_chrome_trace(const Trace& trace, std::ostream& out);
/// Writes the trace to `path` atomically; throws InputError naming the path on failure.
void write_chrome_trace(const Trace& trace, const std::filesystem::path& path);

}  // namespace opsim
