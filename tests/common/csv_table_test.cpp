// Reading CSV tables: RFC 4180 quoting, line ends, a torn last row, and refusals that name
// the line.
#include "common/csv_table.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"

namespace opsim {
namespace {

std::string error_of(std::string_view text) {
  try {
    parse_csv_table(text, "r.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CsvTable, ReadsQuotedFieldsAndBothLineEnds) {
  const CsvTable table = parse_csv_table(
      "name,value\r\n\"a,b\",1\r\n\"say \"\"hi\"\"\",2\n\"two\nlines\",3\n", "r.csv");
  ASSERT_EQ(table.columns, (std::vector<std::string>{"name", "value"}));
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[0].fields[0], "a,b");
  EXPECT_EQ(table.rows[0].fields[1], "1");
  EXPECT_EQ(table.rows[1].fields[0], "say \"hi\"");
  EXPECT_EQ(table.rows[2].fields[0], "two\nlines");
  EXPECT_EQ(table.rows[1].line, 3u);
  EXPECT_EQ(table.rows[2].line, 4u);
  EXPECT_EQ(table.column("value"), 1u);
  EXPECT_FALSE(table.column("nope").has_value());
  EXPECT_FALSE(table.dropped_torn_last_row);
}

TEST(CsvTable, KeepsALastRowWithoutLineEndWhenComplete) {
  const CsvTable table = parse_csv_table("a,b\n1,2\n3,4", "r.csv");
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[1].fields[1], "4");
  EXPECT_FALSE(table.dropped_torn_last_row);
}

TEST(CsvTable, DropsATornLastRow) {
  const CsvTable short_row = parse_csv_table("a,b,c\n1,2,3\n4,5", "r.csv");
  EXPECT_EQ(short_row.rows.size(), 1u);
  EXPECT_TRUE(short_row.dropped_torn_last_row);
  const CsvTable open_quote = parse_csv_table("a,b\n1,2\n3,\"x", "r.csv");
  EXPECT_EQ(open_quote.rows.size(), 1u);
  EXPECT_TRUE(open_quote.dropped_torn_last_row);
}

TEST(CsvTable, SkipsBlankLines) {
  const CsvTable table = parse_csv_table("a,b\n\n1,2\n\n", "r.csv");
  EXPECT_EQ(table.rows.size(), 1u);
}

TEST(CsvTable, RefusesWhatIsNotATable) {
  EXPECT_EQ(error_of(""), "r.csv: empty CSV (no header line)");
  EXPECT_EQ(error_of("a,b\n1,2\n3\n4,5\n"), "r.csv:3: 1 fields, the header has 2");
  EXPECT_EQ(error_of("a,b\n1,2,3\n"), "r.csv:2: 3 fields, the header has 2");
  EXPECT_EQ(error_of("a,,b\n"), "r.csv:1: the header has an empty column name");
  EXPECT_EQ(error_of("a,b,a\n"), "r.csv:1: column 'a' appears twice in the header");
  EXPECT_EQ(error_of("a,\"b\n"), "r.csv:1: the header has an unclosed quote");
}

TEST(CsvTable, ReadsOnlyRegularFiles) {
  EXPECT_THROW(read_csv_table("/nonexistent/r.csv"), InputError);
  EXPECT_THROW(read_csv_table("/tmp"), InputError);
}

}  // namespace
}  // namespace opsim
