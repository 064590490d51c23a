#include "gui/chrome_trace_import.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/decimal_time.hpp"
#include "common/input_error.hpp"
#include "engine/json_input.hpp"
#include "engine/json_sax_forward.hpp"

namespace opsim::gui {
namespace {

using nlohmann::json;

// A pid or tid as the file writes it: a number, or a string some tools use.
struct Id {
  bool is_text = false;
  std::int64_t number = 0;
  std::string text;

  auto operator<=>(const Id&) const = default;
  std::string label() const { return is_text ? text : std::to_string(number); }
};

// One event as the stream hands it over: its JSON, and ts/dur as exact nanoseconds.
struct RawEvent {
  const json* value = nullptr;
  std::size_t index = 0;
  std::optional<TimeNs> ts_ns, dur_ns;
  bool ts_out_of_range = false, dur_out_of_range = false;
};

struct OpenSpan {
  std::string name, cat;
  TimeNs start_ns = 0;
  std::size_t index = 0;  // of the "B" event, for messages
  json event;             // its flow bindings apply to the span
};

struct Lane {
  Id pid, tid;
  std::string stream;  // "stream 7" for lanes keyed by args.stream; else empty
  std::vector<OpenSpan> open;
};

struct FlowPoint {
  std::string id;  // cat and id: flows of different categories never join
  char phase = 's';
  std::uint32_t lane = 0;
  TimeNs at_ns = 0;
  bool enclosing = true;  // "f" binds to the next span unless bp is "e"
};

struct BoundFlow {
  std::string id;
  std::uint32_t op = 0;
  bool out = false;
};

// Builds the Trace from events in file order.
class TraceAssembler {
 public:
  TraceAssembler(const std::string& source, std::string events_place)
      : source_(source), events_place_(std::move(events_place)) {}

  void event(const RawEvent& e) {
    const json& v = *e.value;
    index_ = e.index;
    if (!v.is_object()) fail("expected a JSON object");
    const std::string ph = text_field(v, "ph", true);
    if (ph == "M") return metadata(v);
    if (ph == "X" || ph == "B" || ph == "E" || ph == "C" || ph == "s" || ph == "t" || ph == "f") {
      if (e.ts_out_of_range) fail("\"ts\" is outside what opsim's 64-bit nanoseconds hold");
      if (!e.ts_ns) fail(v.contains("ts") ? "\"ts\" is not a number" : "missing \"ts\"");
      earliest_ns_ = std::min(earliest_ns_, *e.ts_ns);
    }
    if (ph == "X") return complete(v, e);
    if (ph == "B") return begin(v, *e.ts_ns);
    if (ph == "E") return end(v, *e.ts_ns);
    if (ph == "C") return counter(v, *e.ts_ns);
    if (ph == "s" || ph == "t" || ph == "f") return flow_point(v, ph[0], *e.ts_ns);
    ++result_.events_not_drawn;
  }

  void set_opsim_metadata() { result_.has_opsim_metadata = true; }

  ChromeImport finish() {
    for (const Lane& lane : lanes_) {
      if (lane.open.empty()) continue;
      index_ = lane.open.back().index;
      fail("the \"B\" event \"" + lane.open.back().name + "\" on pid " + lane.pid.label() +
           " tid " + lane.tid.label() + " has no \"E\"");
    }
    order_lanes();
    link_flows();
    shift_to_earliest();
    return std::move(result_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source_ + ": " + events_place_ + "[" + std::to_string(index_) + "]: " + what);
  }

  std::string text_field(const json& v, const char* key, bool required) const {
    const auto it = v.find(key);
    if (it == v.end()) {
      if (required) fail(std::string("missing \"") + key + "\"");
      return {};
    }
    if (!it->is_string()) fail(std::string("\"") + key + "\" is not a string");
    return it->get<std::string>();
  }

  Id id_field(const json& v, const char* key) const {
    const auto it = v.find(key);
    if (it == v.end()) return {};
    if (it->is_number_integer()) return {false, it->get<std::int64_t>(), {}};
    if (it->is_string()) return {true, 0, it->get<std::string>()};
    fail(std::string("\"") + key + "\" is neither an integer nor a string");
  }

  const json& args_of(const json& v) const {
    static const json kNone = json::object();
    const auto it = v.find("args");
    if (it == v.end()) return kNone;
    if (!it->is_object()) fail("\"args\" is not an object");
    return *it;
  }

