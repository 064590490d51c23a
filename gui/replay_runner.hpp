// Replays one PyTorch profiler (Kineto) trace for the timeline: `opsim replay FILE --trace-dir
// TMP --format json` in a child process (SimGrid allows one simulation per process, so the GUI
// never simulates in-process; the replay is the CLI's, recorded kernels on pcie-switch:N for
// the N GPUs the trace uses), then reads the overlay and step report it wrote on a worker
// thread. Reports once: finished or failed. Destroying it kills a replay in flight.
//
//   auto* r = new ReplayRunner(QStringLiteral("rank0.json.gz"), cli, this);
//   connect(r, &ReplayRunner::finished, this, [](const QString& path, const LoadedTrace& t) {...});
//   r->start();
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <memory>

#include "gui/trace_loader.hpp"

class QTemporaryDir;

namespace opsim::gui {

/// Arguments for `opsim` (without the program): replay FILE --trace-dir DIR --format json.
QStringList replay_arguments(const QString& trace_path, const QString& trace_dir);

class ReplayRunner : public QObject {
  Q_OBJECT
 public:
  /// `cli` empty: find_opsim_cli().
  ReplayRunner(QString trace_path, QString cli = {}, QObject* parent = nullptr);
  ~ReplayRunner() override;

  void start();
  const QString& trace_path() const { return trace_path_; }

 signals:
  void finished(const QString& trace_path, const opsim::gui::LoadedTrace& loaded);
  /// `message` is one line: the CLI's error ("FILE: what is wrong") or why it did not run.
  void failed(const QString& trace_path, const QString& message);

 private:
  void on_finished(int exit_code, QProcess::ExitStatus status);
  void read_overlay();

  QString trace_path_;
  QString cli_;
  QProcess* process_ = nullptr;
  std::shared_ptr<QTemporaryDir> dir_;
};

}  // namespace opsim::gui

Q_DECLARE_METATYPE(opsim::gui::LoadedTrace)
