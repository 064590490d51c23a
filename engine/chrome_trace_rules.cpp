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

std::int64_t us_to_ns(double us) {
  return static_cast<std::int64_t>(std::llround(us * 1000.0));
}

std::string id_text(const json& id) {
  return id.is_string() ? id.get<std::string>() : id.dump();
}

}  // namespace

std::vector<std::string> check_chrome_trace_rules(const json& document) {
  std::vector<std::string> problems;
  const json* events = nullptr;
  if (document.is_array()) {
    events = &document;
  } else if (document.is_object() && document.contains("traceEvents") &&
             document["traceEvents"].is_array()) {
    events = &document["traceEvents"];
  } else {
    problems.push_back("no traceEvents array");
    return problems;
  }

  using Thread = std::pair<std::int64_t, std::int64_t>;
  struct Span {
    std::int64_t start_ns, end_ns;
    std::size_t event;
  };
  std::map<Thread, std::vector<Span>> spans;
  std::map<Thread, std::size_t> used;  // first event using a thread
  std::set<Thread> named;
  std::map<std::string, std::pair<int, int>> flows;     // id -> (#s, #f)
  std::map<std::string, std::pair<int, int>> bindings;  // bind_id -> (#out, #in)

  for (std::size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    const std::string at = "event " + std::to_string(i);
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
      problems.push_back(at + ": not an object with a string \"ph\"");
      continue;
    }
    const std::string ph = e["ph"].get<std::string>();
    const bool has_ids = e.contains("pid") && e["pid"].is_number_integer() && e.contains("tid") &&
                         e["tid"].is_number_integer();
    if (!has_ids) problems.push_back(at + " (ph " + ph + "): pid and tid must be integers");
    const bool ts_ok = e.contains("ts") && e["ts"].is_number() && e["ts"].get<double>() >= 0;
    if (ph != "M" && !ts_ok) problems.push_back(at + " (ph " + ph + "): ts must be a number >= 0");
    if (e.contains("dur") && !(e["dur"].is_number() && e["dur"].get<double>() >= 0)) {
      problems.push_back(at + " (ph " + ph + "): dur must be a number >= 0");
    }
    if (!has_ids) continue;
    const Thread thread{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()};
    if (ph == "M") {
      if (e.value("name", "") == "thread_name") named.insert(thread);
      continue;
    }
    if (ph == "X" || ph == "s" || ph == "t" || ph == "f") used.emplace(thread, i);
    if (ph == "X" && ts_ok) {
      if (!e.contains("dur") || !e["dur"].is_number()) {
        problems.push_back(at + " (ph X): missing numeric dur");
        continue;
      }
      const std::int64_t start = us_to_ns(e["ts"].get<double>());
      spans[thread].push_back({start, start + us_to_ns(e["dur"].get<double>()), i});
    }
    if (ph == "s" || ph == "f") {
      if (!e.contains("id")) {
        problems.push_back(at + " (ph " + ph + "): flow event without id");
      } else {
        auto& count = flows[id_text(e["id"])];
        (ph == "s" ? count.first : count.second)++;
      }
    }
    if (e.contains("bind_id")) {
      auto& count = bindings[id_text(e["bind_id"])];
      if (e.value("flow_out", false)) count.first++;
      if (e.value("flow_in", false)) count.second++;
    }
  }

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
  for (const auto& [thread, event] : used) {
    if (!named.contains(thread)) {
      problems.push_back("event " + std::to_string(event) + ": pid " +
                         std::to_string(thread.first) + " tid " + std::to_string(thread.second) +
                         " has no thread_name");
    }
  }
  for (const auto& [id, count] : flows) {
    if (count.first != 1 || count.second != 1) {
      problems.push_back("flow id " + id + ": " + std::to_string(count.first) + " start(s), " +
                         std::to_string(count.second) + " end(s), expected one each");
    }
  }
  for (const auto& [id, count] : bindings) {
    if (count.first < 1 || count.second < 1) {
      problems.push_back("bind_id " + id + ": needs a flow_out and a flow_in event");
    }
  }
  return problems;
}

}  // namespace opsim
