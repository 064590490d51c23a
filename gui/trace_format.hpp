// Which reader a trace file is for, told from its first bytes (decompressed, for gzip):
// opsim's own Chrome trace (a top-level "otherData" with an "opsim" member, which opsim
// writes first), a PyTorch profiler (Kineto) trace, which opsim-gui replays before showing
// it, or any other Chrome trace, which it shows as it is.
//
//   if (trace_format_of_file(path) == TraceFormat::kKineto) replay it; else
//   load_trace_file(path);
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace opsim::gui {

enum class TraceFormat {
  kOpsim,   ///< opsim's Chrome trace
  kKineto,  ///< JSON with a Kineto key or event category
  kChrome,  ///< any other Chrome trace, or a file no reader would take (its reader says why)
};

/// Bytes of a file's start that trace_format_of_file() looks at.
inline constexpr std::size_t kTraceSniffBytes = std::size_t{4} << 20;

/// The format of `bytes`, the start of a trace file (gzip: of what its start decompresses
/// to): whichever of otherData.opsim, a Kineto top-level key ("schemaVersion",
/// "deviceProperties", "distributedInfo") or a traceEvents entry of a Kineto category
/// ("cpu_op", "kernel", ...) comes first decides; undecided (other JSON, broken text, a
/// cut-off start) is kChrome.
TraceFormat trace_format_of(std::string_view bytes);

/// Same, for the first kTraceSniffBytes of the file at `path`. Throws InputError
/// ("PATH: ...") when it is missing, unreadable or not a regular file.
TraceFormat trace_format_of_file(const std::string& path);

}  // namespace opsim::gui
