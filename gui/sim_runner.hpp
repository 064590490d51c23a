// Runs `opsim compare` or `opsim collective` (by the scenario's kind) as a child process (SimGrid
// allows one engine per process, so the GUI never simulates in-process) without blocking the UI
// thread. Starting a new run cancels the one in flight; only the latest run ever reports.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <memory>
#include <vector>

#include "engine/trace.hpp"
#include "gui/scenario.hpp"
#include "gui/summary.hpp"

class QTemporaryDir;

namespace opsim::gui {

struct RunResult {
  Scenario scenario;
  CompareOutput summary;
  /// One per summary row, in the same order; null where the trace could not be read.
  std::vector<std::shared_ptr<const Trace>> traces;
  QStringList warnings;  ///< traces that could not be read, CLI stderr
  double wall_s = 0;
};

class SimRunner : public QObject {
  Q_OBJECT
 public:
  explicit SimRunner(QObject* parent = nullptr);
  ~SimRunner() override;

  /// Starts `cli` (default: find_opsim_cli()) for `scenario`, cancelling any run in flight.
  void run(const Scenario& scenario, QString cli = {});
  /// Kills the run in flight, if any; it will not report.
  void cancel();
  /// True while the CLI runs (trace reading afterwards happens on a worker thread).
  bool running() const { return process_ != nullptr; }
  /// Seconds since the current run started.
  double elapsed_s() const { return clock_.isValid() ? clock_.elapsed() / 1e3 : 0; }

 signals:
  void started(const QString& command_line);
  void finished(const opsim::gui::RunResult& result);
  void failed(const QString& message);
  /// Parsed from the CLI's progress lines on stderr ("12/40 sims"), when it prints them.
  void progress(int done, int total);

 private:
  void on_finished(int exit_code, QProcess::ExitStatus status);

  QProcess* process_ = nullptr;
  std::shared_ptr<QTemporaryDir> trace_dir_;
  Scenario scenario_;
  QElapsedTimer clock_;
  QByteArray stderr_;   ///< the current run's stderr so far
  int generation_ = 0;  ///< bumped by every run and cancel; stale trace reads are dropped
};

}  // namespace opsim::gui

Q_DECLARE_METATYPE(opsim::gui::RunResult)
