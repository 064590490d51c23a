// SimRunner's process handling, with a small shell script standing in for `opsim compare`
// (it prints the CLI's JSON shape and a progress line); the real CLI is exercised by the
// end-to-end test in main_window_test.cpp.
#include "gui/sim_runner.hpp"

#include <gtest/gtest.h>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace opsim::gui {
namespace {

// The script echoes its --bytes argument as the strategy name, so a test can tell runs apart.
QString write_script(const QTemporaryDir& dir, double sleep_s) {
  const QString path = dir.filePath(QStringLiteral("fake-opsim"));
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(QStringLiteral(R"(#!/bin/sh
bytes=""
while [ $# -gt 0 ]; do [ "$1" = "--bytes" ] && bytes="$2"; shift; done
echo "1/3 sims" >&2
sleep %1
echo "3/3 sims" >&2
printf '{"topology":"t","bytes":1,"results":[{"strategy":"%s","makespan_s":0.015}]}\n' "$bytes"
)")
              .arg(sleep_s)
              .toUtf8());
  f.close();
  f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  return path;
}

TEST(SimRunner, ReportsTheLatestRunOnlyAndItsProgress) {
  QTemporaryDir dir;
  const QString cli = write_script(dir, 0.5);
  SimRunner runner;
  QSignalSpy finished(&runner, &SimRunner::finished);
  QSignalSpy failed(&runner, &SimRunner::failed);
  QSignalSpy progress(&runner, &SimRunner::progress);
  Scenario first;
  first.gradient_bytes = QStringLiteral("first");
  Scenario second;
  second.gradient_bytes = QStringLiteral("second");
  runner.run(first, cli);
  EXPECT_TRUE(runner.running());
  runner.run(second, cli);  // an edit: the first run is cancelled
  ASSERT_TRUE(finished.wait(10000));
  QTest::qWait(800);  // the killed first run must not report late
  ASSERT_EQ(finished.count(), 1);
  EXPECT_EQ(failed.count(), 0);
  const auto result = finished.takeFirst().at(0).value<RunResult>();
  ASSERT_EQ(result.summary.rows.size(), 1u);
  EXPECT_EQ(result.summary.rows[0].name, "second");
  EXPECT_DOUBLE_EQ(result.summary.rows[0].makespan_s, 0.015);
  ASSERT_EQ(result.traces.size(), 1u);
  EXPECT_EQ(result.traces[0], nullptr);  // the script wrote no trace file
  EXPECT_GE(progress.count(), 1);
  EXPECT_FALSE(runner.running());
}

TEST(SimRunner, ACliErrorBecomesItsLastStderrLine) {
  QTemporaryDir dir;
  const QString cli = dir.filePath(QStringLiteral("failing-opsim"));
  QFile f(cli);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("#!/bin/sh\necho 'topo.yaml:3: link pcie0: bandwidth missing' >&2\nexit 2\n");
  f.close();
  f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  SimRunner runner;
  QSignalSpy failed(&runner, &SimRunner::failed);
  runner.run(Scenario{}, cli);
  ASSERT_TRUE(failed.wait(10000));
  EXPECT_EQ(failed.takeFirst().at(0).toString(), "topo.yaml:3: link pcie0: bandwidth missing");
}

// An override beyond a rate's bound is refused by the real CLI with its one line, which the
// GUI shows as the run's failure: overrides go through the same parameter tables as --set.
TEST(SimRunner, AnOverrideBeyondItsBoundFailsWithTheCliLine) {
  const QString cli = QStringLiteral(OPSIM_BINARY_DIR "/bin/opsim");
  if (!QFile::exists(cli)) GTEST_SKIP() << "opsim is not built";
  Scenario scenario;
  scenario.overrides = {QStringLiteral("gpu0-sw0.bandwidth=1e30")};
  SimRunner runner;
  QSignalSpy failed(&runner, &SimRunner::failed);
  runner.run(scenario, cli);
  ASSERT_TRUE(failed.wait(20000));
  EXPECT_EQ(failed.takeFirst().at(0).toString().toStdString(),
            "opsim: error: --set gpu0-sw0.bandwidth=1e30: 'bandwidth' must be at most 1PB/s, got "
            "'1e30'");
}

}  // namespace
}  // namespace opsim::gui
