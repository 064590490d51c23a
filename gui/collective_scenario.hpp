// A collective scenario: one op (allreduce, all_to_all, ...) timed per algorithm by
// `opsim collective`, and which algorithms the CLI accepts for which op.
#pragma once

#include <QString>
#include <QStringList>

namespace opsim::gui {

struct Scenario;

/// The ops `opsim collective --op` knows, in the order the panel lists them.
QStringList collective_ops();
/// Every algorithm name the CLI knows (ring, tree, nvls, nvls_tree, hierarchical, direct, auto).
QStringList collective_algorithms();
/// The algorithms that apply to `op`, as the CLI's rule says: ring, tree, nvls and
/// hierarchical for allreduce; ring and nvls for reduce_scatter and all_gather; ring for
/// broadcast and reduce; direct for all_to_all and sendrecv; auto for every op. Empty for an
/// unknown op.
QStringList algorithms_for(const QString& op);
/// LL, LL128, Simple, wire (the links alone) and auto (NCCL's tuner by size).
QStringList collective_protocols();

struct CollectiveScenario {
  QString op = QStringLiteral("allreduce");
  QStringList algorithms{QStringLiteral("ring"), QStringLiteral("tree")};
  QString protocol = QStringLiteral("auto");
  QString sizes = QStringLiteral("160MB");  ///< bytes per rank: one size, or MIN:MAX
  int gpus = 0;                             ///< use the first N GPUs; 0: all of them
  int gpus_per_server = 0;                  ///< of the first G GPUs of every server; 0: all of them
  /// nccl-tests' -g: GPUs one host thread launches for, in turn (--gpus-per-thread).
  int gpus_per_thread = 1;

  bool operator==(const CollectiveScenario&) const = default;
};

/// Arguments for `opsim` (without the program): collective --op ... --format json
/// --trace-dir DIR, with the scenario's topology and what-if edits.
QStringList collective_arguments(const Scenario& scenario, const QString& trace_dir);

/// The trace `opsim collective --trace-dir` writes for one row: <op>-<algorithm>-<bytes>.json.
QString collective_trace_name(const QString& op, const QString& algorithm, double bytes);

}  // namespace opsim::gui
