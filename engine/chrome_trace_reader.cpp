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

// Where in the file something is: "traceEvents[12].args". Built into text only on failure,
// since every event of a large trace passes through here.
struct Where {
  Where(const std::string& text) : base(text) {}  // NOLINT: implicit by design
  Where(const char* text) : base(text) {}         // NOLINT
  Where(std::string_view prefix, std::size_t i, std::string_view tail = {})
      : base(prefix), index(i), suffix(tail) {}
  std::string str() const {
    std::string out(base);
    if (index != std::string::npos) out += "[" + std::to_string(index) + "]";
    out += suffix;
    return out;
  }
  std::string_view base;
  std::size_t index = std::string::npos;
  std::string_view suffix;
};

// Field access that names the file and the place of anything missing or mistyped.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const Where& where, const std::string& what) const {
    throw InputError(source_ + ": " + where.str() + ": " + what);
  }

  const json& field(const json& object, const char* key, const Where& where) const {
    if (!object.is_object()) fail(where, "expected a JSON object");
    auto it = object.find(key);
    if (it == object.end()) fail(where, std::string("missing \"") + key + "\"");
    return *it;
  }
  std::string string(const json& object, const char* key, const Where& where) const {
    const json& v = field(object, key, where);
    if (!v.is_string()) fail(where, std::string("\"") + key + "\" is not a string");
    return v.get<std::string>();
  }
  double number(const json& object, const char* key, const Where& where) const {
    const json& v = field(object, key, where);
    if (!v.is_number()) fail(where, std::string("\"") + key + "\" is not a number");
    return v.get<double>();
  }
  std::int64_t integer(const json& object, const char* key, const Where& where) const {
    const json& v = field(object, key, where);
    if (!v.is_number_integer()) fail(where, std::string("\"") + key + "\" is not an integer");
    return v.get<std::int64_t>();
  }
  std::uint32_t index(const json& object, const char* key, std::size_t size,
                      const Where& where) const {
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

// Builds the Trace as events arrive, so that a large file never has to exist as one JSON tree.
class TraceBuilder {
 public:
  explicit TraceBuilder(const std::string& source) : r_(source) {}

  bool has_meta() const { return has_meta_; }

  void meta(const json& meta) {
    const std::string mwhere = "otherData.opsim";
    if (r_.string(meta, "format", mwhere) != "opsim-trace") {
      r_.fail(mwhere, "\"format\" is not \"opsim-trace\"");
    }
    if (const std::int64_t version = r_.integer(meta, "version", mwhere); version != 1) {
      r_.fail(mwhere, "unsupported version " + std::to_string(version) + " (this opsim reads 1)");
    }
    trace_.title = r_.string(meta, "title", mwhere);
    trace_.backend = r_.string(meta, "backend", mwhere);
    trace_.machine = r_.string(meta, "machine", mwhere);
    const json& lanes = r_.field(meta, "lanes", mwhere);
    if (!lanes.is_array()) r_.fail(mwhere, "\"lanes\" is not an array");
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const std::string where = mwhere + ".lanes[" + std::to_string(i) + "]";
      TraceLane lane;
      lane.name = r_.string(lanes[i], "name", where);
      lane.node = r_.string(lanes[i], "node", where);
      lane.device = r_.string(lanes[i], "device", where);
      bool ok = true;
      const std::string kind = r_.string(lanes[i], "kind", where);
      lane.kind = parse_lane_kind(kind, ok);
      if (!ok) r_.fail(where, "unknown lane kind \"" + kind + "\"");
      lane.capacity_bytes_per_s = r_.number(lanes[i], "capacity_bytes_per_s", where);
      trace_.lanes.push_back(std::move(lane));
    }
    const json& counters = r_.field(meta, "counters", mwhere);
    if (!counters.is_array()) r_.fail(mwhere, "\"counters\" is not an array");
    for (std::size_t i = 0; i < counters.size(); ++i) {
      const std::string where = mwhere + ".counters[" + std::to_string(i) + "]";
      TraceCounter counter;
      counter.name = r_.string(counters[i], "name", where);
      counter.unit = r_.string(counters[i], "unit", where);
      counter.node = r_.string(counters[i], "node", where);
      counter.device = r_.string(counters[i], "device", where);
      counter_by_name_.emplace(counter.name, i);
      trace_.counters.push_back(std::move(counter));
    }
    const std::int64_t op_count = r_.integer(meta, "op_count", mwhere);
    const std::int64_t dependency_count = r_.integer(meta, "dependency_count", mwhere);
    link_span_count_ = r_.integer(meta, "link_span_count", mwhere);
    if (op_count < 0 || dependency_count < 0 || link_span_count_ < 0) {
      r_.fail(mwhere, "negative count");
    }
    trace_.ops.resize(static_cast<std::size_t>(op_count));
    op_seen_.assign(trace_.ops.size(), 0);
    trace_.dependencies.assign(static_cast<std::size_t>(dependency_count), {0, 0});
    flow_seen_.assign(trace_.dependencies.size() * 2, 0);
    trace_.link_spans.reserve(static_cast<std::size_t>(link_span_count_));
    has_meta_ = true;
  }

  void event(const json& event, std::size_t index) {
    const Where where("traceEvents", index);
    const std::string ph = r_.string(event, "ph", where);
    if (ph == "X") {
      const std::string cat = r_.string(event, "cat", where);
      const json& args = r_.field(event, "args", where);
      const Where awhere("traceEvents", index, ".args");
      const std::uint32_t op = r_.index(args, "op", trace_.ops.size(), awhere);
      const std::uint32_t lane = r_.index(args, "lane", trace_.lanes.size(), awhere);
      const TimeNs start_ns = r_.integer(args, "start_ns", awhere);
      const TimeNs end_ns = r_.integer(args, "end_ns", awhere);
      if (end_ns < start_ns) r_.fail(where, "end_ns is before start_ns");
      if (cat == "op") {
        if (op_seen_[op]) r_.fail(where, "op " + std::to_string(op) + " appears twice");
        op_seen_[op] = 1;
        TraceOp& t = trace_.ops[op];
        t.name = r_.string(args, "name", awhere);
        t.op_class = r_.string(args, "class", awhere);
        t.device = r_.string(args, "device", awhere);
        t.peer = r_.string(args, "peer", awhere);
        t.bytes = r_.number(args, "bytes", awhere);
        t.flops = r_.number(args, "flops", awhere);
        t.lane = lane;
        t.start_ns = start_ns;
        t.end_ns = end_ns;
      } else if (cat == "link") {
        trace_.link_spans.push_back(TraceSpan{op, lane, start_ns, end_ns});
      } else {
        r_.fail(where, "unknown span category \"" + cat + "\" (expected \"op\" or \"link\")");
      }
    } else if (ph == "s" || ph == "f") {
      const std::size_t id = r_.index(event, "id", trace_.dependencies.size() + 1, where);
      if (id == 0) r_.fail(where, "flow id 0 is out of range");
      const std::uint32_t op = r_.index(r_.field(event, "args", where), "op", trace_.ops.size(),
                                        Where("traceEvents", index, ".args"));
      const bool start = ph == "s";
      char& seen = flow_seen_[(id - 1) * 2 + (start ? 0 : 1)];
      if (seen) r_.fail(where, "flow " + std::to_string(id) + " has two \"" + ph + "\" events");
      seen = 1;
      (start ? trace_.dependencies[id - 1].first : trace_.dependencies[id - 1].second) = op;
    } else if (ph == "C") {
      const std::string name = r_.string(event, "name", where);
      const auto it = counter_by_name_.find(name);
      if (it == counter_by_name_.end()) {
        r_.fail(where, "counter \"" + name + "\" is not in otherData.opsim.counters");
      }
      TraceCounter& counter = trace_.counters[it->second];
      const json& args = r_.field(event, "args", where);
      counter.samples.push_back(
          {us_to_ns(r_.number(event, "ts", where)),
           r_.number(args, counter.unit.c_str(), Where("traceEvents", index, ".args"))});
    } else if (ph != "M") {
      r_.fail(where, "unexpected event phase \"" + ph + "\"");
    }
  }

  Trace finish() {
    for (std::size_t i = 0; i < op_seen_.size(); ++i) {
      if (!op_seen_[i]) r_.fail("traceEvents", "op " + std::to_string(i) + " has no \"X\" event");
    }
    for (std::size_t i = 0; i < flow_seen_.size(); ++i) {
      if (!flow_seen_[i]) {
        r_.fail("traceEvents", "dependency flow " + std::to_string(i / 2 + 1) + " has no \"" +
                                   (i % 2 == 0 ? "s" : "f") + "\" event");
      }
    }
    if (trace_.link_spans.size() != static_cast<std::size_t>(link_span_count_)) {
      r_.fail("traceEvents", std::to_string(trace_.link_spans.size()) + " link spans, expected " +
                                 std::to_string(link_span_count_));
    }
    return std::move(trace_);
  }

  const Reader& reader() const { return r_; }

 private:
  Reader r_;
  Trace trace_;
  bool has_meta_ = false;
  std::int64_t link_span_count_ = 0;
  std::map<std::string, std::size_t> counter_by_name_;
  std::vector<char> op_seen_;
  std::vector<char> flow_seen_;
};

