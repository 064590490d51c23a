#include "gui/op_twins.hpp"

#include <string_view>

namespace opsim::gui {
namespace {

constexpr std::string_view kRecordedPrefix = "real ";
constexpr std::string_view kReplayedPrefix = "sim ";

bool twins_by_name(std::string_view recorded, std::string_view replayed) {
  return recorded.starts_with(kRecordedPrefix) && replayed.starts_with(kReplayedPrefix) &&
         recorded.substr(kRecordedPrefix.size()) == replayed.substr(kReplayedPrefix.size());
}

}  // namespace

std::shared_ptr<const OpTwins> OpTwins::of(const Trace& trace) {
  const std::size_t n = trace.ops.size();
  if (n == 0 || n % 2 != 0 || n / 2 > UINT32_MAX) return nullptr;
  const std::size_t half = n / 2;
  for (std::size_t i = 0; i < half; ++i)
    if (!twins_by_name(trace.ops[i].name, trace.ops[i + half].name)) return nullptr;
  return std::make_shared<const OpTwins>(static_cast<std::uint32_t>(half));
}

std::optional<std::uint32_t> OpTwins::twin(std::uint32_t op) const {
  if (op < pairs_) return op + pairs_;
  if (op - pairs_ < pairs_) return op - pairs_;
  return std::nullopt;
}

TwinTiming OpTwins::timing(const Trace& trace, std::uint32_t op) const {
  TwinTiming t;
  t.recorded_op = is_recorded(op) ? op : op - pairs_;
  t.replayed_op = t.recorded_op + pairs_;
  const TraceOp& recorded = trace.ops.at(t.recorded_op);
  const TraceOp& replayed = trace.ops.at(t.replayed_op);
  t.recorded_start_ns = recorded.start_ns;
  t.recorded_duration_ns = recorded.end_ns - recorded.start_ns;
  t.replayed_start_ns = replayed.start_ns;
  t.replayed_duration_ns = replayed.end_ns - replayed.start_ns;
  return t;
}

}  // namespace opsim::gui
