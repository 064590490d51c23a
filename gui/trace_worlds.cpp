#include "gui/trace_worlds.hpp"

#include <array>
#include <string_view>

namespace opsim::gui {
namespace {

constexpr std::array<std::string_view, 2> kPrefixes = {"real ", "sim "};
constexpr int kOtherWorld = 2;

int world_of(std::string_view name) {
  for (int w = 0; w < 2; ++w)
    if (name.starts_with(kPrefixes[w])) return w;
  return kOtherWorld;
}

std::string without_prefix(const std::string& name, int world) {
  return world == kOtherWorld ? name : name.substr(kPrefixes[world].size());
}

}  // namespace

std::vector<TraceWorld> split_worlds(const Trace& trace) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<TraceWorld> worlds(2);
  worlds[0].name = "real";
  worlds[1].name = "sim";
  for (TraceWorld& w : worlds) {
    w.trace.title = trace.title + " — " + w.name;
    w.trace.backend = w.name;
    w.trace.machine = trace.machine;
  }
  std::vector<std::uint32_t> lane_in_world(trace.lanes.size(), kNone);
  for (std::size_t l = 0; l < trace.lanes.size(); ++l) {
    const int w = world_of(trace.lanes[l].name);
    if (w == kOtherWorld) continue;
    TraceLane lane = trace.lanes[l];
    lane.name = without_prefix(lane.name, w);
    lane_in_world[l] = static_cast<std::uint32_t>(worlds[w].trace.lanes.size());
    worlds[w].trace.lanes.push_back(std::move(lane));
  }
  std::vector<int> op_world(trace.ops.size(), kOtherWorld);
  std::vector<std::uint32_t> op_in_world(trace.ops.size(), kNone);
  for (std::size_t i = 0; i < trace.ops.size(); ++i) {
    const int w = world_of(trace.ops[i].name);
    if (w == kOtherWorld || trace.ops[i].lane >= lane_in_world.size() ||
        lane_in_world[trace.ops[i].lane] == kNone)
      continue;
    TraceOp op = trace.ops[i];
    op.name = without_prefix(op.name, w);
    op.lane = lane_in_world[op.lane];
    op_world[i] = w;
    op_in_world[i] = static_cast<std::uint32_t>(worlds[w].trace.ops.size());
    worlds[w].trace.ops.push_back(std::move(op));
  }
  for (const TraceSpan& span : trace.link_spans) {
    if (span.op >= op_world.size() || op_world[span.op] == kOtherWorld) continue;
    if (span.lane >= lane_in_world.size() || lane_in_world[span.lane] == kNone) continue;
    worlds[op_world[span.op]].trace.link_spans.push_back(
        {op_in_world[span.op], lane_in_world[span.lane], span.start_ns, span.end_ns});
  }
  for (const auto& [before, after] : trace.dependencies) {
    if (before >= op_world.size() || after >= op_world.size()) continue;
    const int w = op_world[before];
    if (w == kOtherWorld || op_world[after] != w) continue;
    worlds[w].trace.dependencies.emplace_back(op_in_world[before], op_in_world[after]);
  }
  for (const TraceCounter& counter : trace.counters) {
    const int w = world_of(counter.name);
    if (w == kOtherWorld) continue;
    TraceCounter c = counter;
    c.name = without_prefix(c.name, w);
    worlds[w].trace.counters.push_back(std::move(c));
  }
  std::erase_if(worlds, [](const TraceWorld& w) { return w.trace.ops.empty(); });
  return worlds;
}

std::vector<std::uint32_t> last_op_per_world(const Trace& trace) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::array<std::uint32_t, 3> last{kNone, kNone, kNone};
  for (std::uint32_t i = 0; i < trace.ops.size(); ++i) {
    std::uint32_t& l = last[world_of(trace.ops[i].name)];
    if (l == kNone || trace.ops[i].end_ns > trace.ops[l].end_ns) l = i;
  }
  std::vector<std::uint32_t> out;
  for (std::uint32_t l : last)
    if (l != kNone) out.push_back(l);
  return out;
}

}  // namespace opsim::gui
