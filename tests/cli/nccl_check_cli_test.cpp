// `opsim nccl-check` end to end: small tables whose opsim times are known in closed form
// (ring allreduce on nvlink-ring:4 with protocol wire: both directions of the 25 GB/s ring,
// 1.5 S / 50 GB/s), the table, JSON and CSV outputs,
// a published table, and one-line errors with exit code 2 for bad tables and models.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;

fs::path scratch() {
  return opsim::test::scratch_dir("opsim_nccl_check_cli_test");
}

CommandResult opsim(const std::string& args, const fs::path& dir = scratch()) {
  return opsim::test::run_opsim(args, dir);
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

void expect_one_line_exit_2(const CommandResult& r, const std::string& starts_with) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_EQ(r.err.rfind("opsim: error: " + starts_with, 0), 0u) << r.err;
}

constexpr const char* kRingModel =
    "op: allreduce\ntopology: nvlink-ring:4\ngpus: 4\nalgorithm: ring\nprotocol: wire\n";

// 1 MiB, 64 MiB and 128 MiB as nccl-tests would print them for 1.5 S / 50 GB/s.
constexpr const char* kRingRows =
    "bytes,time_us,algbw_GBps,busbw_GBps\n"
    "1048576,31.46,33.33,50.00\n"
    "67108864,2013.3,33.33,50.00\n"
    "134217728,4026.5,33.33,50.00\n";

// The same sizes three times slower: opsim is 3x off.
constexpr const char* kSlowRows =
    "bytes,time_us,algbw_GBps,busbw_GBps\n"
    "1048576,94.37,11.11,16.67\n"
    "67108864,6039.8,11.11,16.67\n"
    "134217728,12079.6,11.11,16.67\n";

fs::path two_tables() {
  const fs::path dir = scratch() / "tables";
  fs::create_directories(dir);
  write(dir / "ring.csv", kRingRows);
  write(dir / "ring.yaml", kRingModel);
  write(dir / "slow.csv", kSlowRows);
  write(dir / "slow.yaml", kRingModel);
  return dir;
}

TEST(CliNcclCheck, TablesKnownInClosedFormMeetTheGoalAndThreeTimesOffDoesNot) {
  const fs::path dir = two_tables();
  const auto r = opsim("nccl-check " + dir.string() + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("tables").size(), 2u);
  const auto& ring = doc.at("tables")[0];
  EXPECT_EQ(fs::path(ring.at("file").get<std::string>()).filename(), "ring.csv");
  EXPECT_EQ(ring.at("topology"), "nvlink-ring:4");
  EXPECT_EQ(ring.at("algorithm"), "ring");
  EXPECT_EQ(ring.at("opsim_algorithm"), "ring");
  ASSERT_EQ(ring.at("rows").size(), 3u);
  for (const auto& row : ring.at("rows")) {
    SCOPED_TRACE(row.dump());
    const double bytes = row.at("bytes").get<double>();
    // Simulated time is whole nanoseconds.
    EXPECT_NEAR(row.at("opsim_time_s").get<double>(), 1.5 * bytes / 50e9, 1e-9);
    EXPECT_NEAR(row.at("time_error_pct").get<double>(), 0, 0.01);
    EXPECT_DOUBLE_EQ(row.at("reference_busbw_GBps").get<double>(), 50.00);
    EXPECT_NEAR(row.at("opsim_busbw_GBps").get<double>(), 50.0, 0.01);
    EXPECT_NEAR(row.at("busbw_error_pct").get<double>(), 0, 0.01);
    EXPECT_EQ(row.at("opsim_algorithm"), "ring");
    EXPECT_EQ(row.at("opsim_protocol"), "wire");
  }
  EXPECT_EQ(ring.at("summary").at("sizes"), 3);
  EXPECT_TRUE(ring.at("summary").at("goal_met").get<bool>());
  EXPECT_NEAR(ring.at("summary").at("worst_time_ratio").get<double>(), 1, 1e-4);

  const auto& slow = doc.at("tables")[1].at("summary");
  EXPECT_NEAR(slow.at("median_abs_time_error_pct").get<double>(), 100 - 100.0 / 3, 0.01);
  EXPECT_NEAR(slow.at("worst_time_ratio").get<double>(), 3, 1e-3);
  EXPECT_NEAR(slow.at("worst_abs_busbw_error_pct").get<double>(), 200, 0.2);
  EXPECT_FALSE(slow.at("goal_met").get<bool>());

  const auto& overall = doc.at("overall");
  EXPECT_EQ(overall.at("tables"), 2);
  EXPECT_EQ(overall.at("counted"), 2);
  EXPECT_EQ(overall.at("counted_meeting_goal"), 1);
  EXPECT_FALSE(overall.at("goal_met").get<bool>());
  EXPECT_EQ(doc.at("goal").at("large_bytes"), 64e6);
}

