// Any Chrome trace (the Trace Event Format that Chrome's about:tracing, Perfetto and many
// profilers write) read into opsim's Trace so the timeline can show it: the object form
// {"traceEvents": [...]} or a bare array of events; complete events "X", "B"/"E" pairs
// (matched per pid/tid as a stack), counters "C", flows ("s"/"t"/"f" by id, and
// bind_id with flow_out/flow_in) as dependencies, and "M" process_name/thread_name for lane
// labels. One lane per (pid, tid), or per (pid, args.stream) for events that name a stream;
// nested spans take sub-rows. Times start at the earliest event (ns, from the decimal text
// exactly). Instant, async, object and sample events are counted but not drawn.
//
//   ChromeImport in = import_chrome_trace(text, "trace.json");   // throws InputError
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/trace.hpp"

namespace opsim::gui {

struct ChromeImport {
  Trace trace;
  /// The file carries otherData.opsim: it is opsim's own, for engine/chrome_trace_reader.
  bool has_opsim_metadata = false;
  /// Events of phases the timeline does not draw (instant, async, object, sample...), and
  /// flow points that bound to no span.
  std::size_t events_not_drawn = 0;
};

/// Reads `text`; `source` names it in errors. Throws InputError, one line "SOURCE: PLACE:
/// what is wrong" (JSON syntax errors "SOURCE:LINE:COLUMN: ..."), for text that is not a
/// Chrome trace, an event without the fields its phase needs, an "E" without its "B" or a
/// "B" that never ends, or a time outside 2^62 ns.
ChromeImport import_chrome_trace(std::string_view text, const std::string& source);

}  // namespace opsim::gui
