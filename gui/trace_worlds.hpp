// The two worlds of an overlay trace (`opsim validate --trace-dir` and `opsim replay
// --trace-dir` write them): lanes, ops and counters named "real ..." are the recorded run,
// "sim ..." the simulated one. Each world gets its own makespan, bytes, peak memory and
// critical path; an overlay read as one run would count bytes twice and take the slower
// world's makespan for both. Plain data, no Qt.
//
//   for (const TraceWorld& w : split_worlds(overlay)) summary_row_of(w.trace);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/trace.hpp"

namespace opsim::gui {

struct TraceWorld {
  std::string name;  ///< "real" or "sim"
  Trace trace;       ///< that world alone, its names without the prefix
};

/// The real and the simulated world of an overlay, in that order (a world without ops is left
/// out); empty for a trace that has no "real " or "sim " ops.
std::vector<TraceWorld> split_worlds(const Trace& trace);

/// The op that ends last in each world (ops named neither way form one world of their own):
/// where each world's critical path ends. One op for an ordinary trace, none for an empty one.
std::vector<std::uint32_t> last_op_per_world(const Trace& trace);

}  // namespace opsim::gui
