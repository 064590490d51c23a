// Thin glue from a trace file on disk to the engine's Trace model. Reading Chrome JSON is the
// engine's job (engine/chrome_trace_reader); this forwards to it.
#pragma once

#include <memory>
#include <string>

#include "engine/trace.hpp"

namespace opsim::gui {

/// Reads a trace file opsim wrote. Throws opsim::InputError ("FILE: what is wrong") on bad input.
std::shared_ptr<Trace> load_trace_file(const std::string& path);

}  // namespace opsim::gui
