// End to end: `opsim calibrate --quick` writes a profile that load_topology_file reads and
// `opsim sim` accepts; `opsim validate` prints the JSON schema and writes three traces; bad
// input is one line on stderr and exit code 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/chrome_trace_reader.hpp"
#include "engine/exec/real_backend.hpp"
#include "experiments/calibration/calibration.hpp"
#include "experiments/calibration/cpu_topology.hpp"
#include "experiments/calibration/memcpy_sizes.hpp"
#include "tests/support/opsim_command.hpp"
#include "topologies/topology_yaml.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;
using opsim::test::slurp;

fs::path scratch_dir() {
  return opsim::test::scratch_dir("opsim_calibration_cli");
}

CommandResult opsim(const std::string& args) {
  return opsim::test::run_opsim(args, scratch_dir());
}

std::string data(const char* name) {
  return std::string(OPSIM_SOURCE_DIR) + "/tests/calibration/data/" + name;
}

// A profile with fixed numbers, so validate tests do not calibrate.
std::string fixed_profile() {
  opsim::calibration::ProfileInputs in;
  in.hardware_threads = 2;
  in.compute_streams = 2;
  in.gemm_flops_per_s_per_stream = 50e9;
  in.elementwise_bytes_per_s = 16e9;
  in.memcpy_bytes_per_s = 8e9;
  in.first_access_s = 100e-9;
  in.disk_read_bytes_per_s = in.disk_write_bytes_per_s = 1e9;
  in.disk_access_s = in.disk_random_read_s = 100e-6;
  in.dispatch_s = 2e-6;
  const std::string path = (scratch_dir() / "fixed.yaml").string();
  opsim::save_topology_file(opsim::calibration::build_profile(in, "calibrated-fixed"), path);
  return path;
}

// Busy seconds of one op class in `opsim sim WORKLOAD` on the fixed profile, with `sets`.
double simulated_busy_s(const std::string& workload, const std::string& op_class,
                        const std::string& sets) {
  const auto r =
      opsim("sim " + workload + " --topology " + fixed_profile() + sets + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  for (const auto& c : doc.at("by_op_class"))
    if (c.at("class").get<std::string>() == op_class) return c.at("busy_s").get<double>();
  ADD_FAILURE() << "no " << op_class << " class in " << r.out;
  return 0.0;
}

TEST(CalibrationCli, WhatIfSlowsDiskReadsBesideBusyCores) {
  // small.json reads 4 MB (4 ms at 1 GB/s) while a GEMM of 256 runs (0.7 ms at 50 GFLOP/s):
  // at half speed beside it, the read takes about 0.35 ms longer; with no compute, as long.
  auto read_s = [](const std::string& sets) {
    return simulated_busy_s(data("small.json"), "disk_read", sets);
  };
  const double alone_s = read_s("");
  const double slowed_s = read_s(" --set cpu0.disk_read_speed_one_busy=0.5");
  EXPECT_NEAR(alone_s, 4.1e-3, 1e-6);  // and a 100 us access
  EXPECT_GT(slowed_s - alone_s, 0.2e-3);
  EXPECT_LT(slowed_s - alone_s, 0.5e-3);
  EXPECT_EQ(read_s(" --set cpu0.disk_write_speed_one_busy=0.5"), alone_s);  // writes only
}

TEST(CalibrationCli, WhatIfSetsEachCoresSpeed) {
  // One pass on compute stream 0, which runs on core 0 (two compute streams, two cores).
  const fs::path workload = scratch_dir() / "one_pass.json";
  std::ofstream(workload) << R"({"name": "one-pass", "ops": [{"name": "pass", "kind": "compute",
      "device": "cpu0", "kernel": "elementwise", "bytes": "160MB", "stream": 0}]})";
  auto pass_s = [&](const std::string& sets) {
    return simulated_busy_s(workload.string(), "elementwise", sets);
  };
  const double mean_core_s = pass_s("");
  EXPECT_NEAR(pass_s(" --set cpu0.core_pass_speeds=0.5,1.5") / mean_core_s, 2.0, 0.02);
  EXPECT_NEAR(pass_s(" --set cpu0.core_pass_speeds=1,0.5") / mean_core_s, 1.0, 0.02);    // core 1
  EXPECT_NEAR(pass_s(" --set cpu0.core_copy_speeds=0.5,0.5") / mean_core_s, 1.0, 0.02);  // copies
}

