// The scenario panel's state and how it becomes an `opsim compare` or `opsim collective`
// command line.
#pragma once

#include <QString>
#include <QStringList>

#include "gui/collective_scenario.hpp"

namespace opsim::gui {

/// Strategies the CLI knows, in the order the panel lists them.
QStringList known_strategies();

/// Which CLI command a scenario runs: strategies side by side (`opsim compare`) or one
/// collective op per algorithm (`opsim collective`).
enum class ScenarioKind { kStrategies, kCollective };

struct Scenario {
  ScenarioKind kind = ScenarioKind::kStrategies;
  QString topology = QStringLiteral("pcie-switch-4gpu");  ///< preset name or topology file path
  QString gradient_bytes = QStringLiteral("160MB");       ///< parse_bytes syntax
  int gpus = 4;
  bool comm_only = true;
  QStringList strategies{QStringLiteral("tree"), QStringLiteral("cpu"), QStringLiteral("split")};
  double link_bandwidth_scale = 1.0;  ///< what-if: every link's bandwidth times this
  QStringList overrides;              ///< what-if: "DEVICE_OR_LINK.FIELD=VALUE" each
  CollectiveScenario collective;      ///< used when kind is kCollective

  bool operator==(const Scenario&) const = default;
};

/// Arguments for `opsim` (without the program): compare --topology ... --format json
/// --trace-dir DIR; --link-bandwidth-scale only when != 1, one --set per override.
QStringList compare_arguments(const Scenario& scenario, const QString& trace_dir);

/// --link-bandwidth-scale when != 1, then one --set per non-blank override.
QStringList what_if_arguments(const Scenario& scenario);

/// compare_arguments or collective_arguments, by the scenario's kind.
QStringList run_arguments(const Scenario& scenario, const QString& trace_dir);

/// The CLI next to this program (QCoreApplication::applicationDirPath()/opsim), or the path
/// in $OPSIM_CLI; empty if neither is an executable file.
QString find_opsim_cli();

}  // namespace opsim::gui
