#include "gui/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "hw_models/input_error.hpp"

namespace opsim::gui {

namespace {

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number()) {
    throw InputError(std::string("compare output: \"") + key + "\" is not a number");
  }
  return it->get<double>();
}

std::string string_or(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_string()) {
    throw InputError(std::string("compare output: \"") + key + "\" is not a string");
  }
  return it->get<std::string>();
}

}  // namespace

CompareOutput parse_compare_json(const std::string& json_text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(std::string("compare output: not JSON at byte ") + std::to_string(e.byte));
  }
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
    row.trace_file = string_or(r, "trace_file");
    out.rows.push_back(std::move(row));
  }
  return out;
}

SummaryRow summarize_trace(const Trace& trace) {
  SummaryRow row;
  row.name = trace.title;
  const TimeNs makespan_ns = trace.makespan_ns();
  row.makespan_s = ns_to_seconds(makespan_ns);
  for (const TraceOp& op : trace.ops) {
    if (!op.peer.empty()) row.bytes_moved += op.bytes;
  }
  std::vector<double> link_bytes(trace.lanes.size(), 0);
  std::vector<TimeNs> link_busy(trace.lanes.size(), 0);
  for (const TraceSpan& s : trace.link_spans) {
    if (s.lane >= trace.lanes.size() || s.op >= trace.ops.size()) continue;
    link_bytes[s.lane] += trace.ops[s.op].bytes;
    link_busy[s.lane] += s.end_ns - s.start_ns;
  }
  // Per link name, the busier direction counts.
  std::map<std::string, double> util_by_link;
  for (std::uint32_t l = 0; l < trace.lanes.size(); ++l) {
    const TraceLane& lane = trace.lanes[l];
    if (lane.kind != LaneKind::kLink || makespan_ns <= 0) continue;
    const double util = lane.capacity_bytes_per_s > 0
                            ? link_bytes[l] / (lane.capacity_bytes_per_s * row.makespan_s)
                            : static_cast<double>(link_busy[l]) / static_cast<double>(makespan_ns);
    double& best = util_by_link[lane.device.empty() ? lane.name : lane.device];
    best = std::max(best, std::min(util, 1.0));
  }
  for (const auto& [name, util] : util_by_link) {
    if (util > row.busiest_link_utilization) {
      row.busiest_link = name;
      row.busiest_link_utilization = util;
    }
  }
  for (const TraceCounter& c : trace.counters) {
    if (c.unit != "bytes" || c.name.rfind("memory", 0) != 0) continue;
    for (const TraceCounterSample& s : c.samples) {
      if (std::isnan(row.peak_memory_bytes) || s.value > row.peak_memory_bytes) {
        row.peak_memory_bytes = s.value;
      }
    }
  }
  return row;
}

}  // namespace opsim::gui