TEST(CalibrationCli, WhatIfGpuFlopsScalesTheRatesBySize) {
  // A GEMM of 512 runs at its size's rate (10 of the 40 TFLOP/s peak); doubling the GPU's
  // flops doubles every size's rate.
  const fs::path profile = scratch_dir() / "sgemm_rates.yaml";
  std::ofstream(profile) << R"(name: sgemm-rates
devices:
  - {name: cpu0, kind: cpu}
  - {name: gpu0, kind: gpu, fp32_peak: 40TFLOPS, efficiency: 1, launch_latency: 0,
     sgemm_rates: [{n: 512, rate: 10TFLOPS}, {n: 2048, rate: 40TFLOPS}]}
links:
  - {between: [gpu0, cpu0], type: pcie}
)";
  const fs::path workload = scratch_dir() / "gemm512.json";
  std::ofstream(workload) << R"({"name": "gemm512", "ops": [{"name": "mm", "kind": "compute",
      "device": "gpu0", "gemm": {"m": 512, "n": 512, "k": 512}}]})";
  auto gemm_s = [&](const std::string& sets) {
    const auto r = opsim("sim " + workload.string() + " --topology " + profile.string() + sets +
                         " --format json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out).at("makespan_s").get<double>();
  };
  EXPECT_NEAR(gemm_s(""), 2.0 * 512 * 512 * 512 / 10e12, 1e-7);
  EXPECT_NEAR(gemm_s(" --set gpu0.fp32_peak=80TFLOPS"), 2.0 * 512 * 512 * 512 / 20e12, 1e-7);
}

