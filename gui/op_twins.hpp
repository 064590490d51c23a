// The pairing of an overlay trace (recorded and replayed lanes side by side, as `opsim replay
// --trace-dir` and `opsim validate --trace-dir` write them): the recorded run's ops are named
// "real <op>", the simulated (replayed) run's "sim <op>"; the k-th "sim X" is the twin of the
// k-th "real X", in whatever order the two runs listed them. Also the busy time per op class
// of each side, as `opsim validate` reports it. Plain data, no Qt.
//
//   if (auto twins = OpTwins::of(trace)) { auto t = twins->timing(trace, op); t.start_shift_ns(); }
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/trace.hpp"

namespace opsim::gui {

/// An op and its twin: where each ran, recorded and replayed (ns).
struct TwinTiming {
  std::uint32_t recorded_op = 0;
  std::uint32_t replayed_op = 0;
  TimeNs recorded_start_ns = 0;
  TimeNs recorded_duration_ns = 0;
  TimeNs replayed_start_ns = 0;
  TimeNs replayed_duration_ns = 0;

  /// Replayed minus recorded.
  TimeNs start_shift_ns() const { return replayed_start_ns - recorded_start_ns; }
  TimeNs duration_change_ns() const { return replayed_duration_ns - recorded_duration_ns; }
};

/// One op class's busy time (sum of its ops' durations) on each side of an overlay.
struct ClassDifference {
  std::string op_class;
  std::uint32_t recorded_ops = 0, replayed_ops = 0;
  TimeNs recorded_busy_ns = 0, replayed_busy_ns = 0;

  TimeNs difference_ns() const { return replayed_busy_ns - recorded_busy_ns; }
  /// (replayed - recorded) / recorded; NaN when nothing was recorded.
  double relative_difference() const;
};

class OpTwins {
 public:
  /// The pairing of `trace` if it is an overlay (at least one "real X" with a "sim X");
  /// null otherwise.
  static std::shared_ptr<const OpTwins> of(const Trace& trace);

  /// Pairs found.
  std::uint32_t pairs() const { return pairs_; }
  /// Whether `op` is on the recorded ("real") side of a pair.
  bool is_recorded(std::uint32_t op) const;
  /// The other op of `op`'s pair; nullopt for an op without a twin or outside the trace.
  std::optional<std::uint32_t> twin(std::uint32_t op) const;
  /// Both ops' times, whichever of the two `op` is. `op` must have a twin.
  TwinTiming timing(const Trace& trace, std::uint32_t op) const;

  /// Busy time per op class (all ops of each side, paired or not), by class name.
  static std::vector<ClassDifference> class_differences(const Trace& trace);

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> twin_;  // per op; kNone when it has no twin
  std::vector<bool> recorded_;       // per op: a "real" op
  std::uint32_t pairs_ = 0;
};

}  // namespace opsim::gui
