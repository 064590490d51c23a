// Checks a Chrome trace JSON document against the rules Perfetto and chrome://tracing rely
// on, so that tests (and the CLI) can prove a written trace is in spec.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace opsim {

/// Returns one line per broken rule (empty: all good). Rules: a "traceEvents" array (or a
/// top-level array) of objects with a string "ph"; integer "pid" and "tid" on every event;
/// "ts" and "dur" (when present) numbers ≥ 0, "ts" required except on "M" events; no two
/// "X" events overlapping on one (pid, tid) (compared in integer nanoseconds, touching is
/// fine); every (pid, tid) used by an "X" or flow event named by an "M" thread_name event;
/// flows paired: each "s" id has exactly one "f" (and vice versa), and each bind_id with
/// flow_out has a matching flow_in.
std::vector<std::string> check_chrome_trace_rules(const nlohmann::json& document);

}  // namespace opsim
