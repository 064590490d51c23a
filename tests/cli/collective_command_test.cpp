// `opsim collective` end to end: the nccl-tests numbers for known cases, the JSON and CSV
// shapes, and one-line errors with exit code 2 for every bad flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_scratch.hpp"
#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;

using opsim::test::cli::opsim;

void expect_one_line_exit_2(const CommandResult& r) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
  EXPECT_EQ(r.err.rfind("opsim: error: ", 0), 0u) << r.err;
}

TEST(CliCollective, AllreduceOnFourNvlinkRingGpusHasTwiceTheLinksBusBandwidth) {
  // The ring runs both ways round nvlink-ring:4 (two channels), over the links alone.
  const auto r = opsim(
      "collective --op allreduce --topology nvlink-ring:4 --sizes 64MB --format json "
      "--algorithm ring --protocol wire");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("op"), "allreduce");
  EXPECT_EQ(doc.at("topology"), "nvlink-ring:4");
  EXPECT_EQ(doc.at("gpus"), 4);
  ASSERT_EQ(doc.at("results").size(), 1u);
  const auto& row = doc.at("results")[0];
  for (const char* key :
       {"algorithm", "chosen_algorithm", "protocol", "bytes", "time_s", "algbw_GBps", "busbw_GBps"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(row.at("algorithm"), "ring");
  EXPECT_EQ(row.at("protocol"), "wire");
  EXPECT_DOUBLE_EQ(row.at("bytes").get<double>(), 64e6);
  EXPECT_NEAR(row.at("time_s").get<double>(), 1.5 * 64e6 / 50e9, 1e-3 * 1.5 * 64e6 / 50e9);
  EXPECT_NEAR(row.at("busbw_GBps").get<double>(), 50.0, 0.5);
  EXPECT_NEAR(row.at("algbw_GBps").get<double>(), 50.0 / 1.5, 0.5 / 1.5);
}

TEST(CliCollective, GpusPerServerRingsOverThatManyNicsPerServer) {
  // ib-cluster:4x8@400 with G ranks per server: the ring crosses the servers on G rails of
  // 50 GB/s NICs, so the bus bandwidth is G x 50 GB/s (over the links alone).
  for (int per_server : {1, 2}) {
    SCOPED_TRACE(per_server);
    const auto r = opsim("collective --topology ib-cluster:4x8 --gpus-per-server " +
                         std::to_string(per_server) +
                         " --algorithm ring --protocol wire --sizes 1GB --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc.at("gpus"), 4 * per_server);
    EXPECT_NEAR(doc.at("results")[0].at("busbw_GBps").get<double>(), 50.0 * per_server,
                0.01 * 50 * per_server);
  }
}

TEST(CliCollective, AutoPrintsWhatItChosePerSize) {
  // dgx-h100: the ring with LL at 8 B, NVLS at 1 GiB (its NVSwitch reduces in the switch).
  const auto r =
      opsim("collective --topology dgx-h100 --sizes 8B:1GiB --factor 134217728 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("allreduce,dgx-h100,8,auto,8,2,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",ring,LL\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",nvls,Simple\n"), std::string::npos) << r.out;
  const auto table = opsim("collective --topology dgx-a100 --sizes 8B");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("ring       LL"), std::string::npos) << table.out;
}

TEST(CliCollective, SetChangesAProtocolLatency) {
  // nvlink-ring:4 has latency-free links: an 8-byte LL ring is 6.6 us + 6 steps.
  const auto base = opsim(
      "collective --topology nvlink-ring:4 --sizes 8B --algorithm ring --protocol LL "
      "--format json");
  const auto slower = opsim(
      "collective --topology nvlink-ring:4 --sizes 8B --algorithm ring --protocol LL "
      "--format json --set collectives.ring_ll_nvlink_step=2us");
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(slower.exit_code, 0) << slower.err;
  const double t0 = nlohmann::json::parse(base.out).at("results")[0].at("time_s");
  const double t1 = nlohmann::json::parse(slower.out).at("results")[0].at("time_s");
  EXPECT_NEAR(t0, 6.6e-6 + 6 * 0.6e-6, 20e-9);
  EXPECT_NEAR(t1, 6.6e-6 + 6 * 2e-6, 20e-9);
}

TEST(CliCollective, EveryCollectiveOnTheBooksServerHasTheLinksBusBandwidth) {
  // Ring collectives and all-to-all through one switch run at the 16 GB/s of each GPU's
  // link; pipelined broadcast and reduce of 160 MB in 1221 pieces lose (n-2)/k of it.
  for (const char* op :
       {"allreduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce"}) {
    const auto r = opsim(std::string("collective --op ") + op +
                         " --topology pcie-switch-4gpu --sizes 160MB --format json "
                         "--protocol wire");
    ASSERT_EQ(r.exit_code, 0) << op << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_NEAR(doc.at("results")[0].at("busbw_GBps").get<double>(), 16.0, 0.16) << op;
    EXPECT_EQ(doc.at("results")[0].at("algorithm"), "auto");
    EXPECT_EQ(doc.at("results")[0].at("chosen_algorithm"),
              std::string(op) == "all_to_all" ? "direct" : "ring");
  }
}

TEST(CliCollective, BandwidthsOfTimesUnderAMicrosecondAreLeftOut) {
  // Simulated times are whole nanoseconds: 32 B over a 25 GB/s link take 1.28 ns and end
  // at 1 ns, which would claim 32 GB/s. From 32 KiB (1.31 us) the link's rate shows.
  const auto r = opsim(
      "collective --op sendrecv --topology nvlink-ring:8 --protocol wire --sizes 32B:32KiB "
      "--factor 1024 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out).at("results");
  ASSERT_EQ(rows.size(), 2u) << r.out;
  EXPECT_LT(rows[0].at("time_s").get<double>(), 1e-6);
  EXPECT_TRUE(rows[0].at("algbw_GBps").is_null()) << rows[0];
  EXPECT_TRUE(rows[0].at("busbw_GBps").is_null()) << rows[0];
  EXPECT_NEAR(rows[1].at("busbw_GBps").get<double>(), 25.0, 0.025) << rows[1];

  const auto table =
      opsim("collective --op sendrecv --topology nvlink-ring:8 --protocol wire --sizes 32B");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("0.00             -             -  direct"), std::string::npos)
      << table.out;
}

TEST(CliCollective, SizesDoubleFromMinToMaxInTableAndCsv) {
  const auto r =
      opsim("collective --op all_gather --topology nvlink-ring:8 --sizes 1KB:1MB --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Header plus 1000, 2000, ..., 512000 bytes: 10 sizes, each as nccl-tests runs it.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 11) << r.out;
  EXPECT_EQ(r.out.rfind("op,topology,gpus,algorithm,bytes,count,time_s,algbw_GBps,busbw_GBps,"
                        "chosen_algorithm,protocol\n",
                        0),
            0u);
  // 1000 B: 250 floats, 31 a rank, 28 in whole 16-byte units: 28 x 8 x 4 = 896 B.
  EXPECT_NE(r.out.find("all_gather,nvlink-ring:8,8,auto,896,28,"), std::string::npos) << r.out;

  const auto table = opsim(
      "collective --op broadcast --topology nvlink-ring:4 --gpus 3 "
      "--sizes 8B:64B --factor 2");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  for (const char* column :
       {"size (B)", "count (elts)", "time (us)", "algbw (GB/s)", "busbw (GB/s)", "(3 GPUs)"})
    EXPECT_NE(table.out.find(column), std::string::npos) << column << "\n" << table.out;
}

TEST(CliCollective, SizesAndCountsAreWhatNcclTestsRunsAndPrints) {
  // The published 80-GPU all_gather tables (h100-10x8-all_gather) print 64 MiB as
  // 67,107,840 B: 80 shares of 209,712 floats.
  const auto gathered =
      opsim("collective --op all_gather --topology ib-cluster:10x8 --sizes 64MiB --format csv");
  ASSERT_EQ(gathered.exit_code, 0) << gathered.err;
  EXPECT_NE(gathered.out.find(",80,auto,67107840,209712,"), std::string::npos) << gathered.out;
  // The same table ran -d double: its size and count columns, row by row.
  const auto doubles = opsim(
      "collective --op all_gather --topology ib-cluster:10x8 --sizes 32MiB:128MiB --dtype double "
      "--format csv");
  ASSERT_EQ(doubles.exit_code, 0) << doubles.err;
  for (const char* row : {",33553920,52428,", ",67107840,104856,", ",134216960,209714,"})
    EXPECT_NE(doubles.out.find(row), std::string::npos) << row << "\n" << doubles.out;
  const auto reduced = opsim("collective --topology dgx-h100 --sizes 27B --format json");
  ASSERT_EQ(reduced.exit_code, 0) << reduced.err;
  const auto result = nlohmann::json::parse(reduced.out)["results"][0];
  EXPECT_EQ(result["bytes"], 24) << reduced.out;  // whole floats
  EXPECT_EQ(result["count"], 6) << reduced.out;
  EXPECT_DOUBLE_EQ(result["algbw_GBps"].get<double>(), 24 / result["time_s"].get<double>() / 1e9);
}

TEST(CliCollective, SizesThatHoldNoWholeUnitAreLeftOutWithANote) {
  // 8 ranks of 16 bytes each: 128 B is the least all_gather on 8 GPUs that moves data.
  const auto some = opsim("collective --op all_gather --topology dgx-h100 --sizes 8B:1KiB");
  ASSERT_EQ(some.exit_code, 0) << some.err;
  EXPECT_NE(some.err.find("below 128 B runs as 0 bytes; left out: 4 sizes"), std::string::npos)
      << some.err;
  for (const char* row : {"\n     128             4 ", "\n    1024            32 "})
    EXPECT_NE(some.out.find(row), std::string::npos) << row << "\n" << some.out;
  EXPECT_EQ(some.out.find("\n       8 "), std::string::npos) << some.out;

  const auto none = opsim("collective --op all_gather --topology dgx-h100 --sizes 8B:64B");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(std::count(none.err.begin(), none.err.end(), '\n'), 1) << none.err;
  EXPECT_NE(none.err.find("give sizes from 128 B"), std::string::npos) << none.err;
}

TEST(CliCollective, TracesGoToTheTraceDirectory) {
  const fs::path dir = opsim::test::scratch_dir("opsim_collective_test") / "traces";
  fs::remove_all(dir);
  const auto r = opsim(
      "collective --op reduce_scatter --topology nvlink-ring:4 --sizes 4MB "
      "--trace-dir " +
      dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "reduce_scatter-auto-4000000.json"));
}

TEST(CliCollective, BadFlagsAreOneLineAndExit2) {
  const char* bad[] = {
      "collective --op allgather",
      "collective --op broadcast --algorithm tree",
      "collective --algorithm ring,nvls",
      "collective --topology dgx-a100 --algorithm nvls",
      "collective --topology dgx-h100 --algorithm nvls --protocol LL",
      "collective --topology dgx-h100 --algorithm hierarchical",
      "collective --protocol LL256",
      "collective --protocol LL,LL",
      "collective --protocol LL,",
      "collective --gpus-per-thread 5",
      "collective --gpus-per-thread 0",
      "collective --set collectives.ll_efficiency=2",
      "collective --set collectives.ring_ll_nvlink_step=-1us",
      "collective --set collectives.no_such_key=1",
      "collective --op all_to_all --algorithm ring",
      "collective --op allreduce --algorithm direct",
      "collective --sizes 8X:1GB",
      "collective --sizes 1GB:8B",
      "collective --sizes 0:8B",
      "collective --sizes 8B:",
      "collective --factor 1",
      "collective --factor 0.5",
      "collective --factor two",
      "collective --sizes 1B:1GB --factor 1.0001",
      "collective --gpus-per-server 0",
      "collective --topology ib-cluster:3x2 --gpus-per-server 3",
      "collective --topology ib-cluster:3x2 --gpus-per-server 1 --gpus 4",
      "collective --topology dgx-h100 --gpus-per-server 1",
      "collective --gpus 1",
      "collective --gpus 5",
      "collective --topology nvlink-ring:4 --gpus 8",
      "collective --topology no-such-machine",
      "collective --topology desktop-1gpu",
      "collective --format xml",
      "collective --dtype bf16",
      "collective --op sendrecv --sizes 1B --dtype half",
      "collective --trace-dir /proc/opsim",
  };
  for (const char* args : bad) {
    SCOPED_TRACE(args);
    const auto r = opsim(args);
    expect_one_line_exit_2(r);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace
