// End-to-end tests of the opsim command line: the book's reference numbers, the ring
// formula, determinism of traces, and one-line errors with exit code 2 for bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/chrome_trace_rules.hpp"
#include "tests/cli/cli_test_scratch.hpp"
#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;
using opsim::test::slurp;

using opsim::test::cli::opsim;
using opsim::test::cli::scratch_dir;

std::string data(const char* name) {
  return std::string(OPSIM_SOURCE_DIR) + "/tests/cli/data/" + name;
}

std::map<std::string, double> makespans(const std::string& json_text) {
  std::map<std::string, double> out;
  const auto doc = nlohmann::json::parse(json_text);
  for (const auto& r : doc.at("results"))
    out[r.at("strategy").get<std::string>()] = r.at("makespan_s").get<double>();
  if (out.empty()) ADD_FAILURE() << "no results in: " << json_text;
  return out;
}

TEST(Cli, BookServerCommOnlyGives60_80_15ms) {
  const auto r = opsim(
      "compare --topology pcie-switch-4gpu --bytes 160MB --strategies tree,cpu,split --comm-only "
      "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto m = makespans(r.out);
  EXPECT_NEAR(m.at("tree"), 0.060, 0.060 * 0.005);
  EXPECT_NEAR(m.at("cpu"), 0.080, 0.080 * 0.005);
  EXPECT_NEAR(m.at("split"), 0.015, 0.015 * 0.005);
  const auto doc = nlohmann::json::parse(r.out);
  // Receive buffers: GPU0 holds the three gathered gradients, the CPU all four; split's
  // owners receive 40 MB chunks.
  std::map<std::string, double> peak;
  for (const auto& result : doc.at("results"))
    peak[result.at("strategy").get<std::string>()] = result.at("peak_memory_bytes").get<double>();
  EXPECT_DOUBLE_EQ(peak.at("tree"), 3 * 160e6);
  EXPECT_DOUBLE_EQ(peak.at("cpu"), 4 * 160e6);
  EXPECT_GE(peak.at("split"), 40e6);
  EXPECT_LE(peak.at("split"), 3 * 40e6);
  EXPECT_EQ(doc.at("topology"), "pcie-switch-4gpu");
  EXPECT_DOUBLE_EQ(doc.at("bytes").get<double>(), 160e6);
  for (const auto& result : doc.at("results")) {
    EXPECT_GT(result.at("bytes_moved").get<double>(), 0);
    EXPECT_FALSE(result.at("busiest_link").get<std::string>().empty());
    EXPECT_GT(result.at("busiest_link_utilization").get<double>(), 0.2);
    EXPECT_LE(result.at("busiest_link_utilization").get<double>(), 1.0 + 1e-9);
  }
}

TEST(Cli, CompareShowsNcclTestsBandwidthsOfTheGradientAllreduce) {
  // algbw = 160 MB / makespan; busbw = algbw x 2(n-1)/n = 1.5 on 4 GPUs. Ring and split
  // keep every 16 GB/s link busy: busbw is the link's rate.
  const auto r = opsim(
      "compare --topology pcie-switch-4gpu --strategies tree,cpu,split,ring --comm-only "
      "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::map<std::string, std::pair<double, double>> expected = {
      {"tree", {160e6 / 0.060 / 1e9, 4.0}},
      {"cpu", {2.0, 3.0}},
      {"split", {160e6 / 0.015 / 1e9, 16.0}},
      {"ring", {160e6 / 0.015 / 1e9, 16.0}}};
  for (const auto& result : nlohmann::json::parse(r.out).at("results")) {
    const auto& [algbw, busbw] = expected.at(result.at("strategy").get<std::string>());
    SCOPED_TRACE(result.dump());
    EXPECT_NEAR(result.at("algbw_GBps").get<double>(), algbw, algbw * 1e-4);
    EXPECT_NEAR(result.at("busbw_GBps").get<double>(), busbw, busbw * 1e-4);
  }

  const auto csv = opsim("compare --strategies ring --comm-only --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(header.substr(header.size() - 22), ",algbw_GBps,busbw_GBps") << header;
  EXPECT_EQ(row.substr(row.size() - 15), ",10.66666667,16") << row;

  const auto table = opsim("compare --strategies ring --comm-only");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("makespan       algbw    busbw"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("15.000 ms  10.67 GB/s  16 GB/s"), std::string::npos) << table.out;
}

TEST(Cli, ReductionsAddTimeOnTheDeviceThatReduces) {
  const auto r = opsim("compare --strategies tree,cpu,split,ring --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& result : doc.at("results")) {
    SCOPED_TRACE(result.dump());
    const double with = result.at("makespan_s").get<double>();
    const double without = result.at("comm_only_makespan_s").get<double>();
    EXPECT_GT(with, without * 1.001);
    EXPECT_NEAR(result.at("reductions_add_s").get<double>(), with - without, 1e-12);
  }
  const auto table = opsim("compare");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("reductions add"), std::string::npos) << table.out;
}

TEST(Cli, RingMatchesClosedFormOnNvlinkRings) {
  // 2(N-1)/N * S/B, S = 160 MB, B = 25 GB/s per direction.
  for (int n = 2; n <= 64; n = n < 8 ? n + 1 : n * 2) {
    SCOPED_TRACE(n);
    const auto r = opsim("compare --topology nvlink-ring:" + std::to_string(n) +
                         " --strategies ring --comm-only --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const double expected = 2.0 * (n - 1) / n * 160e6 / 25e9;
    EXPECT_NEAR(makespans(r.out).at("ring"), expected, expected * 0.001);
    const auto result = nlohmann::json::parse(r.out).at("results").at(0);
    EXPECT_NEAR(result.at("lower_bound_s").get<double>(), expected, expected * 1e-9);
  }
}

TEST(Cli, SetBoundsBothDirectionsOfALinkAndDelaysCopies) {
  // Ring on the book's server: each GPU's link carries 3/4 x 2 x 160 MB each way, 15 ms at
  // 16 GB/s a direction; with both directions at most 24 GB/s together, 20 ms.
  std::string sets;
  for (int g = 0; g < 4; ++g)
    sets += " --set gpu" + std::to_string(g) + "-sw0.duplex_bandwidth=24GB/s";
  const auto bound = opsim("compare --strategies ring --comm-only --format json" + sets);
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  const auto ring = nlohmann::json::parse(bound.out).at("results").at(0);
  EXPECT_NEAR(ring.at("makespan_s").get<double>(), 0.020, 0.020 * 0.01);
  EXPECT_NEAR(ring.at("lower_bound_s").get<double>(), 0.020, 1e-9);

  // Scaling every link scales a file's duplex bound with it: x2 gives 10 ms.
  const fs::path machine = scratch_dir() / "duplex-4gpu.yaml";
  {
    std::ofstream out(machine);
    out << "name: duplex-4gpu\ndevices:\n  - {name: cpu0, kind: cpu, model: default}\n"
           "  - {name: sw0, kind: switch}\n";
    for (int g = 0; g < 4; ++g) out << "  - {name: gpu" << g << ", kind: gpu, model: v100}\n";
    out << "links:\n  - {between: [cpu0, sw0], type: pcie, bandwidth: 16GB/s, latency: 0}\n";
    for (int g = 0; g < 4; ++g)
      out << "  - {between: [gpu" << g << ", sw0], type: pcie, bandwidth: 16GB/s, latency: 0, "
          << "duplex_bandwidth: 24GB/s}\n";
  }
  const std::string ring_on_file =
      "compare --strategies ring --comm-only --format json --topology " + machine.string();
  EXPECT_NEAR(makespans(opsim(ring_on_file).out).at("ring"), 0.020, 0.020 * 0.01);
  const auto scaled = opsim(ring_on_file + " --link-bandwidth-scale 2");
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  EXPECT_NEAR(makespans(scaled.out).at("ring"), 0.010, 0.010 * 0.01);

  // Tree: three gathers into GPU0, then three broadcasts from it. A copy takes an engine at
  // each GPU end, GPU0 has two, so in each phase the third copy starts after one of the
  // first two ends. It waited for that engine, which a real stream lets the host enqueue it
  // on meanwhile: its launch is hidden. One launch per phase, 2 x 1 ms in all.
  std::string launches;
  for (int g = 0; g < 4; ++g)
    launches += " --set gpu" + std::to_string(g) + ".copy_launch_latency=1ms";
  const auto base = makespans(opsim("compare --strategies tree --comm-only --format json").out);
  const auto slow =
      makespans(opsim("compare --strategies tree --comm-only --format json" + launches).out);
  EXPECT_NEAR(slow.at("tree") - base.at("tree"), 0.002, 1e-6);
}

TEST(Cli, SweepCoversEveryRingSizeFrom2To64) {
  const fs::path dir = scratch_dir();
  std::ofstream spec(dir / "rings.yaml");
  spec << "topologies: [";
  for (int n = 2; n <= 64; ++n) spec << (n > 2 ? ", " : "") << "nvlink-ring:" << n;
  spec << "]\nstrategies: [ring]\nbytes: [160MB]\ncomm_only: true\n";
  spec.close();
  const auto r =
      opsim("sweep " + (dir / "rings.yaml").string() + " -o " + (dir / "rings.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream csv(slurp(dir / "rings.csv"));
  std::string line;
  std::getline(csv, line);
  int rows = 0;
  while (std::getline(csv, line)) {
    // key,topology,bytes,comm_only,strategy,makespan_s,...,ops,gpus_used,...
    std::vector<std::string> cells;
    std::stringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) cells.push_back(cell);
    ASSERT_GE(cells.size(), 14u) << line;
    const int n = std::stoi(cells[1].substr(cells[1].find(':') + 1));
    EXPECT_EQ(std::stoi(cells[13]), n) << line;
    const double expected = 2.0 * (n - 1) / n * 160e6 / 25e9;
    EXPECT_NEAR(std::stod(cells[5]), expected, expected * 0.001) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 63);
}

TEST(Cli, MultiRingBeatsSingleRingOnDgx1) {
  const auto r =
      opsim("compare --topology dgx1-v100 --strategies ring,multi-ring --comm-only --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto m = makespans(r.out);
  EXPECT_LT(m.at("multi-ring"), m.at("ring") * 0.75);
  // The book: 8 V100 over NVLink, 160 MB: about 6 ms or less.
  EXPECT_LT(m.at("multi-ring"), 0.0062);
}

TEST(Cli, SameInputGivesByteIdenticalTraceThatFollowsTheRules) {
  const fs::path dir = scratch_dir();
  for (const char* run : {"a", "b"}) {
    const auto r = opsim("compare --strategies tree,ring --trace-dir " + (dir / run).string() +
                         " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* strategy : {"tree", "ring"}) {
    const std::string a = slurp(dir / "a" / (std::string(strategy) + ".json"));
    const std::string b = slurp(dir / "b" / (std::string(strategy) + ".json"));
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b) << strategy;
    const auto problems = opsim::check_chrome_trace_rules(nlohmann::json::parse(a));
    EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems.front());
    EXPECT_EQ(slurp(dir / "a" / (std::string(strategy) + ".csv")),
              slurp(dir / "b" / (std::string(strategy) + ".csv")));
  }
}

TEST(Cli, SimRunsAWorkloadFileAndWritesItsTrace) {
  const fs::path dir = scratch_dir();
  const std::string workload =
      std::string(OPSIM_SOURCE_DIR) + "/experiments/workloads/load_and_multiply.json";
  const auto r =
      opsim("sim " + workload + " --trace " + (dir / "w.json").string() + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_GT(doc.at("makespan_s").get<double>(), 0);
  const auto problems =
      opsim::check_chrome_trace_rules(nlohmann::json::parse(slurp(dir / "w.json")));
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems.front());
}

TEST(Cli, TopologiesListsPresetsAndFamilies) {
  const auto r = opsim("topologies");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name :
       {"desktop-1gpu", "pcie-switch-4gpu", "dgx1-v100", "dgx-a100", "dgx-h100", "cluster-2x4gpu",
        "cluster-2x4gpu-100gbe", "nvlink-ring:N", "pcie-switch:N", "cluster:MxG", "ib-cluster:"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

TEST(Cli, ExperimentRunsSimulatedAndWritesTraces) {
  const fs::path dir = scratch_dir() / "experiment";
  const auto r = opsim("experiment async --backend sim --format json --trace-dir " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("experiment"), "async");
  EXPECT_EQ(doc.at("backend"), "sim");
  std::map<std::string, double> wall;
  for (const auto& v : doc.at("variants")) {
    wall[v.at("name").get<std::string>()] = v.at("wall_s").get<double>();
    const auto trace = nlohmann::json::parse(slurp(v.at("trace_file").get<std::string>()));
    EXPECT_TRUE(opsim::check_chrome_trace_rules(trace).empty());
  }
  ASSERT_TRUE(wall.count("sync") && wall.count("async")) << r.out;
  EXPECT_LT(wall.at("async"), wall.at("sync"));
}

TEST(Cli, CompareRendersTimelinesToPng) {
  const fs::path png = scratch_dir() / "compare.png";
  const auto r = opsim("compare --comm-only --strategies tree,split --png " + png.string());
#ifdef OPSIM_HAVE_GUI
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = slurp(png);
  ASSERT_GT(bytes.size(), 10'000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");

  // Without its platform plug-in Qt would abort the process; opsim says so in one line.
  const fs::path none = scratch_dir() / "no-platform.png";
  ::setenv("QT_QPA_PLATFORM", "no-such-platform", 1);
  const auto missing = opsim("compare --comm-only --strategies tree --png " + none.string());
  ::unsetenv("QT_QPA_PLATFORM");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("platform plug-in 'no-such-platform' is not installed"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.err.find('\n'), missing.err.size() - 1) << missing.err;
  EXPECT_FALSE(fs::exists(none));
#else
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("built without the GUI"), std::string::npos) << r.err;
#endif
}

struct BadInput {
  std::string args;
  std::string expected;  // part of the one-line message
};

TEST(Cli, BadInputGivesOneLineErrorAndExitCode2) {
  const std::vector<BadInput> cases = {
      {"compare --bytes lots", "--bytes: cannot read 'lots' as a size"},
      {"compare --bytes -5MB", "--bytes"},
      {"compare --strategies tree,bogus", "--strategies: bogus not in {tree,cpu,split,ring,"},
      {"compare --jobs 0", "--jobs: Value 0 not in range 1 to 256"},
      {"compare --topology no-such-machine", "no-such-machine"},
      {"compare --topology nvlink-ring:1", "nvlink-ring:1"},
      {"compare --gpus 1", "--gpus"},
      {"compare --gpus 99", "--gpus 99: topology 'pcie-switch-4gpu' has only 4 GPUs"},
      {"compare --format xml", "--format: xml not in {table,json,csv}"},
      {"compare --set gpu9.fp32_peak=1TFLOPS", "no device or link named 'gpu9'"},
      {"compare --set gpu0.warp_drive=1", "a gpu has no key 'warp_drive' (valid: fp32_peak, "},
      // The names before keys were shared with topology files are refused, the key named.
      {"compare --set gpu0.launch=5us",
       "--set gpu0.launch=5us: a gpu has no key 'launch' (did you mean 'launch_latency'?)"},
      {"compare --set gpu0.copy_launch=1ms", "(did you mean 'copy_launch_latency'?)"},
      {"compare --set cpu0.dram.first_acess=1ms", "(did you mean 'dram.first_access'?)"},
      {"compare --set gpu0-sw0.bandwith=8GB/s",
       "a link has no key 'bandwith' (did you mean 'bandwidth'?)"},
      {"compare --set cpu0.clock=fast", "'clock' must be a clock such as '3.0GHz' or Hz"},
      {"compare --link-bandwidth-scale 0", "--link-bandwidth-scale"},
      {"compare --topology desktop-1gpu --set hdd0-cpu0.duplex_bandwidth=1GB/s",
       "--set hdd0-cpu0.duplex_bandwidth=1GB/s: key 'duplex_bandwidth' applies only to "
       "full-duplex links"},
      {"compare --set gpu0.copy_launch_latency=-1us",
       "'copy_launch_latency' must be zero or positive, got '-1us'"},
      {"compare --set gpu0.min_queued_op=-1us",
       "'min_queued_op' must be zero or positive, got '-1us'"},
      {"compare --set cpu0.all_streams_busy_speed=1.5",
       "'all_streams_busy_speed' must be in (0, 1], got 1.5"},
      {"compare --set cpu0.disk_io_cores=999",
       "'disk_io_cores' must be at most the CPU's cores (8), got 999"},
      {"compare --set cpu0.disk_write_speed_one_busy=2",
       "'disk_write_speed_one_busy' must be in (0, 1], got 2"},
      {"compare --set cpu0.core_pass_speeds=1,x",
       "--set cpu0.core_pass_speeds=1,x: 'core_pass_speeds' must be a number such as"},
      {"compare --set cpu0.core_copy_speeds=1,-1", "'core_copy_speeds' must be positive, got '-1'"},
      {"compare --set cpu0.core_gemm_speeds=1,1,1,1,1,1,1,1,1",
       "'core_gemm_speeds' of the CPU lists 9 speeds for 8 cores"},
      {"compare --strategies ps", "ps"},
      {"compare --frobnicate", "frobnicate"},
      {"teleport", "teleport"},
      {"sim /nonexistent/workload.json --topology pcie-switch-4gpu",
       "workload: File does not exist: /nonexistent/workload.json"},
      {"sim " + data("syntax_error.json"), "syntax_error.json:3:"},
      {"sim " + data("unknown_device.json"), "unknown device 'gpu7'"},
      {"sim " + data("cycle.json"), "dependency cycle: 'a' -> 'b' -> 'c' -> 'a'"},
      {"topology check " + data("bad_key.yaml"), "bad_key.yaml:4:"},
      {"topology check " + data("unknown_link_end.yaml"), "unknown_link_end.yaml:6:"},
      {"topology check /nonexistent/machine.yaml", "/nonexistent/machine.yaml"},
      {"sweep " + data("bad_sweep.yaml"), "bad_sweep.yaml:4:1: unknown key 'repeat'"},
      {"sweep /nonexistent/spec.yaml", "spec: File does not exist: /nonexistent/spec.yaml"},
      {"experiment warp-speed", "name: warp-speed not in {async,cpu-gpu,"},
      {"experiment async --backend quantum", "--backend: quantum not in {real,sim}"},
      {"experiment async --backend real --topology dgx1-v100",
       "--topology: applies to --backend sim only"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = opsim(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("opsim: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << r.err;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace
