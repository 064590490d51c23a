// Trace files by extension, for the command line and the GUI:
//   ".json" → Chrome trace (Perfetto, chrome://tracing; opsim reads it back)
//   ".csv"  → one row per op (write only)
//
//   write_trace_file(trace, "out/tree.json");
//   Trace again = read_trace_file("out/tree.json");
#pragma once

#include <filesystem>

#include "engine/trace.hpp"

namespace opsim {

/// Writes atomically in the format the extension names; throws InputError "PATH: ..." for
/// an unknown extension or a failed write.
void write_trace_file(const Trace& trace, const std::filesystem::path& path);
/// Reads a ".json" trace opsim wrote; throws InputError for other extensions or bad files.
Trace read_trace_file(const std::filesystem::path& path);

}  // namespace opsim