[[noreturn]] void throw_syntax_error(const json::parse_error& e, std::string_view text,
                                     const std::string& source) {
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

}  // namespace

Trace parse_chrome_trace(std::string_view text, const std::string& source) {
  TraceBuilder builder(source);
  const Reader& r = builder.reader();
  // Events are handed to the builder as soon as each is parsed and then dropped from the
  // tree, once otherData.opsim is known (opsim writes it first); events seen before it are
  // kept and handled afterwards.
  std::string top_key;
  std::size_t event_index = 0;
  auto callback = [&](int depth, json::parse_event_t kind, json& parsed) {
    if (depth == 1 && kind == json::parse_event_t::key) {
      top_key = parsed.get<std::string>();
    } else if (depth == 1 && kind == json::parse_event_t::object_end && top_key == "otherData") {
      if (parsed.contains("opsim") && !builder.has_meta()) builder.meta(parsed["opsim"]);
    } else if (depth == 2 && kind == json::parse_event_t::object_end && top_key == "traceEvents") {
      const std::size_t index = event_index++;
      if (builder.has_meta()) {
        builder.event(parsed, index);
        return false;  // handled: keep it out of the tree
      }
    } else if (depth == 2 && top_key == "traceEvents" &&
               (kind == json::parse_event_t::value || kind == json::parse_event_t::array_start)) {
      r.fail(Where("traceEvents", event_index), "expected a JSON object");
    }
    return true;
  };
  json doc;
  try {
    doc = json::parse(text, callback);
  } catch (const json::parse_error& e) {
    throw_syntax_error(e, text, source);
  }
  if (!doc.is_object()) {
    r.fail("top level", "not a Chrome trace object (expected {\"traceEvents\": [...]})");
  }
  if (!builder.has_meta()) r.fail("top level", "not an opsim trace (no otherData.opsim)");
  const auto events = doc.find("traceEvents");
  if (events == doc.end() || !events->is_array()) {
    r.fail("top level", "missing \"traceEvents\" array");
  }
  // Events that came before otherData (a file re-ordered by another tool) are still here.
  std::size_t index = 0;
  for (const json& event : *events) builder.event(event, index++);
  return builder.finish();
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
