#include "gui/timeline_model.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "gui/trace_worlds.hpp"

namespace opsim::gui {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// Display sections: streams of servers first, then links, then disks.
int section_of(const TraceLane& lane) {
  if (lane.kind == LaneKind::kLink) return 1;
  if (lane.kind == LaneKind::kIo) return 2;
  return 0;
}

int kind_order(LaneKind kind) {
  switch (kind) {
    case LaneKind::kCompute:
      return 0;
    case LaneKind::kCopy:
      return 1;
    case LaneKind::kHost:
      return 2;
    case LaneKind::kIo:
      return 3;
    case LaneKind::kLink:
      return 4;
  }
  return 5;
}

// Greedy sub-rows for overlapping spans; the scan is short because few flows overlap.
void assign_sub_rows(LaneSpans& ls) {
  std::vector<TimeNs> slot_end;
  for (SpanRef& sp : ls.spans) {
    std::size_t k = 0;
    while (k < slot_end.size() && slot_end[k] > sp.start_ns && k < 0xfffe) ++k;
    if (k == slot_end.size()) slot_end.push_back(sp.end_ns);
    slot_end[k] = sp.end_ns;
    sp.slot = static_cast<std::uint16_t>(k);
  }
  ls.sub_rows = static_cast<std::uint16_t>(std::max<std::size_t>(1, slot_end.size()));
}

// Lanes in row order: stable by section, node, device (first appearance), lane kind.
std::vector<std::uint32_t> lanes_in_row_order(const Trace& t) {
  std::map<std::string, int> node_rank;
  std::map<std::string, int> device_rank;
  for (const TraceLane& lane : t.lanes) {
    node_rank.emplace(lane.node, static_cast<int>(node_rank.size()));
    device_rank.emplace(lane.device, static_cast<int>(device_rank.size()));
  }
  std::vector<std::uint32_t> order(t.lanes.size());
  std::iota(order.begin(), order.end(), 0u);
  auto key = [&](std::uint32_t l) {
    const TraceLane& lane = t.lanes[l];
    const int section = section_of(lane);
    // Links are listed by their own order, not grouped under servers.
    const int node = section == 1 ? 0 : node_rank[lane.node];
    return std::make_tuple(section, node, device_rank[lane.device], kind_order(lane.kind), l);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  return order;
}

}  // namespace

std::size_t LaneSpans::first_ending_after(TimeNs t_ns) const {
  return static_cast<std::size_t>(std::upper_bound(max_end_ns.begin(), max_end_ns.end(), t_ns) -
                                  max_end_ns.begin());
}

std::string short_lane_label(const TraceLane& lane) {
  const std::string prefix = lane.device + "/";
  if (lane.name.size() > prefix.size() && lane.name.compare(0, prefix.size(), prefix) == 0) {
    return lane.name.substr(prefix.size());
  }
  return lane.name;
}

TimelineModel::TimelineModel(std::shared_ptr<const Trace> trace, TimelineOptions options)
    : trace_(std::move(trace)) {
  collect_spans();
  for (std::uint32_t l = 0; l < lanes_.size(); ++l) index_lane(l);
  build_rows(options);
  index_op_names();
  for (const TraceCounter& c : trace_->counters) {
    double peak = 0;
    for (const TraceCounterSample& s : c.samples) peak = std::max(peak, s.value);
    counter_max_.push_back(peak);
  }
  link_dependencies();
  find_critical_path();
}

// Every op's span on its stream lane and every link span, per lane; counted first so each
// lane allocates once (matters at a million spans).
void TimelineModel::collect_spans() {
  const Trace& t = *trace_;
  const auto lane_count = static_cast<std::uint32_t>(t.lanes.size());
  lanes_.resize(lane_count);
  std::vector<std::size_t> counts(lane_count, 0);
  for (const TraceOp& op : t.ops) {
    if (op.lane < lane_count) ++counts[op.lane];
  }
  for (const TraceSpan& s : t.link_spans) {
    if (s.lane < lane_count) ++counts[s.lane];
  }
  for (std::uint32_t l = 0; l < lane_count; ++l) lanes_[l].spans.reserve(counts[l]);
  for (std::uint32_t i = 0; i < t.ops.size(); ++i) {
    const TraceOp& op = t.ops[i];
    if (op.lane < lane_count) lanes_[op.lane].spans.push_back({op.start_ns, op.end_ns, i});
    end_ns_ = std::max(end_ns_, op.end_ns);
  }
  for (const TraceSpan& s : t.link_spans) {
    if (s.lane < lane_count && s.op < t.ops.size()) {
      lanes_[s.lane].spans.push_back({s.start_ns, s.end_ns, s.op});
      end_ns_ = std::max(end_ns_, s.end_ns);
    }
  }
  prev_on_lane_.assign(t.ops.size(), kNone);
}

// Sorts lane `l`'s spans by time and fills what culling and drawing need: the running max of
// ends, each op's predecessor in stream order, and the sub-rows of overlapping spans.
void TimelineModel::index_lane(std::uint32_t l) {
  const Trace& t = *trace_;
  LaneSpans& ls = lanes_[l];
  std::sort(ls.spans.begin(), ls.spans.end(), [](const SpanRef& a, const SpanRef& b) {
    return std::tie(a.start_ns, a.end_ns, a.op) < std::tie(b.start_ns, b.end_ns, b.op);
  });
  ls.max_end_ns.resize(ls.spans.size());
  TimeNs running = INT64_MIN;
  std::uint32_t prev = kNone;
  for (std::size_t i = 0; i < ls.spans.size(); ++i) {
    running = std::max(running, ls.spans[i].end_ns);
    ls.max_end_ns[i] = running;
    const std::uint32_t op = ls.spans[i].op;
    if (t.ops[op].lane == l) {  // stream order, not link sharing
      prev_on_lane_[op] = prev;
      prev = op;
    }
  }
  span_count_ += ls.spans.size();
  assign_sub_rows(ls);
}

namespace {

/// Appends rows while remembering the open headers, so each row knows its parent.
class RowBuilder {
 public:
  explicit RowBuilder(std::vector<TimelineRow>& rows) : rows_(rows) {}

