#include "engine/chrome_trace_reader.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "common/input_error.hpp"
#include "common/input_file.hpp"
#include "engine/json_input.hpp"
#include "engine/json_sax_forward.hpp"

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

// A timestamp in microseconds as integer nanoseconds; nothing when it would leave int64
// (about 292 years) or is not finite.
std::optional<TimeNs> us_to_ns(double us) {
  constexpr double kMostUs = 9.2e15;
  if (!std::isfinite(us) || std::fabs(us) > kMostUs) return std::nullopt;
  return static_cast<TimeNs>(std::llround(us * 1000.0));
}

// Equality with a literal, its length known when compiling (no strlen, an inlined compare):
// millions of events pass through the fast path.
template <std::size_t N>
bool is(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
}

// One trace event as the fast path reads it: the fields opsim writes, flat.
struct FlatEvent {
  std::string ph, cat, name;
  std::string_view ts_text;  // converted only where used (counters): spans carry start_ns
  std::int64_t id = 0;
  std::int64_t op = 0, lane = 0, start_ns = 0, end_ns = 0;
  std::string arg_name, op_class, device, peer;
  double bytes = 0, flops = 0;
  std::string value_key;  // a counter's one argument
  double value = 0;
  bool has_ts = false, has_id = false, has_op = false, has_lane = false, has_start = false,
       has_end = false, has_bytes = false, has_flops = false, has_value = false,
       has_strings = false;
  int strings = 0;

  void reset() {
    ph.clear(), cat.clear(), name.clear(), arg_name.clear(), op_class.clear(), device.clear(),
        peer.clear(), value_key.clear();
    has_ts = has_id = has_op = has_lane = has_start = has_end = has_bytes = has_flops = has_value =
        has_strings = false;
    strings = 0;
  }
};

