#include "common/csv_table.hpp"

#include <algorithm>

#include "common/input_error.hpp"
#include "common/input_file.hpp"

namespace opsim {
namespace {

constexpr std::uint64_t kMaxCsvBytes = std::uint64_t{1} << 30;

// One record as split from the text, with where it starts and whether it ended properly.
struct Record {
  std::vector<std::string> fields;
  std::size_t line = 0;
  bool complete = false;  // ended with a line break outside quotes
  bool open_quote = false;
};

class RecordReader {
 public:
  explicit RecordReader(std::string_view text) : text_(text) {}

  bool done() const { return at_ >= text_.size(); }

  Record next() {
    Record record;
    record.line = line_;
    std::string field;
    bool quoted = false;
    while (at_ < text_.size()) {
      const char c = text_[at_++];
      if (c == '\n') ++line_;
      if (quoted) {
        if (c != '"') {
          field += c;
        } else if (at_ < text_.size() && text_[at_] == '"') {
          field += '"';
          ++at_;
        } else {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        record.fields.push_back(std::move(field));
        field.clear();
      } else if (c == '\n') {
        record.complete = true;
        break;
      } else if (c != '\r' || (at_ < text_.size() && text_[at_] != '\n')) {
        field += c;  // a CR is part of the field unless it starts CRLF
      }
    }
    record.fields.push_back(std::move(field));
    record.open_quote = quoted;
    return record;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
};

std::string where(std::string_view source, std::size_t line) {
  return std::string(source) + ":" + std::to_string(line) + ": ";
}

void check_header(const Record& header, std::string_view source) {
  if (header.open_quote) throw InputError(where(source, 1) + "the header has an unclosed quote");
  std::vector<std::string> seen;
  for (const std::string& name : header.fields) {
    if (name.empty()) throw InputError(where(source, 1) + "the header has an empty column name");
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      throw InputError(where(source, 1) + "column '" + name + "' appears twice in the header");
    seen.push_back(name);
  }
}

}  // namespace

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) return std::nullopt;
  return static_cast<std::size_t>(it - columns.begin());
}

CsvTable parse_csv_table(std::string_view text, std::string_view source) {
  RecordReader reader(text);
  if (reader.done()) throw InputError(std::string(source) + ": empty CSV (no header line)");
  Record header = reader.next();
  check_header(header, source);
  CsvTable table;
  table.columns = std::move(header.fields);
  while (!reader.done()) {
    Record record = reader.next();
    const bool blank = record.fields.size() == 1 && record.fields[0].empty();
    if (blank && !record.open_quote) continue;
    const bool fits = record.fields.size() == table.columns.size() && !record.open_quote;
    if (!fits && !record.complete && reader.done()) {
      table.dropped_torn_last_row = true;
      break;
    }
    if (!fits)
      throw InputError(where(source, record.line) +
                       (record.open_quote
                            ? std::string("unclosed quote")
                            : std::to_string(record.fields.size()) + " fields, the header has " +
                                  std::to_string(table.columns.size())));
    table.rows.push_back({std::move(record.fields), record.line});
  }
  return table;
}

CsvTable read_csv_table(const std::string& path) {
  return parse_csv_table(read_input_file(path, "CSV file", kMaxCsvBytes), path);
}

bool split_csv_line(std::string_view line, std::vector<std::string>& fields) {
  Record record = RecordReader(line).next();
  fields = std::move(record.fields);
  return !record.open_quote;
}

}  // namespace opsim