  // The lane of an event: its (pid, tid), or for a complete event that names a stream (GPU
  // work), (pid, stream). B/E pairs stay on their thread, where they are matched.
  std::uint32_t lane_of(const json& v, bool by_stream = false) {
    const Id pid = id_field(v, "pid"), tid = id_field(v, "tid");
    std::string stream;
    const json& args = args_of(v);
    if (const auto s = args.find("stream"); by_stream && s != args.end() && s->is_number_integer())
      stream = "stream " + std::to_string(s->get<std::int64_t>());
    const std::string key = pid.label() + '\n' + (stream.empty() ? tid.label() : stream) + '\n' +
                            (pid.is_text ? "t" : "n") + (tid.is_text ? "t" : "n");
    const auto [it, added] =
        lane_index_.try_emplace(key, static_cast<std::uint32_t>(lanes_.size()));
    if (added) lanes_.push_back(Lane{pid, tid, stream, {}});
    return it->second;
  }

  void metadata(const json& v) {
    const std::string name = text_field(v, "name", false);
    if (name != "process_name" && name != "thread_name") return;
    const json& args = args_of(v);
    const auto label = args.find("name");
    if (label == args.end() || !label->is_string()) fail("\"args.name\" is not a string");
    const Id pid = id_field(v, "pid");
    if (name == "process_name")
      process_names_[pid] = label->get<std::string>();
    else
      thread_names_[{pid, id_field(v, "tid")}] = label->get<std::string>();
  }

  std::uint32_t add_op(const json& v, std::uint32_t lane, std::string name, std::string cat,
                       TimeNs start_ns, TimeNs end_ns) {
    if (end_ns >= kMostDecimalNs) fail("the span ends beyond 2^62 ns");
    TraceOp op;
    op.name = std::move(name);
    op.op_class = cat.empty() ? std::string("event") : cat.substr(0, cat.find(','));
    op.lane = lane;
    op.start_ns = start_ns;
    op.end_ns = end_ns;
    const auto op_index = static_cast<std::uint32_t>(result_.trace.ops.size());
    result_.trace.ops.push_back(std::move(op));
    bind_flow(v, op_index);
    return op_index;
  }

  // Perfetto's flows on the span itself: "bind_id" with "flow_out" and/or "flow_in".
  void bind_flow(const json& v, std::uint32_t op) {
    const auto id = v.find("bind_id");
    if (id == v.end()) return;
    const std::string key = id->is_string() ? id->get<std::string>() : id->dump();
    for (const char* direction : {"flow_out", "flow_in"}) {
      const auto it = v.find(direction);
      if (it != v.end() && it->is_boolean() && it->get<bool>())
        bound_flows_.push_back({key, op, direction[5] == 'o'});
    }
  }

  void complete(const json& v, const RawEvent& e) {
    if (e.dur_out_of_range) fail("\"dur\" is outside what opsim's 64-bit nanoseconds hold");
    if (!e.dur_ns) fail(v.contains("dur") ? "\"dur\" is not a number" : "missing \"dur\"");
    if (*e.dur_ns < 0) fail("\"dur\" is negative");
    add_op(v, lane_of(v, true), text_field(v, "name", false), text_field(v, "cat", false), *e.ts_ns,
           *e.ts_ns + *e.dur_ns);
  }

  void begin(const json& v, TimeNs ts_ns) {
    Lane& lane = lanes_[lane_of(v)];
    lane.open.push_back(
        {text_field(v, "name", false), text_field(v, "cat", false), ts_ns, index_, v});
  }

  void end(const json& v, TimeNs ts_ns) {
    const std::uint32_t lane = lane_of(v);
    if (lanes_[lane].open.empty())
      fail("\"E\" without a \"B\" before it on pid " + lanes_[lane].pid.label() + " tid " +
           lanes_[lane].tid.label());
    OpenSpan span = std::move(lanes_[lane].open.back());
    lanes_[lane].open.pop_back();
    if (ts_ns < span.start_ns)
      fail("\"E\" is before its \"B\" (" + events_place_ + "[" + std::to_string(span.index) + "])");
    add_op(span.event, lane, std::move(span.name), std::move(span.cat), span.start_ns, ts_ns);
  }