// Builds the Trace as events arrive, so that a large file never has to exist as one JSON tree.
class TraceBuilder {
 public:
  /// `text_bytes`: the size of the file, which bounds the counts its metadata may claim.
  TraceBuilder(const std::string& source, std::size_t text_bytes)
      : r_(source), text_bytes_(text_bytes) {}

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
    // Each op, link span and half of a dependency is an event of more than 16 bytes: larger
    // counts are not this file's, and would only exhaust memory.
    const std::int64_t most = static_cast<std::int64_t>(text_bytes_ / 16) + 16;
    if (op_count > most || dependency_count > most || link_span_count_ > most)
      r_.fail(mwhere, "op_count, dependency_count or link_span_count is more than a file of " +
                          std::to_string(text_bytes_) + " bytes can hold");
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
      if (start_ns < 0) r_.fail(where, "start_ns is negative");
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
        if (!(t.bytes >= 0) || !(t.flops >= 0) || !std::isfinite(t.bytes) ||
            !std::isfinite(t.flops))
          r_.fail(where, "bytes and flops must be finite and >= 0");
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
      const std::optional<TimeNs> at_ns = us_to_ns(r_.number(event, "ts", where));
      if (!at_ns) r_.fail(where, "\"ts\" is outside what 64-bit nanoseconds hold");
      const double value =
          r_.number(args, counter.unit.c_str(), Where("traceEvents", index, ".args"));
      if (!std::isfinite(value)) r_.fail(where, "counter value is not finite");
      counter.samples.push_back({*at_ns, value});
    } else if (ph != "M") {
      r_.fail(where, "unexpected event phase \"" + ph + "\"");
    }
  }

  // The fast path's event: only what opsim writes. Returns false on anything event() would
  // reject, so that the caller falls back to the checked path and its precise message.
  bool fast_event(FlatEvent& e) {
    if (is(e.ph, "X")) {
      if (!e.has_op || !e.has_lane || !e.has_start || !e.has_end || e.start_ns < 0 ||
          e.end_ns < e.start_ns)
        return false;
      if (e.op < 0 || static_cast<std::uint64_t>(e.op) >= trace_.ops.size()) return false;
      if (e.lane < 0 || static_cast<std::uint64_t>(e.lane) >= trace_.lanes.size()) return false;
      const auto op = static_cast<std::uint32_t>(e.op);
      const auto lane = static_cast<std::uint32_t>(e.lane);
      if (is(e.cat, "op")) {
        if (op_seen_[op] || !e.has_strings || !e.has_bytes || !e.has_flops) return false;
        if (!(e.bytes >= 0) || !(e.flops >= 0) || !std::isfinite(e.bytes) ||
            !std::isfinite(e.flops))
          return false;
        op_seen_[op] = 1;
        TraceOp& t = trace_.ops[op];
        t.name = std::move(e.arg_name);
        t.op_class = std::move(e.op_class);
        t.device = std::move(e.device);
        t.peer = std::move(e.peer);
        t.bytes = e.bytes;
        t.flops = e.flops;
        t.lane = lane;
        t.start_ns = e.start_ns;
        t.end_ns = e.end_ns;
        return true;
      }
      if (!is(e.cat, "link")) return false;
      trace_.link_spans.push_back(TraceSpan{op, lane, e.start_ns, e.end_ns});
      return true;
    }
    if (is(e.ph, "s") || is(e.ph, "f")) {
      if (!e.has_id || !e.has_op || e.id < 1 ||
          static_cast<std::uint64_t>(e.id) > trace_.dependencies.size())
        return false;
      if (e.op < 0 || static_cast<std::uint64_t>(e.op) >= trace_.ops.size()) return false;
      const bool start = is(e.ph, "s");
      char& seen = flow_seen_[static_cast<std::size_t>(e.id - 1) * 2 + (start ? 0 : 1)];
      if (seen) return false;
      seen = 1;
      auto& dependency = trace_.dependencies[static_cast<std::size_t>(e.id - 1)];
      (start ? dependency.first : dependency.second) = static_cast<std::uint32_t>(e.op);
      return true;
    }
    if (is(e.ph, "C")) {
      const auto it = counter_by_name_.find(e.name);
      if (it == counter_by_name_.end() || !e.has_ts) return false;
      TraceCounter& counter = trace_.counters[it->second];
      if (!e.has_value || e.value_key != counter.unit) return false;
      double ts_us = 0;
      const auto parsed =
          std::from_chars(e.ts_text.data(), e.ts_text.data() + e.ts_text.size(), ts_us);
      if (parsed.ec != std::errc() || parsed.ptr != e.ts_text.data() + e.ts_text.size())
        return false;
      const std::optional<TimeNs> at_ns = us_to_ns(ts_us);
      if (!at_ns || !std::isfinite(e.value)) return false;
      counter.samples.push_back({*at_ns, e.value});
      return true;
    }
    return is(e.ph, "M");
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
  std::size_t text_bytes_ = 0;
  std::map<std::string, std::size_t> counter_by_name_;
  std::vector<char> op_seen_;
  std::vector<char> flow_seen_;
};

