// Opening a PyTorch profiler (Kineto) trace in the window, end to end through the real
// `opsim replay` child: recorded and replayed lanes on one axis, each op paired with its
// twin, the per-step error; the overlay `opsim replay --trace-dir` writes opens the same way;
// a file that cannot be opened is named in the window and fails the smoke test.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <string>

#include "gui/main_window.hpp"
#include "gui/timeline_view.hpp"
#include "gui_test_support.hpp"
#include "tests/support/opsim_command.hpp"

namespace opsim::gui {
namespace {

using testing::cli_path;

void write_text(const QString& path, const std::string& text) {
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(text.data(), static_cast<qint64>(text.size()));
}

// One profiler step on one thread launching two kernels on stream 7, then synchronizing.
std::string small_kineto_trace() {
  return R"J({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Test GPU"}],
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 1, "ts": 1000, "dur": 200, "args": {}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 1010, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1020, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 1020, "dur": 5, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 1075, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 100, "tid": 1, "ts": 1030, "dur": 70, "args": {"correlation": 3}}
  ]})J";
}

// Whether the pane shows lanes named with `prefix` ("real ", "sim ").
bool has_lanes(const Pane& pane, const char* prefix) {
  for (const TimelineRow& row : pane.model->rows())
    if (row.kind == RowKind::kLane &&
        pane.model->trace().lanes[row.lane].name.rfind(prefix, 0) == 0)
      return true;
  return false;
}

// The op named `name` ("real r0 gemm_kernel").
using testing::op_named;

