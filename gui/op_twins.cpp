#include "gui/op_twins.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>

namespace opsim::gui {
namespace {

constexpr std::string_view kRecordedPrefix = "real ";
constexpr std::string_view kReplayedPrefix = "sim ";

}  // namespace

double ClassDifference::relative_difference() const {
  if (recorded_busy_ns == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(difference_ns()) / static_cast<double>(recorded_busy_ns);
}

std::shared_ptr<const OpTwins> OpTwins::of(const Trace& trace) {
  const std::size_t n = trace.ops.size();
  if (n == 0 || n > UINT32_MAX) return nullptr;
  auto twins = std::make_shared<OpTwins>();
  twins->twin_.assign(n, kNone);
  twins->recorded_.assign(n, false);
  // Recorded ops by name, in trace order; each "sim X" takes the next unpaired "real X".
  std::unordered_map<std::string_view, std::pair<std::vector<std::uint32_t>, std::size_t>> real;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string_view name = trace.ops[i].name;
    if (!name.starts_with(kRecordedPrefix)) continue;
    twins->recorded_[i] = true;
    real[name.substr(kRecordedPrefix.size())].first.push_back(i);
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string_view name = trace.ops[i].name;
    if (!name.starts_with(kReplayedPrefix)) continue;
    const auto it = real.find(name.substr(kReplayedPrefix.size()));
    if (it == real.end() || it->second.second == it->second.first.size()) continue;
    const std::uint32_t recorded = it->second.first[it->second.second++];
    twins->twin_[recorded] = i;
    twins->twin_[i] = recorded;
    ++twins->pairs_;
  }
  if (twins->pairs_ == 0) return nullptr;
  return twins;
}

bool OpTwins::is_recorded(std::uint32_t op) const {
  return op < recorded_.size() && recorded_[op] && twin_[op] != kNone;
}

std::optional<std::uint32_t> OpTwins::twin(std::uint32_t op) const {
  if (op >= twin_.size() || twin_[op] == kNone) return std::nullopt;
  return twin_[op];
}

TwinTiming OpTwins::timing(const Trace& trace, std::uint32_t op) const {
  TwinTiming t;
  t.recorded_op = recorded_.at(op) ? op : twin_.at(op);
  t.replayed_op = twin_.at(t.recorded_op);
  const TraceOp& recorded = trace.ops.at(t.recorded_op);
  const TraceOp& replayed = trace.ops.at(t.replayed_op);
  t.recorded_start_ns = recorded.start_ns;
  t.recorded_duration_ns = recorded.end_ns - recorded.start_ns;
  t.replayed_start_ns = replayed.start_ns;
  t.replayed_duration_ns = replayed.end_ns - replayed.start_ns;
  return t;
}

std::vector<ClassDifference> OpTwins::class_differences(const Trace& trace) {
  std::map<std::string, ClassDifference> classes;
  for (const TraceOp& op : trace.ops) {
    const bool recorded = std::string_view(op.name).starts_with(kRecordedPrefix);
    if (!recorded && !std::string_view(op.name).starts_with(kReplayedPrefix)) continue;
    ClassDifference& c = classes[op.op_class];
    c.op_class = op.op_class;
    (recorded ? c.recorded_ops : c.replayed_ops) += 1;
    (recorded ? c.recorded_busy_ns : c.replayed_busy_ns) += op.end_ns - op.start_ns;
  }
  std::vector<ClassDifference> out;
  for (auto& [name, c] : classes) out.push_back(std::move(c));
  return out;
}

}  // namespace opsim::gui
