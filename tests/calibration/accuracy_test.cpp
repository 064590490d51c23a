// The error arithmetic of calibrate and validate, table-driven.
#include "experiments/calibration/accuracy.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "experiments/calibration/calibration.hpp"

namespace opsim::calibration {
namespace {

TEST(Accuracy, RelativeErrorIsSignedAgainstTheMeasurement) {
  struct Case {
    double measured, predicted, expected;
  };
  const Case cases[] = {{1.0, 1.0, 0.0}, {2.0, 2.2, 0.1},   {2.0, 1.8, -0.1},
                        {0.5, 1.0, 1.0}, {4.0, 3.0, -0.25}, {0.0, 0.0, 0.0}};
  for (const Case& c : cases)
    EXPECT_NEAR(relative_error(c.measured, c.predicted), c.expected, 1e-12)
        << c.measured << " vs " << c.predicted;
  EXPECT_TRUE(std::isinf(relative_error(0.0, 1.0)));
}

TEST(Accuracy, MedianAndWorst) {
  struct Case {
    std::vector<double> values;
    double median, median_abs, worst;
  };
  const Case cases[] = {{{}, 0, 0, 0},
                        {{0.02}, 0.02, 0.02, 0.02},
                        {{0.03, -0.01}, 0.01, 0.02, 0.03},
                        {{-0.08, 0.01, 0.02}, 0.01, 0.02, 0.08},
                        {{0.05, -0.2, 0.01, 0.03}, 0.02, 0.04, 0.2}};
  for (const Case& c : cases) {
    EXPECT_NEAR(median(c.values), c.median, 1e-12);
    EXPECT_NEAR(median_abs(c.values), c.median_abs, 1e-12);
    EXPECT_NEAR(worst_abs(c.values), c.worst, 1e-12);
  }
}

TEST(Accuracy, SpreadAndAgreementDecideNoisy) {
  EXPECT_DOUBLE_EQ(spread({}), 0);
  EXPECT_DOUBLE_EQ(spread({7}), 0);
  EXPECT_NEAR(spread({100, 102, 101}), 0.02 / 1.01, 1e-12);
  EXPECT_NEAR(spread({90, 100, 110}), 0.2, 1e-12);
  EXPECT_TRUE(agree(100, 104.9));
  EXPECT_FALSE(agree(100, 106));
  EXPECT_TRUE(agree(0, 0));

  // The interquartile spread ignores one disturbed run in many; the full spread does not.
  EXPECT_DOUBLE_EQ(interquartile_spread({5}), 0);
  EXPECT_NEAR(interquartile_spread({10, 11, 12, 13, 14}), (13.0 - 11.0) / 12.0, 1e-12);
  EXPECT_NEAR(interquartile_spread({10, 10, 10, 10, 10, 10, 10, 10, 20}), 0, 1e-12);
  EXPECT_NEAR(spread({10, 10, 10, 10, 10, 10, 10, 10, 20}), 1.0, 1e-12);
  EXPECT_NEAR(interquartile_spread({1, 2, 3, 4}), (3.25 - 1.75) / 2.5, 1e-12);

  Measurement steady{{}, "steady", "s", {1.00, 1.01, 1.02}, 1.01, spread({1.00, 1.01, 1.02})};
  Measurement noisy{{}, "noisy", "s", {1.0, 1.2, 1.1}, 1.1, spread({1.0, 1.2, 1.1})};
  EXPECT_FALSE(steady.noisy());
  EXPECT_TRUE(noisy.noisy());
}

TEST(Accuracy, StatisticPicksTheMedianOrTheBestSample) {
  const std::vector<double> rates = {90, 120, 100};
  EXPECT_DOUBLE_EQ(reduce(rates, Statistic::kMedian, true), 100);
  EXPECT_DOUBLE_EQ(reduce(rates, Statistic::kBest, true), 120);  // highest rate
  EXPECT_DOUBLE_EQ(reduce(rates, Statistic::kBest, false), 90);  // shortest time
  EXPECT_DOUBLE_EQ(reduce({}, Statistic::kBest, true), 0);
  EXPECT_EQ(parse_statistic("median"), Statistic::kMedian);
  EXPECT_EQ(parse_statistic("best"), Statistic::kBest);
  EXPECT_FALSE(parse_statistic("mean"));
}

}  // namespace
}  // namespace opsim::calibration
