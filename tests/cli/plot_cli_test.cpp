// `opsim plot` end to end: the images it writes (size, content) and the bad inputs it
// refuses with one line and exit code 2, leaving any earlier output as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;
using opsim::test::slurp;

// Two strategies over three decades of sizes, one failed point.
const char* const kResults =
    "key,topology,bytes,strategy,makespan_s,ops,error\n"
    "a,pcie-switch:4,1000000,tree,0.0005,6,\n"
    "b,pcie-switch:4,100000000,tree,0.05,6,\n"
    "c,pcie-switch:4,1000000000,tree,0.5,6,\n"
    "d,pcie-switch:4,1000000,ring,0.0002,24,\n"
    "e,pcie-switch:4,100000000,ring,0.015,24,\n"
    "f,pcie-switch:4,1000000000,ring,0.15,24,\n"
    "g,pcie-switch:4,1000000,bogus,,,unknown strategy 'bogus'\n";

fs::path scratch(const std::string& name) {
  const fs::path dir = opsim::test::scratch_dir("plot_cli_" + name);
  std::ofstream(dir / "r.csv") << kResults;
  return dir;
}

CommandResult plot(const std::string& args, const fs::path& dir) {
  return opsim::test::run_program("opsim", "plot " + args, dir, "QT_QPA_PLATFORM=offscreen");
}

// Width and height from a PNG's IHDR chunk (big-endian, bytes 16 to 23).
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& png) {
  const auto word = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  if (png.size() < 24 || png.compare(1, 3, "PNG") != 0) return {0, 0};
  return {word(16), word(20)};
}

bool has_temporaries(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
  return false;
}

TEST(PlotCli, WritesAPngOfTheAskedSize) {
  const fs::path dir = scratch("png");
  const CommandResult r =
      plot("r.csv --x bytes --y makespan_s --series strategy --out m.png --width 1200 --height 800",
           dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // Qt's own warnings (XDG_RUNTIME_DIR not set) stay out
  EXPECT_EQ(r.out,
            "wrote m.png (1200x800): 1 chart of 6 rows against bytes, 2 series\n"
            "note: 1 row with an error skipped (see the error column)\n");
  const std::string png = slurp(dir / "m.png");
  EXPECT_GT(png.size(), 10'000u);
  EXPECT_EQ(png_size(png), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  EXPECT_FALSE(has_temporaries(dir));
}

TEST(PlotCli, WithoutArgumentsDrawsEveryMetricAgainstTheSizeBesideTheCsv) {
  const fs::path dir = scratch("defaults");
  const CommandResult r = plot("r.csv", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote r.png (1600x1000): 2 charts of 6 rows against bytes"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(png_size(slurp(dir / "r.png")), (std::pair<std::uint32_t, std::uint32_t>{1600, 1000}));
}

TEST(PlotCli, ListFlagsBeforeTheCsvLeaveItAlone) {
  const fs::path dir = scratch("flags");
  const CommandResult r =
      plot("--y makespan_s,ops --where strategy=ring --where topology=pcie-switch:4 r.csv", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote r.png (1600x1000): 2 charts of 3 rows against bytes, 1 series\n");
}

TEST(PlotCli, WritesAnSvgWithSeriesNamesAndAxisTitles) {
  const fs::path dir = scratch("svg");
  const CommandResult r = plot("r.csv --x bytes --out m.svg --title 'Rings on PCIe'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = slurp(dir / "m.svg");
  for (const char* text : {"<svg", "Rings on PCIe", ">tree<", ">ring<", "bytes (log scale)",
                           "makespan (log scale)", "10 ms"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  EXPECT_EQ(svg.find(">bogus<"), std::string::npos);  // the failed row is not a series
}

TEST(PlotCli, SymlinkOutputWritesItsTarget) {
  const fs::path dir = scratch("symlink");
  fs::create_symlink("target.png", dir / "link.png");
  const CommandResult r = plot("r.csv --out link.png", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.png"));
  EXPECT_EQ(png_size(slurp(dir / "target.png")).first, 1600u);
}

struct BadPlot {
  const char* name;
  const char* args;
  const char* expected;  // the one line on stderr, after "opsim: error: "
};

class PlotCliBadInput : public testing::TestWithParam<BadPlot> {};

TEST_P(PlotCliBadInput, OneLineExitTwoEarlierOutputKept) {
  const BadPlot& c = GetParam();
  const fs::path dir = scratch(c.name);
  std::ofstream(dir / "empty.csv");
  std::ofstream(dir / "ragged.csv") << "a,b\n1,2\n3\n4,5\n";
  fs::create_directories(dir / "folder.csv");
  fs::create_directories(dir / "taken.png");
  ::mkfifo((dir / "fifo.csv").c_str(), 0644);
  std::ofstream(dir / "out.png") << "earlier";
  const CommandResult r = plot(c.args, dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, std::string("opsim: error: ") + c.expected + "\n");
  EXPECT_EQ(slurp(dir / "out.png"), "earlier");
  EXPECT_FALSE(has_temporaries(dir));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlotCliBadInput,
    testing::Values(
        BadPlot{"missing_column", "r.csv --x size --out out.png",
                "r.csv: --x size: no such column (valid: key, topology, bytes, strategy, "
                "makespan_s, ops, error)"},
        BadPlot{"text_x", "r.csv --x strategy --out out.png",
                "r.csv:2: --x strategy: 'tree' is not a number"},
        BadPlot{"text_y", "r.csv --x bytes --y topology --out out.png",
                "r.csv: --y topology: not a numeric column"},
        BadPlot{"empty_csv", "empty.csv --x bytes --out out.png",
                "empty.csv: empty CSV (no header line)"},
        BadPlot{"ragged_csv", "ragged.csv --x a --out out.png",
                "ragged.csv:3: 1 fields, the header has 2"},
        BadPlot{"fifo_csv", "fifo.csv --out out.png",
                "fifo.csv: is a FIFO (named pipe), not a "
                "CSV file"},
        BadPlot{"folder_csv", "folder.csv --out out.png",
                "folder.csv: is a directory, not a CSV "
                "file"},
        BadPlot{"missing_csv", "none.csv --out out.png",
                "none.csv: cannot open CSV file: No such file or directory"},
        BadPlot{"unknown_extension", "r.csv --out out.jpg",
                "--out out.jpg: unknown image type '.jpg' (give a .png or .svg file)"},
        BadPlot{"no_extension", "r.csv --out out",
                "--out out: no file extension (give a .png or .svg file)"},
        BadPlot{"missing_directory", "r.csv --out none/out.png",
                "none/out.png: cannot write the plot: directory 'none' does not exist"},
        BadPlot{"directory_output", "r.csv --out taken.png",
                "taken.png: cannot write the plot: it is a directory"},
        BadPlot{"tiny_width", "r.csv --out out.png --width 10",
                "--width 10: give 200 to 16384 pixels"},
        BadPlot{"bad_where", "r.csv --where strategy --out out.png",
                "r.csv: --where strategy: expected COLUMN=VALUE"}),
    [](const testing::TestParamInfo<BadPlot>& info) { return std::string(info.param.name); });

}  // namespace
