#include "gui/scenario_options.hpp"

#include <string>

#include "common/input_error.hpp"

namespace opsim::gui {

namespace {

const QString kTopology = QStringLiteral("topology");
const QString kCollective = QStringLiteral("collective");
const QString kAlgorithm = QStringLiteral("algorithm");
const QString kProtocol = QStringLiteral("protocol");
const QString kSizes = QStringLiteral("sizes");
const QString kGpus = QStringLiteral("gpus");
const QString kGpusPerThread = QStringLiteral("gpus-per-thread");
const QString kGpusPerServer = QStringLiteral("gpus-per-server");

[[noreturn]] void refuse(const QString& option, const QString& value, const QString& why) {
  throw InputError(QStringLiteral("--%1 %2: %3").arg(option, value, why).toStdString());
}

QString one_of(const QString& value, const QStringList& allowed, const QString& option) {
  if (!allowed.contains(value)) refuse(option, value, "not one of " + allowed.join(", "));
  return value;
}

int gpu_count(const QString& text) {
  bool ok = false;
  const int gpus = text.toInt(&ok);
  if (!ok || gpus < 0) refuse(kGpus, text, QStringLiteral("not a whole number >= 0"));
  return gpus;
}

// --gpus-per-thread and --gpus-per-server: a whole number from 1 to 2^20.
int gpus_per(const QString& option, const QString& text) {
  bool ok = false;
  const int gpus = text.toInt(&ok);
  if (!ok || gpus < 1 || gpus > (1 << 20))
    refuse(option, text, QStringLiteral("not a whole number from 1 to 1048576"));
  return gpus;
}

QStringList algorithms_of(const QString& list, const QString& op) {
  const QStringList offered = algorithms_for(op);
  QStringList algorithms;
  for (const QString& a : list.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const QString name = a.trimmed();
    if (!offered.contains(name)) {
      refuse(kAlgorithm, name,
             QStringLiteral("does not apply to %1 (%2)").arg(op, offered.join(", ")));
    }
    algorithms << name;
  }
  if (algorithms.isEmpty()) refuse(kAlgorithm, list, QStringLiteral("names no algorithm"));
  return algorithms;
}

CollectiveScenario collective_of(const QCommandLineParser& p) {
  CollectiveScenario c;
  c.op = one_of(p.value(kCollective), collective_ops(), kCollective);
  c.algorithms = p.isSet(kAlgorithm) ? algorithms_of(p.value(kAlgorithm), c.op)
                                     : QStringList{algorithms_for(c.op).first()};
  if (p.isSet(kProtocol))
    c.protocol = one_of(p.value(kProtocol), collective_protocols(), kProtocol);
  if (p.isSet(kSizes)) c.sizes = p.value(kSizes);
  if (p.isSet(kGpus)) c.gpus = gpu_count(p.value(kGpus));
  if (p.isSet(kGpusPerThread))
    c.gpus_per_thread = gpus_per(kGpusPerThread, p.value(kGpusPerThread));
  if (p.isSet(kGpusPerServer))
    c.gpus_per_server = gpus_per(kGpusPerServer, p.value(kGpusPerServer));
  return c;
}

}  // namespace

void add_scenario_options(QCommandLineParser& parser) {
  parser.addOption(
      {kTopology, QStringLiteral("Topology: preset, family or file"), QStringLiteral("T")});
  parser.addOption({kCollective,
                    QStringLiteral("Time one collective op per algorithm: ") +
                        collective_ops().join(QStringLiteral(", ")),
                    QStringLiteral("OP")});
  parser.addOption({kAlgorithm, QStringLiteral("With --collective: algorithms, comma-separated"),
                    QStringLiteral("LIST")});
  parser.addOption(
      {kProtocol,
       QStringLiteral("With --collective: ") + collective_protocols().join(QStringLiteral(", ")),
       QStringLiteral("P")});
  parser.addOption({kSizes, QStringLiteral("With --collective: bytes per rank, S or MIN:MAX"),
                    QStringLiteral("S")});
  parser.addOption(
      {kGpus, QStringLiteral("GPUs to use (a collective's 0: all)"), QStringLiteral("N")});
  parser.addOption({kGpusPerThread,
                    QStringLiteral("With --collective: nccl-tests' -g, GPUs one host thread "
                                   "launches for in turn"),
                    QStringLiteral("G")});
  parser.addOption({kGpusPerServer,
                    QStringLiteral("With --collective: the first G GPUs of every server"),
                    QStringLiteral("G")});
}

Scenario scenario_from_options(const QCommandLineParser& p) {
  Scenario s;
  if (p.isSet(kTopology)) s.topology = p.value(kTopology);
  if (p.isSet(kCollective)) {
    s.kind = ScenarioKind::kCollective;
    s.collective = collective_of(p);
    return s;
  }
  for (const QString& option : {kAlgorithm, kProtocol, kSizes, kGpusPerThread, kGpusPerServer}) {
    if (p.isSet(option)) refuse(option, p.value(option), QStringLiteral("needs --collective"));
  }
  if (p.isSet(kGpus)) s.gpus = gpu_count(p.value(kGpus));
  if (p.isSet(kGpus) && s.gpus < 1) refuse(kGpus, p.value(kGpus), QStringLiteral("must be >= 1"));
  return s;
}

}  // namespace opsim::gui
