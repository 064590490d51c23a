// Thin glue from a trace file on disk to the engine's Trace model. Reading Chrome JSON is the
// engine's job (engine/chrome_trace_reader); this only forwards to it when it is built in.
#pragma once

#include <memory>
#include <string>

#include "engine/trace.hpp"

namespace opsim::gui {

/// True when this build can read Chrome trace files.
bool can_read_trace_files();

/// Reads a trace file opsim wrote. Throws opsim::InputError ("FILE: what is wrong") on bad
/// input or when this build has no trace reader.
std::shared_ptr<Trace> load_trace_file(const std::string& path);

}  // namespace opsim::gui