  void counter(const json& v, TimeNs ts_ns) {
    const std::string name = text_field(v, "name", true);
    const Id pid = id_field(v, "pid");
    std::string id;
    if (const auto it = v.find("id"); it != v.end())
      id = it->is_string() ? it->get<std::string>() : it->dump();
    for (const auto& [key, value] : args_of(v).items()) {
      if (!value.is_number()) continue;
      const double number = value.get<double>();
      if (!std::isfinite(number)) fail("counter value \"" + key + "\" is not finite");
      const auto [it, added] = counter_index_.try_emplace(
          {pid, name + (id.empty() ? "" : " " + id), key}, result_.trace.counters.size());
      if (added) {
        counter_pid_.push_back(pid);
        result_.trace.counters.push_back({name + (id.empty() ? "" : " " + id), key, {}, {}, {}});
      }
      result_.trace.counters[it->second].samples.push_back({ts_ns, number});
    }
  }

  void flow_point(const json& v, char phase, TimeNs ts_ns) {
    const auto id = v.find("id");
    const auto id2 = v.find("id2");
    if (id == v.end() && id2 == v.end()) fail("a flow event without \"id\"");
    const json& which = id != v.end() ? *id : *id2;
    const std::string key = text_field(v, "cat", false) + '\n' +
                            (which.is_string() ? which.get<std::string>() : which.dump());
    const bool enclosing = phase != 'f' || text_field(v, "bp", false) == "e";
    flow_points_.push_back({key, phase, lane_of(v), ts_ns, enclosing});
  }

  // Lanes by pid, then tid (stream lanes after the threads of their process).
  void order_lanes() {
    std::vector<std::uint32_t> order(lanes_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const Lane &x = lanes_[a], &y = lanes_[b];
      return std::tie(x.pid, x.stream, x.tid) < std::tie(y.pid, y.stream, y.tid);
    });
    std::vector<std::uint32_t> new_index(lanes_.size());
    Trace& t = result_.trace;
    for (std::uint32_t rank = 0; rank < order.size(); ++rank) {
      const Lane& lane = lanes_[order[rank]];
      new_index[order[rank]] = rank;
      const std::string process = process_label(lane.pid);
      std::string thread = lane.stream;
      if (thread.empty()) {
        const auto named = thread_names_.find({lane.pid, lane.tid});
        thread = named != thread_names_.end() ? named->second : "tid " + lane.tid.label();
      }
      t.lanes.push_back({process + "/" + thread, process, process,
                         lane.stream.empty() ? LaneKind::kHost : LaneKind::kCompute, 0});
    }
    for (TraceOp& op : t.ops) {
      op.lane = new_index[op.lane];
      op.device = t.lanes[op.lane].device;
    }
    for (FlowPoint& p : flow_points_) p.lane = new_index[p.lane];
    for (std::size_t c = 0; c < t.counters.size(); ++c)
      t.counters[c].node = t.counters[c].device = process_label(counter_pid_[c]);
  }

  std::string process_label(const Id& pid) const {
    const auto named = process_names_.find(pid);
    return named != process_names_.end() ? named->second : "pid " + pid.label();
  }

  // The span a flow point binds to: the innermost span of its lane around it, or for an
  // "f" without bp "e", the first span that starts at or after it.
  std::optional<std::uint32_t> span_at(const FlowPoint& p,
                                       const std::vector<std::vector<std::uint32_t>>& by_lane) {
    const auto& ops = result_.trace.ops;
    const auto& lane = by_lane[p.lane];
    const auto after =
        std::lower_bound(lane.begin(), lane.end(), p.at_ns,
                         [&](std::uint32_t op, TimeNs t) { return ops[op].start_ns < t; });
    if (!p.enclosing) {
      if (after != lane.end()) return *after;
      return std::nullopt;
    }
    // Spans starting at p.at_ns count as enclosing; the latest start is the innermost.
    auto it = std::upper_bound(lane.begin(), lane.end(), p.at_ns,
                               [&](TimeNs t, std::uint32_t op) { return t < ops[op].start_ns; });
    while (it != lane.begin()) {
      --it;
      if (ops[*it].end_ns >= p.at_ns) return *it;
    }
    return std::nullopt;
  }