// A scanner for the JSON opsim itself writes, several times faster than a general parser
// on million-event files. It accepts only well-formed input of the expected shape and says
// false otherwise; the caller then reads the file with the checked parser, whose messages
// name the place of any problem.
class FastScanner {
 public:
  explicit FastScanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool expect(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  // After '{' or '[' (or after an element): true and consumes ',' or the closing bracket.
  bool next(char close, bool& done) {
    skip_space();
    if (p_ == end_) return false;
    if (*p_ == ',') {
      ++p_;
      done = false;
      return true;
    }
    if (*p_ == close) {
      ++p_;
      done = true;
      return true;
    }
    return false;
  }
  bool peek_close(char close) {
    skip_space();
    if (p_ != end_ && *p_ == close) {
      ++p_;
      return true;
    }
    return false;
  }
  bool string(std::string& out) {
    skip_space();
    if (p_ == end_ || *p_ != '"') return false;
    ++p_;
    out.clear();
    for (;;) {
      const char* run = p_;
      while (p_ != end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20)
        ++p_;
      out.append(run, p_);
      if (p_ == end_ || static_cast<unsigned char>(*p_) < 0x20) return false;
      if (*p_ == '"') {
        ++p_;
        return true;
      }
      if (++p_ == end_) return false;  // a backslash
      switch (*p_++) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        default:
          return false;  // \u escapes: leave them to the checked parser
      }
    }
  }
  // A number; `integer` says whether it had no fraction or exponent (as JSON integers).
  bool number(double& value, std::int64_t& whole, bool& integer) {
    skip_space();
    const char* start = p_;
    integer = true;
    while (p_ != end_ && (std::isdigit(static_cast<unsigned char>(*p_)) || *p_ == '-' ||
                          *p_ == '+' || *p_ == '.' || *p_ == 'e' || *p_ == 'E')) {
      if (*p_ == '.' || *p_ == 'e' || *p_ == 'E') integer = false;
      ++p_;
    }
    if (start == p_) return false;
    if (integer) {
      const auto r = std::from_chars(start, p_, whole);
      if (r.ec != std::errc() || r.ptr != p_) return false;
      value = static_cast<double>(whole);
      return true;
    }
    const auto r = std::from_chars(start, p_, value);
    return r.ec == std::errc() && r.ptr == p_;
  }
  // A JSON number's text, checked against JSON's grammar but not converted.
  bool number_text(std::string_view& out) {
    skip_space();
    const char* start = p_;
    auto digits = [this] {
      const char* from = p_;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      return p_ != from;
    };
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ != end_ && *p_ == '0') {
      ++p_;
    } else if (!digits()) {
      return false;
    }
    if (p_ != end_ && *p_ == '.' && (++p_, !digits())) return false;
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digits()) return false;
    }
    out = std::string_view(start, static_cast<std::size_t>(p_ - start));
    return true;
  }
  bool skip_value() {
    skip_space();
    if (p_ == end_) return false;
    if (*p_ == '"') return string(scratch_);
    if (*p_ == '{' || *p_ == '[') {
      const char close = *p_ == '{' ? '}' : ']';
      const bool object = *p_ == '{';
      ++p_;
      if (peek_close(close)) return true;
      for (bool done = false; !done;) {
        if (object && !(string(scratch_) && expect(':'))) return false;
        if (!skip_value() || !next(close, done)) return false;
      }
      return true;
    }
    for (const char* word : {"true", "false", "null"}) {
      const std::size_t n = std::strlen(word);
      if (static_cast<std::size_t>(end_ - p_) >= n && std::memcmp(p_, word, n) == 0) {
        p_ += n;
        return true;
      }
    }
    std::string_view number;
    return number_text(number);
  }
  const char* position() const { return p_; }
  bool at_end() {
    skip_space();
    return p_ == end_;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  const char* p_;
  const char* end_;
  std::string scratch_;
};

// Field names, matched by length and first letter before any comparison: millions of keys
// pass through here.
enum class Key {
  kOther,
  kOp,
  kLane,
  kStartNs,
  kEndNs,
  kName,
  kClass,
  kDevice,
  kPeer,
  kBytes,
  kFlops,
  kPh,
  kCat,
  kTs,
  kId,
  kArgs,
  kDur,  // dur, pid and tid: skipped, but known, so that checking for repeats is a bit test
  kPid,
  kTid
};

