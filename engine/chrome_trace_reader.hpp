// Reads a Chrome trace JSON file written by write_chrome_trace() back into the Trace it was
// written from (write → read gives an equal Trace). Used by the GUI to open trace files.
//
//   Trace trace = read_chrome_trace("tree.json");   // throws InputError on a bad file
#pragma once

#include <string>
#include <string_view>

#include "engine/trace.hpp"

namespace opsim {

/// Reads an opsim Chrome trace. Throws InputError, one line "FILE: what is wrong" (JSON
/// syntax errors: "FILE:LINE:COLUMN: ... (byte N)"), when the file cannot be read, is not
/// JSON, or is not a trace opsim wrote.
Trace read_chrome_trace(const std::string& path);
/// Same, from text already in memory; `source` names it in error messages.
Trace parse_chrome_trace(std::string_view text, const std::string& source);

/// Whether `text` takes the fast path (compact files opsim wrote) rather than the checked
/// parser; for tests and diagnostics.
bool chrome_trace_reads_fast(std::string_view text);

}  // namespace opsim
