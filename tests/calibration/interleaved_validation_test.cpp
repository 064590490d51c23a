// Interleaved validation: real runs in rounds between calibration passes, each round
// simulated on the samples beside it, the median round reported.
#include "experiments/calibration/interleaved_validation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "experiments/calibration/calibration.hpp"

namespace opsim::calibration {
namespace {

// A base profile whose elementwise rate (1 MB/s) no machine has: a simulation that used it
// would take seconds for this workload's 4 MB.
Machine slow_base() {
  ProfileInputs in;
  in.hardware_threads = 2;
  in.compute_streams = 2;
  in.gemm_flops_per_s_per_stream = 50e9;
  in.elementwise_bytes_per_s = 1e6;
  in.memcpy_bytes_per_s = 8e9;
  in.first_access_s = 100e-9;
  in.disk_read_bytes_per_s = in.disk_write_bytes_per_s = 1e9;
  in.disk_access_s = in.disk_random_read_s = 100e-6;
  in.dispatch_s = 2e-6;
  return build_profile(in, "calibrated-slow");
}

WorkloadFile chain() {
  return load_workload_file(OPSIM_SOURCE_DIR "/tests/calibration/data/elementwise-chain.json");
}

TEST(Calibrator, PassesTakeOneSampleEachAndReportsPickThem) {
  const Machine base = slow_base();
  CalibrationOptions options;
  options.quick = true;
  options.only = {"elementwise"};
  options.base = &base;
  Calibrator calibrator(options);
  // 32 MiB, 2 MiB, 8 MiB passes (quick), and each core's speed where there are several.
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  ASSERT_EQ(calibrator.parameter_count(), 3u + (hw > 1 ? hw : 0u));
  EXPECT_EQ(calibrator.take_pass(), 0u);
  EXPECT_EQ(calibrator.take_pass(), 1u);
  EXPECT_EQ(calibrator.take_pass(), 2u);
  const CalibrationReport all = calibrator.report();
  const CalibrationReport second = calibrator.report(1, 2);
  for (std::size_t i = 0; i < all.measurements.size(); ++i) {
    ASSERT_EQ(all.measurements[i].samples.size(), 3u);
    ASSERT_EQ(second.measurements[i].samples.size(), 1u);
    EXPECT_EQ(second.measurements[i].samples[0], all.measurements[i].samples[1]);
    EXPECT_EQ(second.measurements[i].value, all.measurements[i].samples[1]);
    if (all.measurements[i].unit == "bytes/s")
      EXPECT_GT(all.measurements[i].value, 1e8);  // any machine passes 100 MB/s
    else
      EXPECT_GT(all.measurements[i].value, 0.1);  // a core's speed against the mean core's
  }
  // The profile takes the samples' rate, not the base's 1 MB/s.
  const CpuModel& cpu = second.machine.device(*second.machine.find_device("cpu0")).cpu;
  ASSERT_FALSE(cpu.memory_pass_rates.empty());
  EXPECT_EQ(cpu.memory_pass_rates.back().bytes_per_s,
            second.get({MeasurementId::kElementwise}).samples[0]);
  ASSERT_EQ(cpu.core_pass_speeds.size(), hw > 1 ? hw : 0u);
  for (unsigned c = 0; c < cpu.core_pass_speeds.size(); ++c)
    EXPECT_EQ(cpu.core_pass_speeds[c],
              second.get({MeasurementId::kCoreSpeedElementwise, 0, static_cast<int>(c)}).value);
  EXPECT_THROW((void)calibrator.report(3, 4), std::logic_error);  // no such samples
}

TEST(InterleavedValidation, RoundsAreSimulatedOnFreshSamplesAndTheMedianRoundReported) {
  InterleavedOptions options;
  options.rounds = 3;
  options.quick_calibration = true;
  options.validation.repeats = 6;  // 2 per round
  std::vector<std::size_t> steps;
  options.on_progress = [&](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 7u);  // 4 calibration passes, 3 rounds of real runs
    steps.push_back(done);
  };
  const ValidationResult r = validate_interleaved(chain(), slow_base(), options);
  EXPECT_EQ(steps, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(r.rounds.size(), 3u);
  EXPECT_EQ(r.real_samples_s.size(), 6u);
  for (const RoundComparison& round : r.rounds) {
    EXPECT_GT(round.real_s, 0);
    // 4 MB at the measured rate (GB/s), not at the base's 1 MB/s (4 s).
    EXPECT_LT(round.simulated_s, 0.1);
    EXPECT_GT(round.simulated_s, 0);
    EXPECT_DOUBLE_EQ(round.error, relative_error(round.real_s, round.simulated_s));
    // What the round was simulated with: the elementwise group's measurements (quick: 2
    // working sets and 128 MiB), and each core's speed where there are several.
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    ASSERT_EQ(round.measured.size(), 3u + (hw > 1 ? hw : 0u));
    EXPECT_EQ(round.measured[0].first, "elementwise 1 thread");
    EXPECT_GT(round.measured[0].second, 1e8);
  }
  // The reported figures are the median round's, consistent with each other.
  std::vector<double> errors;
  for (const RoundComparison& round : r.rounds) errors.push_back(round.error);
  std::sort(errors.begin(), errors.end());
  EXPECT_DOUBLE_EQ(r.makespan_error, errors[1]);
  EXPECT_DOUBLE_EQ(r.makespan_error, relative_error(r.real_s, r.simulated_s));
  EXPECT_EQ(r.real_trace.ops.size(), 4u);
  EXPECT_EQ(r.sim_trace.ops.size(), 4u);
  EXPECT_LT(r.pooled.simulated_s, 0.1);
  const auto doc = to_json(r);
  EXPECT_EQ(doc.at("rounds").size(), 3u);
  EXPECT_TRUE(doc.at("rounds")[0].at("measured").at("elementwise 1 thread").is_number());
  EXPECT_TRUE(doc.at("pooled").at("error").is_number());

  options.rounds = 0;
  EXPECT_THROW((void)validate_interleaved(chain(), slow_base(), options), std::invalid_argument);
}

}  // namespace
}  // namespace opsim::calibration
