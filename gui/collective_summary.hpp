// The summary rows of a collective scenario, read from `opsim collective --format json`: one
// row per algorithm (and size), with its time, algbw, busbw, what ran and its trace file.
#pragma once

#include <string>

#include "gui/summary.hpp"

namespace opsim::gui {

/// Parses {"op","topology","gpus","results":[{"algorithm","bytes","time_s","algbw_GBps",
/// "busbw_GBps","chosen_algorithm","protocol"}]}. Rows are named "OP ALGORITHM", plus the
/// size when the results span several sizes; trace_file is the name --trace-dir gives the
/// row's trace. Throws opsim::InputError ("collective output: ...") on any other shape.
CompareOutput parse_collective_json(const std::string& json_text);

/// The figures `opsim collective` does not print, taken from the row's trace as for a file
/// opened (summary_row_of): bytes moved, busiest link and its utilization, peak memory.
void add_trace_figures(SummaryRow& row, const Trace& trace);

}  // namespace opsim::gui