TEST(CliNcclCheck, TableAndCsvShowEverySizeAndTheSummaries) {
  const fs::path dir = two_tables();
  const auto table =
      opsim("nccl-check " + (dir / "ring.csv").string() + " " + (dir / "slow.csv").string());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("ring.csv: allreduce on nvlink-ring:4, 4 GPUs, algorithm ring"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find(" 67108864        2013.30     2013.27"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("3 sizes: median |time error| 0.0%, worst ratio 1.00x, worst |busbw "
                           "error| from 64 MB 0.0%; goal met: yes"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("goal met: no"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Overall: 1 of 2 counted tables meet the goal"), std::string::npos)
      << table.out;

  const auto csv = opsim("nccl-check " + (dir / "ring.csv").string() + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_EQ(header,
            "file,op,topology,gpus,algorithm,counts,bytes,reference_time_s,opsim_time_s,"
            "time_error_pct,reference_busbw_GBps,opsim_busbw_GBps,busbw_error_pct,reference_noisy,"
            "opsim_algorithm,opsim_protocol");
  EXPECT_EQ(first.rfind("ring.csv,allreduce,nvlink-ring:4,4,ring,true,1048576,3.146e-05,", 0), 0u)
      << first;
  EXPECT_TRUE(first.ends_with(",ring,wire")) << first;
}

// A size whose in-place time differs from its out-of-place one by over 10 % is shown with its
// busbw error in parentheses and left out of the busbw goal; its time error still counts.
TEST(CliNcclCheck, ANoisySizeIsMarkedAndLeftOutOfTheBusbwGoal) {
  const fs::path dir = scratch() / "noisy";
  fs::create_directories(dir);
  write(dir / "ring.yaml", kRingModel);
  // The 64 MiB row 1.5x slow out of place, as fast as the ring in place.
  write(dir / "ring.csv",
        "bytes,time_us,algbw_GBps,busbw_GBps,time_us_inplace\n"
        "1048576,31.46,33.33,50.00,31.50\n"
        "67108864,3019.95,22.22,33.33,2013.3\n"
        "134217728,4026.5,33.33,50.00,4030.1\n");
  const auto table = opsim("nccl-check " + (dir / "ring.csv").string());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("(+50.0%)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("worst ratio 1.50x, worst |busbw error| from 64 MB 0.0% (1 noisy left "
                           "out); goal met: yes"),
            std::string::npos)
      << table.out;
  const auto json = opsim("nccl-check " + (dir / "ring.csv").string() + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  const auto& rows = doc.at("tables")[0].at("rows");
  EXPECT_FALSE(rows[0].at("reference_noisy").get<bool>());
  EXPECT_TRUE(rows[1].at("reference_noisy").get<bool>());
  EXPECT_NEAR(rows[1].at("reference_time_inplace_s").get<double>(), 2013.3e-6, 1e-12);
  EXPECT_EQ(doc.at("tables")[0].at("summary").at("noisy_large_sizes"), 1);
}

// With algorithm auto the tuner picks per size; each row names what ran, the choice `opsim
// collective` prints for that size.
TEST(CliNcclCheck, EveryRowNamesTheAlgorithmAndProtocolTheTunerPickedForItsSize) {
  const fs::path dir = scratch() / "auto";
  fs::create_directories(dir);
  write(dir / "h100.csv",
        "bytes,time_us,algbw_GBps,busbw_GBps\n1024,20.00,0.05,0.09\n"
        "1073741824,4000.0,268.44,469.77\n");
  write(dir / "h100.yaml", "op: allreduce\ntopology: dgx-h100\ngpus: 8\nalgorithm: auto\n");
  const auto r = opsim("nccl-check " + (dir / "h100.csv").string() + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out).at("tables").at(0).at("rows");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    const std::string size = std::to_string(static_cast<long long>(row.at("bytes").get<double>()));
    const auto c =
        opsim("collective --op allreduce --topology dgx-h100 --sizes " + size + " --format json");
    ASSERT_EQ(c.exit_code, 0) << c.err;
    const auto chosen = nlohmann::json::parse(c.out).at("results").at(0);
    EXPECT_EQ(row.at("opsim_algorithm"), chosen.at("chosen_algorithm")) << size;
    EXPECT_EQ(row.at("opsim_protocol"), chosen.at("protocol")) << size;
  }
  // 1 KiB is latency-bound (a ring in LL); 1 GiB runs in the switch (NVLS, Simple).
  EXPECT_EQ(rows[0].at("opsim_protocol"), "LL");
  EXPECT_EQ(rows[1].at("opsim_algorithm"), "nvls");
  EXPECT_EQ(rows[1].at("opsim_protocol"), "Simple");

  const auto table = opsim("nccl-check " + (dir / "h100.csv").string());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("opsim runs"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("nvls Simple"), std::string::npos) << table.out;
}

TEST(CliNcclCheck, ATopologyFileIsFoundBesideTheModelWhereverOpsimRuns) {
  // Four GPUs on one switch at 16 GB/s a direction: ring allreduce on the links alone
  // (protocol wire) takes 1.5 S / 16 GB/s.
  const fs::path dir = scratch() / "with-machine";
  fs::create_directories(dir / "machines");
  std::string machine =
      "name: switch-4gpu\ndevices:\n  - {name: cpu0, kind: cpu, model: default}\n"
      "  - {name: sw0, kind: switch}\n";
  for (int g = 0; g < 4; ++g)
    machine += "  - {name: gpu" + std::to_string(g) + ", kind: gpu, model: v100}\n";
  machine += "links:\n  - {between: [cpu0, sw0], type: pcie, bandwidth: 16GB/s, latency: 0}\n";
  for (int g = 0; g < 4; ++g)
    machine += "  - {between: [gpu" + std::to_string(g) +
               ", sw0], type: pcie, bandwidth: 16GB/s, latency: 0}\n";
  write(dir / "machines" / "box.yaml", machine);
  write(dir / "box.csv", "bytes,time_us,algbw_GBps,busbw_GBps\n67108864,6291.5,10.67,16.00\n");
  write(dir / "box.yaml",
        "op: allreduce\ntopology: machines/box.yaml\ngpus: 4\nalgorithm: ring\nprotocol: wire\n");
  const auto r = opsim("nccl-check with-machine/box.csv --format json", scratch());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& row = doc.at("tables").at(0).at("rows").at(0);
  EXPECT_NEAR(row.at("opsim_time_s").get<double>(), 1.5 * 67108864 / 16e9, 1e-9);
  EXPECT_NEAR(row.at("opsim_busbw_GBps").get<double>(), 16.0, 0.001);
  EXPECT_TRUE(doc.at("tables").at(0).at("summary").at("goal_met").get<bool>());
}

TEST(CliNcclCheck, APublishedTableRunsOnItsPreset) {
  const std::string table = std::string(OPSIM_SOURCE_DIR) +
                            "/experiments/nccl-reference/h100-sxm-8gpu-nvswitch-all_reduce.csv";
  const auto r = opsim("nccl-check " + table + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& t = doc.at("tables").at(0);
  EXPECT_EQ(t.at("topology"), "dgx-h100");
  EXPECT_EQ(t.at("gpus"), 8);
  EXPECT_TRUE(t.at("counts").get<bool>());
  ASSERT_EQ(t.at("rows").size(), 6u);
  // The first row as printed in nccl-tests issue #290; opsim's busbw by nccl-tests' rule.
  const auto& row = t.at("rows")[0];
  EXPECT_DOUBLE_EQ(row.at("bytes").get<double>(), 134217728);
  EXPECT_DOUBLE_EQ(row.at("reference_time_s").get<double>(), 613.3e-6);
  EXPECT_DOUBLE_EQ(row.at("reference_busbw_GBps").get<double>(), 382.99);
  EXPECT_NEAR(row.at("opsim_busbw_GBps").get<double>(),
              134217728 / row.at("opsim_time_s").get<double>() / 1e9 * 1.75, 1e-9);
}

TEST(CliNcclCheck, WhatIfEditsApplyToEveryTablesMachine) {
  const fs::path dir = two_tables();
  const auto times_s = [&dir](const std::string& what_if) {
    const auto r = opsim("nccl-check " + dir.string() + " --format json " + what_if);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    std::vector<double> times;
    for (const auto& table : doc.at("tables"))
      for (const auto& row : table.at("rows")) times.push_back(row.at("opsim_time_s"));
    return times;
  };
  const std::vector<double> base = times_s("");
  const std::vector<double> halved = times_s("--link-bandwidth-scale 0.5");
  ASSERT_EQ(base.size(), 6u);
  ASSERT_EQ(halved.size(), base.size());
  for (std::size_t i = 0; i < base.size(); ++i) EXPECT_NEAR(halved[i], 2 * base[i], 2e-9);

  // With Simple, a lag of the slowest channel of 1 ms at 1 GiB per GPU's share: 64 MiB on 4
  // GPUs adds 1 ms x sqrt(16 / 1024).
  const std::string simple_model =
      "op: allreduce\ntopology: nvlink-ring:4\ngpus: 4\nalgorithm: ring\nprotocol: Simple\n";
  write(dir / "ring.yaml", simple_model);
  write(dir / "slow.yaml", simple_model);
  const std::vector<double> simple = times_s("");
  const std::vector<double> lagging = times_s("--set collectives.straggle_after_gib=1ms");
  ASSERT_EQ(lagging.size(), simple.size());
  EXPECT_NEAR(lagging[1] - simple[1], 1e-3 * std::sqrt(16.0 / 1024), 2e-6);
  expect_one_line_exit_2(opsim("nccl-check " + dir.string() + " --set nope.x=1"),
                         "--set nope.x=1: no device or link named 'nope'");
}

TEST(CliNcclCheck, BadTablesAndModelsAreOneLineWithExitCode2) {
  const fs::path dir = scratch() / "bad";
  fs::create_directories(dir);
  write(dir / "t.csv", kRingRows);
  const std::string t = (dir / "t.csv").string(), y = (dir / "t.yaml").string();

  expect_one_line_exit_2(opsim("nccl-check " + t), t + ": no t.yaml beside it");
  write(dir / "t.yaml", "op: allreduce\ntopology: nope-box\ngpus: 4\nalgorithm: ring\n");
  expect_one_line_exit_2(opsim("nccl-check " + t), y + ":2: topology 'nope-box': ");
  write(dir / "t.yaml", "op: allreduce\ntopology: nvlink-ring:2\ngpus: 4\nalgorithm: ring\n");
  expect_one_line_exit_2(opsim("nccl-check " + t),
                         y + ":2: topology 'nvlink-ring:2' has 2 GPUs, the table 4");
  write(dir / "t.yaml", "op: allreduce\ntopology: nvlink-ring:4\ngpus: 4\nalgorithm: tree7\n");
  expect_one_line_exit_2(opsim("nccl-check " + t), y + ":4:12: algorithm 'tree7' does not apply");
  write(dir / "t.yaml", kRingModel);
  write(dir / "t.csv", std::string(kRingRows) + "268435456,16106.1,16.67\n");
  expect_one_line_exit_2(opsim("nccl-check " + t), t + ":5: 3 fields, the header has 4");
  expect_one_line_exit_2(opsim("nccl-check " + (dir / "missing.csv").string()),
                         (dir / "missing.csv").string() + ": no such file or directory");
  expect_one_line_exit_2(opsim("nccl-check " + y), y + ": not a .csv table");
  // A FIFO is refused at once, never read (it would block).
  const fs::path fifo = dir / "fifo.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  write(dir / "fifo.yaml", kRingModel);
  expect_one_line_exit_2(opsim("nccl-check " + fifo.string()), fifo.string() + ": ");
  // Run where experiments/nccl-reference is not: the default needs the repository root.
  expect_one_line_exit_2(opsim("nccl-check", dir),
                         "experiments/nccl-reference: not found here; run from the repository "
                         "root or name the tables");
  expect_one_line_exit_2(opsim("nccl-check " + t + " --format yaml"), "--format: ");
}

}  // namespace
