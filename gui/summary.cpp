#include "gui/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "engine/json_input.hpp"
#include "engine/trace_summary.hpp"
#include "gui/json_fields.hpp"
#include "gui/trace_worlds.hpp"

namespace opsim::gui {

namespace {

constexpr const char* kWhat = "compare output";

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  return json_number_or(j, key, fallback, kWhat);
}

std::string string_or(const nlohmann::json& j, const char* key) {
  return json_string_or_empty(j, key, kWhat);
}

}  // namespace

CompareOutput parse_compare_json(const std::string& json_text) {
  // The checked parser of every JSON input: line and column, numbers beyond a double's
  // range and keys given twice refused, no nlohmann text in the message.
  const nlohmann::json j = parse_json_input(json_text, "compare output");
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array()) {
    throw InputError("compare output: no \"results\" array");
  }
  CompareOutput out;
  out.topology = string_or(j, "topology");
  out.bytes = number_or(j, "bytes", 0);
  for (const auto& r : j["results"]) {
    if (!r.is_object()) throw InputError("compare output: a result is not an object");
    SummaryRow row;
    row.name = string_or(r, "strategy");
    if (row.name.empty()) throw InputError("compare output: a result has no \"strategy\"");
    row.makespan_s = number_or(r, "makespan_s", 0);
    row.lower_bound_s = number_or(r, "lower_bound_s", row.lower_bound_s);
    row.bytes_moved = number_or(r, "bytes_moved", 0);
    row.busiest_link = string_or(r, "busiest_link");
    row.busiest_link_utilization = number_or(r, "busiest_link_utilization", 0);
    row.peak_memory_bytes = number_or(r, "peak_memory_bytes", row.peak_memory_bytes);
    row.algbw_GBps = number_or(r, "algbw_GBps", row.algbw_GBps);
    row.busbw_GBps = number_or(r, "busbw_GBps", row.busbw_GBps);
    row.trace_file = string_or(r, "trace_file");
    out.rows.push_back(std::move(row));
  }
  return out;
}

SummaryRow summary_row_of(const Trace& trace) {
  // The engine's run summary, so that opened files and the CLI agree on every number.
  const TraceSummary run = opsim::summarize_trace(trace);
  SummaryRow row;
  row.name = trace.title;
  row.makespan_s = run.makespan_s;
  row.bytes_moved = run.bytes_moved;
  row.busiest_link = run.busiest_link;
  row.busiest_link_utilization = run.busiest_link_utilization;
  // Peak memory as `opsim compare` reports it (PeakMemoryObserver): the most any one device
  // held at once, not the sum over devices (docs/architecture.md, "Peak memory").
  if (!run.peak_memory.empty()) {
    row.peak_memory_bytes = 0;
    for (const DevicePeakMemory& device : run.peak_memory)
      row.peak_memory_bytes = std::max(row.peak_memory_bytes, device.peak_bytes);
  }
  return row;
}

std::vector<SummaryRow> summary_rows_of(const Trace& trace, const std::string& name) {
  const std::vector<TraceWorld> worlds = split_worlds(trace);
  std::vector<SummaryRow> rows;
  if (worlds.size() < 2) {
    rows.push_back(summary_row_of(trace));
    rows.back().name = name;
    return rows;
  }
  for (const TraceWorld& world : worlds) {
    rows.push_back(summary_row_of(world.trace));
    rows.back().name = name + " (" + world.name + ")";
  }
  return rows;
}

}  // namespace opsim::gui
