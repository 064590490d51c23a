#include "engine/chrome_trace_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

namespace opsim {

using nlohmann::json;

namespace {

std::int64_t rounded_ns_of_us(double us) {
  return static_cast<std::int64_t>(std::llround(us * 1000.0));
}

std::string id_text(const json& id) {
  return id.is_string() ? id.get<std::string>() : id.dump();
}

using Thread = std::pair<std::int64_t, std::int64_t>;

struct Span {
  std::int64_t start_ns, end_ns;
  std::size_t event;
};

/// What the per-event pass collects for the rules that span several events.
struct EventTally {
  std::map<Thread, std::vector<Span>> spans;
  std::map<Thread, std::size_t> used;  // first event using a thread
  std::set<Thread> named;
  std::map<std::string, std::pair<int, int>> flows;     // id -> (#s, #f)
  std::map<std::string, std::pair<int, int>> bindings;  // bind_id -> (#out, #in)
};

/// The events array: the document itself or its "traceEvents"; null when there is none.
const json* trace_events(const json& document) {
  if (document.is_array()) return &document;
  if (document.is_object() && document.contains("traceEvents") &&
      document["traceEvents"].is_array()) {
    return &document["traceEvents"];
  }
  return nullptr;
}

bool has_integer_ids(const json& e) {
  return e.contains("pid") && e["pid"].is_number_integer() && e.contains("tid") &&
         e["tid"].is_number_integer();
}

bool has_valid_ts(const json& e) {
  return e.contains("ts") && e["ts"].is_number() && e["ts"].get<double>() >= 0;
}

/// The rules one event must keep on its own: integer ids, ts and dur numbers >= 0.
void check_event_fields(const json& e, const std::string& at, const std::string& ph,
                        std::vector<std::string>& problems) {
  if (!has_integer_ids(e))
    problems.push_back(at + " (ph " + ph + "): pid and tid must be integers");
  if (ph != "M" && !has_valid_ts(e)) {
    problems.push_back(at + " (ph " + ph + "): ts must be a number >= 0");
  }
  if (e.contains("dur") && !(e["dur"].is_number() && e["dur"].get<double>() >= 0)) {
    problems.push_back(at + " (ph " + ph + "): dur must be a number >= 0");
  }
}

/// Counts a flow event's id ("s"/"f") and an event's bind_id direction.
void tally_flows(const json& e, const std::string& at, const std::string& ph, EventTally& tally,
                 std::vector<std::string>& problems) {
  if (ph == "s" || ph == "f") {
    if (!e.contains("id")) {
      problems.push_back(at + " (ph " + ph + "): flow event without id");
    } else {
      auto& count = tally.flows[id_text(e["id"])];
      (ph == "s" ? count.first : count.second)++;
    }
  }
  if (e.contains("bind_id")) {
    auto& count = tally.bindings[id_text(e["bind_id"])];
    if (e.value("flow_out", false)) count.first++;
    if (e.value("flow_in", false)) count.second++;
  }
}

/// Checks event `i` on its own and adds it to the tally: thread names, used threads, X spans,
/// flows and bindings.
void tally_event(const json& e, std::size_t i, EventTally& tally,
                 std::vector<std::string>& problems) {
  const std::string at = "event " + std::to_string(i);
  if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
    problems.push_back(at + ": not an object with a string \"ph\"");
    return;
  }
  const std::string ph = e["ph"].get<std::string>();
  check_event_fields(e, at, ph, problems);
  if (!has_integer_ids(e)) return;
  const Thread thread{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()};
  if (ph == "M") {
    if (e.value("name", "") == "thread_name") tally.named.insert(thread);
    return;
  }
  if (ph == "X" || ph == "s" || ph == "t" || ph == "f") tally.used.emplace(thread, i);
  if (ph == "X" && has_valid_ts(e)) {
    if (!e.contains("dur") || !e["dur"].is_number()) {
      problems.push_back(at + " (ph X): missing numeric dur");
      return;
    }
    const std::int64_t start = rounded_ns_of_us(e["ts"].get<double>());
    tally.spans[thread].push_back({start, start + rounded_ns_of_us(e["dur"].get<double>()), i});
  }
  tally_flows(e, at, ph, tally, problems);
}

void report_overlapping_spans(std::map<Thread, std::vector<Span>>& spans,
                              std::vector<std::string>& problems) {
  for (auto& [thread, list] : spans) {
    std::sort(list.begin(), list.end(), [](const Span& a, const Span& b) {
      return std::tie(a.start_ns, a.end_ns, a.event) < std::tie(b.start_ns, b.end_ns, b.event);
    });
    for (std::size_t k = 1; k < list.size(); ++k) {
      if (list[k].start_ns < list[k - 1].end_ns) {
        problems.push_back("events " + std::to_string(list[k - 1].event) + " and " +
                           std::to_string(list[k].event) + ": X events overlap on pid " +
                           std::to_string(thread.first) + " tid " + std::to_string(thread.second));
      }
    }
  }
}

void report_unnamed_threads(const EventTally& tally, std::vector<std::string>& problems) {
  for (const auto& [thread, event] : tally.used) {
    if (!tally.named.contains(thread)) {
      problems.push_back("event " + std::to_string(event) + ": pid " +
                         std::to_string(thread.first) + " tid " + std::to_string(thread.second) +
                         " has no thread_name");
    }
  }
}

void report_unpaired_flows(const EventTally& tally, std::vector<std::string>& problems) {
  for (const auto& [id, count] : tally.flows) {
    if (count.first != 1 || count.second != 1) {
      problems.push_back("flow id " + id + ": " + std::to_string(count.first) + " start(s), " +
                         std::to_string(count.second) + " end(s), expected one each");
    }
  }
  for (const auto& [id, count] : tally.bindings) {
    if (count.first < 1 || count.second < 1) {
      problems.push_back("bind_id " + id + ": needs a flow_out and a flow_in event");
    }
  }
}

}  // namespace

std::vector<std::string> check_chrome_trace_rules(const json& document) {
  const json* events = trace_events(document);
  if (events == nullptr) return {"no traceEvents array"};
  std::vector<std::string> problems;
  EventTally tally;
  for (std::size_t i = 0; i < events->size(); ++i) tally_event((*events)[i], i, tally, problems);
  report_overlapping_spans(tally.spans, problems);
  report_unnamed_threads(tally, problems);
  report_unpaired_flows(tally, problems);
  return problems;
}

}  // namespace opsim
