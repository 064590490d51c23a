// Real against simulated in the GUI, through the real CLI: `opsim validate --trace-dir`'s
// overlay pairs each real op with its simulated twin, has a makespan, bytes and critical path
// per world that match what the CLI printed, and a per-op-class table; and a run simulated in
// the GUI reports the same peak memory as its trace file read back.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "gui/main_window.hpp"
#include "gui/op_twins.hpp"
#include "gui/sim_runner.hpp"
#include "gui/summary.hpp"
#include "gui/timeline_model.hpp"
#include "gui/trace_loader.hpp"
#include "gui_test_support.hpp"
#include "tests/support/opsim_command.hpp"

namespace opsim::gui {
namespace {

namespace fs = std::filesystem;

using testing::cli_path;

// A profile with fixed numbers (cpu0 and disk0), so validate does not calibrate.
constexpr const char* kFixedProfile = R"(name: fixed
devices:
  - {name: cpu0, kind: cpu, cores: 2, clock: 2GHz, simd_fp32_lanes: 16, fma_units: 2, compute_streams: 2, copy_streams: 2, dram: {channels: 1, bandwidth_per_channel: 8GB/s, first_access: 100ns, capacity: 16GB}}
  - {name: disk0, kind: disk, type: ssd, access_latency: 100us, read_bandwidth: 1GB/s, write_bandwidth: 1GB/s, read_iops: 10k, write_iops: 10k}
links:
  - {name: disk0-cpu0, between: [disk0, cpu0], type: generic, bandwidth: 10GB/s, latency: 0, full_duplex: true}
)";

struct Validated {
  nlohmann::json report;
  fs::path overlay;
};

// One real run (no repeats) of a four-op workload, so that the real makespan the CLI prints
// is the recorded run's.
Validated validate_small(const fs::path& dir) {
  std::ofstream(dir / "fixed.yaml") << kFixedProfile;
  const std::string workload = std::string(OPSIM_SOURCE_DIR) + "/tests/calibration/data/small.json";
  const auto r = opsim::test::run_program(
      "opsim",
      "validate " + workload +
          " --profile fixed.yaml --repeats 1 --min-time 0 --format json --trace-dir traces",
      dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return {nlohmann::json::parse(r.out), dir / "traces" / "small.overlay.json"};
}

using testing::op_named;

TEST(RealVsSim, ValidateOverlayPairsOpsAndHasAFigurePerWorld) {
  const auto dir = opsim::test::scratch_dir("gui_real_vs_sim");
  const Validated v = validate_small(dir);
  const LoadedTrace loaded = load_pane_trace(v.overlay.string());
  const Trace& t = *loaded.trace;
  ASSERT_NE(loaded.twins, nullptr);
  EXPECT_EQ(loaded.twins->pairs(), 4u);
  const std::uint32_t real_mm = op_named(t, "real mm");
  ASSERT_TRUE(loaded.twins->twin(real_mm).has_value());
  EXPECT_EQ(t.ops[*loaded.twins->twin(real_mm)].name, "sim mm");
  EXPECT_TRUE(loaded.twins->is_recorded(real_mm));

  // Makespan per world: exactly what the CLI printed (integer ns in the trace).
  const auto rows = summary_rows_of(t, "small.overlay.json");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].name, "small.overlay.json (real)");
  EXPECT_EQ(rows[1].name, "small.overlay.json (sim)");
  EXPECT_NEAR(rows[0].makespan_s, v.report.at("real_s").get<double>(), 1e-9);
  EXPECT_NEAR(rows[1].makespan_s, v.report.at("simulated_s").get<double>(), 1e-9);
  // Bytes once per world: the 4 MB read and the 8 MB copy, not twice that.
  EXPECT_DOUBLE_EQ(rows[0].bytes_moved, 12e6);
  EXPECT_DOUBLE_EQ(rows[1].bytes_moved, 12e6);
  EXPECT_DOUBLE_EQ(summary_row_of(t).bytes_moved, 24e6);  // what one-run reading counted

  // A critical path in each world, each ending at that world's last op.
  const TimelineModel model(loaded.trace);
  EXPECT_TRUE(model.on_critical_path(op_named(t, "real scale")));
  EXPECT_TRUE(model.on_critical_path(op_named(t, "sim scale")));
  ASSERT_EQ(model.critical_paths().size(), 2u);
  for (const auto& path : model.critical_paths()) {
    ASSERT_FALSE(path.empty());
    const bool real = loaded.twins->is_recorded(path.back());
    for (std::uint32_t op : path) EXPECT_EQ(loaded.twins->is_recorded(op), real) << t.ops[op].name;
  }
  const TraceOp& real_end = t.ops[op_named(t, "real scale")];
  const TraceOp& sim_end = t.ops[op_named(t, "sim scale")];
  EXPECT_EQ(t.ops[model.critical_path().back()].name,  // the world that ends last
            real_end.end_ns >= sim_end.end_ns ? "real scale" : "sim scale");