Key classify(const std::string& text) {
  const std::string_view key = text;
  switch (key.size()) {
    case 2:
      if (is(key, "op")) return Key::kOp;
      if (is(key, "ph")) return Key::kPh;
      if (is(key, "ts")) return Key::kTs;
      if (is(key, "id")) return Key::kId;
      return Key::kOther;
    case 3:
      if (is(key, "cat")) return Key::kCat;
      if (is(key, "dur")) return Key::kDur;
      if (is(key, "pid")) return Key::kPid;
      if (is(key, "tid")) return Key::kTid;
      return Key::kOther;
    case 4:
      if (key[0] == 'l') return is(key, "lane") ? Key::kLane : Key::kOther;
      if (key[0] == 'n') return is(key, "name") ? Key::kName : Key::kOther;
      if (key[0] == 'p') return is(key, "peer") ? Key::kPeer : Key::kOther;
      if (key[0] == 'a') return is(key, "args") ? Key::kArgs : Key::kOther;
      return Key::kOther;
    case 5:
      if (key[0] == 'c') return is(key, "class") ? Key::kClass : Key::kOther;
      if (key[0] == 'b') return is(key, "bytes") ? Key::kBytes : Key::kOther;
      if (key[0] == 'f') return is(key, "flops") ? Key::kFlops : Key::kOther;
      return Key::kOther;
    case 6:
      if (key[0] == 'e') return is(key, "end_ns") ? Key::kEndNs : Key::kOther;
      if (key[0] == 'd') return is(key, "device") ? Key::kDevice : Key::kOther;
      return Key::kOther;
    case 8:
      return is(key, "start_ns") ? Key::kStartNs : Key::kOther;
    default:
      return Key::kOther;
  }
}

// The keys of one object so far: a key given twice sends the file to the checked parser,
// which refuses it with its place.
class SeenKeys {
 public:
  bool first_time(Key kind, const std::string& key) {
    if (kind != Key::kOther) {
      const std::uint32_t bit = 1u << static_cast<int>(kind);
      if (known_ & bit) return false;
      known_ |= bit;
      return true;
    }
    for (const std::string& seen : others_)
      if (seen == key) return false;
    others_.push_back(key);
    return true;
  }

 private:
  std::uint32_t known_ = 0;
  std::vector<std::string> others_;
};

bool fast_args(FastScanner& in, FlatEvent& e) {
  if (!in.expect('{')) return false;
  if (in.peek_close('}')) return true;
  std::string key;
  double number = 0;
  std::int64_t whole = 0;
  bool integer = false;
  SeenKeys seen;
  for (bool done = false; !done;) {
    if (!in.string(key) || !in.expect(':')) return false;
    const Key kind = classify(key);
    if (!seen.first_time(kind, key)) return false;
    auto read_int = [&](std::int64_t& out, bool& has) {
      if (!in.number(number, whole, integer) || !integer) return false;
      out = whole;
      has = true;
      return true;
    };
    auto read_text = [&](std::string& out) {
      if (!in.string(out)) return false;
      ++e.strings;
      return true;
    };
    bool ok = true;
    switch (kind) {
      case Key::kOp:
        ok = read_int(e.op, e.has_op);
        break;
      case Key::kLane:
        ok = read_int(e.lane, e.has_lane);
        break;
      case Key::kStartNs:
        ok = read_int(e.start_ns, e.has_start);
        break;
      case Key::kEndNs:
        ok = read_int(e.end_ns, e.has_end);
        break;
      case Key::kName:
        ok = read_text(e.arg_name);
        break;
      case Key::kClass:
        ok = read_text(e.op_class);
        break;
      case Key::kDevice:
        ok = read_text(e.device);
        break;
      case Key::kPeer:
        ok = read_text(e.peer);
        break;
      case Key::kBytes:
      case Key::kFlops: {
        // An op's size, or a counter's value when its unit is "bytes" or "flops".
        const bool bytes = kind == Key::kBytes;
        double& field = bytes ? e.bytes : e.flops;
        ok = in.number(field, whole, integer);
        (bytes ? e.has_bytes : e.has_flops) = true;
        if (ok && !e.has_value) {
          e.value_key = key;
          e.value = field;
          e.has_value = true;
        }
        break;
      }
      default:
        // A counter's value, keyed by its unit.
        if (e.has_value) return false;
        e.value_key = key;
        ok = in.number(e.value, whole, integer) && (e.has_value = true);
    }
    if (!ok || !in.next('}', done)) return false;
  }
  e.has_strings = e.strings == 4;
  return true;
}

