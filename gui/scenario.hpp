// The scenario panel's state and how it becomes an `opsim compare` command line.
#pragma once

#include <QString>
#include <QStringList>

namespace opsim::gui {

/// Strategies the CLI knows, in the order the panel lists them.
QStringList known_strategies();

struct Scenario {
  QString topology = QStringLiteral("pcie-switch-4gpu");  ///< preset name or topology file path
  QString gradient_bytes = QStringLiteral("160MB");       ///< parse_bytes syntax
  int gpus = 4;
  bool comm_only = true;
  QStringList strategies{QStringLiteral("tree"), QStringLiteral("cpu"), QStringLiteral("split")};
  double link_bandwidth_scale = 1.0;  ///< what-if: every link's bandwidth times this
  QStringList overrides;              ///< what-if: "DEVICE_OR_LINK.FIELD=VALUE" each

  bool operator==(const Scenario&) const = default;
};

/// Arguments for `opsim` (without the program): compare --topology ... --format json
/// --trace-dir DIR; --link-bandwidth-scale only when != 1, one --set per override.
QStringList compare_arguments(const Scenario& scenario, const QString& trace_dir);

/// The CLI next to this program (QCoreApplication::applicationDirPath()/opsim), or the path
/// in $OPSIM_CLI; empty if neither is an executable file.
QString find_opsim_cli();

}  // namespace opsim::gui
