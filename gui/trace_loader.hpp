// From a trace file on disk (plain or gzip) to the engine's Trace model: opsim's own traces
// go to the engine's reader (engine/chrome_trace_reader), any other Chrome trace to
// gui/chrome_trace_import; for an overlay (recorded vs replayed, real vs simulated) this adds
// its op pairing and the step errors written beside it.
#pragma once

#include <memory>
#include <string>

#include "engine/trace.hpp"
#include "gui/op_twins.hpp"
#include "gui/replay_steps.hpp"

namespace opsim::gui {

/// A trace file read, and what of it the timeline does not draw.
struct ReadTrace {
  std::shared_ptr<Trace> trace;
  std::size_t events_not_drawn = 0;  ///< other tools' instant, async... events
};

/// Reads a Chrome trace file, opsim's or another tool's, plain or gzip. Throws
/// opsim::InputError ("FILE: what is wrong") on bad input.
ReadTrace read_trace_file(const std::string& path);
/// read_trace_file()'s trace.
std::shared_ptr<Trace> load_trace_file(const std::string& path);

/// A trace file as a pane shows it.
struct LoadedTrace {
  std::shared_ptr<Trace> trace;
  std::shared_ptr<const OpTwins> twins;      ///< an overlay's pairing; null for other traces
  std::shared_ptr<const ReplaySteps> steps;  ///< from X.steps.json beside X.overlay.json
  std::size_t events_not_drawn = 0;          ///< see ReadTrace
};

/// load_trace_file() plus the pairing, and the step report when `path` is an overlay
/// "X.overlay.json" with "X.steps.json" beside it (a report that is there but broken throws).
LoadedTrace load_pane_trace(const std::string& path);

}  // namespace opsim::gui
