#include "experiments/nccl_check/nccl_reference.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>

#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "experiments/collectives/collective.hpp"
#include "topologies/yaml_fields.hpp"

namespace opsim {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMostTableBytes = 16u << 20;
constexpr double kMostBytes = 9007199254740992.0;  // 2^53, as --bytes
constexpr long kMostGpus = 1 << 20;

// Printed numbers carry two decimals (and times four or more digits): a copied row's
// algbw and busbw agree with bytes / time within this.
constexpr double kPrintSlack_GBps = 0.006;
constexpr double kPrintSlackFraction = 0.003;

constexpr std::string_view kRequiredColumns[] = {"bytes", "time_us", "algbw_GBps", "busbw_GBps"};
constexpr std::string_view kOptionalColumns[] = {
    "count", "type", "redop", "time_us_inplace", "algbw_GBps_inplace", "busbw_GBps_inplace"};
constexpr std::string_view kModelKeys[] = {
    "op",       "topology",        "gpus",   "gpus_per_server", "algorithm",
    "protocol", "gpus_per_thread", "counts", "reason",          "source"};

[[noreturn]] void fail_at(const std::string& source, int line, const std::string& what) {
  throw InputError(source + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string> split_fields(std::string_view line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    std::string field(
        line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    while (!field.empty() && field.back() == ' ') field.pop_back();
    while (!field.empty() && field.front() == ' ') field.erase(field.begin());
    fields.push_back(field);
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

bool in(std::span<const std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Column index of each column read, and how many the header has.
struct Columns {
  std::size_t bytes = 0, time_us = 0, algbw = 0, busbw = 0, count = 0;
  std::optional<std::size_t> time_us_inplace;
};

Columns read_header(const std::string& line, const std::string& source) {
  const std::vector<std::string> names = split_fields(line);
  std::vector<std::string> seen;
  Columns columns;
  columns.count = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (!in(kRequiredColumns, name) && !in(kOptionalColumns, name))
      fail_at(source, 1,
              "unknown column '" + name +
                  "' (a table has bytes, time_us, algbw_GBps, busbw_GBps; it may have count, "
                  "type, redop and the *_inplace columns)");
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      fail_at(source, 1, "column '" + name + "' appears twice");
    seen.push_back(name);
    if (name == "bytes") columns.bytes = i;
    if (name == "time_us") columns.time_us = i;
    if (name == "algbw_GBps") columns.algbw = i;
    if (name == "busbw_GBps") columns.busbw = i;
    if (name == "time_us_inplace") columns.time_us_inplace = i;
  }
  for (std::string_view required : kRequiredColumns)
    if (std::find(seen.begin(), seen.end(), required) == seen.end())
      fail_at(source, 1, "the header has no '" + std::string(required) + "' column");
  return columns;
}

double number_field(const std::vector<std::string>& fields, std::size_t index,
                    std::string_view column, const std::string& source, int line) {
  const std::string& text = fields[index];
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    fail_at(source, line, std::string(column) + " '" + text + "' is not a number");
  if (value < 0) fail_at(source, line, std::string(column) + " " + text + " is negative");
  return value;
}

bool agrees(double printed_GBps, double computed_GBps) {
  return std::abs(printed_GBps - computed_GBps) <=
         kPrintSlack_GBps + kPrintSlackFraction * computed_GBps;
}

std::string two_decimals(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

NcclReferenceRow read_row(const std::vector<std::string>& fields, const Columns& columns,
                          const std::string& source, int line) {
  NcclReferenceRow row;
  row.line = line;
  row.bytes = number_field(fields, columns.bytes, "bytes", source, line);
  if (row.bytes < 1 || row.bytes > kMostBytes || row.bytes != std::floor(row.bytes))
    fail_at(source, line,
            "bytes " + fields[columns.bytes] + " is not a whole number from 1 to 2^53");
  const double time_us = number_field(fields, columns.time_us, "time_us", source, line);
  if (time_us <= 0) fail_at(source, line, "time_us must be more than 0");
  row.time_s = time_us * 1e-6;
  if (columns.time_us_inplace) {
    const double inplace_us =
        number_field(fields, *columns.time_us_inplace, "time_us_inplace", source, line);
    if (inplace_us <= 0) fail_at(source, line, "time_us_inplace must be more than 0");
    row.time_inplace_s = inplace_us * 1e-6;
  }
  row.algbw_GBps = number_field(fields, columns.algbw, "algbw_GBps", source, line);
  row.busbw_GBps = number_field(fields, columns.busbw, "busbw_GBps", source, line);
  const double algbw_GBps = row.bytes / row.time_s / 1e9;
  if (!agrees(row.algbw_GBps, algbw_GBps))
    fail_at(source, line,
            "algbw_GBps " + fields[columns.algbw] + " is not bytes / time (" +
                two_decimals(algbw_GBps) + " GB/s): a mis-copied row?");
  return row;
}

}  // namespace

std::vector<NcclReferenceRow> parse_nccl_reference_csv(std::string_view text,
                                                       const std::string& source) {
  std::vector<NcclReferenceRow> rows;
  Columns columns;
  int line_number = 0;
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";  // spreadsheets save one
  std::size_t start = text.starts_with(kByteOrderMark) ? kByteOrderMark.size() : 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_number == 1) {
      columns = read_header(line, source);
      continue;
    }
    if (line.find_first_not_of(' ') == std::string::npos) continue;
    const std::vector<std::string> fields = split_fields(line);
    if (fields.size() != columns.count)
      fail_at(source, line_number,
              std::to_string(fields.size()) + " fields, the header has " +
                  std::to_string(columns.count));
    NcclReferenceRow row = read_row(fields, columns, source, line_number);
    if (!rows.empty() && row.bytes <= rows.back().bytes)
      fail_at(source, line_number, "sizes must grow from row to row");
    rows.push_back(row);
  }
  if (line_number == 0) fail_at(source, 1, "the table is empty (no header)");
  if (rows.empty()) fail_at(source, line_number, "the table has a header but no rows");
  return rows;
}

NcclReferenceModel parse_nccl_reference_model(std::string_view text, const std::string& source) {
  const topology_yaml::FieldReader reader(source);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    reader.fail(e.mark, "YAML syntax error: " + e.msg);
  }
  const YAML::Mark top;
  if (!root || root.IsNull()) reader.fail(top, "empty; expected op, topology, gpus and algorithm");
  reader.check_map(root, kModelKeys, "the table's model");
  NcclReferenceModel model;
  model.metadata_path = source;
  const YAML::Node op = reader.required(root, "op", "the table's model");
  model.op = reader.text(op, "op");
  const auto ops = collective_names();
  if (std::find(ops.begin(), ops.end(), model.op) == ops.end()) {
    std::string names;
    for (std::string_view name : ops) names += (names.empty() ? "" : ", ") + std::string(name);
    reader.fail(op.Mark(), "unknown collective '" + model.op + "' (choose " + names + ")");
  }
  const YAML::Node topology = reader.required(root, "topology", "the table's model");
  model.topology = reader.text(topology, "topology");
  model.topology_line = topology.Mark().line + 1;
  model.gpus = static_cast<int>(
      reader.integer(reader.required(root, "gpus", "the table's model"), "gpus", 2, kMostGpus));
  const YAML::Node algorithm = reader.required(root, "algorithm", "the table's model");
  model.algorithm = reader.text(algorithm, "algorithm");
  const auto applies = collective_algorithms(model.op);
  if (model.algorithm != "auto" &&
      std::find(applies.begin(), applies.end(), model.algorithm) == applies.end()) {
    std::string names = "auto";
    for (std::string_view name : applies) names += ", " + std::string(name);
    reader.fail(algorithm.Mark(), "algorithm '" + model.algorithm + "' does not apply to " +
                                      model.op + " (choose " + names + ")");
  }
  reader.optional(root, "protocol", [&](const YAML::Node& value) {
    model.protocol = reader.text(value, "protocol");
    if (model.protocol == "auto" || !protocol_choice_error(model.protocol).empty())
      reader.fail(value.Mark(), "unknown protocol '" + model.protocol +
                                    "' (choose LL, LL128, Simple, wire, or a list such as "
                                    "LL,Simple for the protocols the run's NCCL had)");
  });
  reader.optional(root, "gpus_per_server", [&](const YAML::Node& value) {
    model.gpus_per_server =
        static_cast<int>(reader.integer(value, "gpus_per_server", 1, model.gpus));
  });
  reader.optional(root, "gpus_per_thread", [&](const YAML::Node& value) {
    model.gpus_per_thread =
        static_cast<int>(reader.integer(value, "gpus_per_thread", 1, model.gpus));
  });
  reader.optional(root, "counts",
                  [&](const YAML::Node& value) { model.counts = reader.boolean(value, "counts"); });
  reader.optional(root, "reason",
                  [&](const YAML::Node& value) { model.reason = reader.text(value, "reason"); });
  reader.optional(root, "source",
                  [&](const YAML::Node& value) { model.source = reader.text(value, "source"); });
  if (!model.counts && model.reason.empty())
    reader.fail(root["counts"].Mark(), "counts: false needs a 'reason'");
  return model;
}

NcclReference read_nccl_reference(const std::string& csv_path) {
  NcclReference reference;
  reference.csv_path = csv_path;
  const std::string yaml_path = fs::path(csv_path).replace_extension(".yaml").string();
  std::error_code error;
  if (!fs::exists(yaml_path, error))
    throw InputError(csv_path + ": no " + fs::path(yaml_path).filename().string() +
                     " beside it saying how opsim models the table (op, topology, gpus, "
                     "algorithm)");
  reference.model = parse_nccl_reference_model(
      read_input_file(yaml_path, "table model", kMostTableBytes), yaml_path);
  reference.rows = parse_nccl_reference_csv(
      read_input_file(csv_path, "nccl-tests table", kMostTableBytes), csv_path);
  const double factor =
      bus_factor(reference.model.op, static_cast<std::size_t>(reference.model.gpus));
  for (const NcclReferenceRow& row : reference.rows) {
    const double busbw_GBps = row.bytes / row.time_s / 1e9 * factor;
    if (!agrees(row.busbw_GBps, busbw_GBps))
      fail_at(csv_path, row.line,
              "busbw_GBps " + two_decimals(row.busbw_GBps) + " is not algbw x " +
                  two_decimals(factor) + " (" + two_decimals(busbw_GBps) + " GB/s) for " +
                  reference.model.op + " on " + std::to_string(reference.model.gpus) +
                  " ranks: check op and gpus in " + yaml_path);
  }
  return reference;
}

std::vector<std::string> nccl_reference_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (fs::is_directory(status)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(path, error))
        if (entry.path().extension() == ".csv") found.push_back(entry.path().string());
      if (error) throw InputError(path + ": cannot list the directory: " + error.message());
      if (found.empty()) throw InputError(path + ": no *.csv tables in this directory");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
      continue;
    }
    if (!fs::exists(status)) throw InputError(path + ": no such file or directory");
    if (fs::path(path).extension() != ".csv")
      throw InputError(path + ": not a .csv table (give tables or a directory of them)");
    files.push_back(path);
  }
  return files;
}

}  // namespace opsim