bool fast_event(FastScanner& in, FlatEvent& e) {
  e.reset();
  if (!in.expect('{')) return false;
  if (in.peek_close('}')) return false;
  std::string key;
  double number = 0;
  bool integer = false;
  SeenKeys seen;
  for (bool done = false; !done;) {
    if (!in.string(key) || !in.expect(':')) return false;
    const Key kind = classify(key);
    if (!seen.first_time(kind, key)) return false;
    bool ok = true;
    switch (kind) {
      case Key::kPh:
        ok = in.string(e.ph);
        break;
      case Key::kCat:
        ok = in.string(e.cat);
        break;
      case Key::kName:
        ok = in.string(e.name);
        break;
      case Key::kTs:
        ok = in.number_text(e.ts_text) && (e.has_ts = true);
        break;
      case Key::kId:
        ok = in.number(number, e.id, integer) && integer && (e.has_id = true);
        break;
      case Key::kArgs:
        ok = fast_args(in, e);
        break;
      default:
        ok = in.skip_value();
    }
    if (!ok || !in.next('}', done)) return false;
  }
  return true;
}

// Reads a file opsim wrote, metadata first. False: not of that shape; use the checked parser.
bool parse_fast(std::string_view text, TraceBuilder& builder) {
  FastScanner in(text);
  if (!in.expect('{')) return false;
  std::string key;
  bool saw_events = false;
  SeenKeys top_keys;
  FlatEvent event;
  for (bool done = false; !done;) {
    if (!in.string(key) || !in.expect(':') || !top_keys.first_time(Key::kOther, key)) return false;
    if (key == "otherData") {
      const char* start = in.position();
      if (!in.skip_value()) return false;
      const json other =
          parse_json_input(std::string_view(start, in.position() - start), "otherData");
      if (!other.is_object() || !other.contains("opsim")) return false;
      builder.meta(other["opsim"]);
    } else if (key == "traceEvents") {
      if (!builder.has_meta() || saw_events || !in.expect('[')) return false;
      saw_events = true;
      if (!in.peek_close(']')) {
        for (bool last = false; !last;) {
          if (!fast_event(in, event) || !builder.fast_event(event) || !in.next(']', last))
            return false;
        }
      }
    } else if (!in.skip_value()) {
      return false;
    }
    if (!in.next('}', done)) return false;
  }
  return saw_events && in.at_end();
}

// The checked path: a SAX reader that builds one top-level value or one event at a time
// and hands it over, so that a large file never sits in memory as one tree, in any key
// order. Events that come before otherData (a file re-ordered by another tool) wait in a
// list until it has been read. (nlohmann's callback parser, used before, rescanned the
// whole event array after each kept event: quadratic in such files.)
class TraceStream : public JsonSaxForward<TraceStream> {
 public:
  TraceStream(TraceBuilder& builder, std::string_view text, const std::string& source)
      : builder_(builder), text_(text), source_(source) {}

  bool key(std::string& k) {
    if (active_) return active_->key(k);
    if (skip_depth_ > 0) return true;
    // A key of the top-level object.
    top_keys_.add(k, source_);
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t byte, const std::string& token, const Exception& error) {
    throw_json_syntax_error(text_, source_, byte, token, error);
  }

  Trace finish() {
    const Reader& r = builder_.reader();
    if (!saw_top_object_)
      r.fail("top level", "not a Chrome trace object (expected {\"traceEvents\": [...]})");
    if (!builder_.has_meta()) r.fail("top level", "not an opsim trace (no otherData.opsim)");
    if (!saw_events_) r.fail("top level", "missing \"traceEvents\" array");
    for (std::size_t i = 0; i < early_events_.size(); ++i) builder_.event(early_events_[i], i);
    return builder_.finish();
  }

 private:
  friend class JsonSaxForward<TraceStream>;  // routes SAX events to the members below
  enum class Part { kTop, kEvents };

  template <class Event>
  bool scalar(Event&& event) {
    if (active_) return forward(event);
    if (skip_depth_ > 0) return true;
    if (depth_ == 0) not_an_object();
    if (part_ == Part::kEvents) not_an_event();
    if (top_keys_.current() == "traceEvents")
      builder_.reader().fail("top level", "\"traceEvents\" is not an array");
    if (top_keys_.current() == "otherData") begin_value(other_data_, "otherData");
    return active_ ? forward(event) : true;
  }

