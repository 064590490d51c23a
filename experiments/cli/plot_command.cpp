#include "experiments/cli/plot_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#ifdef OPSIM_HAVE_GUI
#include <QString>
#include <stdexcept>

#include "common/csv_table.hpp"
#include "gui/sweep_chart.hpp"
#include "gui/sweep_plot.hpp"
#endif

namespace opsim {
namespace {

constexpr int kMostPixels = 16384;

std::string lowercase_extension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

std::string output_path(const PlotOptions& options) {
  if (!options.out_path.empty()) return options.out_path;
  return std::filesystem::path(options.csv_path).replace_extension(".png").string();
}

void check_options_for(const PlotOptions& options, const std::string& out) {
  const std::string extension = lowercase_extension(out);
  if (extension.empty())
    throw InputError("--out " + out + ": no file extension (give a .png or .svg file)");
  if (extension != ".png" && extension != ".svg")
    throw InputError("--out " + out + ": unknown image type '" + extension +
                     "' (give a .png or .svg file)");
  for (const auto& [flag, pixels] :
       {std::pair{"--width", options.width_px}, std::pair{"--height", options.height_px}})
    if (pixels < 200 || pixels > kMostPixels)
      throw InputError(std::string(flag) + " " + std::to_string(pixels) + ": give 200 to " +
                       std::to_string(kMostPixels) + " pixels");
  check_output_path(out, "the plot");
}

#ifdef OPSIM_HAVE_GUI
std::string default_title(const gui::SweepPlot& plot, const gui::PlotRequest& request,
                          const std::string& csv_path) {
  const std::string file = std::filesystem::path(csv_path).filename().string();
  if (plot.charts.size() != 1) return file + ": metrics against " + request.x;
  return file + ": " + plot.charts[0].y.title + " against " + plot.charts[0].x.title;
}

void plot_with_qt(const PlotOptions& options, const std::string& out) {
  const CsvTable table = read_csv_table(options.csv_path);
  gui::PlotRequest request{options.x, options.y, options.series, options.where};
  if (request.x.empty()) request.x = gui::default_x_column(table);
  if (request.x.empty())
    throw InputError(options.csv_path + ": no numeric parameter varies: give the x axis with --x");
  const gui::SweepPlot plot = gui::plan_sweep_plot(table, request, options.csv_path);
  const std::string title =
      options.title.empty() ? default_title(plot, request, options.csv_path) : options.title;
  const auto format = lowercase_extension(out) == ".svg" ? gui::SweepImageFormat::kSvg
                                                         : gui::SweepImageFormat::kPng;
  QByteArray image;
  try {
    image = gui::render_sweep_plot(plot, QString::fromStdString(title),
                                   {options.width_px, options.height_px}, format);
  } catch (const std::runtime_error& e) {
    throw InputError("--out " + out + ": cannot draw the plot: " + e.what());
  }
  write_file_atomically(out, std::string_view(image.constData(), image.size()));
  if (options.quiet) return;
  const QSize size = gui::sweep_plot_size(plot, {options.width_px, options.height_px});
  std::size_t series = 0;
  for (const gui::SweepChartPlan& chart : plot.charts)
    series = std::max(series, chart.series.size());
  std::printf("wrote %s (%dx%d): %zu chart%s of %zu rows against %s, %zu series\n", out.c_str(),
              size.width(), size.height(), plot.charts.size(), plot.charts.size() == 1 ? "" : "s",
              plot.rows_plotted, request.x.c_str(), series);
  if (const std::string note = plot.note(); !note.empty()) std::printf("note: %s\n", note.c_str());
}
#endif

}  // namespace

void check_plot_options(const PlotOptions& options) {
  check_options_for(options, output_path(options));
}

int run_plot(const PlotOptions& options) {
  const std::string out = output_path(options);
  check_options_for(options, out);
#ifdef OPSIM_HAVE_GUI
  plot_with_qt(options, out);
  return 0;
#else
  throw InputError("--out " + out + ": this opsim was built without the GUI (OPSIM_BUILD_GUI=OFF)");
#endif
}

Command register_plot_command(CLI::App& opsim) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* plot = opsim.add_subcommand(
      "plot", "Draw a sweep's CSV as line charts (PNG or SVG, Qt Charts offscreen)");
  plot->add_option("csv", options->csv_path, "Results of opsim sweep (CSV)")->required();
  plot->add_option("--out,-o", options->out_path,
                   "Image: .png or .svg (default: the CSV's name with .png)");
  plot->add_option("--x", options->x,
                   "Column on the x axis, numeric (default: bytes or gpus, whichever varies)");
  plot->add_option("--y", options->y,
                   "Metric columns, one chart each (default: every metric that varies)")
      ->delimiter(',')
      ->allow_extra_args(false);  // so that `--y A FILE.csv` leaves the file alone
  plot->add_option("--series", options->series,
                   "Column whose values get a line each (default: strategy, algorithm, op or "
                   "topology)");
  plot->add_option("--where", options->where, "Only rows with COLUMN=VALUE (repeatable)")
      ->allow_extra_args(false);
  plot->add_option("--title", options->title, "Title over the charts");
  plot->add_option("--width", options->width_px, "Image width in pixels (default 1600)");
  plot->add_option("--height", options->height_px,
                   "Image height in pixels (default 1000; taller for many charts)");
  return {plot, [options] { return run_plot(*options); }};
}

}  // namespace opsim
