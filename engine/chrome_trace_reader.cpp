#include "engine/chrome_trace_reader.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hw_models/input_error.hpp"

namespace opsim {

using nlohmann::json;

namespace {

LaneKind parse_lane_kind(const std::string& text, bool& ok) {
  for (LaneKind kind :
       {LaneKind::kCompute, LaneKind::kCopy, LaneKind::kHost, LaneKind::kIo, LaneKind::kLink}) {
    if (to_string(kind) == text) return kind;
  }
  ok = false;
  return LaneKind::kCompute;
}

// Field access that names the file and the place of anything missing or mistyped.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(source_ + ": " + where + ": " + what);
  }

  const json& field(const json& object, const char* key, const std::string& where) const {
    if (!object.is_object()) fail(where, "expected a JSON object");
    auto it = object.find(key);
    if (it == object.end()) fail(where, std::string("missing \"") + key + "\"");
    return *it;
  }
  std::string string(const json& object, const char* key, const std::string& where) const {
    const json& v = field(object, key, where);
    if (!v.is_string()) fail(where, std::string("\"") + key + "\" is not a string");
    return v.get<std::string>();
  }
  double number(const json& object, const char* key, const std::string& where) const {
    const json& v = field(object, key, where);
    if (!v.is_number()) fail(where, std::string("\"") + key + "\" is not a number");
    return v.get<double>();
  }
  std::int64_t integer(const json& object, const char* key, const std::string& where) const {
    const json& v = field(object, key, where);
    if (!v.is_number_integer()) fail(where, std::string("\"") + key + "\" is not an integer");
    return v.get<std::int64_t>();
  }
  std::uint32_t index(const json& object, const char* key, std::size_t size,
                      const std::string& where) const {
    const std::int64_t v = integer(object, key, where);
    if (v < 0 || static_cast<std::uint64_t>(v) >= size) {
      fail(where, std::string("\"") + key + "\" = " + std::to_string(v) + " is out of range [0, " +
                      std::to_string(size) + ")");
    }
    return static_cast<std::uint32_t>(v);
  }

 private:
  const std::string& source_;
};

TimeNs us_to_ns(double us) {
  return static_cast<TimeNs>(std::llround(us * 1000.0));
}

}  // namespace