  // Busy time per op class, as `opsim validate` printed it.
  const auto classes = OpTwins::class_differences(t);
  ASSERT_EQ(classes.size(), v.report.at("by_op_class").size());
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const auto& c = v.report.at("by_op_class")[i];
    EXPECT_EQ(classes[i].op_class, c.at("class").get<std::string>());
    EXPECT_NEAR(static_cast<double>(classes[i].recorded_busy_ns) / 1e9,
                c.at("real_s").get<double>(), 1e-9);
    EXPECT_NEAR(static_cast<double>(classes[i].replayed_busy_ns) / 1e9,
                c.at("simulated_s").get<double>(), 1e-9);
    EXPECT_EQ(classes[i].recorded_ops, 1u);
    EXPECT_EQ(classes[i].replayed_ops, 1u);
  }

  // The window: two summary rows for the one file and the per-class table.
  MainWindow w(MainWindow::Options{false, cli_path()});
  EXPECT_TRUE(w.open_traces({QString::fromStdString(v.overlay.string())}).isEmpty());
  EXPECT_EQ(w.summary_model().rowCount(), 2);
  ASSERT_EQ(w.trace_set().panes().size(), 1u);
  const QString title = w.trace_set().panes()[0].title;
  EXPECT_TRUE(title.startsWith(QStringLiteral("small.overlay.json — real ")))
      << title.toStdString();
  EXPECT_TRUE(title.contains(QStringLiteral(", sim "))) << title.toStdString();
  const TwinClassModel& table = w.twin_class_model();
  ASSERT_EQ(table.rowCount(), 4);
  const QModelIndex gemm_sim = table.index(3, TwinClassModel::kSimBusy);
  EXPECT_EQ(table.index(3, TwinClassModel::kClass).data().toString(), "gemm");
  EXPECT_NEAR(gemm_sim.data(Qt::UserRole).toDouble(),
              v.report.at("by_op_class")[3].at("simulated_s").get<double>(), 1e-9);
  // Op by op: each pair once, with the simulated minus real start and duration.
  const TwinOpModel& ops = w.twin_op_model();
  ASSERT_EQ(ops.rowCount(), 4);
  for (int row = 0; row < ops.rowCount(); ++row) {
    const std::string name = ops.index(row, TwinOpModel::kOp).data().toString().toStdString();
    const TraceOp& real = t.ops[op_named(t, "real " + name)];
    const TraceOp& sim = t.ops[op_named(t, "sim " + name)];
    EXPECT_NEAR(ops.index(row, TwinOpModel::kStartShift).data(Qt::UserRole).toDouble(),
                static_cast<double>(sim.start_ns - real.start_ns) / 1e9, 1e-12);
    EXPECT_NEAR(
        ops.index(row, TwinOpModel::kDurationChange).data(Qt::UserRole).toDouble(),
        static_cast<double>((sim.end_ns - sim.start_ns) - (real.end_ns - real.start_ns)) / 1e9,
        1e-12);
  }
}

// The CLI's definition (the most memory any one device held) both ways: the summary of a
// run simulated in the GUI (from `opsim compare`) and the summary of its trace file read back.
void expect_same_peaks(const Scenario& scenario) {
  SimRunner runner;
  QSignalSpy finished(&runner, &SimRunner::finished);
  QSignalSpy failed(&runner, &SimRunner::failed);
  runner.run(scenario, cli_path());
  ASSERT_TRUE(finished.wait(120000))
      << (failed.isEmpty() ? std::string("timeout") : failed[0][0].toString().toStdString());
  const auto result = finished.takeFirst().at(0).value<RunResult>();
  ASSERT_EQ(result.traces.size(), result.summary.rows.size());
  for (std::size_t i = 0; i < result.traces.size(); ++i) {
    const SummaryRow& simulated = result.summary.rows[i];
    ASSERT_NE(result.traces[i], nullptr) << simulated.name;
    const SummaryRow opened = summary_row_of(*result.traces[i]);
    EXPECT_GT(simulated.peak_memory_bytes, 0) << simulated.name;
    EXPECT_DOUBLE_EQ(opened.peak_memory_bytes, simulated.peak_memory_bytes) << simulated.name;
  }
}

TEST(RealVsSim, PeakMemoryIsTheSameSimulatedAndOpened) {
  expect_same_peaks(Scenario{});  // tree, cpu, split on the book's 4-GPU server, 160 MB
  Scenario ring;
  ring.topology = QStringLiteral("nvlink-ring:8");
  ring.gpus = 8;
  ring.strategies = {QStringLiteral("ring")};
  expect_same_peaks(ring);
}

}  // namespace
}  // namespace opsim::gui
