// Opening Chrome traces of other tools (object and array form, X and B/E spans, counters,
// flows, gzip), a bad file's reason in the window and the smoke test's exit code, the real
// and simulated worlds of `opsim validate --trace-dir` output, and one peak-memory figure
// for a run simulated in the GUI and its trace file read back.
#include <gtest/gtest.h>

#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/input_error.hpp"
#include "gui/chrome_trace_import.hpp"
#include "gui/main_window.hpp"
#include "gui/sim_runner.hpp"
#include "gui/summary.hpp"
#include "gui/trace_format.hpp"
#include "gui/trace_loader.hpp"
#include "gui/trace_worlds.hpp"
#include "gui_test_support.hpp"
#include "tests/support/gzip_text.hpp"
#include "tests/support/opsim_command.hpp"

namespace opsim::gui {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

using opsim::test::gzip;

// The array form, as many tools write it: B/E on a main thread (nested), X on a worker, a
// counter, a flow from the outer span to the worker's span, names from M events. Times in
// microseconds with fractions, from an epoch far from zero.
const char* kArrayTrace = R"([
  {"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "trainer"}},
  {"ph": "M", "name": "thread_name", "pid": 7, "tid": 1, "args": {"name": "main"}},
  {"ph": "B", "name": "step", "cat": "py", "pid": 7, "tid": 1, "ts": 1700000000000000.5},
  {"ph": "B", "name": "forward", "pid": 7, "tid": 1, "ts": 1700000000000010},
  {"ph": "s", "id": 1, "cat": "f", "name": "hand-off", "pid": 7, "tid": 1, "ts": 1700000000000011},
  {"ph": "E", "pid": 7, "tid": 1, "ts": 1700000000000030.25},
  {"ph": "X", "name": "load", "cat": "io", "pid": 7, "tid": 2, "ts": 1700000000000040, "dur": 15.5},
  {"ph": "f", "id": 1, "cat": "f", "name": "hand-off", "pid": 7, "tid": 2, "ts": 1700000000000040, "bp": "e"},
  {"ph": "C", "name": "memory", "pid": 7, "ts": 1700000000000000.5, "args": {"bytes": 1000}},
  {"ph": "C", "name": "memory", "pid": 7, "ts": 1700000000000050, "args": {"bytes": 3000}},
  {"ph": "i", "name": "mark", "pid": 7, "tid": 1, "ts": 1700000000000020, "s": "t"},
  {"ph": "E", "pid": 7, "tid": 1, "ts": 1700000000000060}
])";

using testing::op_named;

TEST(ChromeImport, ArrayFormWithNestedBeginEndCountersAndFlows) {
  EXPECT_EQ(trace_format_of(kArrayTrace), TraceFormat::kChrome);
  const ChromeImport in = import_chrome_trace(kArrayTrace, "a.json");
  const Trace& t = in.trace;
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].name, "trainer/main");
  EXPECT_EQ(t.lanes[0].node, "trainer");
  EXPECT_EQ(t.lanes[1].name, "trainer/tid 2");
  ASSERT_EQ(t.ops.size(), 3u);
  // Times from the earliest event (the step's B at ...000.5 us), exact to the nanosecond.
  const TraceOp& step = t.ops[op_named(t, "step")];
  EXPECT_EQ(step.start_ns, 0);
  EXPECT_EQ(step.end_ns, 59500);
  EXPECT_EQ(step.op_class, "py");
  const TraceOp& forward = t.ops[op_named(t, "forward")];
  EXPECT_EQ(forward.start_ns, 9500);
  EXPECT_EQ(forward.end_ns, 29750);
  EXPECT_EQ(forward.lane, 0u);
  const TraceOp& load = t.ops[op_named(t, "load")];
  EXPECT_EQ(load.lane, 1u);
  EXPECT_EQ(load.start_ns, 39500);
  EXPECT_EQ(load.end_ns, 55000);
  // The flow starts inside "forward" (the innermost span around it) and ends in "load".
  ASSERT_EQ(t.dependencies.size(), 1u);
  EXPECT_EQ(t.dependencies[0], std::make_pair(op_named(t, "forward"), op_named(t, "load")));
  ASSERT_EQ(t.counters.size(), 1u);
  EXPECT_EQ(t.counters[0].name, "memory");
  EXPECT_EQ(t.counters[0].unit, "bytes");
  ASSERT_EQ(t.counters[0].samples.size(), 2u);
  EXPECT_EQ(t.counters[0].samples[1].at_ns, 49500);
  EXPECT_DOUBLE_EQ(t.counters[0].samples[1].value, 3000);
  EXPECT_EQ(in.events_not_drawn, 1u);  // the instant event
  EXPECT_FALSE(in.has_opsim_metadata);
}

