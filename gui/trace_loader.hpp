// Thin glue from a trace file on disk to the engine's Trace model. Reading Chrome JSON is the
// engine's job (engine/chrome_trace_reader); this forwards to it, and for an overlay of a
// replay (recorded vs replayed) adds its op pairing and the step errors written beside it.
#pragma once

#include <memory>
#include <string>

#include "engine/trace.hpp"
#include "gui/op_twins.hpp"
#include "gui/replay_steps.hpp"

namespace opsim::gui {

/// Reads a trace file opsim wrote. Throws opsim::InputError ("FILE: what is wrong") on bad input.
std::shared_ptr<Trace> load_trace_file(const std::string& path);

/// A trace file as a pane shows it.
struct LoadedTrace {
  std::shared_ptr<Trace> trace;
  std::shared_ptr<const OpTwins> twins;      ///< an overlay's pairing; null for other traces
  std::shared_ptr<const ReplaySteps> steps;  ///< from X.steps.json beside X.overlay.json
};

/// load_trace_file() plus the pairing, and the step report when `path` is an overlay
/// "X.overlay.json" with "X.steps.json" beside it (a report that is there but broken throws).
LoadedTrace load_pane_trace(const std::string& path);

}  // namespace opsim::gui