TEST(CalibrationCli, QuickCalibrationWritesAProfileTheSimulatorAccepts) {
  const std::string out = (scratch_dir() / "profile.yaml").string();
  const std::string previous = fixed_profile();
  const auto r = opsim("calibrate --quick --format json --out " + out + " --against " + previous);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  // Repeatability: every profile parameter against the previous profile, those more than 5%
  // apart named.
  const auto& against = doc.at("against");
  EXPECT_EQ(against.at("profile"), previous);
  EXPECT_GE(against.at("parameters").size(), 12u);
  std::vector<std::string> differ;
  for (const auto& p : against.at("parameters")) {
    const double change = p.at("now").get<double>() / p.at("previous").get<double>() - 1;
    EXPECT_NEAR(p.at("change").get<double>(), change, 1e-9) << p.at("name");
    EXPECT_EQ(p.at("differs").get<bool>(), std::abs(change) > 0.05) << p.at("name");
    if (p.at("differs").get<bool>()) differ.push_back(p.at("name"));
  }
  EXPECT_EQ(against.at("differ").get<std::vector<std::string>>(), differ);
  // 2 GEMM sizes x 2 thread counts + one on every core + 16 (one a GEMM beside a busy wait),
  // + elementwise at 2 and 8 MiB
  // (quick: 32 MiB buffers), + memcpy at 8 MiB (and either side of glibc's non-temporal
  // threshold where it lies below 32 MiB), one stream and two at once, + a disk read's and a
  // write's speed beside one busy core and beside every core busy (only the latter on one core), +
  // each core's elementwise, memcpy and GEMM speed where there are several, + the GPU's where
  // usable.
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::size_t cpu_and_disk = 0;
  std::map<std::string, double> value;
  for (const auto& m : doc.at("measurements")) {
    const std::string name = m.at("name").get<std::string>();
    cpu_and_disk += name.rfind("gpu ", 0) == 0 ? 0 : 1;
    value[name] = m.at("value").get<double>();
    // A core's speed has one sample per repeat, each from the rates of that repeat.
    if (name.find(" speed on core ") != std::string::npos) {
      EXPECT_EQ(m.at("samples").size(), 3u) << name;  // quick: 3 repeats
      for (const auto& sample : m.at("samples")) {
        EXPECT_GT(sample.get<double>(), 0.2) << name;
        EXPECT_LT(sample.get<double>(), 5.0) << name;
      }
    }
  }
  EXPECT_EQ(cpu_and_disk,
            23u + (hw > 1 ? 4u + 3u * hw : 2u) +
                2 * opsim::calibration::memcpy_calibration_sizes(
                        32u << 20, opsim::calibration::memcpy_non_temporal_threshold_bytes())
                        .size());
  // Disk I/O takes some of the busy cores (a VM) or none, never more than all of them.
  EXPECT_GE(value.at("disk I/O cores beside busy cores"), 0.0);
  EXPECT_LE(value.at("disk I/O cores beside busy cores"), std::thread::hardware_concurrency());
  EXPECT_TRUE(doc.at("noisy").is_array());
  const opsim::Machine m = opsim::load_topology_file(out);
  EXPECT_EQ(m.name().rfind("calibrated-", 0), 0u);
  // The memory-bound rates by working set reach the profile, smallest set first.
  const opsim::CpuModel& cpu = m.device(*m.find_device("cpu0")).cpu;
  // One compute stream per physical core (the kernel's topology), however the GEMMs ran: a
  // profile calibrated in a noisy minute runs the same streams as one in a calm minute.
  EXPECT_EQ(
      cpu.compute_streams,
      std::clamp(
          opsim::calibration::physical_cores(opsim::allowed_cpus()).value_or(static_cast<int>(hw)),
          1, static_cast<int>(hw)));
  // Each core's speed against the mean core's: one factor per core, near 1 on a calm host.
  for (const std::vector<double>* speeds :
       {&cpu.core_pass_speeds, &cpu.core_copy_speeds, &cpu.core_gemm_speeds}) {
    EXPECT_EQ(speeds->size(), hw > 1 ? hw : 0u);
    for (const double speed : *speeds) {
      EXPECT_GT(speed, 0.2);
      EXPECT_LT(speed, 5.0);
    }
  }
  // Two streams' memcpy at once, by size: the quick plan's sizes up to its 32 MiB, the largest
  // the plain two-stream rate.
  ASSERT_EQ(cpu.copies_together_rates.size(), cpu.copy_stream_rates.size());
  EXPECT_EQ(cpu.copies_together_rates.back().working_set_bytes, 32.0 * (1 << 20));
  EXPECT_EQ(cpu.copies_together_rates.back().bytes_per_s, value.at("memcpy 2 streams"));
  EXPECT_EQ(cpu.copies_together_rates.front().bytes_per_s, value.at("memcpy 2 streams 8 MiB"));
  // With one BLAS thread per stream, each one's speed while all are busy is what one GEMM
  // got with every core running one, against one GEMM alone (quick: the 512 ones).
  ASSERT_EQ(value.count("gemm 512 on every core at once"), 1u);
  if (cpu.cores > 1 && cpu.cores / cpu.compute_streams == 1) {
    const double busy =
        std::clamp(value.at("gemm 512 on every core at once") / value.at("gemm 512 x1 thread"),
                   1.0 / cpu.cores, 1.0);
    EXPECT_NEAR(cpu.all_streams_busy_speed, busy, 1e-6);
  } else {
    EXPECT_EQ(cpu.all_streams_busy_speed, 1.0);
  }
  // What a stream keeps beside the program's busy-waiting dispatch: the GEMM's measured
  // speed beside a busy wait, within [1 / cores, 1].
  EXPECT_NEAR(cpu.beside_dispatch_speed,
              std::clamp(value.at("host dispatch's neighbour speed"), 1.0 / cpu.cores, 1.0), 1e-6);
  // A disk transfer's speed beside busy cores: as measured, within [0.01, 1]; on one core the
  // every-core figure stands for one busy core too.
  const auto speed = [&](const std::string& name) { return std::clamp(value.at(name), 0.01, 1.0); };
  EXPECT_NEAR(cpu.disk_read_speed_all_busy, speed("disk sequential read beside every core busy"),
              1e-6);
  EXPECT_NEAR(cpu.disk_write_speed_all_busy, speed("disk sequential write beside every core busy"),
              1e-6);
  EXPECT_NEAR(cpu.disk_read_speed_one_busy,
              speed(hw > 1 ? "disk sequential read beside one busy core"
                           : "disk sequential read beside every core busy"),
              1e-6);
  ASSERT_EQ(cpu.memory_pass_rates.size(), 3u);
  EXPECT_EQ(cpu.memory_pass_rates[0].working_set_bytes, 2.0 * (1 << 20));
  EXPECT_EQ(cpu.memory_pass_rates[2].working_set_bytes, 32.0 * (1 << 20));
  for (const auto& rate : cpu.memory_pass_rates) EXPECT_GT(rate.bytes_per_s, 1e8);
  const auto sim = opsim("sim " + data("small.json") + " --topology " + out + " --format json");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_GT(nlohmann::json::parse(sim.out).at("makespan_s").get<double>(), 0);
}