  template <class Event>
  bool container_start(bool is_object, Event&& event) {
    if (active_) return forward(event);
    if (skip_depth_ > 0) return ++skip_depth_, true;
    if (depth_ == 0) {
      if (!is_object) not_an_object();
      saw_top_object_ = true;
      return ++depth_, true;
    }
    if (part_ == Part::kEvents) {
      if (!is_object) not_an_event();
      event_ = json();
      begin_value(event_, "traceEvents[" + std::to_string(events_seen_) + "]");
      return forward(event);
    }
    if (top_keys_.current() == "traceEvents") {
      if (!is_object && !saw_events_) {
        saw_events_ = true;
        part_ = Part::kEvents;
        return ++depth_, true;
      }
      builder_.reader().fail("top level", "\"traceEvents\" is not an array");
    }
    if (top_keys_.current() == "otherData") {
      begin_value(other_data_, "otherData");
      return forward(event);
    }
    skip_depth_ = 1;
    return true;
  }

  template <class Event>
  bool container_end(Event&& event) {
    if (active_) return forward(event);
    if (skip_depth_ > 0) return --skip_depth_, true;
    if (part_ == Part::kEvents) part_ = Part::kTop;
    --depth_;
    return true;
  }

  void begin_value(json& root, std::string place) {
    builder_storage_.emplace(root, source_, std::move(place));
    active_ = &*builder_storage_;
  }

  // Hands an event to the value being built; when that value is complete, hands it on.
  template <class Event>
  bool forward(Event&& event) {
    const bool ok = event(*active_);
    if (active_->depth() == 0) {
      active_ = nullptr;
      if (part_ == Part::kEvents) {
        const std::size_t index = events_seen_++;
        if (builder_.has_meta())
          builder_.event(event_, index);
        else
          early_events_.push_back(std::move(event_));
      } else if (other_data_.is_object() && other_data_.contains("opsim") && !builder_.has_meta()) {
        builder_.meta(other_data_["opsim"]);
      }
    }
    return ok;
  }

  [[noreturn]] void not_an_object() const {
    builder_.reader().fail("top level",
                           "not a Chrome trace object (expected {\"traceEvents\": [...]})");
  }
  [[noreturn]] void not_an_event() const {
    builder_.reader().fail(Where("traceEvents", events_seen_), "expected a JSON object");
  }

  TraceBuilder& builder_;
  std::string_view text_;
  const std::string& source_;
  std::optional<CheckedJsonBuilder> builder_storage_;
  CheckedJsonBuilder* active_ = nullptr;  // building a top-level value or an event
  int depth_ = 0;                         // containers open outside what is being built
  int skip_depth_ = 0;                    // inside a top-level value nobody reads
  Part part_ = Part::kTop;
  TopLevelKeys top_keys_;
  bool saw_top_object_ = false, saw_events_ = false;
  std::size_t events_seen_ = 0;
  json other_data_, event_;
  std::vector<json> early_events_;
};

}  // namespace

bool chrome_trace_reads_fast(std::string_view text) {
  try {
    TraceBuilder builder("check", text.size());
    if (!parse_fast(text, builder)) return false;
    (void)builder.finish();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

Trace parse_chrome_trace(std::string_view text, const std::string& source) {
  // Files opsim wrote take the fast path; anything else, or any problem, the checked one.
  try {
    TraceBuilder fast(source, text.size());
    if (parse_fast(text, fast)) return fast.finish();
  } catch (const std::exception&) {
    // fall through: the checked parser reports the problem with its place
  }
  TraceBuilder builder(source, text.size());
  TraceStream stream(builder, text, source);
  json::sax_parse(text.begin(), text.end(), &stream);
  return stream.finish();
}

Trace read_chrome_trace(const std::string& path) {
  // One read into one buffer: traces of a million spans are hundreds of megabytes.
  return parse_chrome_trace(read_input_file(path, "trace file"), path);
}

}  // namespace opsim
