#include "gui/time_axis.hpp"

#include <gtest/gtest.h>

namespace opsim::gui {
namespace {

TEST(TimeAxis, MapsTimeToPixelsAndBack) {
  struct Case {
    double start_ns, ns_per_px, t_ns, x_px;
  };
  const Case cases[] = {
      {0, 1000, 0, 0},    {0, 1000, 1e6, 1000},  {5e5, 1000, 1e6, 500},
      {-1e3, 10, 0, 100}, {1e9, 1e6, 2e9, 1000}, {0, 0.5, 100, 200},
  };
  for (const Case& c : cases) {
    const TimeAxis a{c.start_ns, c.ns_per_px};
    EXPECT_DOUBLE_EQ(a.x_of(c.t_ns), c.x_px) << c.start_ns << " " << c.ns_per_px << " " << c.t_ns;
    EXPECT_DOUBLE_EQ(a.ns_at(c.x_px), c.t_ns);
  }
}

TEST(TimeAxis, ZoomKeepsTheTimeUnderTheCursor) {
  struct Case {
    double x_px, factor, expect_ns_per_px;
  };
  const Case cases[] = {
      {0, 2, 500}, {400, 2, 500}, {1000, 0.5, 2000}, {123.5, 10, 100}, {700, 1, 1000}};
  for (const Case& c : cases) {
    TimeAxis a{1e6, 1000};
    const double anchor = a.ns_at(c.x_px);
    a.zoom_around(c.x_px, c.factor);
    EXPECT_DOUBLE_EQ(a.ns_per_px, c.expect_ns_per_px);
    EXPECT_NEAR(a.ns_at(c.x_px), anchor, 1e-6) << "x " << c.x_px;
  }
}

TEST(TimeAxis, ZoomIsClampedAndIgnoresBadFactors) {
  TimeAxis a{0, 1};
  a.zoom_around(0, 1e9);
  EXPECT_DOUBLE_EQ(a.ns_per_px, TimeAxis::kMinNsPerPx);
  a.zoom_around(0, 1e-30);
  EXPECT_DOUBLE_EQ(a.ns_per_px, TimeAxis::kMaxNsPerPx);
  const TimeAxis before = a;
  a.zoom_around(10, 0);
  a.zoom_around(10, -2);
  EXPECT_EQ(a, before);
}

TEST(TimeAxis, PanMovesContentWithTheMouse) {
  TimeAxis a{1e6, 100};
  a.pan_px(50);  // drag right by 50 px: earlier times come into view
  EXPECT_DOUBLE_EQ(a.start_ns, 1e6 - 5000);
  a.pan_px(-150);
  EXPECT_DOUBLE_EQ(a.start_ns, 1e6 + 10000);
}

TEST(TimeAxis, FitShowsTheRangeWithMargins) {
  struct Case {
    double begin, end, width, margin, start, ns_per_px;
  };
  const Case cases[] = {
      {0, 60e6, 1000, 0, 0, 60e3},
      {0, 60e6, 1000, 0.02, -1.2e6, 62.4e3},
      {10e6, 20e6, 500, 0, 10e6, 20e3},
      {5, 5, 1000, 0, 5, 1},  // empty range: 1 us wide
  };
  for (const Case& c : cases) {
    TimeAxis a;
    a.fit(c.begin, c.end, c.width, c.margin);
    EXPECT_NEAR(a.start_ns, c.start, 1e-6);
    EXPECT_NEAR(a.ns_per_px, c.ns_per_px, 1e-6);
  }
}

TEST(TimeAxis, TickStepIsOneTwoOrFiveTimesAPowerOfTen) {
  struct Case {
    double ns_per_px, min_px, step;
  };
  const Case cases[] = {
      {1000, 90, 1e5}, {1, 90, 100},  {60e3, 90, 1e7}, {34.7e3, 90, 5e6},
      {1, 100, 100},   {1, 101, 200}, {1, 250, 500},   {0.001, 90, 0.1},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(tick_step_ns(c.ns_per_px, c.min_px), c.step, c.step * 1e-9)
        << c.ns_per_px << " ns/px, " << c.min_px << " px";
  }
}

TEST(TimeAxis, TickLabelsUseTheStepsUnit) {
  struct Case {
    double t_ns, step_ns;
    const char* text;
  };
  const Case cases[] = {
      {0, 1e7, "0 ms"},  {6e7, 1e7, "60 ms"},  {1.25e7, 5e5, "12.5 ms"}, {1500, 500, "1.5 us"},
      {2e9, 1e9, "2 s"}, {300, 100, "300 ns"}, {-1e-7, 1e6, "0 ms"},     {1.05e6, 5e4, "1.05 ms"},
  };
  for (const Case& c : cases) EXPECT_EQ(format_tick(c.t_ns, c.step_ns), c.text);
}

TEST(TimeAxis, DurationsHaveFourSignificantDigits) {
  struct Case {
    double ns;
    const char* text;
  };
  const Case cases[] = {{60e6, "60.00 ms"}, {812.5e3, "812.5 us"}, {5.19e6, "5.190 ms"},
                        {1.5, "1.500 ns"},  {2e9, "2.000 s"},      {123.4e9, "123.4 s"}};
  for (const Case& c : cases) EXPECT_EQ(format_duration_ns(c.ns), c.text);
}

}  // namespace
}  // namespace opsim::gui