  void link_flows() {
    Trace& t = result_.trace;
    std::vector<std::vector<std::uint32_t>> by_lane(t.lanes.size());
    for (std::uint32_t op = 0; op < t.ops.size(); ++op) by_lane[t.ops[op].lane].push_back(op);
    for (auto& lane : by_lane)
      std::stable_sort(lane.begin(), lane.end(), [&](std::uint32_t a, std::uint32_t b) {
        return t.ops[a].start_ns < t.ops[b].start_ns;
      });
    // "s", "t"..., "f" of one id chain in file order; an "s" starts a new chain.
    std::unordered_map<std::string, std::uint32_t> chain_end;
    for (const FlowPoint& p : flow_points_) {
      const std::optional<std::uint32_t> op = span_at(p, by_lane);
      if (!op) {
        ++result_.events_not_drawn;
        continue;
      }
      const auto last = chain_end.find(p.id);
      if (p.phase != 's' && last != chain_end.end() && last->second != *op)
        t.dependencies.emplace_back(last->second, *op);
      if (p.phase == 'f')
        chain_end.erase(p.id);
      else
        chain_end[p.id] = *op;
    }
    std::unordered_map<std::string, std::vector<std::uint32_t>> outs;
    for (const BoundFlow& f : bound_flows_)
      if (f.out) outs[f.id].push_back(f.op);
    for (const BoundFlow& f : bound_flows_) {
      if (f.out) continue;
      const auto it = outs.find(f.id);
      if (it == outs.end()) continue;
      for (std::uint32_t from : it->second)
        if (from != f.op) t.dependencies.emplace_back(from, f.op);
    }
  }

  void shift_to_earliest() {
    if (earliest_ns_ == std::numeric_limits<TimeNs>::max()) return;
    TimeNs latest_ns = earliest_ns_;
    for (const TraceOp& op : result_.trace.ops) latest_ns = std::max(latest_ns, op.end_ns);
    TimeNs length_ns = 0;
    if (__builtin_sub_overflow(latest_ns, earliest_ns_, &length_ns) || length_ns >= kMostDecimalNs)
      throw InputError(source_ + ": the events span more than 2^62 ns (about 146 years)");
    for (TraceOp& op : result_.trace.ops) {
      op.start_ns -= earliest_ns_;
      op.end_ns -= earliest_ns_;
    }
    for (TraceCounter& c : result_.trace.counters)
      for (TraceCounterSample& s : c.samples) s.at_ns -= earliest_ns_;
  }

