#include "gui/timeline_model.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

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

// Rows: a group per server with a subgroup per device over its stream lanes, then a "Links"
// and a "Disks" group.
void TimelineModel::build_rows(const TimelineOptions& options) {
  const Trace& t = *trace_;
  int last_section = -1;
  std::string last_node;
  std::string last_device;
  for (std::uint32_t l : lanes_in_row_order(t)) {
    const TraceLane& lane = t.lanes[l];
    if (options.hide_idle_lanes && lanes_[l].spans.empty()) continue;
    const int section = section_of(lane);
    if (section == 0) {
      if (section != last_section || lane.node != last_node) {
        rows_.push_back(
            {RowKind::kGroup, lane.node.empty() ? std::string("server") : lane.node, 0});
        last_device.clear();
      }
      if (lane.device != last_device) rows_.push_back({RowKind::kSubgroup, lane.device, 0});
    } else if (section != last_section) {
      rows_.push_back({RowKind::kGroup, section == 1 ? "Links" : "Disks", 0});
    }
    last_section = section;
    last_node = lane.node;
    last_device = lane.device;
    rows_.push_back({RowKind::kLane, section == 1 ? lane.name : short_lane_label(lane), l});
  }
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
                                                  double tolerance_ns) const {
  const LaneSpans& ls = lanes_.at(lane);
  const auto lo = static_cast<TimeNs>(t_ns - tolerance_ns) - 1;
  const auto hi = static_cast<TimeNs>(t_ns + tolerance_ns) + 1;
  std::optional<std::uint32_t> best;
  std::pair<double, TimeNs> best_score{0, 0};
  for (std::size_t i = ls.first_ending_after(lo); i < ls.spans.size(); ++i) {
    const SpanRef& s = ls.spans[i];
    if (s.start_ns > hi) break;
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
