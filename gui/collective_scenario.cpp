#include "gui/collective_scenario.hpp"

#include "gui/scenario.hpp"

namespace opsim::gui {

QStringList collective_ops() {
  return {QStringLiteral("allreduce"),  QStringLiteral("reduce_scatter"),
          QStringLiteral("all_gather"), QStringLiteral("broadcast"),
          QStringLiteral("reduce"),     QStringLiteral("all_to_all"),
          QStringLiteral("sendrecv")};
}

QStringList collective_algorithms() {
  return {QStringLiteral("ring"),      QStringLiteral("tree"),         QStringLiteral("nvls"),
          QStringLiteral("nvls_tree"), QStringLiteral("hierarchical"), QStringLiteral("direct"),
          QStringLiteral("auto")};
}

QStringList algorithms_for(const QString& op) {
  if (!collective_ops().contains(op)) return {};
  if (op == QLatin1String("allreduce")) {
    return {QStringLiteral("ring"),      QStringLiteral("tree"),         QStringLiteral("nvls"),
            QStringLiteral("nvls_tree"), QStringLiteral("hierarchical"), QStringLiteral("auto")};
  }
  if (op == QLatin1String("all_to_all") || op == QLatin1String("sendrecv"))
    return {QStringLiteral("direct"), QStringLiteral("auto")};
  if (op == QLatin1String("reduce_scatter") || op == QLatin1String("all_gather"))
    return {QStringLiteral("ring"), QStringLiteral("nvls"), QStringLiteral("auto")};
  return {QStringLiteral("ring"), QStringLiteral("auto")};
}

QStringList collective_protocols() {
  return {QStringLiteral("auto"), QStringLiteral("LL"), QStringLiteral("LL128"),
          QStringLiteral("Simple"), QStringLiteral("wire")};
}

QStringList collective_arguments(const Scenario& s, const QString& trace_dir) {
  const CollectiveScenario& c = s.collective;
  QStringList args{QStringLiteral("collective"),
                   QStringLiteral("--op"),
                   c.op,
                   QStringLiteral("--topology"),
                   s.topology,
                   QStringLiteral("--sizes"),
                   c.sizes,
                   QStringLiteral("--algorithm"),
                   c.algorithms.join(QLatin1Char(',')),
                   QStringLiteral("--protocol"),
                   c.protocol};
  if (c.gpus_per_server > 0)
    args << QStringLiteral("--gpus-per-server") << QString::number(c.gpus_per_server);
  if (c.gpus > 0) args << QStringLiteral("--gpus") << QString::number(c.gpus);
  if (c.gpus_per_thread > 1)
    args << QStringLiteral("--gpus-per-thread") << QString::number(c.gpus_per_thread);
  args << what_if_arguments(s);
  args << QStringLiteral("--format") << QStringLiteral("json") << QStringLiteral("--trace-dir")
       << trace_dir;
  return args;
}

QString collective_trace_name(const QString& op, const QString& algorithm, double bytes) {
  // The CLI prints the byte count with "%.0f".
  return QStringLiteral("%1-%2-%3.json").arg(op, algorithm, QString::number(bytes, 'f', 0));
}

}  // namespace opsim::gui
