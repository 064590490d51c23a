#include "hw_models/units.hpp"

#include <gtest/gtest.h>

namespace opsim {
namespace {

struct ParseCase {
  const char* text;
  std::optional<double> expected;
};

TEST(Units, ParseBytesAcceptsSiBinaryAndPlain) {
  const ParseCase cases[] = {
      {"160MB", 160e6},       {"1GiB", 1073741824.0}, {"4 KiB", 4096.0},  {"512", 512.0},
      {"1.5e9", 1.5e9},       {"2TB", 2e12},          {"  7 B ", 7.0},    {"-1MB", std::nullopt},
      {"MB", std::nullopt},   {"12 parsecs", std::nullopt}, {"", std::nullopt},
      {"nan", std::nullopt},  {"inf", std::nullopt},   {"1e400", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto got = parse_bytes(c.text);
    ASSERT_EQ(got.has_value(), c.expected.has_value());
    if (got) {
      EXPECT_DOUBLE_EQ(*got, *c.expected);
    }
  }
}

TEST(Units, ParseRatesAndDurations) {
  EXPECT_DOUBLE_EQ(*parse_bytes_per_s("16GB/s"), 16e9);
  EXPECT_DOUBLE_EQ(*parse_bytes_per_s("10Gbit/s"), 1.25e9);
  EXPECT_DOUBLE_EQ(*parse_bytes_per_s("100Gb/s"), 12.5e9);
  EXPECT_FALSE(parse_bytes_per_s("16GB").has_value());
  EXPECT_DOUBLE_EQ(*parse_seconds("8ms"), 8e-3);
  EXPECT_DOUBLE_EQ(*parse_seconds("100ns"), 100e-9);
  EXPECT_DOUBLE_EQ(*parse_seconds("1.5us"), 1.5e-6);
  EXPECT_FALSE(parse_seconds("3 fortnights").has_value());
  EXPECT_DOUBLE_EQ(*parse_flops_per_s("15.7TFLOPS"), 15.7e12);
  EXPECT_DOUBLE_EQ(*parse_count("2G"), 2e9);
}

TEST(Units, NanosecondRoundingIsExact) {
  EXPECT_EQ(seconds_to_ns(0.06), 60'000'000);
  EXPECT_EQ(seconds_to_ns(1e-9), 1);
  EXPECT_EQ(seconds_to_ns(0.4e-9), 0);
  EXPECT_DOUBLE_EQ(ns_to_seconds(15'000'000), 0.015);
}

TEST(Units, FormatPicksUnits) {
  EXPECT_EQ(format_bytes(160e6), "160 MB");
  EXPECT_EQ(format_seconds(0.06), "60.000 ms");
  EXPECT_EQ(format_seconds(5.19e-6), "5.190 us");
  EXPECT_EQ(format_bytes_per_s(16e9), "16 GB/s");
}

}  // namespace
}  // namespace opsim