Trace parse_chrome_trace(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // Turn the byte offset into line and column; nlohmann's message can span lines.
    const std::size_t byte = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    for (char& c : what) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": invalid JSON (byte " + std::to_string(e.byte) + "): " + what);
  }
  const Reader r(source);
  if (!doc.is_object())
    r.fail("top level", "not a Chrome trace object (expected {\"traceEvents\": [...]})");
  const auto other = doc.find("otherData");
  if (other == doc.end() || !other->is_object() || !other->contains("opsim")) {
    r.fail("top level", "not an opsim trace (no otherData.opsim)");
  }
  const json& meta = (*other)["opsim"];
  const std::string mwhere = "otherData.opsim";
  if (r.string(meta, "format", mwhere) != "opsim-trace")
    r.fail(mwhere, "\"format\" is not \"opsim-trace\"");
  if (const std::int64_t version = r.integer(meta, "version", mwhere); version != 1) {
    r.fail(mwhere, "unsupported version " + std::to_string(version) + " (this opsim reads 1)");
  }

  Trace trace;
  trace.title = r.string(meta, "title", mwhere);
  trace.backend = r.string(meta, "backend", mwhere);
  trace.machine = r.string(meta, "machine", mwhere);
  const json& lanes = r.field(meta, "lanes", mwhere);
  if (!lanes.is_array()) r.fail(mwhere, "\"lanes\" is not an array");
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const std::string where = mwhere + ".lanes[" + std::to_string(i) + "]";
    TraceLane lane;
    lane.name = r.string(lanes[i], "name", where);
    lane.node = r.string(lanes[i], "node", where);
    lane.device = r.string(lanes[i], "device", where);
    bool ok = true;
    const std::string kind = r.string(lanes[i], "kind", where);
    lane.kind = parse_lane_kind(kind, ok);
    if (!ok) r.fail(where, "unknown lane kind \"" + kind + "\"");
    lane.capacity_bytes_per_s = r.number(lanes[i], "capacity_bytes_per_s", where);
    trace.lanes.push_back(std::move(lane));
  }
  const json& counters = r.field(meta, "counters", mwhere);
  if (!counters.is_array()) r.fail(mwhere, "\"counters\" is not an array");
  std::map<std::string, std::size_t> counter_by_name;
  for (std::size_t i = 0; i < counters.size(); ++i) {
    const std::string where = mwhere + ".counters[" + std::to_string(i) + "]";
    TraceCounter counter;
    counter.name = r.string(counters[i], "name", where);
    counter.unit = r.string(counters[i], "unit", where);
    counter.node = r.string(counters[i], "node", where);
    counter.device = r.string(counters[i], "device", where);
    counter_by_name.emplace(counter.name, i);
    trace.counters.push_back(std::move(counter));
  }
  const std::int64_t op_count = r.integer(meta, "op_count", mwhere);
  const std::int64_t dependency_count = r.integer(meta, "dependency_count", mwhere);
  const std::int64_t link_span_count = r.integer(meta, "link_span_count", mwhere);
  if (op_count < 0 || dependency_count < 0 || link_span_count < 0) r.fail(mwhere, "negative count");
  trace.ops.resize(static_cast<std::size_t>(op_count));
  std::vector<char> op_seen(trace.ops.size(), 0);
  trace.dependencies.assign(static_cast<std::size_t>(dependency_count), {0, 0});
  std::vector<char> flow_seen(trace.dependencies.size() * 2, 0);

  const auto events = doc.find("traceEvents");
  if (events == doc.end() || !events->is_array())
    r.fail("top level", "missing \"traceEvents\" array");
  for (std::size_t e = 0; e < events->size(); ++e) {
    const json& event = (*events)[e];
    const std::string where = "traceEvents[" + std::to_string(e) + "]";
    const std::string ph = r.string(event, "ph", where);
    if (ph == "X") {
      const std::string cat = r.string(event, "cat", where);
      const json& args = r.field(event, "args", where);
      const std::uint32_t op = r.index(args, "op", trace.ops.size(), where + ".args");
      const std::uint32_t lane = r.index(args, "lane", trace.lanes.size(), where + ".args");
      const TimeNs start_ns = r.integer(args, "start_ns", where + ".args");
      const TimeNs end_ns = r.integer(args, "end_ns", where + ".args");
      if (end_ns < start_ns) r.fail(where, "end_ns is before start_ns");
      if (cat == "op") {
        if (op_seen[op]) r.fail(where, "op " + std::to_string(op) + " appears twice");
        op_seen[op] = 1;
        TraceOp& t = trace.ops[op];
        t.name = r.string(args, "name", where + ".args");
        t.op_class = r.string(args, "class", where + ".args");
        t.device = r.string(args, "device", where + ".args");
        t.peer = r.string(args, "peer", where + ".args");
        t.bytes = r.number(args, "bytes", where + ".args");
        t.flops = r.number(args, "flops", where + ".args");
        t.lane = lane;
        t.start_ns = start_ns;
        t.end_ns = end_ns;
      } else if (cat == "link") {
        trace.link_spans.push_back(TraceSpan{op, lane, start_ns, end_ns});
      } else {
        r.fail(where, "unknown span category \"" + cat + "\" (expected \"op\" or \"link\")");
      }
    } else if (ph == "s" || ph == "f") {
      const std::size_t id = r.index(event, "id", trace.dependencies.size() + 1, where);
      if (id == 0) r.fail(where, "flow id 0 is out of range");
      const std::uint32_t op =
          r.index(r.field(event, "args", where), "op", trace.ops.size(), where + ".args");
      const bool start = ph == "s";
      char& seen = flow_seen[(id - 1) * 2 + (start ? 0 : 1)];
      if (seen) r.fail(where, "flow " + std::to_string(id) + " has two \"" + ph + "\" events");
      seen = 1;
      (start ? trace.dependencies[id - 1].first : trace.dependencies[id - 1].second) = op;
    } else if (ph == "C") {
      const std::string name = r.string(event, "name", where);
      const auto it = counter_by_name.find(name);
      if (it == counter_by_name.end())
        r.fail(where, "counter \"" + name + "\" is not in otherData.opsim.counters");
      TraceCounter& counter = trace.counters[it->second];
      const json& args = r.field(event, "args", where);
      counter.samples.push_back({us_to_ns(r.number(event, "ts", where)),
                                 r.number(args, counter.unit.c_str(), where + ".args")});
    } else if (ph != "M") {
      r.fail(where, "unexpected event phase \"" + ph + "\"");
    }
  }
  for (std::size_t i = 0; i < op_seen.size(); ++i) {
    if (!op_seen[i]) r.fail("traceEvents", "op " + std::to_string(i) + " has no \"X\" event");
  }
  for (std::size_t i = 0; i < flow_seen.size(); ++i) {
    if (!flow_seen[i]) {
      r.fail("traceEvents", "dependency flow " + std::to_string(i / 2 + 1) + " has no \"" +
                                (i % 2 == 0 ? "s" : "f") + "\" event");
    }
  }
  if (trace.link_spans.size() != static_cast<std::size_t>(link_span_count)) {
    r.fail("traceEvents", std::to_string(trace.link_spans.size()) + " link spans, expected " +
                              std::to_string(link_span_count));
  }
  return trace;
}

Trace read_chrome_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open trace file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read trace file");
  return parse_chrome_trace(text.str(), path);
}

}  // namespace opsim
