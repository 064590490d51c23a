// A CSV file read whole into memory (RFC 4180: quoted fields with doubled quotes, commas and
// line breaks inside quotes, LF or CRLF line ends): the header's column names and one vector
// of fields per row. A sweep's output is the main input; a sweep killed mid-write may end in
// a torn row, which is dropped and counted rather than refused.
//
//   CsvTable table = read_csv_table("results.csv");        // throws InputError
//   const std::optional<std::size_t> bytes = table.column("bytes");
//   for (const CsvRow& row : table.rows) use(row.fields[*bytes]);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsim {

struct CsvRow {
  std::vector<std::string> fields;  ///< as many as the header has columns
  std::size_t line = 0;             ///< 1-based line of the file where the row starts
};

struct CsvTable {
  std::vector<std::string> columns;
  std::vector<CsvRow> rows;
  /// The last row had too few fields or an open quote and no line end: a write cut short.
  bool dropped_torn_last_row = false;

  /// Index of the column named `name`, if any.
  std::optional<std::size_t> column(std::string_view name) const;
};

/// Parses `text`; `source` (usually the path) starts every error message. Throws InputError
/// "SOURCE:LINE: what is wrong" for an empty text, an empty or repeated column name, or a row
/// (other than a torn last one) whose field count differs from the header's.
CsvTable parse_csv_table(std::string_view text, std::string_view source);

/// Reads (a regular file of at most 1 GiB) and parses `path`.
CsvTable read_csv_table(const std::string& path);

/// Splits one line (no line break) into its fields, quoted as in a table. Returns false when
/// a quote is left open.
bool split_csv_line(std::string_view line, std::vector<std::string>& fields);

}  // namespace opsim
