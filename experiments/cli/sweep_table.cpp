#include "experiments/cli/sweep_table.hpp"

#include <cstdint>
#include <cstdio>

#include "engine/csv_trace_writer.hpp"
#include "experiments/cli/sweep_point_run.hpp"

namespace opsim {

std::vector<std::string> sweep_columns(const SweepSpec& spec) {
  std::vector<std::string> columns = {"key"};
  for (const SweepAxis& axis : spec.axes) columns.push_back(axis.column);
  for (const std::string& metric : sweep_metric_columns()) columns.push_back(metric);
  for (const char* bookkeeping : {"point", "points", "sweep"}) columns.push_back(bookkeeping);
  return columns;
}

std::string sweep_header(const SweepSpec& spec) {
  std::string header;
  for (const std::string& column : sweep_columns(spec))
    header += (header.empty() ? "" : ",") + csv_field(column);
  return header;
}

std::string sweep_fingerprint(const std::vector<std::string>& keys) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const std::string& key : keys)
    for (unsigned char c : key + "\n") {
      hash ^= c;
      hash *= 0x100000001b3ull;
    }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string sweep_row(const std::vector<std::string>& keys, const SweepPoint& point,
                      std::size_t index, const std::string& metric_cells,
                      const std::string& fingerprint) {
  std::string row = keys[index];
  for (const std::string& value : point.values) row += "," + csv_field(value);
  row += "," + metric_cells + "," + std::to_string(index) + "," + std::to_string(keys.size()) +
         "," + fingerprint;
  return row;
}

}  // namespace opsim
