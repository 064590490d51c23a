#include <gtest/gtest.h>

#include <sstream>

#include "engine/csv_trace_writer.hpp"
#include "trace_test_support.hpp"

namespace opsim {
namespace {

TEST(CsvTrace, QuotesPerRfc4180) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("all,reduce \"x\""), "\"all,reduce \"\"x\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(CsvTrace, OneRowPerOp) {
  std::ostringstream out;
  write_csv_trace(test::hand_made_trace(), out);
  std::istringstream lines(out.str());
  std::string header, first, second;
  std::getline(lines, header);
  EXPECT_EQ(header, "name,class,device,peer,lane,start_ns,end_ns,duration_ns,bytes,flops");
  // The gemm's name holds a comma, quotes and a newline: one quoted field over two lines.
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(first, "\"gemm, \"\"big\"\"");
  EXPECT_EQ(second, "\",gemm,gpu0,,gpu0/compute0,0,60000000,60000000,1500000000,2000000000000");
  std::string row;
  std::getline(lines, row);
  EXPECT_EQ(row, "copy0,copy,gpu0,cpu0,gpu0/copy-out,0,30000000,30000000,480000000,0");
  std::getline(lines, row);
  EXPECT_EQ(row, "send0,copy,cpu0,cpu1,cpu0/memcpy0,10000000,20000000,10000000,0.1,0");
  std::getline(lines, row);
  EXPECT_EQ(row,
            "send1,copy,cpu0,cpu1,cpu0/memcpy0,15000000,25000000,10000000,125000000,0.0000001");
  std::getline(lines, row);
  EXPECT_EQ(row, "send2,copy,cpu0,cpu1,cpu0/memcpy0,12000000,18000001,6000001,3,0");
  EXPECT_FALSE(std::getline(lines, row));
}

}  // namespace
}  // namespace opsim
