#include "engine/op_graph.hpp"

#include <algorithm>
#include <boost/graph/graphviz.hpp>
#include <cmath>
#include <queue>
#include <sstream>
#include <stdexcept>

#include "common/input_error.hpp"
#include "hw_models/units.hpp"

namespace opsim {

// The bulk of a large graph: 16 million copies take 768 MB at this size.
static_assert(sizeof(Op) <= 48, "an Op grew: every op of every graph pays for it");

OpId OpGraph::add(const Op& op, std::string_view name) {
  const auto id = static_cast<OpId>(ops_.size());
  if (id == UINT32_MAX) throw std::length_error("OpGraph: too many ops");
  names_.push_back(name);  // first: it throws when names pass 4 GiB
  ops_.push_back(op);
  in_degree_.push_back(0);
  first_edge_.push_back(kNoEdge);
  if (!memory_effects_.empty()) memory_effects_.push_back({});
  return id;
}

void OpGraph::add_memory_effect(OpId id, MemoryEffect effect) {
  if (id >= ops_.size()) throw std::out_of_range("OpGraph::add_memory_effect: unknown op");
  if (effect.alloc_bytes == 0 && effect.release_bytes == 0) return;
  while (memory_effects_.size() < ops_.size()) memory_effects_.push_back({});
  MemoryEffect& memory = memory_effects_[id];
  memory.alloc_bytes += effect.alloc_bytes;
  memory.release_bytes += effect.release_bytes;
}

void OpGraph::add_dependency(OpId before, OpId after) {
  if (before >= ops_.size() || after >= ops_.size())
    throw std::out_of_range("OpGraph::add_dependency: unknown op");
  if (edges_.size() >= kNoEdge) throw std::length_error("OpGraph: too many dependencies");
  edges_.push_back(Edge{after, first_edge_[before]});
  first_edge_[before] = static_cast<std::uint32_t>(edges_.size() - 1);
  ++in_degree_[after];
}

void OpGraph::reserve(std::size_t ops, std::size_t dependencies, std::size_t name_bytes) {
  ops_.reserve(ops);
  in_degree_.reserve(ops);
  first_edge_.reserve(ops);
  edges_.reserve(dependencies);
  names_.reserve(ops, name_bytes);
}

void OpGraph::shrink_to_fit() {
  ops_.shrink_to_fit();
  in_degree_.shrink_to_fit();
  first_edge_.shrink_to_fit();
  memory_effects_.shrink_to_fit();
  edges_.shrink_to_fit();
  names_.shrink_to_fit();
}

std::string_view OpGraph::name(OpId id) const {
  return names_[id];
}

OpGraph::BoostView OpGraph::boost_view() const {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(edges_.size());
  for (OpId id = 0; id < ops_.size(); ++id)
    for_each_successor(id, [&](OpId after) { edges.emplace_back(id, after); });
  // Sources are visited in increasing order, as the unsorted-edges constructor wants.
  return BoostView(boost::edges_are_sorted, edges.begin(), edges.end(), ops_.size());
}

std::vector<OpId> OpGraph::successors(OpId id) const {
  std::vector<OpId> result;
  for_each_successor(id, [&](OpId s) { result.push_back(s); });
  return result;
}

std::vector<std::vector<OpId>> OpGraph::predecessor_lists() const {
  std::vector<std::vector<OpId>> result(ops_.size());
  for (OpId id = 0; id < ops_.size(); ++id)
    for_each_successor(id, [&](OpId s) { result[s].push_back(id); });
  return result;
}

std::vector<OpId> OpGraph::topological_order(std::string_view context) const {
  std::vector<std::uint32_t> remaining(ops_.size());
  for (OpId id = 0; id < ops_.size(); ++id) remaining[id] = in_degree_[id];
  std::priority_queue<OpId, std::vector<OpId>, std::greater<>> ready;
  for (OpId id = 0; id < ops_.size(); ++id)
    if (remaining[id] == 0) ready.push(id);
  std::vector<OpId> order;
  order.reserve(ops_.size());
  while (!ready.empty()) {
    const OpId id = ready.top();
    ready.pop();
    order.push_back(id);
    for_each_successor(id, [&](OpId s) {
      if (--remaining[s] == 0) ready.push(s);
    });
  }
  if (order.size() == ops_.size()) return order;

  // Every op left over has a predecessor that is left over too, so walking predecessors
  // must repeat an op; the walk from that repeat is a cycle (in reverse).
  std::vector<OpId> left_predecessor(ops_.size(), UINT32_MAX);
  for (OpId id = 0; id < ops_.size(); ++id)
    if (remaining[id] > 0 || in_degree_[id] > 0)
      for_each_successor(id, [&](OpId s) {
        if (remaining[s] > 0 && remaining[id] > 0 && left_predecessor[s] == UINT32_MAX)
          left_predecessor[s] = id;
      });
  OpId at = 0;
  while (remaining[at] == 0) ++at;
  std::vector<char> seen(ops_.size(), 0);
  while (!seen[at]) {
    seen[at] = 1;
    at = left_predecessor[at];
  }
  std::vector<OpId> cycle;
  const OpId first = at;
  do {
    cycle.push_back(at);
    at = left_predecessor[at];
  } while (at != first);
  std::reverse(cycle.begin(), cycle.end());
  // Name it from its earliest op, as a reader of the file would.
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::string names;
  for (OpId id : cycle) names += "'" + std::string(name(id)) + "' -> ";
  names += "'" + std::string(name(cycle.front())) + "'";
  throw InputError(std::string(context) + ": dependency cycle: " + names);
}

namespace {

std::string op_place(std::string_view context, const OpGraph& graph, OpId id) {
  return std::string(context) + ": op '" + std::string(graph.name(id)) + "' (#" +
         std::to_string(id) + ")";
}

bool bad_size(double value) {
  return !std::isfinite(value) || value < 0;
}

}  // namespace

void OpGraph::validate(const Machine& machine, std::string_view context) const {
  const auto device_count = static_cast<DeviceId>(machine.devices().size());
  auto device_ok = [&](DeviceId id) { return id < device_count; };
  for (OpId id = 0; id < ops_.size(); ++id) {
    const Op& op = ops_[id];
    auto fail = [&](const std::string& what) {
      throw InputError(op_place(context, *this, id) + ": " + what);
    };
    if (bad_size(op.flops)) fail("flops must be a finite number >= 0");
    if (bad_size(op.bytes)) fail("bytes must be a finite number >= 0");
    if (bad_size(op.seconds)) fail("seconds must be a finite number >= 0");
    if (const MemoryEffect memory = memory_effect(id);
        bad_size(memory.alloc_bytes) || bad_size(memory.release_bytes))
      fail("memory sizes must be finite numbers >= 0");
    if (op.fixed_time && op.kind != OpKind::kCompute && op.kind != OpKind::kHostDispatch)
      fail("only compute and dispatch ops can take a fixed time");
    switch (op.kind) {
      case OpKind::kCompute:
        if (op.device != kNoDevice) {
          if (!device_ok(op.device)) fail("unknown device");
          const auto kind = machine.device(op.device).kind;
          if (kind != DeviceKind::kCpu && kind != DeviceKind::kGpu)
            fail("compute must run on a CPU or GPU, not '" + machine.device(op.device).name + "'");
        }
        break;
      case OpKind::kCopy:
        if (!device_ok(op.device) || !device_ok(op.peer))
          fail("copy needs a known source and destination");
        if (!machine.device(op.device).has_memory() || !machine.device(op.peer).has_memory())
          fail("copy endpoints must be CPUs or GPUs");
        if (!(op.bytes > 0)) fail("copy needs bytes > 0");
        try {
          (void)machine.route(op.device, op.peer);
        } catch (const std::invalid_argument& e) {
          fail(e.what());
        }
        break;
      case OpKind::kDiskRead:
      case OpKind::kDiskWrite:
        if (!device_ok(op.device) || machine.device(op.device).kind != DeviceKind::kDisk)
          fail("disk op needs a disk device");
        if (!device_ok(op.peer) || !machine.device(op.peer).has_memory())
          fail("disk op needs a CPU or GPU memory");
        if (!(op.bytes > 0)) fail("disk op needs bytes > 0");
        if (op.pattern == AccessPattern::kRandom && op.block_bytes == 0)
          fail("random disk access needs block_bytes > 0");
        break;
      case OpKind::kHostDispatch:
        if (!device_ok(op.device) || machine.device(op.device).kind != DeviceKind::kCpu)
          fail("host dispatch runs on a CPU");
        break;
    }
  }
  (void)topological_order(context);
}

std::string OpGraph::to_dot(const Machine& machine) const {
  auto device_name = [&](DeviceId id) -> std::string {
    return id < machine.devices().size() ? machine.device(id).name : std::string("auto");
  };
  std::vector<std::string> attributes(ops_.size());
  for (OpId id = 0; id < ops_.size(); ++id) {
    const Op& op = ops_[id];
    std::string label = std::string(name(id)) + "\\n" + std::string(op_class(op));
    const char* colour = "#cfe2ff";
    switch (op.kind) {
      case OpKind::kCompute:
        label += " on " + device_name(op.device);
        if (op.flops > 0)
          label += "\\n" + std::to_string(static_cast<long long>(op.flops)) + " flops";
        break;
      case OpKind::kCopy:
        label += " " + device_name(op.device) + " -> " + device_name(op.peer) + "\\n" +
                 format_bytes(op.bytes);
        colour = "#ffe5b4";
        break;
      case OpKind::kDiskRead:
      case OpKind::kDiskWrite:
        label += " " + device_name(op.device) + "\\n" + format_bytes(op.bytes);
        colour = "#d1e7dd";
        break;
      case OpKind::kHostDispatch:
        label += " on " + device_name(op.device);
        colour = "#e2e3e5";
        break;
    }
    std::string escaped;
    for (char c : label) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
    attributes[id] = "[label=\"" + escaped + "\", fillcolor=\"" + colour + "\"]";
  }
  std::ostringstream out;
  const BoostView view = boost_view();
  boost::write_graphviz(
      out, view, [&](std::ostream& o, std::uint32_t v) { o << attributes[v]; },
      boost::default_writer(),
      [](std::ostream& o) {
        o << "rankdir=LR;\nnode [shape=box, style=filled, fontname=\"sans\"];\n";
      });
  return out.str();
}

}  // namespace opsim
