#include "gui/sim_runner.hpp"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtConcurrent/QtConcurrentRun>

#include "gui/collective_summary.hpp"
#include "gui/trace_loader.hpp"

namespace opsim::gui {

SimRunner::SimRunner(QObject* parent) : QObject(parent) {}

SimRunner::~SimRunner() {
  cancel();
}

void SimRunner::cancel() {
  ++generation_;  // a result still being read in the background is dropped
  if (process_ == nullptr) return;
  QProcess* old = process_;
  process_ = nullptr;
  old->disconnect(this);
  // Keep the old run's directory until its process is really gone, then clean up.
  auto dir = trace_dir_;
  connect(old, &QProcess::finished, old, [old, dir] { old->deleteLater(); });
  connect(old, &QProcess::errorOccurred, old, [old, dir](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) old->deleteLater();
  });
  old->setParent(nullptr);
  old->kill();
}

void SimRunner::run(const Scenario& scenario, QString cli) {
  cancel();
  if (cli.isEmpty()) cli = find_opsim_cli();
  if (cli.isEmpty()) {
    emit failed(tr("opsim CLI not found next to this program (or in $OPSIM_CLI)"));
    return;
  }
  scenario_ = scenario;
  trace_dir_ =
      std::make_shared<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/opsim-gui-XXXXXX"));
  if (!trace_dir_->isValid()) {
    emit failed(tr("cannot create a temporary trace directory"));
    return;
  }
  process_ = new QProcess(this);
  const QStringList args = run_arguments(scenario, trace_dir_->path());
  stderr_.clear();
  connect(process_, &QProcess::finished, this, &SimRunner::on_finished);
  connect(process_, &QProcess::readyReadStandardError, this, [this] {
    if (process_ == nullptr) return;
    const QByteArray chunk = process_->readAllStandardError();
    stderr_ += chunk;
    static const QRegularExpression kCount(QStringLiteral("(\\d+)/(\\d+)"));
    QRegularExpressionMatch last;
    for (auto it = kCount.globalMatch(QString::fromUtf8(chunk)); it.hasNext();) last = it.next();
    if (last.hasMatch() && last.captured(2).toInt() > 0) {
      emit progress(last.captured(1).toInt(), last.captured(2).toInt());
    }
  });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart || process_ == nullptr) return;
    const QString msg = process_->errorString();
    process_->deleteLater();
    process_ = nullptr;
    emit failed(tr("cannot start opsim: %1").arg(msg));
  });
  clock_.start();
  emit started(cli + QLatin1Char(' ') + args.join(QLatin1Char(' ')));
  process_->start(cli, args);
}

void SimRunner::on_finished(int exit_code, QProcess::ExitStatus status) {
  QProcess* p = process_;
  if (p == nullptr) return;
  process_ = nullptr;
  p->deleteLater();
  stderr_ += p->readAllStandardError();
  const QString err = QString::fromUtf8(stderr_).trimmed();
  if (status != QProcess::NormalExit || exit_code != 0) {
    emit failed(err.isEmpty() ? tr("opsim exited with code %1").arg(exit_code)
                              : err.section(QLatin1Char('\n'), -1));
    return;
  }
  RunResult result;
  result.scenario = scenario_;
  result.wall_s = elapsed_s();
  try {
    const std::string out = p->readAllStandardOutput().toStdString();
    result.summary = scenario_.kind == ScenarioKind::kCollective ? parse_collective_json(out)
                                                                 : parse_compare_json(out);
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
    return;
  }
  if (!err.isEmpty()) result.warnings << err;
  // Reading traces can take a while for big runs: do it on a worker thread, and drop the
  // result if a newer run has started meanwhile.
  const int generation = ++generation_;
  auto dir = trace_dir_;
  auto* watcher = new QFutureWatcher<RunResult>(this);
  connect(watcher, &QFutureWatcher<RunResult>::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation == generation_ && process_ == nullptr) emit finished(watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([result = std::move(result), dir]() mutable {
    const QDir trace_dir(dir->path());
    const bool collective = result.scenario.kind == ScenarioKind::kCollective;
    for (SummaryRow& row : result.summary.rows) {
      std::shared_ptr<const Trace> trace;
      if (!row.trace_file.empty()) {
        const QString file = trace_dir.absoluteFilePath(QString::fromStdString(row.trace_file));
        try {
          auto t = load_trace_file(file.toStdString());
          if (t->title.empty()) t->title = row.name;
          if (collective) add_trace_figures(row, *t);
          trace = std::move(t);
        } catch (const std::exception& e) {
          result.warnings << QString::fromStdString(e.what());
        }
      }
      result.traces.push_back(std::move(trace));
    }
    return result;
  }));
}

}  // namespace opsim::gui
