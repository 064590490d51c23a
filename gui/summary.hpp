// One row of the comparison summary per strategy, collective algorithm or trace, read from
// `opsim compare --format json` (collective_summary.hpp: `opsim collective`) or, for a
// trace opened from a file, computed from the trace itself.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "engine/trace.hpp"

namespace opsim::gui {

struct SummaryRow {
  std::string name;  ///< strategy ("tree") or trace title
  double makespan_s = 0;
  double lower_bound_s = std::numeric_limits<double>::quiet_NaN();  ///< NaN: unknown
  double bytes_moved = 0;
  std::string busiest_link;             ///< empty if the run used no link
  double busiest_link_utilization = 0;  ///< fraction 0..1 over the makespan
  /// The most memory any one device held at once (as `opsim compare` reports it); NaN: unknown
  double peak_memory_bytes = std::numeric_limits<double>::quiet_NaN();
  std::string trace_file;  ///< Chrome trace written by the run, may be empty
  /// nccl-tests' bandwidths: bytes per rank over the time, and that times the op's bus
  /// factor (2(n-1)/n for allreduce); NaN: unknown
  double algbw_GBps = std::numeric_limits<double>::quiet_NaN();
  double busbw_GBps = std::numeric_limits<double>::quiet_NaN();
  /// A collective's algorithm and protocol as run ("ring · Simple"; what auto chose); empty
  /// for a strategy or a file.
  std::string chosen;
  double size_bytes = std::numeric_limits<double>::quiet_NaN();  ///< a collective's bytes per rank
};

struct CompareOutput {
  std::string topology;
  std::string op;  ///< the collective op; empty for `opsim compare`
  double bytes = 0;
  std::vector<SummaryRow> rows;
};

/// Parses the JSON printed by `opsim compare --format json` with the checked parser of every
/// JSON input (engine/json_input.hpp). Throws opsim::InputError with a one-line message
/// ("compare output:LINE:COL: invalid JSON: ...", "compare output: ...") when it is not JSON
/// or not that shape.
CompareOutput parse_compare_json(const std::string& json_text);

/// Summary of a trace that came without one (engine/trace_summary): makespan, bytes moved,
/// busiest link direction (bytes over capacity x makespan), peak memory of the busiest device.
SummaryRow summary_row_of(const Trace& trace);

/// The rows of a trace opened from a file named `name`: one, or for an overlay of a real and
/// a simulated run (gui/trace_worlds.hpp) one per world, "NAME (real)" and "NAME (sim)", each
/// with its own makespan, bytes and peak memory.
std::vector<SummaryRow> summary_rows_of(const Trace& trace, const std::string& name);

}  // namespace opsim::gui
