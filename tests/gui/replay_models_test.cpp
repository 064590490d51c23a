// The parts of showing a replay that need no window: telling a PyTorch trace from opsim's
// own, pairing an overlay's ops, the hover text of a pair, the step report and its table.
#include <gtest/gtest.h>

#include <string>

#include "gui/op_twins.hpp"
#include "gui/replay_steps.hpp"
#include "gui/step_error_model.hpp"
#include "gui/trace_format.hpp"
#include "gui/twin_tooltip.hpp"

namespace opsim::gui {
namespace {

TEST(TraceFormat, TellsKinetoFromOpsimByWhatComesFirst) {
  EXPECT_EQ(trace_format_of(R"({"otherData":{"opsim":{"version":1}},"traceEvents":[]})"),
            TraceFormat::kOpsim);
  EXPECT_EQ(trace_format_of(R"({"schemaVersion": 1, "traceEvents": [)"), TraceFormat::kKineto);
  EXPECT_EQ(trace_format_of(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k")"),
            TraceFormat::kKineto);
  // Undecided (another tool's trace, or not a trace): the Chrome importer reads it and says
  // what is wrong; a gzip header alone is undecided too (gzip is told by its content).
  EXPECT_EQ(trace_format_of(std::string("\x1f\x8b\x08\x00", 4)), TraceFormat::kChrome);
  EXPECT_EQ(trace_format_of(R"({"traceEvents": [{"ph": "X", "cat": "gemm"}]})"),
            TraceFormat::kChrome);
  EXPECT_EQ(trace_format_of(R"({"foo": 1})"), TraceFormat::kChrome);
  EXPECT_EQ(trace_format_of("not json"), TraceFormat::kChrome);
  EXPECT_EQ(trace_format_of(""), TraceFormat::kChrome);
}

TraceOp op(std::string name, TimeNs start_ns, TimeNs end_ns, std::uint32_t lane) {
  TraceOp o;
  o.name = std::move(name);
  o.start_ns = start_ns;
  o.end_ns = end_ns;
  o.lane = lane;
  return o;
}

// Recorded ops then the same ops replayed, as overlay_traces() writes them.
Trace overlay() {
  Trace t;
  t.lanes = {{"real r0 stream 7", "rank0", "gpu0", LaneKind::kCompute, 0},
             {"sim r0 stream 7", "rank0", "gpu0", LaneKind::kCompute, 0}};
  t.ops = {op("real gemm", 1000, 21000, 0), op("real relu", 21000, 26000, 0),
           op("sim gemm", 1500, 21500, 1), op("sim relu", 22000, 26000, 1)};
  return t;
}

TEST(OpTwins, PairsTheRecordedHalfWithTheReplayedHalf) {
  const Trace t = overlay();
  const auto twins = OpTwins::of(t);
  ASSERT_NE(twins, nullptr);
  EXPECT_EQ(twins->pairs(), 2u);
  EXPECT_EQ(twins->twin(0), 2u);
  EXPECT_EQ(twins->twin(3), 1u);
  EXPECT_EQ(twins->twin(4), std::nullopt);
  EXPECT_TRUE(twins->is_recorded(1));
  EXPECT_FALSE(twins->is_recorded(2));
  const TwinTiming relu = twins->timing(t, 3);  // either op of the pair gives the same
  EXPECT_EQ(relu.recorded_op, 1u);
  EXPECT_EQ(relu.replayed_op, 3u);
  EXPECT_EQ(relu.start_shift_ns(), 1000);
  EXPECT_EQ(relu.duration_change_ns(), -1000);
}

TEST(OpTwins, PairsByNameWhateverTheOrderAndLeavesTheRestUnpaired) {
  Trace t = overlay();
  t.ops[3].name = "sim gelu";     // not the same op: relu and gelu have no twin
  std::swap(t.ops[0], t.ops[1]);  // real relu, real gemm, sim gemm, sim gelu
  const auto twins = OpTwins::of(t);
  ASSERT_NE(twins, nullptr);
  EXPECT_EQ(twins->pairs(), 1u);
  EXPECT_EQ(twins->twin(1), 2u);
  EXPECT_EQ(twins->twin(2), 1u);
  EXPECT_EQ(twins->twin(0), std::nullopt);
  EXPECT_EQ(twins->twin(3), std::nullopt);
  EXPECT_FALSE(twins->is_recorded(0));  // a real op without a twin
}

TEST(OpTwins, OtherTracesHaveNone) {
  Trace t = overlay();
  for (TraceOp& op : t.ops) op.name = op.name.substr(op.name.find(' ') + 1);
  EXPECT_EQ(OpTwins::of(t), nullptr);
  EXPECT_EQ(OpTwins::of(Trace{}), nullptr);
}

TEST(OpTwins, BusyTimePerOpClassOfEachSide) {
  Trace t = overlay();
  t.ops[1].op_class = t.ops[3].op_class = "elementwise";
  const auto classes = OpTwins::class_differences(t);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[1].op_class, "elementwise");
  EXPECT_EQ(classes[1].recorded_busy_ns, 5000);
  EXPECT_EQ(classes[1].replayed_busy_ns, 4000);
  EXPECT_EQ(classes[1].difference_ns(), -1000);
  EXPECT_DOUBLE_EQ(classes[1].relative_difference(), -0.2);
}

TEST(TwinTooltip, SaysBothTimesAndTheDifference) {
  const Trace t = overlay();
  const QString text = twin_tooltip_html(OpTwins::of(t)->timing(t, 1));
  EXPECT_TRUE(text.contains("recorded: start 21.00 us, duration 5.000 us")) << text.toStdString();
  EXPECT_TRUE(text.contains("replayed: start 22.00 us, duration 4.000 us")) << text.toStdString();
  EXPECT_TRUE(text.contains("difference: start +1.000 us, duration -1.000 us (-20.0 %)"))
      << text.toStdString();
}

constexpr const char* kReport = R"({"traces": ["t.json"], "machine": "pcie-switch-1gpu",
  "steps": [{"rank": 0, "name": "ProfilerStep#1", "recorded_s": 0.002, "replayed_s": 0.00202,
             "error": 0.01, "breakdown": {}},
            {"rank": 0, "name": "ProfilerStep#2", "recorded_s": 0.004, "replayed_s": 0.0039,
             "error": -0.025}],
  "median_abs_error": 0.0175, "worst_abs_error": 0.025})";

