// What the timeline draws for one trace, built once when the trace is loaded: lanes in
// display order (server -> device -> stream/copy engine, then links, then disks), each
// lane's spans sorted by start with a running maximum of their ends so that the painter can
// find the first visible span by binary search even where spans overlap (links carrying
// concurrent transfers), plus the dependency adjacency and the critical path. No Qt here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/trace.hpp"

namespace opsim::gui {

/// One span on one lane, as the painter needs it (24 bytes).
struct SpanRef {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::uint32_t op = 0;    ///< index into Trace::ops
  std::uint16_t slot = 0;  ///< sub-row among overlapping spans (links carrying concurrent flows)
};

/// The spans of one lane, sorted by (start, end, op).
struct LaneSpans {
  std::vector<SpanRef> spans;
  std::vector<TimeNs> max_end_ns;  ///< max_end_ns[i] = max end of spans[0..i]
  std::uint16_t sub_rows = 1;      ///< sub-rows needed so that no two spans overlap in one

  /// Index of the first span that may end after `t_ns` (all earlier spans end at or before
  /// it); spans.size() if none.
  std::size_t first_ending_after(TimeNs t_ns) const;
};

enum class RowKind : std::uint8_t { kGroup, kSubgroup, kLane, kCounter };

constexpr std::uint32_t kNoRow = UINT32_MAX;

/// A row of the timeline: a group header ("server0", "Links"), a subgroup header ("gpu0",
/// "server1 links"), a lane, or a counter track (a device's memory, a link's utilization).
struct TimelineRow {
  RowKind kind = RowKind::kLane;
  std::string label;
  std::uint32_t lane = 0;         ///< kLane only: index into Trace::lanes
  std::uint32_t counter = 0;      ///< kCounter only: index into Trace::counters
  std::uint32_t parent = kNoRow;  ///< the header row this row sits under, if any
  /// Headers: "server0", "server0/gpu0", "Links", "Links/server1" — the same in every trace
  /// of one machine, so collapsing a group applies to every pane and survives a re-run.
  std::string key;
};

struct TimelineOptions {
  bool hide_idle_lanes = false;  ///< leave out lanes without any span (and emptied headers)
};

/// When lanes are busy, summed over a set of lanes: a step function of how many of them
/// are busy at once, with its running integral so that the mean over any time range costs two
/// binary searches (what a collapsed group's summary bar draws per pixel column).
class BusyProfile {
 public:
  /// Spans of `lanes` in `model`.
  BusyProfile(const class TimelineModel& model, const std::vector<std::uint32_t>& lanes);

  std::size_t lane_count() const { return lane_count_; }
  /// Mean fraction of the lanes busy over [t0_ns, t1_ns] (0 when t1 <= t0).
  double mean_busy_fraction(double t0_ns, double t1_ns) const;
  /// The maximal intervals in which at least one lane is busy, in time order.
  std::vector<std::pair<TimeNs, TimeNs>> busy_intervals() const;

 private:
  double integral_at(double t_ns) const;  ///< busy lane-nanoseconds before t_ns

  std::vector<TimeNs> at_ns_;        ///< step times, increasing
  std::vector<std::uint32_t> busy_;  ///< lanes busy from at_ns_[i] to at_ns_[i + 1]
  std::vector<double> integral_;     ///< busy lane-ns before at_ns_[i]
  std::size_t lane_count_ = 0;
};

class TimelineModel {
 public:
  /// Indexes `trace`; O(spans log spans). The model keeps the trace alive.
  explicit TimelineModel(std::shared_ptr<const Trace> trace, TimelineOptions options = {});

  const Trace& trace() const { return *trace_; }
  const std::shared_ptr<const Trace>& trace_ptr() const { return trace_; }
  const std::vector<TimelineRow>& rows() const { return rows_; }
  const LaneSpans& lane_spans(std::uint32_t lane) const { return lanes_.at(lane); }
  /// End of the last span or op (ns); 0 for an empty trace.
  TimeNs end_ns() const { return end_ns_; }
  /// Total spans indexed (ops on stream lanes plus link spans).
  std::size_t span_count() const { return span_count_; }
  /// Largest sample of counter `c` (0 for none).
  double counter_max(std::uint32_t c) const {
    return c < counter_max_.size() ? counter_max_[c] : 0;
  }
  /// The lanes under header row `row` (all descendants), in row order.
  std::vector<std::uint32_t> lanes_under(std::uint32_t row) const;
  /// Whether an op whose name contains `needle_lower` (lower case) runs on `lane`.
  bool lane_has_op_matching(std::uint32_t lane, const std::string& needle_lower) const;

  const std::vector<std::uint32_t>& predecessors(std::uint32_t op) const { return preds_.at(op); }
  const std::vector<std::uint32_t>& successors(std::uint32_t op) const { return succs_.at(op); }
  /// The op that gated `op`'s start: among its dependencies and the previous op on its stream
  /// lane, the one that ended last; nullopt if none.
  std::optional<std::uint32_t> gating_predecessor(std::uint32_t op) const;
  /// The critical path: from the last-ending op back through gating predecessors, returned
  /// in time order (op indices). Empty for an empty trace. An overlay has one per world
  /// (gui/trace_worlds.hpp): this is the one of the world that ends last.
  const std::vector<std::uint32_t>& critical_path() const { return critical_paths_.at(main_path_); }
  /// Every world's critical path, each in time order (one for an ordinary trace).
  const std::vector<std::vector<std::uint32_t>>& critical_paths() const { return critical_paths_; }
  bool on_critical_path(std::uint32_t op) const {
    return op < on_critical_.size() && on_critical_[op];
  }

  /// The op whose span on `lane` contains `t_ns`, or failing that the nearest one within
  /// `tolerance_ns`; the shortest such span wins when several overlap.
  /// With `slot`, only spans drawn in that sub-row count (the last shown sub-row, `max_slot`,
  /// also holds those beyond it).
  std::optional<std::uint32_t> op_at(std::uint32_t lane, double t_ns, double tolerance_ns,
                                     std::optional<std::uint16_t> slot = std::nullopt,
                                     std::uint16_t max_slot = UINT16_MAX) const;

 private:
  // The constructor's steps, in order.
  void collect_spans();
  void index_lane(std::uint32_t lane);
  void build_rows(const TimelineOptions& options);
  void add_counter_rows();
  void index_op_names();
  void link_dependencies();
  void find_critical_path();

  std::shared_ptr<const Trace> trace_;
  std::vector<LaneSpans> lanes_;
  std::vector<TimelineRow> rows_;
  std::vector<double> counter_max_;
  std::vector<std::string> op_names_lower_;                ///< distinct op names, lower case
  std::vector<std::vector<std::uint32_t>> lane_op_names_;  ///< per lane: its distinct names
  std::vector<std::vector<std::uint32_t>> preds_;
  std::vector<std::vector<std::uint32_t>> succs_;
  std::vector<std::uint32_t> prev_on_lane_;  ///< previous op on the op's own lane, or UINT32_MAX
  std::vector<std::vector<std::uint32_t>> critical_paths_ =
      std::vector<std::vector<std::uint32_t>>(1);
  std::size_t main_path_ = 0;  ///< index in critical_paths_ of the path that ends last
  std::vector<bool> on_critical_;
  TimeNs end_ns_ = 0;
  std::size_t span_count_ = 0;
};

/// Lane label without its device prefix: "gpu0/compute0" -> "compute0".
std::string short_lane_label(const TraceLane& lane);

}  // namespace opsim::gui