TEST(CalibrationCli, SuiteRoundsReportEachWorkloadsErrorOverTheRounds) {
  // Two workloads, two rounds on one profile: every round's error, their median per workload,
  // and the summary over the medians.
  const fs::path suite = scratch_dir() / "rounds-suite";
  fs::create_directories(suite);
  fs::copy_file(data("small.json"), suite / "a.json", fs::copy_options::overwrite_existing);
  std::ofstream(suite / "b.json") << [] {
    std::string text = slurp(data("small.json"));
    text.replace(text.find("\"small\""), 7, "\"small-b\"");
    return text;
  }();
  const auto r = opsim("validate --suite " + suite.string() + " --profile " + fixed_profile() +
                       " --rounds 2 --repeats 2 --min-time 0 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("rounds"), 2);
  ASSERT_EQ(doc.at("workloads").size(), 2u);
  std::vector<double> medians;
  double worst_any = 0;
  for (const auto& w : doc.at("workloads")) {
    const auto errors = w.at("errors").get<std::vector<double>>();
    ASSERT_EQ(errors.size(), 2u) << w.at("workload");
    EXPECT_NEAR(w.at("median_error").get<double>(), (errors[0] + errors[1]) / 2, 1e-12);
    medians.push_back(std::abs(w.at("median_error").get<double>()));
    for (double e : errors) worst_any = std::max(worst_any, std::abs(e));
  }
  EXPECT_EQ(doc.at("workloads")[1].at("workload"), "small-b");
  EXPECT_NEAR(doc.at("worst_abs_error").get<double>(), std::max(medians[0], medians[1]), 1e-12);
  EXPECT_NEAR(doc.at("median_abs_error").get<double>(), (medians[0] + medians[1]) / 2, 1e-12);
  EXPECT_NEAR(doc.at("worst_abs_error_any_round").get<double>(), worst_any, 1e-12);
}

TEST(CalibrationCli, InterleavedValidationReportsEveryRound) {
  // Real runs in rounds between calibration passes over what the workload uses (here the
  // elementwise passes); every round in the JSON, the median round in the table.
  const fs::path suite = scratch_dir() / "interleaved-suite";
  fs::create_directories(suite);
  fs::copy_file(data("elementwise-chain.json"), suite / "chain.json",
                fs::copy_options::overwrite_existing);
  const auto r = opsim("validate --suite " + suite.string() + " --profile " + fixed_profile() +
                       " --interleave 2 --repeats 2 --min-time 0 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("interleave_rounds"), 2);
  ASSERT_EQ(doc.at("workloads").size(), 1u);
  const auto& w = doc.at("workloads")[0];
  ASSERT_EQ(w.at("rounds").size(), 2u);
  EXPECT_EQ(w.at("real_samples_s").size(), 2u);
  const double lower = std::min(w.at("rounds")[0].at("error").get<double>(),
                                w.at("rounds")[1].at("error").get<double>());
  EXPECT_DOUBLE_EQ(w.at("makespan_error").get<double>(), lower);  // of two, the lower middle

  const auto table = opsim("validate " + data("elementwise-chain.json") + " --profile " +
                           fixed_profile() + " --interleave 1 --repeats 1 --min-time 0");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("interleaved: the median of 1 round(s) of real runs between calibration "
                           "passes; each round's error: "),
            std::string::npos)
      << table.out;
}

TEST(CalibrationCli, ValidatePrintsJsonAndWritesThreeTraces) {
  const fs::path traces = scratch_dir() / "traces";
  const auto r = opsim("validate " + data("small.json") + " --profile " + fixed_profile() +
                       " --repeats 2 --format json --trace-dir " + traces.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("workload"), "small");
  EXPECT_GT(doc.at("real_s").get<double>(), 0);
  EXPECT_GT(doc.at("simulated_s").get<double>(), 0);
  EXPECT_TRUE(doc.at("makespan_error").is_number());
  EXPECT_GE(doc.at("real_iqr").get<double>(), 0);
  ASSERT_EQ(doc.at("by_op_class").size(), 4u);
  for (const auto& c : doc.at("by_op_class")) {
    EXPECT_TRUE(c.at("class").is_string());
    EXPECT_TRUE(c.at("real_s").is_number());
    EXPECT_TRUE(c.at("simulated_s").is_number());
    EXPECT_TRUE(c.at("error").is_number());
  }
  const opsim::Trace real = opsim::read_chrome_trace((traces / "small.real.json").string());
  const opsim::Trace sim = opsim::read_chrome_trace((traces / "small.sim.json").string());
  const opsim::Trace overlay = opsim::read_chrome_trace((traces / "small.overlay.json").string());
  EXPECT_EQ(real.ops.size(), 4u);
  EXPECT_EQ(sim.ops.size(), 4u);
  EXPECT_EQ(overlay.ops.size(), 8u);
  EXPECT_EQ(overlay.lanes.size(), real.lanes.size() + sim.lanes.size());
  EXPECT_EQ(overlay.lanes.front().name.rfind("real ", 0), 0u);
}

TEST(CalibrationCli, BadInputIsOneLineAndExitCode2) {
  const std::string profile = fixed_profile();
  const std::vector<std::string> bad = {
      "validate " + data("missing.json") + " --profile " + profile,
      "validate " + data("small.json") + " --profile " + profile + " --format xml",
      "validate " + data("bad_window.json") + " --profile " + profile,
      "validate " + data("small.json") + " --profile " + data("small.json"),
      "validate --profile " + profile,
      "calibrate --quick --repeats -1",
      "calibrate --quick --statistic mean",
      "calibrate --quick --against " + data("missing.yaml"),
      "calibrate --quick --against " + data("small.json"),
      "validate " + data("small.json") + " --profile " + profile + " --statistic mean",
      "validate --suite " + data("small.json") + " --profile " + profile,
      "validate " + data("small.json") + " --profile " + profile + " --min-time -1",
      "validate " + data("small.json") + " --profile " + profile + " --rounds 2",
      "validate --suite " + data("") + " --profile " + profile + " --rounds 0",
      "validate --suite " + data("") + " --profile " + profile + " --rounds 2 --interleave 2",
      "validate " + data("small.json") + " --profile " + profile + " --interleave -1",
  };
  for (const std::string& args : bad) {
    const auto r = opsim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    ASSERT_FALSE(r.err.empty()) << args;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": " << r.err;
  }
}

}  // namespace
