// The scenario given on opsim-gui's command line: --topology and, for a collective,
// --collective OP with --algorithm, --protocol, --sizes and --gpus, e.g.
//   opsim-gui --collective allreduce --algorithm ring,tree --topology dgx1-v100
#pragma once

#include <QCommandLineParser>

#include "gui/scenario.hpp"

namespace opsim::gui {

/// Adds the scenario options to `parser` (before it processes the arguments).
void add_scenario_options(QCommandLineParser& parser);

/// The default scenario with what the options given change. Throws opsim::InputError with
/// one line ("--algorithm nvls: does not apply to broadcast (ring, auto)") for an unknown op,
/// protocol or algorithm, one the op has not, a collective option without --collective, or
/// a GPU count that is not a whole number >= 0.
Scenario scenario_from_options(const QCommandLineParser& parser);

}  // namespace opsim::gui