  const std::string& source_;
  std::string events_place_;
  std::size_t index_ = 0;
  ChromeImport result_;
  std::vector<Lane> lanes_;
  std::unordered_map<std::string, std::uint32_t> lane_index_;
  std::map<Id, std::string> process_names_;
  std::map<std::pair<Id, Id>, std::string> thread_names_;
  std::map<std::tuple<Id, std::string, std::string>, std::size_t> counter_index_;
  std::vector<Id> counter_pid_;
  std::vector<FlowPoint> flow_points_;
  std::vector<BoundFlow> bound_flows_;
  TimeNs earliest_ns_ = std::numeric_limits<TimeNs>::max();
};

// Streams the document: builds one event (or otherData) at a time with the checked JSON
// builder and hands it to the assembler, taking "ts" and "dur" from their text exactly.
class ImportStream : public JsonSaxForward<ImportStream> {
 public:
  ImportStream(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  // "ts" and "dur" of an event are taken from the number's text exactly, then built as usual.
  bool number_integer(json::number_integer_t v) {
    if (at_time_field())
      set_time(v >= -kMostWholeUs && v <= kMostWholeUs ? std::optional<TimeNs>(v * 1000)
                                                       : std::nullopt);
    return JsonSaxForward::number_integer(v);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (at_time_field())
      set_time(v <= static_cast<std::uint64_t>(kMostWholeUs)
                   ? std::optional<TimeNs>(static_cast<TimeNs>(v) * 1000)
                   : std::nullopt);
    return JsonSaxForward::number_unsigned(v);
  }
  bool number_float(json::number_float_t v, const std::string& t) {
    if (at_time_field()) set_time(decimal_us_to_ns(t));
    return JsonSaxForward::number_float(v, t);
  }
  bool key(std::string& k) {
    if (active_) {
      if (in_event_ && active_->depth() == 1) event_key_ = k;
      return active_->key(k);
    }
    if (skip_depth_ > 0) return true;
    top_keys_.add(k, source_);
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t byte, const std::string& token, const Exception& error) {
    throw_json_syntax_error(text_, source_, byte, token, error);
  }

  ChromeImport finish() {
    if (!assembler_) fail_top("not a Chrome trace (expected {\"traceEvents\": [...]} or [...])");
    if (!saw_events_) fail_top("missing \"traceEvents\" array");
    if (other_data_.is_object() && other_data_.contains("opsim")) assembler_->set_opsim_metadata();
    return assembler_->finish();
  }

 private:
  friend class JsonSaxForward<ImportStream>;  // routes SAX events to the members below
  static constexpr std::int64_t kMostWholeUs = kMostDecimalNs / 1000;

  [[noreturn]] void fail_top(const std::string& what) const {
    throw InputError(source_ + ": top level: " + what);
  }

  bool at_time_field() const {
    return in_event_ && active_ && active_->depth() == 1 &&
           (event_key_ == "ts" || event_key_ == "dur");
  }
  void set_time(std::optional<TimeNs> ns) {
    const bool ts = event_key_ == "ts";
    (ts ? raw_.ts_ns : raw_.dur_ns) = ns;
    (ts ? raw_.ts_out_of_range : raw_.dur_out_of_range) = !ns.has_value();
  }

  template <class Event>
  bool scalar(Event&& event) {
    if (active_) return forward(event);
    if (skip_depth_ > 0) return true;
    if (!assembler_) fail_top("not a Chrome trace (expected {\"traceEvents\": [...]} or [...])");
    if (in_events_) {
      begin_event();
      return forward(event);
    }
    if (top_keys_.current() == "traceEvents") fail_top("\"traceEvents\" is not an array");
    return true;
  }

  template <class Event>
  bool container_start(bool is_object, Event&& event) {
    if (active_) return forward(event);
    if (skip_depth_ > 0) return ++skip_depth_, true;
    if (!assembler_) {
      events_place_ = is_object ? "traceEvents" : "";
      assembler_.emplace(source_, events_place_);
      in_events_ = !is_object;
      saw_events_ = !is_object;
      return true;
    }
    if (in_events_) {
      begin_event();
      return forward(event);
    }
    if (top_keys_.current() == "traceEvents") {
      if (is_object || saw_events_) fail_top("\"traceEvents\" is not an array");
      in_events_ = saw_events_ = true;
      return true;
    }
    if (top_keys_.current() == "otherData") {
      built_.emplace(other_data_, source_, "otherData");
      active_ = &*built_;
      in_event_ = false;
      return forward(event);
    }
    skip_depth_ = 1;
    return true;
  }

  template <class Event>
  bool container_end(Event&& event) {
    if (active_) return forward(event);
    if (skip_depth_ > 0) return --skip_depth_, true;
    in_events_ = false;
    return true;
  }

  void begin_event() {
    event_ = json();
    raw_ = RawEvent{};
    raw_.index = events_seen_;
    built_.emplace(event_, source_, events_place_ + "[" + std::to_string(events_seen_) + "]");
    active_ = &*built_;
    in_event_ = true;
    event_key_.clear();
  }

  template <class Event>
  bool forward(Event&& event) {
    const bool ok = event(*active_);
    if (active_->depth() == 0) {
      active_ = nullptr;
      if (in_event_) {
        raw_.value = &event_;
        assembler_->event(raw_);
        ++events_seen_;
      }
    }
    return ok;
  }

  std::string_view text_;
  const std::string& source_;
  std::optional<TraceAssembler> assembler_;
  std::optional<CheckedJsonBuilder> built_;
  CheckedJsonBuilder* active_ = nullptr;
  bool in_event_ = false;   // active_ builds an event (else otherData)
  bool in_events_ = false;  // inside the events array, between events
  bool saw_events_ = false;
  int skip_depth_ = 0;
  TopLevelKeys top_keys_;
  std::string event_key_;
  std::string events_place_;  // "traceEvents", or "" for a bare array
  std::size_t events_seen_ = 0;
  json event_, other_data_;
  RawEvent raw_;
};

}  // namespace

ChromeImport import_chrome_trace(std::string_view text, const std::string& source) {
  ImportStream stream(text, source);
  json::sax_parse(text.begin(), text.end(), &stream);
  return stream.finish();
}

}  // namespace opsim::gui
