// Sweep charts drawn offscreen: the image has the promised size, each series' colour is on
// it, the SVG holds the series names and axis titles, and the chart's axes carry the plan's
// ticks.
#include "gui/sweep_chart.hpp"

#include <gtest/gtest.h>

#include <QCategoryAxis>
#include <QChart>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QSvgRenderer>
#include <filesystem>
#include <memory>

namespace opsim::gui {
namespace {

// Two strategies over four decades of sizes.
SweepPlot two_strategies() {
  const CsvTable table = parse_csv_table(
      "bytes,strategy,makespan_s,ops,error\n"
      "1000,tree,0.00001,6,\n100000,tree,0.001,6,\n10000000,tree,0.1,6,\n"
      "1000,ring,0.00002,24,\n100000,ring,0.0005,24,\n10000000,ring,0.04,24,\n"
      "1000,split,,,split: needs 2 GPUs\n",
      "t.csv");
  PlotRequest request;
  request.x = "bytes";
  return plan_sweep_plot(table, request, "t.csv");
}

// For a person to look at: build/gui-screenshots/NAME.
void keep_for_people(const QImage& image, const char* name) {
  const std::filesystem::path dir = std::filesystem::path(OPSIM_BINARY_DIR) / "gui-screenshots";
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  image.save(QString::fromStdString((dir / name).string()));
}

// Pixels within a small distance of `color`.
int pixels_near(const QImage& image, QColor color) {
  int count = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
              std::abs(c.blue() - color.blue()) <
          24)
        ++count;
    }
  return count;
}

TEST(SweepChart, AxesShowThePlansTicksAndSeriesItsPoints) {
  const SweepPlot plot = two_strategies();
  std::unique_ptr<QChart> chart(make_sweep_chart(plot.charts[0], true));
  ASSERT_EQ(chart->series().size(), 2);
  auto* ring = qobject_cast<QLineSeries*>(chart->series()[1]);
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->name(), "ring");
  ASSERT_EQ(ring->count(), 3);
  EXPECT_DOUBLE_EQ(ring->at(2).x(), 7);  // log10 of 10 MB
  EXPECT_NEAR(ring->at(2).y(), std::log10(0.04), 1e-12);
  EXPECT_EQ(ring->pen().color(), series_color(1));
  auto* x = qobject_cast<QCategoryAxis*>(chart->axes(Qt::Horizontal).front());
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->titleText(), "bytes (log scale)");
  EXPECT_TRUE(x->categoriesLabels().contains("1 kB"));
  EXPECT_TRUE(x->categoriesLabels().contains("10 MB"));
  auto* y = qobject_cast<QCategoryAxis*>(chart->axes(Qt::Vertical).front());
  ASSERT_NE(y, nullptr);
  EXPECT_TRUE(y->categoriesLabels().contains("10 µs"));
  EXPECT_TRUE(y->categoriesLabels().contains("100 ms"));
}

TEST(SweepChart, PngHasTheSizeAndEverySeriesColour) {
  const SweepPlot plot = two_strategies();
  const QByteArray png = render_sweep_plot(plot, "t", {1600, 1000}, SweepImageFormat::kPng);
  QImage image;
  ASSERT_TRUE(image.loadFromData(png, "PNG"));
  EXPECT_EQ(image.size(), QSize(1600, 1000));
  keep_for_people(image, "sweep_plot.png");
  EXPECT_GT(pixels_near(image, series_color(0)), 500);  // tree's lines, markers, legend
  EXPECT_GT(pixels_near(image, series_color(1)), 500);  // ring's
  EXPECT_EQ(pixels_near(image, series_color(2)), 0);    // split failed: no third colour
}

TEST(SweepChart, ManyChartsMakeATallerImage) {
  SweepPlot plot = two_strategies();
  while (plot.charts.size() < 6) plot.charts.push_back(plot.charts[0]);
  EXPECT_EQ(sweep_plot_size(plot, {1600, 1000}), QSize(1600, 44 + 30 + 3 * 380));
  QImage image;
  ASSERT_TRUE(image.loadFromData(render_sweep_plot(plot, "t", {1600, 1000}, SweepImageFormat::kPng),
                                 "PNG"));
  EXPECT_EQ(image.height(), 44 + 30 + 3 * 380);
}

TEST(SweepChart, SvgHoldsSeriesNamesAxisTitlesAndTheNote) {
  const SweepPlot plot = two_strategies();
  const QString svg = QString::fromUtf8(
      render_sweep_plot(plot, "rings on pcie", {1600, 1000}, SweepImageFormat::kSvg));
  EXPECT_TRUE(svg.startsWith("<?xml")) << svg.left(80).toStdString();
  for (const char* text : {"rings on pcie", ">tree<", ">ring<", "bytes (log scale)",
                           "makespan (log scale)", "ops", "1 row with an error skipped"})
    EXPECT_TRUE(svg.contains(QString::fromUtf8(text))) << text;
}

TEST(SweepChart, SvgDrawsTheSameChartAsThePng) {
  const QByteArray svg =
      render_sweep_plot(two_strategies(), "t", {1600, 1000}, SweepImageFormat::kSvg);
  QSvgRenderer renderer(svg);
  ASSERT_TRUE(renderer.isValid());
  EXPECT_EQ(renderer.viewBox(), QRect(0, 0, 1600, 1000));
  QImage image(QSize(1600, 1000), QImage::Format_ARGB32);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  renderer.render(&painter);
  painter.end();
  keep_for_people(image, "sweep_plot_svg.png");
  EXPECT_GT(pixels_near(image, series_color(0)), 500);
  EXPECT_GT(pixels_near(image, series_color(1)), 500);
}

}  // namespace
}  // namespace opsim::gui