// What a replay pane must show: both sides, paired, with the step error.
void expect_replay_pane(MainWindow& w, const Pane& pane) {
  EXPECT_TRUE(has_lanes(pane, "real ")) << pane.title.toStdString();
  EXPECT_TRUE(has_lanes(pane, "sim ")) << pane.title.toStdString();
  ASSERT_NE(pane.twins, nullptr);
  const Trace& t = pane.model->trace();
  const std::uint32_t gemm = op_named(t, "real r0 gemm_kernel");
  ASSERT_TRUE(pane.twins->twin(gemm).has_value());
  EXPECT_EQ(t.ops[*pane.twins->twin(gemm)].name, "sim r0 gemm_kernel");
  const TwinTiming timing = pane.twins->timing(t, gemm);
  EXPECT_EQ(timing.recorded_duration_ns, 50'000);
  EXPECT_EQ(timing.replayed_duration_ns, 50'000);  // recorded kernel times
  ASSERT_NE(pane.steps, nullptr);
  ASSERT_EQ(pane.steps->steps.size(), 1u);
  EXPECT_EQ(pane.steps->steps[0].name, "ProfilerStep#1");
  EXPECT_NEAR(pane.steps->steps[0].recorded_s, 200e-6, 1e-9);
  EXPECT_GT(pane.steps->steps[0].replayed_s, 0);
  const StepErrorModel& steps = w.step_error_model();
  ASSERT_EQ(steps.rowCount(), 1);
  EXPECT_EQ(steps.index(0, StepErrorModel::kStep).data().toString(), "ProfilerStep#1");
  EXPECT_EQ(steps.index(0, StepErrorModel::kRecorded).data().toString(), "0.200 ms");
  EXPECT_TRUE(steps.index(0, StepErrorModel::kError).data().toString().endsWith(" %"));
  // Hovering an op outlines its twin.
  w.view_state().hover_op(OpRef{0, gemm});
  const auto panes = w.timeline()->comparison_panes();
  ASSERT_TRUE(panes[0].decor.twins.has_value());
  EXPECT_EQ(panes[0].decor.twins->second, *pane.twins->twin(gemm));
}

TEST(KinetoReplay, OpensAPyTorchTraceRecordedAgainstReplayed) {
  QTemporaryDir dir;
  const QString trace = dir.filePath(QStringLiteral("step.json"));
  write_text(trace, small_kineto_trace());
  MainWindow w(MainWindow::Options{false, cli_path()});
  w.resize(1500, 950);
  w.show();
  QSignalSpy done(&w, &MainWindow::replay_done);
  EXPECT_TRUE(w.open_traces({trace}).isEmpty());
  EXPECT_EQ(w.replays_running(), 1);
  ASSERT_TRUE(done.wait(60000)) << "no replay within 60 s";
  ASSERT_TRUE(done.takeFirst().at(1).toBool()) << w.load_errors().join('\n').toStdString();
  EXPECT_EQ(w.replays_running(), 0);
  ASSERT_EQ(w.trace_set().panes().size(), 1u);
  expect_replay_pane(w, w.trace_set().panes()[0]);
  EXPECT_TRUE(w.load_errors().isEmpty());
  for (int i = 0; i < 20; ++i) QApplication::processEvents();
  const QString shots = QStringLiteral(OPSIM_BINARY_DIR) + QStringLiteral("/gui-screenshots");
  QDir().mkpath(shots);
  EXPECT_TRUE(w.grab().save(shots + QStringLiteral("/kineto_replay.png")));
}

TEST(KinetoReplay, OpensTheOverlayThatReplayWrites) {
  const auto scratch = opsim::test::scratch_dir("gui_overlay");
  write_text(QString::fromStdString((scratch / "step.json").string()), small_kineto_trace());
  const auto replay = opsim::test::run_opsim("replay step.json --trace-dir out", scratch);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  MainWindow w(MainWindow::Options{false, cli_path()});
  w.show();
  const QString overlay = QString::fromStdString((scratch / "out/step.overlay.json").string());
  EXPECT_TRUE(w.open_traces({overlay}).isEmpty()) << w.load_errors().join('\n').toStdString();
  EXPECT_EQ(w.replays_running(), 0);  // opsim's own trace: read at once
  ASSERT_EQ(w.trace_set().panes().size(), 1u);
  expect_replay_pane(w, w.trace_set().panes()[0]);
}

TEST(KinetoReplay, AFileThatCannotBeOpenedIsNamedInTheWindow) {
  QTemporaryDir dir;
  const QString junk = dir.filePath(QStringLiteral("junk.json"));
  write_text(junk, "this is not a trace");
  // Read as Kineto (a kernel event), but its kernel has no stream: the replay fails.
  const QString broken = dir.filePath(QStringLiteral("broken.json"));
  write_text(broken, R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0,
                      "tid": 7, "ts": 1, "dur": 1, "args": {"device": 0}}]})");
  MainWindow w(MainWindow::Options{false, cli_path()});
  w.show();
  QSignalSpy done(&w, &MainWindow::replay_done);
  const QStringList now = w.open_traces({junk, broken});
  ASSERT_EQ(now.size(), 1);
  EXPECT_TRUE(now[0].startsWith(junk)) << now[0].toStdString();
  ASSERT_TRUE(done.wait(60000));
  EXPECT_FALSE(done.takeFirst().at(1).toBool());
  ASSERT_EQ(w.load_errors().size(), 2);
  EXPECT_TRUE(w.load_errors()[1].startsWith(broken)) << w.load_errors()[1].toStdString();
  EXPECT_TRUE(w.load_errors()[1].contains("stream")) << w.load_errors()[1].toStdString();
  const auto* banner = w.findChild<QLabel*>(QStringLiteral("load_errors"));
  ASSERT_NE(banner, nullptr);
  EXPECT_TRUE(banner->isVisible());
  EXPECT_TRUE(banner->text().contains(junk));
  EXPECT_TRUE(banner->text().contains(broken));
  EXPECT_TRUE(w.trace_set().panes().empty());
}

TEST(KinetoReplay, SmokeTestFailsWhenAFileGivenCannotBeOpened) {
  const auto dir = opsim::test::scratch_dir("gui_smoke_bad_file");
  write_text(QString::fromStdString((dir / "junk.json").string()), "{\"foo\": 1}");
  const auto bad = opsim::test::run_program("opsim-gui", "--no-run --smoke-test junk.json", dir,
                                            "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("opsim-gui: junk.json: "), std::string::npos) << bad.err;
  EXPECT_NE(bad.out.find("status: Cannot open: junk.json"), std::string::npos) << bad.out;

  write_text(QString::fromStdString((dir / "step.json").string()), small_kineto_trace());
  const auto good = opsim::test::run_program("opsim-gui", "--no-run --smoke-test step.json", dir,
                                             "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("status: Replayed step.json"), std::string::npos) << good.out;
}

}  // namespace
}  // namespace opsim::gui