  void group(const std::string& label) {
    rows_.push_back({RowKind::kGroup, label, 0, 0, kNoRow, label});
    group_ = static_cast<std::uint32_t>(rows_.size() - 1);
    subgroup_ = kNoRow;
  }
  void subgroup(const std::string& label) {
    rows_.push_back({RowKind::kSubgroup, label, 0, 0, group_, rows_[group_].key + "/" + label});
    subgroup_ = static_cast<std::uint32_t>(rows_.size() - 1);
  }
  void lane(const std::string& label, std::uint32_t lane) {
    rows_.push_back({RowKind::kLane, label, lane, 0, parent(), {}});
  }
  void counter(const std::string& label, std::uint32_t counter) {
    rows_.push_back({RowKind::kCounter, label, 0, counter, parent(), {}});
  }

 private:
  std::uint32_t parent() const { return subgroup_ != kNoRow ? subgroup_ : group_; }

  std::vector<TimelineRow>& rows_;
  std::uint32_t group_ = kNoRow;
  std::uint32_t subgroup_ = kNoRow;
};

std::string node_label(const TraceLane& lane) {
  return lane.node.empty() ? std::string("server") : lane.node;
}

/// Counters by what they describe: memory counters by device, utilization counters by
/// link lane name (TraceCounter::device holds either).
std::map<std::string, std::vector<std::uint32_t>> counters_by_subject(const Trace& t) {
  std::map<std::string, std::vector<std::uint32_t>> by_subject;
  for (std::uint32_t c = 0; c < t.counters.size(); ++c) {
    if (!t.counters[c].samples.empty()) by_subject[t.counters[c].device].push_back(c);
  }
  return by_subject;
}

std::string counter_label(const TraceCounter& c) {
  if (c.unit == "fraction") return "utilization";
  const auto space = c.name.find(' ');
  return space == std::string::npos ? c.name : c.name.substr(0, space);
}

}  // namespace

// Rows: a group per server with a subgroup per device over its stream lanes and memory
// counter, then "Links" (a subgroup per server when links span several) and "Disks". Each
// link lane is followed by its utilization counter.
void TimelineModel::build_rows(const TimelineOptions& options) {
  const Trace& t = *trace_;
  auto counters = counters_by_subject(t);
  std::map<std::string, int> link_nodes;
  for (const TraceLane& lane : t.lanes) {
    if (lane.kind == LaneKind::kLink) link_nodes.emplace(lane.node, 0);
  }
  const bool link_subgroups = link_nodes.size() > 1;
  RowBuilder rows(rows_);
  auto emit_counters = [&](const std::string& subject) {
    const auto it = counters.find(subject);
    if (it == counters.end()) return;
    for (std::uint32_t c : it->second) rows.counter(counter_label(t.counters[c]), c);
    counters.erase(it);
  };
  int last_section = -1;
  std::string last_node;
  std::string last_device;
  for (std::uint32_t l : lanes_in_row_order(t)) {
    const TraceLane& lane = t.lanes[l];
    if (options.hide_idle_lanes && lanes_[l].spans.empty()) continue;
    const int section = section_of(lane);
    const bool new_device = section != last_section || lane.device != last_device;
    if (new_device && last_section == 0) emit_counters(last_device);
    if (section == 0) {
      if (section != last_section || lane.node != last_node) rows.group(node_label(lane));
      if (new_device) rows.subgroup(lane.device);
    } else {
      if (section != last_section) rows.group(section == 1 ? "Links" : "Disks");
      if (section == 1 && link_subgroups && (section != last_section || lane.node != last_node))
        rows.subgroup(node_label(lane) + " links");
    }
    last_section = section;
    last_node = lane.node;
    last_device = lane.device;
    rows.lane(section == 1 ? lane.name : short_lane_label(lane), l);
    if (section == 1) emit_counters(lane.name);
  }
  if (last_section == 0) emit_counters(last_device);
  // Devices without lanes (memory only) keep their counters, under their own group.
  if (!options.hide_idle_lanes && !counters.empty()) {
    rows.group("Counters");
    for (const auto& [subject, list] : counters) {
      for (std::uint32_t c : list) rows.counter(t.counters[c].name, c);
    }
  }
}

// Each lane's distinct op names in lower case, for the lane filter.
void TimelineModel::index_op_names() {
  const Trace& t = *trace_;
  std::unordered_map<std::string_view, std::uint32_t> id_of;
  std::vector<std::uint32_t> op_name(t.ops.size());
  for (std::uint32_t i = 0; i < t.ops.size(); ++i) {
    const auto [it, added] =
        id_of.emplace(t.ops[i].name, static_cast<std::uint32_t>(op_names_lower_.size()));
    if (added) {
      std::string lower = t.ops[i].name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      op_names_lower_.push_back(std::move(lower));
    }
    op_name[i] = it->second;
  }
  lane_op_names_.resize(lanes_.size());
  for (std::uint32_t l = 0; l < lanes_.size(); ++l) {
    auto& names = lane_op_names_[l];
    for (const SpanRef& s : lanes_[l].spans) names.push_back(op_name[s.op]);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    names.shrink_to_fit();
  }
}

bool TimelineModel::lane_has_op_matching(std::uint32_t lane, const std::string& needle) const {
  if (lane >= lane_op_names_.size()) return false;
  return std::any_of(
      lane_op_names_[lane].begin(), lane_op_names_[lane].end(),
      [&](std::uint32_t n) { return op_names_lower_[n].find(needle) != std::string::npos; });
}

std::vector<std::uint32_t> TimelineModel::lanes_under(std::uint32_t row) const {
  std::vector<std::uint32_t> lanes;
  for (std::size_t r = row + 1; r < rows_.size(); ++r) {
    // Rows under a header follow it; the first row whose ancestry does not reach it ends them.
    std::uint32_t up = rows_[r].parent;
    while (up != kNoRow && up != row) up = rows_[up].parent;
    if (up != row) break;
    if (rows_[r].kind == RowKind::kLane) lanes.push_back(rows_[r].lane);
  }
  return lanes;
}

BusyProfile::BusyProfile(const TimelineModel& model, const std::vector<std::uint32_t>& lanes)
    : lane_count_(lanes.size()) {
  // +1 at each span's start, -1 at its end; overlapping spans of one lane count once.
  std::vector<std::pair<TimeNs, int>> events;
  for (std::uint32_t l : lanes) {
    TimeNs open_start = 0, open_end = INT64_MIN;
    for (const SpanRef& s : model.lane_spans(l).spans) {
      if (s.start_ns > open_end) {
        if (open_end > open_start) {
          events.emplace_back(open_start, 1);
          events.emplace_back(open_end, -1);
        }
        open_start = s.start_ns;
      }
      open_end = std::max(open_end, s.end_ns);
    }
    if (open_end > open_start) {
      events.emplace_back(open_start, 1);
      events.emplace_back(open_end, -1);
    }
  }
  std::sort(events.begin(), events.end());
  std::int64_t busy = 0;
  double integral = 0;
  for (std::size_t i = 0; i < events.size();) {
    const TimeNs at = events[i].first;
    if (!at_ns_.empty()) integral += static_cast<double>(busy_.back()) * (at - at_ns_.back());
    for (; i < events.size() && events[i].first == at; ++i) busy += events[i].second;
    at_ns_.push_back(at);
    busy_.push_back(static_cast<std::uint32_t>(busy));
    integral_.push_back(integral);
  }
}

double BusyProfile::integral_at(double t_ns) const {
  const auto it = std::upper_bound(at_ns_.begin(), at_ns_.end(), t_ns,
                                   [](double t, TimeNs a) { return t < static_cast<double>(a); });
  if (it == at_ns_.begin()) return 0;
  const auto k = static_cast<std::size_t>(it - at_ns_.begin()) - 1;
  return integral_[k] + static_cast<double>(busy_[k]) * (t_ns - static_cast<double>(at_ns_[k]));
}

double BusyProfile::mean_busy_fraction(double t0_ns, double t1_ns) const {
  if (t1_ns <= t0_ns || lane_count_ == 0) return 0;
  return (integral_at(t1_ns) - integral_at(t0_ns)) / ((t1_ns - t0_ns) * lane_count_);
}

std::vector<std::pair<TimeNs, TimeNs>> BusyProfile::busy_intervals() const {
  std::vector<std::pair<TimeNs, TimeNs>> out;
  for (std::size_t k = 0; k < at_ns_.size(); ++k) {
    if (busy_[k] == 0) continue;
    const TimeNs end = k + 1 < at_ns_.size() ? at_ns_[k + 1] : at_ns_[k];
    if (!out.empty() && out.back().second == at_ns_[k]) {
      out.back().second = end;
    } else {
      out.emplace_back(at_ns_[k], end);
    }
  }
  return out;
}

void TimelineModel::link_dependencies() {
  const Trace& t = *trace_;
  preds_.resize(t.ops.size());
  succs_.resize(t.ops.size());
  for (const auto& [before, after] : t.dependencies) {
    if (before < t.ops.size() && after < t.ops.size()) {
      preds_[after].push_back(before);
      succs_[before].push_back(after);
    }
  }
}

// Critical path: walk back from the last op to finish (lowest index on ties); an overlay's
// real and simulated worlds each have their own (gui/trace_worlds.hpp).
void TimelineModel::find_critical_path() {
  const Trace& t = *trace_;
  on_critical_.assign(t.ops.size(), false);
  const std::vector<std::uint32_t> ends = last_op_per_world(t);
  if (!ends.empty()) critical_paths_.assign(ends.size(), {});
  for (std::size_t w = 0; w < ends.size(); ++w) {
    std::vector<std::uint32_t>& path = critical_paths_[w];
    for (std::uint32_t op = ends[w]; op != kNone && !on_critical_[op];) {
      on_critical_[op] = true;
      path.push_back(op);
      const auto gate = gating_predecessor(op);
      op = gate ? *gate : kNone;
    }
    std::reverse(path.begin(), path.end());
    if (t.ops[ends[w]].end_ns > t.ops[ends[main_path_]].end_ns) main_path_ = w;
  }
}

std::optional<std::uint32_t> TimelineModel::gating_predecessor(std::uint32_t op) const {
  const auto& ops = trace_->ops;
  std::optional<std::uint32_t> best;
  auto consider = [&](std::uint32_t p) {
    if (p >= ops.size() || ops[p].end_ns > ops[op].start_ns) return;
    if (!best || ops[p].end_ns > ops[*best].end_ns ||
        (ops[p].end_ns == ops[*best].end_ns && p < *best)) {
      best = p;
    }
  };
  for (std::uint32_t p : preds_.at(op)) consider(p);
  if (prev_on_lane_.at(op) != kNone) consider(prev_on_lane_[op]);
  return best;
}

std::optional<std::uint32_t> TimelineModel::op_at(std::uint32_t lane, double t_ns,
                                                  double tolerance_ns,
                                                  std::optional<std::uint16_t> slot,
                                                  std::uint16_t max_slot) const {
  const LaneSpans& ls = lanes_.at(lane);
  const auto lo = static_cast<TimeNs>(t_ns - tolerance_ns) - 1;
  const auto hi = static_cast<TimeNs>(t_ns + tolerance_ns) + 1;
  std::optional<std::uint32_t> best;
  std::pair<double, TimeNs> best_score{0, 0};
  for (std::size_t i = ls.first_ending_after(lo); i < ls.spans.size(); ++i) {
    const SpanRef& s = ls.spans[i];
    if (s.start_ns > hi) break;
    if (slot && std::min(s.slot, max_slot) != *slot) continue;
    // Distance 0 inside the span; otherwise the gap to it. Ties: the shorter span.
    const double dist = t_ns < s.start_ns ? s.start_ns - t_ns
                        : t_ns > s.end_ns ? t_ns - s.end_ns
                                          : 0;
    if (dist > tolerance_ns) continue;
    const std::pair<double, TimeNs> score{dist, s.end_ns - s.start_ns};
    if (!best || score < best_score) {
      best = s.op;
      best_score = score;
    }
  }
  return best;
}

}  // namespace opsim::gui
