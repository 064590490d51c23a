#include "gui/replay_runner.hpp"

#include <QDir>
#include <QFutureWatcher>
#include <QTemporaryDir>
#include <QtConcurrent/QtConcurrentRun>

#include "gui/scenario.hpp"

namespace opsim::gui {
namespace {

// The CLI's last stderr line without its "opsim: error: " prefix.
QString one_line_error(const QByteArray& err) {
  QString line = QString::fromUtf8(err).trimmed().section(QLatin1Char('\n'), -1);
  static const QString kPrefix = QStringLiteral("opsim: error: ");
  if (line.startsWith(kPrefix)) line.remove(0, kPrefix.size());
  return line;
}

}  // namespace

QStringList replay_arguments(const QString& trace_path, const QString& trace_dir) {
  return {QStringLiteral("replay"),      trace_path,
          QStringLiteral("--trace-dir"), trace_dir,
          QStringLiteral("--format"),    QStringLiteral("json")};
}

ReplayRunner::ReplayRunner(QString trace_path, QString cli, QObject* parent)
    : QObject(parent), trace_path_(std::move(trace_path)), cli_(std::move(cli)) {}

ReplayRunner::~ReplayRunner() {
  if (process_ == nullptr) return;
  process_->disconnect(this);
  process_->kill();
  process_->waitForFinished(5000);
}

void ReplayRunner::start() {
  if (cli_.isEmpty()) cli_ = find_opsim_cli();
  if (cli_.isEmpty()) {
    emit failed(trace_path_, tr("%1: cannot replay it: opsim CLI not found next to this program "
                                "(or in $OPSIM_CLI)")
                                 .arg(trace_path_));
    return;
  }
  dir_ = std::make_shared<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/opsim-replay-XXXXXX"));
  if (!dir_->isValid()) {
    emit failed(trace_path_, tr("%1: cannot create a temporary directory").arg(trace_path_));
    return;
  }
  process_ = new QProcess(this);
  process_->setStandardOutputFile(QProcess::nullDevice());
  connect(process_, &QProcess::finished, this, &ReplayRunner::on_finished);
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart || process_ == nullptr) return;
    const QString why = process_->errorString();
    process_->deleteLater();
    process_ = nullptr;
    emit failed(trace_path_, tr("%1: cannot start opsim: %2").arg(trace_path_, why));
  });
  process_->start(cli_, replay_arguments(trace_path_, dir_->path()));
}

void ReplayRunner::on_finished(int exit_code, QProcess::ExitStatus status) {
  QProcess* p = process_;
  if (p == nullptr) return;
  process_ = nullptr;
  p->deleteLater();
  if (status == QProcess::NormalExit && exit_code == 0) {
    read_overlay();
    return;
  }
  const QString err = one_line_error(p->readAllStandardError());
  if (!err.isEmpty()) {
    emit failed(trace_path_, err);
  } else {
    emit failed(trace_path_,
                tr("%1: opsim replay exited with code %2").arg(trace_path_).arg(exit_code));
  }
}

// Reading the overlay can take a moment for big traces: on a worker thread. The temporary
// directory lives until the worker is done with it.
void ReplayRunner::read_overlay() {
  const QStringList overlays =
      QDir(dir_->path()).entryList({QStringLiteral("*.overlay.json")}, QDir::Files);
  if (overlays.size() != 1) {
    emit failed(trace_path_, tr("%1: opsim replay wrote no overlay").arg(trace_path_));
    return;
  }
  const std::string overlay = QDir(dir_->path()).absoluteFilePath(overlays.front()).toStdString();
  auto* watcher = new QFutureWatcher<LoadedTrace>(this);
  auto error = std::make_shared<QString>();
  connect(watcher, &QFutureWatcher<LoadedTrace>::finished, this, [this, watcher, error] {
    watcher->deleteLater();
    if (error->isEmpty()) {
      emit finished(trace_path_, watcher->result());
    } else {
      emit failed(trace_path_, *error);
    }
  });
  watcher->setFuture(QtConcurrent::run([overlay, error, dir = dir_]() {
    try {
      return load_pane_trace(overlay);
    } catch (const std::exception& e) {
      *error = QString::fromStdString(e.what());
      return LoadedTrace{};
    }
  }));
}

}  // namespace opsim::gui
