#include "gui/collective_summary.hpp"

#include <QString>
#include <nlohmann/json.hpp>
#include <set>

#include "common/input_error.hpp"
#include "engine/json_input.hpp"
#include "gui/collective_scenario.hpp"
#include "gui/json_fields.hpp"
#include "hw_models/units.hpp"

namespace opsim::gui {

namespace {

constexpr const char* kCollectiveWhat = "collective output";

std::string required_string(const nlohmann::json& j, const char* key) {
  std::string value = json_string_or_empty(j, key, kCollectiveWhat);
  if (value.empty()) throw InputError(std::string(kCollectiveWhat) + ": no \"" + key + "\"");
  return value;
}

SummaryRow collective_row(const nlohmann::json& r, const std::string& op) {
  if (!r.is_object())
    throw InputError(std::string(kCollectiveWhat) + ": a result is not an object");
  SummaryRow row;
  const std::string algorithm = required_string(r, "algorithm");
  row.size_bytes = json_number_or(r, "bytes", row.size_bytes, kCollectiveWhat);
  row.name = op + " " + algorithm;
  row.makespan_s = json_number_or(r, "time_s", 0, kCollectiveWhat);
  row.algbw_GBps = json_number_or(r, "algbw_GBps", row.algbw_GBps, kCollectiveWhat);
  row.busbw_GBps = json_number_or(r, "busbw_GBps", row.busbw_GBps, kCollectiveWhat);
  const std::string chosen = json_string_or_empty(r, "chosen_algorithm", kCollectiveWhat);
  const std::string protocol = json_string_or_empty(r, "protocol", kCollectiveWhat);
  row.chosen = chosen.empty() || protocol.empty() ? chosen + protocol : chosen + " · " + protocol;
  row.trace_file = collective_trace_name(QString::fromStdString(op),
                                         QString::fromStdString(algorithm), row.size_bytes)
                       .toStdString();
  return row;
}

}  // namespace

CompareOutput parse_collective_json(const std::string& json_text) {
  const nlohmann::json j = parse_json_input(json_text, kCollectiveWhat);
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array()) {
    throw InputError(std::string(kCollectiveWhat) + ": no \"results\" array");
  }
  CompareOutput out;
  out.op = required_string(j, "op");
  out.topology = json_string_or_empty(j, "topology", kCollectiveWhat);
  std::set<double> sizes;
  for (const auto& r : j["results"]) {
    out.rows.push_back(collective_row(r, out.op));
    sizes.insert(out.rows.back().size_bytes);
  }
  if (!sizes.empty()) out.bytes = *sizes.begin();
  if (sizes.size() > 1) {
    for (SummaryRow& row : out.rows) row.name += " " + format_bytes(row.size_bytes);
  }
  return out;
}

}  // namespace opsim::gui

namespace opsim::gui {

void add_trace_figures(SummaryRow& row, const Trace& trace) {
  const SummaryRow measured = summary_row_of(trace);
  row.bytes_moved = measured.bytes_moved;
  row.busiest_link = measured.busiest_link;
  row.busiest_link_utilization = measured.busiest_link_utilization;
  row.peak_memory_bytes = measured.peak_memory_bytes;
}

}  // namespace opsim::gui
