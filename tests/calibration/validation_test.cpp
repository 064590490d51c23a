// Validation: comparing real and simulated runs, the overlay trace, and one real
// validation of a small workload (real GEMM, memcpy, O_DIRECT read) against its simulation.
#include "experiments/calibration/validation.hpp"

#include <gtest/gtest.h>

#include "common/input_error.hpp"
#include "experiments/calibration/calibration.hpp"

namespace opsim::calibration {
namespace {

Trace one_lane_trace(const std::string& backend, std::vector<std::pair<std::string, TimeNs>> ops) {
  Trace t;
  t.backend = backend;
  t.lanes.push_back(TraceLane{"cpu0/compute0", "m", "cpu0", LaneKind::kCompute, 0});
  TimeNs at = 0;
  for (const auto& [cls, dur] : ops) {
    TraceOp op;
    op.name = cls + std::to_string(t.ops.size());
    op.op_class = cls;
    op.start_ns = at;
    op.end_ns = at + dur;
    at += dur;
    t.ops.push_back(op);
  }
  if (t.ops.size() > 1) t.dependencies.emplace_back(0, 1);
  return t;
}

TEST(Validation, ComparesTheMedianRealRunByOpClass) {
  const std::vector<Trace> real = {one_lane_trace("real", {{"gemm", 300}, {"copy", 100}}),
                                   one_lane_trace("real", {{"gemm", 100}, {"copy", 100}}),
                                   one_lane_trace("real", {{"gemm", 200}, {"copy", 100}})};
  const ValidationResult r =
      compare_runs("w", real, one_lane_trace("sim", {{"gemm", 220}, {"copy", 80}}));
  EXPECT_DOUBLE_EQ(r.real_s, 300e-9);  // median of 400, 200, 300 ns
  EXPECT_DOUBLE_EQ(r.simulated_s, 300e-9);
  EXPECT_DOUBLE_EQ(r.makespan_error, 0);
  ASSERT_EQ(r.by_op_class.size(), 2u);
  EXPECT_EQ(r.by_op_class[0].op_class, "copy");
  EXPECT_NEAR(r.by_op_class[0].error, -0.2, 1e-12);
  EXPECT_EQ(r.by_op_class[1].op_class, "gemm");
  EXPECT_DOUBLE_EQ(r.by_op_class[1].real_s, 200e-9);  // from the median run's trace
  EXPECT_NEAR(r.by_op_class[1].error, 0.1, 1e-12);
  const auto json = to_json(r);
  EXPECT_EQ(json.at("workload"), "w");
  EXPECT_EQ(json.at("by_op_class").size(), 2u);
  EXPECT_TRUE(json.at("by_op_class")[0].contains("class"));
}

TEST(Validation, RoundsThatAllMissOneWayBeyondTheNoiseAreNamed) {
  ValidationResult r;
  r.real_iqr = 0.05;
  auto with_errors = [&](std::vector<double> errors) {
    r.rounds.clear();
    for (double e : errors) r.rounds.push_back({1.0, 1.0 + e, e, {}});
    return rounds_one_way(r);
  };
  EXPECT_EQ(with_errors({-0.30, -0.12, -0.40}), -1);
  EXPECT_EQ(with_errors({0.08, 0.20, 0.06, 0.11}), +1);
  EXPECT_EQ(with_errors({-0.30, 0.12, -0.40}), 0);   // both ways: noise between them
  EXPECT_EQ(with_errors({-0.30, -0.04, -0.40}), 0);  // one round within the runs' own noise
  EXPECT_EQ(with_errors({-0.30, -0.40}), 0);         // too few rounds to tell
  EXPECT_EQ(with_errors({}), 0);
  EXPECT_EQ(to_json(r).count("rounds_one_way"), 0u);  // not interleaved: no rounds
  (void)with_errors({-0.30, -0.12, -0.40});
  EXPECT_EQ(to_json(r).at("rounds_one_way"), -1);
}

TEST(Validation, OverlayInterleavesRealAndSimulatedLanes) {
  const Trace real = one_lane_trace("real", {{"gemm", 300}, {"copy", 100}});
  const Trace sim = one_lane_trace("sim", {{"gemm", 250}});
  const Trace o = overlay_traces(real, sim);
  ASSERT_EQ(o.lanes.size(), 2u);
  EXPECT_EQ(o.lanes[0].name, "real cpu0/compute0");
  EXPECT_EQ(o.lanes[1].name, "sim cpu0/compute0");
  ASSERT_EQ(o.ops.size(), 3u);
  EXPECT_EQ(o.ops[2].lane, 1u);
  EXPECT_EQ(o.ops[2].name, "sim gemm0");
  EXPECT_EQ(o.dependencies.size(), 1u);
}

TEST(Validation, WindowComesFromTheOptionOrTheWorkload) {
  const WorkloadFile w = parse_workload_json(
      R"({"max_in_flight": 3, "ops": [{"name": "a", "kind": "dispatch", "device": "cpu0", "seconds": "1us"}]})",
      "w.json");
  EXPECT_EQ(effective_max_in_flight(w, 0), 3u);
  EXPECT_EQ(effective_max_in_flight(w, 5), 5u);
  // A bad window is refused when the file is read, before anything runs.
  EXPECT_THROW(
      parse_workload_json(
          R"({"max_in_flight": -1, "ops": [{"name": "a", "kind": "dispatch", "device": "cpu0", "seconds": "1us"}]})",
          "bad.json"),
      InputError);
}

TEST(Validation, SmallWorkloadRunsForRealAndSimulated) {
  ProfileInputs in;
  in.hardware_threads = 2;
  in.compute_streams = 2;
  in.gemm_flops_per_s_per_stream = 50e9;
  in.elementwise_bytes_per_s = 16e9;
  in.memcpy_bytes_per_s = 8e9;
  in.first_access_s = 100e-9;
  in.disk_read_bytes_per_s = in.disk_write_bytes_per_s = 1e9;
  in.disk_access_s = in.disk_random_read_s = 100e-6;
  in.dispatch_s = 2e-6;
  const Machine profile = build_profile(in, "calibrated-test");
  const WorkloadFile w = load_workload_file(OPSIM_SOURCE_DIR "/tests/calibration/data/small.json");
  ValidationOptions options;
  options.repeats = 2;
  const ValidationResult r = validate_workload(w, profile, options);
  EXPECT_EQ(r.real_samples_s.size(), 2u);
  EXPECT_GT(r.real_s, 0);
  // Simulated: read 4 MB (100 us + 4 ms) beside gemm (0.67 ms) + copy 1 ms, then the
  // elementwise pass (8 MB at 16 GB/s = 0.5 ms).
  EXPECT_NEAR(r.simulated_s, 100e-6 + 4e-3 + 0.5e-3, 2e-6);
  EXPECT_EQ(r.real_trace.ops.size(), 4u);
  EXPECT_EQ(r.sim_trace.ops.size(), 4u);
  EXPECT_EQ(r.real_trace.backend, "real");
  EXPECT_EQ(r.sim_trace.backend, "sim");
  std::vector<std::string> classes;
  for (const auto& c : r.by_op_class) classes.push_back(c.op_class);
  EXPECT_EQ(classes, (std::vector<std::string>{"copy", "disk_read", "elementwise", "gemm"}));
  EXPECT_GE(r.real_iqr, 0);

  // A minimum time adds runs beyond `repeats`: 30 times what the two runs above took (about
  // 5 ms each on an idle machine, several times that on a loaded one), so more runs unless
  // each became 15 times slower (at 8 times, a load spike on a 2-core machine sometimes made
  // the two runs enough).
  double first_s = 0;
  for (double s : r.real_samples_s) first_s += s;
  options.min_real_s = 30 * first_s;
  const ValidationResult more = validate_workload(w, profile, options);
  double total_s = 0;
  for (double s : more.real_samples_s) total_s += s;
  EXPECT_GT(more.real_samples_s.size(), 2u);
  EXPECT_GE(total_s, options.min_real_s);
  // It stops at the run that reaches the minimum: without the last, the runs fall short.
  EXPECT_LT(total_s - more.real_samples_s.back(), options.min_real_s);
}

}  // namespace
}  // namespace opsim::calibration