TEST(ChromeImport, ObjectFormGzipAndPerfettoBindIdFlowsOpenAsPanes) {
  const std::string text = R"({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "X", "name": "launch", "pid": 1, "tid": 1, "ts": 0, "dur": 2, "bind_id": "0x1", "flow_out": true},
    {"ph": "X", "name": "kernel", "pid": 1, "tid": 9, "ts": 3, "dur": 5, "args": {"stream": 7}, "bind_id": "0x1", "flow_in": true}
  ]})";
  const auto dir = opsim::test::scratch_dir("gui_chrome_import");
  write_file(dir / "perfetto.json.gz", gzip(text));
  EXPECT_EQ(trace_format_of_file((dir / "perfetto.json.gz").string()), TraceFormat::kChrome);
  const LoadedTrace loaded = load_pane_trace((dir / "perfetto.json.gz").string());
  const Trace& t = *loaded.trace;
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[1].name, "pid 1/stream 7");  // GPU work: a lane per stream
  EXPECT_EQ(t.lanes[1].kind, LaneKind::kCompute);
  ASSERT_EQ(t.dependencies.size(), 1u);
  EXPECT_EQ(t.ops[t.dependencies[0].first].name, "launch");
  EXPECT_EQ(t.ops[t.dependencies[0].second].name, "kernel");
  EXPECT_EQ(t.title, "perfetto.json.gz");

  MainWindow w(MainWindow::Options{false, {}});
  EXPECT_TRUE(
      w.open_traces({QString::fromStdString((dir / "perfetto.json.gz").string())}).isEmpty());
  ASSERT_EQ(w.trace_set().panes().size(), 1u);
  EXPECT_EQ(w.trace_set().panes()[0].model->span_count(), 2u);
  EXPECT_TRUE(w.status_text().startsWith("Opened perfetto.json.gz: 2 ops on 2 lanes"))
      << w.status_text().toStdString();
}

// gzip is told by what it holds: a profiler's trace is still replayed, others shown as they are.
TEST(ChromeImport, GzipIsToldByItsContent) {
  EXPECT_EQ(trace_format_of(gzip(R"({"schemaVersion": 1, "traceEvents": []})")),
            TraceFormat::kKineto);
  EXPECT_EQ(trace_format_of(gzip(R"({"otherData": {"opsim": {}}, "traceEvents": []})")),
            TraceFormat::kOpsim);
  EXPECT_EQ(trace_format_of(gzip(kArrayTrace)), TraceFormat::kChrome);
  EXPECT_EQ(trace_format_of(gzip(gzip(R"({"schemaVersion": 1})"))), TraceFormat::kChrome);
}

// Each refusal names the file, the event and what is wrong.
TEST(ChromeImport, BadEventsAreRefusedWithTheirPlace) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([{"ph": "E", "pid": 1, "tid": 1, "ts": 5}])",
       "t.json: [0]: \"E\" without a \"B\" before it on pid 1 tid 1"},
      {R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 1}, {"ph": "B", "name": "open", "ts": 2}]})",
       "t.json: traceEvents[1]: the \"B\" event \"open\" on pid 0 tid 0 has no \"E\""},
      {R"([{"ph": "X", "name": "a", "ts": 1}])", "t.json: [0]: missing \"dur\""},
      {R"([{"ph": "X", "name": "a", "dur": 1}])", "t.json: [0]: missing \"ts\""},
      {R"([{"ph": "X", "name": "a", "ts": 1, "dur": -2}])", "t.json: [0]: \"dur\" is negative"},
      {R"([{"ph": "X", "ts": 1e300, "dur": 1}])",
       "t.json: [0]: \"ts\" is outside what opsim's 64-bit nanoseconds hold"},
      {R"([{"name": "x"}])", "t.json: [0]: missing \"ph\""},
      {R"([{"ph": "X", "ts": -4e15, "dur": 1}, {"ph": "X", "ts": 4e15, "dur": 1}])",
       "t.json: the events span more than 2^62 ns"},
      {R"([3])", "t.json: [0]: expected a JSON object"},
      {R"({"foo": 1})", "t.json: top level: missing \"traceEvents\" array"},
      {R"("text")", "t.json: top level: not a Chrome trace"},
  };
  for (const auto& [text, message] : cases) {
    try {
      (void)import_chrome_trace(text, "t.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
    }
  }
}

TEST(ChromeImport, ABadFileIsNamedInTheWindowAndFailsTheSmokeTest) {
  const auto dir = opsim::test::scratch_dir("gui_chrome_bad");
  write_file(dir / "cut.json",
             R"([{"ph": "B", "name": "never ends", "pid": 1, "tid": 1, "ts": 0}])");
  MainWindow w(MainWindow::Options{false, {}});
  const QStringList errors = w.open_traces({QString::fromStdString((dir / "cut.json").string())});
  ASSERT_EQ(errors.size(), 1);
  const auto* banner = w.findChild<QLabel*>(QStringLiteral("load_errors"));
  ASSERT_NE(banner, nullptr);
  EXPECT_FALSE(banner->isHidden());
  EXPECT_TRUE(banner->text().contains("cut.json: [0]: the \"B\" event \"never ends\""))
      << banner->text().toStdString();
  EXPECT_TRUE(w.status_text().contains("Cannot open:")) << w.status_text().toStdString();
  EXPECT_TRUE(w.status_text().contains("has no \"E\"")) << w.status_text().toStdString();

  write_file(dir / "good.json", kArrayTrace);
  const auto run = opsim::test::run_program("opsim-gui", "--no-run --smoke-test good.json cut.json",
                                            dir, "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("opsim-gui: cut.json: [0]: the \"B\" event"), std::string::npos)
      << run.err;
  const auto good = opsim::test::run_program("opsim-gui", "--no-run --smoke-test good.json", dir,
                                             "env QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("status: Opened good.json: 3 ops on 2 lanes"), std::string::npos)
      << good.out;
}

}  // namespace
}  // namespace opsim::gui