TEST(ReplaySteps, ReadsTheReplayReport) {
  const ReplaySteps r = parse_replay_steps(kReport, "t.steps.json");
  EXPECT_EQ(r.traces, std::vector<std::string>{"t.json"});
  EXPECT_EQ(r.machine, "pcie-switch-1gpu");
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[1].name, "ProfilerStep#2");
  EXPECT_DOUBLE_EQ(r.steps[1].error, -0.025);
  EXPECT_DOUBLE_EQ(r.median_abs_error, 0.0175);
  try {
    parse_replay_steps(R"({"steps": 3})", "x.steps.json");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()).rfind("x.steps.json: not an opsim replay report", 0), 0u)
        << e.what();
  }
  EXPECT_EQ(replay_steps_path("out/r0.overlay.json"), "out/r0.steps.json");
  EXPECT_EQ(replay_steps_path("out/r0.json"), "");
}

TEST(StepErrorModel, OneRowPerStepOfEachReplay) {
  auto steps = std::make_shared<const ReplaySteps>(parse_replay_steps(kReport, "t"));
  StepErrorModel m;
  m.set_replays({steps, nullptr, steps});
  ASSERT_EQ(m.rowCount(), 4);
  EXPECT_EQ(m.index(2, StepErrorModel::kTrace).data().toString(), "t.json");
  EXPECT_EQ(m.index(0, StepErrorModel::kStep).data().toString(), "ProfilerStep#1");
  EXPECT_EQ(m.index(0, StepErrorModel::kRecorded).data().toString(), "2.000 ms");
  EXPECT_EQ(m.index(0, StepErrorModel::kReplayed).data().toString(), "2.020 ms");
  EXPECT_EQ(m.index(0, StepErrorModel::kError).data().toString(), "+1.00 %");
  EXPECT_EQ(m.index(1, StepErrorModel::kError).data().toString(), "-2.50 %");
  EXPECT_DOUBLE_EQ(m.index(1, StepErrorModel::kError).data(Qt::UserRole).toDouble(), -0.025);
}

}  // namespace
}  // namespace opsim::gui
