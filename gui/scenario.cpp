#include "gui/scenario.hpp"

#include <QCoreApplication>
#include <QFileInfo>

namespace opsim::gui {

QStringList known_strategies() {
  return {QStringLiteral("tree"), QStringLiteral("cpu"),        QStringLiteral("split"),
          QStringLiteral("ring"), QStringLiteral("multi-ring"), QStringLiteral("ps")};
}

QStringList compare_arguments(const Scenario& s, const QString& trace_dir) {
  QStringList args{QStringLiteral("compare"),
                   QStringLiteral("--topology"),
                   s.topology,
                   QStringLiteral("--strategies"),
                   s.strategies.join(QLatin1Char(',')),
                   QStringLiteral("--bytes"),
                   s.gradient_bytes,
                   QStringLiteral("--gpus"),
                   QString::number(s.gpus)};
  if (s.comm_only) args << QStringLiteral("--comm-only");
  args << what_if_arguments(s);
  args << QStringLiteral("--format") << QStringLiteral("json") << QStringLiteral("--trace-dir")
       << trace_dir;
  return args;
}

QStringList what_if_arguments(const Scenario& s) {
  QStringList args;
  if (s.link_bandwidth_scale != 1.0) {
    args << QStringLiteral("--link-bandwidth-scale")
         << QString::number(s.link_bandwidth_scale, 'g', 6);
  }
  for (const QString& o : s.overrides) {
    const QString trimmed = o.trimmed();
    if (!trimmed.isEmpty()) args << QStringLiteral("--set") << trimmed;
  }
  return args;
}

QStringList run_arguments(const Scenario& s, const QString& trace_dir) {
  return s.kind == ScenarioKind::kCollective ? collective_arguments(s, trace_dir)
                                             : compare_arguments(s, trace_dir);
}

QString find_opsim_cli() {
  const QString env = qEnvironmentVariable("OPSIM_CLI");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  if (QCoreApplication::instance() == nullptr) return {};
  const QString next_to_me = QCoreApplication::applicationDirPath() + QStringLiteral("/opsim");
  if (QFileInfo(next_to_me).isExecutable()) return next_to_me;
  return {};
}

}  // namespace opsim::gui
