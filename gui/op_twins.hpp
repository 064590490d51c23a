// The pairing of an overlay trace (recorded and replayed lanes side by side, as `opsim replay
// --trace-dir` and `opsim validate --trace-dir` write them): its first half of ops is the
// recorded run, named "real <op>", its second half the same ops in the same order, named
// "sim <op>", so op i and op i + n/2 are twins. Plain data, no Qt.
//
//   if (auto twins = OpTwins::of(trace)) { auto t = twins->timing(trace, op); t.start_shift_ns(); }
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

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

class OpTwins {
 public:
  /// The pairing of `trace` if it is an overlay (an even number of ops, the first half
  /// "real X", the second half "sim X" in the same order); null otherwise.
  static std::shared_ptr<const OpTwins> of(const Trace& trace);

  /// Ops per side: op i < pairs() is recorded, op i + pairs() its replayed twin.
  std::uint32_t pairs() const { return pairs_; }
  bool is_recorded(std::uint32_t op) const { return op < pairs_; }
  /// The other op of `op`'s pair; nullopt for an op outside the trace.
  std::optional<std::uint32_t> twin(std::uint32_t op) const;
  /// Both ops' times, whichever of the two `op` is. `op` must be below 2 * pairs().
  TwinTiming timing(const Trace& trace, std::uint32_t op) const;

  explicit OpTwins(std::uint32_t pairs) : pairs_(pairs) {}

 private:
  std::uint32_t pairs_ = 0;
};

}  // namespace opsim::gui
