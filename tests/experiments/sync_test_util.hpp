// Reading a synchronization plan back: bytes per link direction (via Machine::route),
// reduce ops per device, and a symbolic replay that checks a chunked allreduce really sums
// every GPU's contribution exactly once into every GPU.
#pragma once

#include <gtest/gtest.h>

#include <charconv>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "engine/op_graph.hpp"
#include "hw_models/machine.hpp"

namespace opsim::testing {

/// The book's gradient size S on every GPU, bytes (fp32).
inline constexpr double kS = 160e6;

/// Bytes each link carries in each direction: [link * 2 + (forward ? 0 : 1)].
inline std::vector<double> link_bytes(const Machine& machine, const OpGraph& graph) {
  std::vector<double> bytes(machine.links().size() * 2, 0.0);
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    if (op.kind != OpKind::kCopy) continue;
    for (const Hop& hop : machine.route(op.device, op.peer))
      bytes[hop.link * 2 + (hop.forward ? 0 : 1)] += op.bytes;
  }
  return bytes;
}

/// Bytes on the named link, from its `a` end to its `b` end (forward) or back.
inline double on_link(const Machine& machine, const std::vector<double>& bytes,
                      const std::string& link, bool forward) {
  return bytes[*machine.find_link(link) * 2 + (forward ? 0 : 1)];
}

inline bool is_reduce(const Op& op) {
  return op.kind == OpKind::kCompute && op.kernel == KernelClass::kReduce;
}

inline std::size_t count_ops(const OpGraph& graph, OpKind kind) {
  std::size_t count = 0;
  for (OpId id = 0; id < graph.size(); ++id) count += graph.op(id).kind == kind ? 1 : 0;
  return count;
}

/// Reduce ops per device.
inline std::map<DeviceId, int> reduces_by_device(const OpGraph& graph) {
  std::map<DeviceId, int> result;
  for (OpId id = 0; id < graph.size(); ++id)
    if (is_reduce(graph.op(id))) ++result[graph.op(id).device];
  return result;
}

/// A topological order that runs the NEWEST ready op first, so later steps overtake earlier
/// ones wherever the dependencies allow it: a missing dependency shows up as a wrong sum.
inline std::vector<OpId> eager_order(const OpGraph& graph) {
  std::vector<std::uint32_t> remaining(graph.size());
  for (OpId id = 0; id < graph.size(); ++id) remaining[id] = graph.in_degree(id);
  std::priority_queue<OpId> ready;
  for (OpId id = 0; id < graph.size(); ++id)
    if (remaining[id] == 0) ready.push(id);
  std::vector<OpId> order;
  while (!ready.empty()) {
    const OpId id = ready.top();
    ready.pop();
    order.push_back(id);
    graph.for_each_successor(id, [&](OpId s) {
      if (--remaining[s] == 0) ready.push(s);
    });
  }
  return order;
}

/// Replays a chunked allreduce named "[r<ring> ]rs|ag ... c<chunk>": an "rs" copy adds the
/// source's chunk into the destination's, an "ag" copy overwrites it. Checks that at the
/// end every GPU holds, for every ring and chunk, every GPU's contribution exactly once.
inline void expect_allreduce(const Machine& machine, const OpGraph& graph,
                             const std::vector<DeviceId>& gpus, int rings, int chunks) {
  std::map<DeviceId, int> index;
  for (std::size_t i = 0; i < gpus.size(); ++i) index[gpus[i]] = static_cast<int>(i);
  const int n = static_cast<int>(gpus.size());
  // counts[ring][gpu][chunk][contributor]
  std::vector<std::vector<std::vector<std::vector<int>>>> counts(
      rings, std::vector<std::vector<std::vector<int>>>(
                 n, std::vector<std::vector<int>>(chunks, std::vector<int>(n, 0))));
  for (int r = 0; r < rings; ++r)
    for (int g = 0; g < n; ++g)
      for (int c = 0; c < chunks; ++c) counts[r][g][c][g] = 1;
  const std::vector<OpId> order = eager_order(graph);
  ASSERT_EQ(order.size(), graph.size());
  for (OpId id : order) {
    const Op& op = graph.op(id);
    if (op.kind != OpKind::kCopy) continue;
    std::string_view name = graph.name(id);
    int ring = 0;
    if (name.size() > 1 && name[0] == 'r' && name[1] >= '0' && name[1] <= '9') {
      const auto space = name.find(' ');
      std::from_chars(name.data() + 1, name.data() + space, ring);
      name.remove_prefix(space + 1);
    }
    const auto c_at = name.rfind(" c");
    int chunk = -1;
    std::from_chars(name.data() + c_at + 2, name.data() + name.size(), chunk);
    ASSERT_TRUE(ring >= 0 && ring < rings && chunk >= 0 && chunk < chunks) << name;
    auto& from = counts[ring][index.at(op.device)][chunk];
    auto& to = counts[ring][index.at(op.peer)][chunk];
    if (name.starts_with("rs"))
      for (int k = 0; k < n; ++k) to[k] += from[k];
    else if (name.starts_with("ag"))
      to = from;
    else
      ADD_FAILURE() << "unexpected copy " << name;
  }
  for (int r = 0; r < rings; ++r)
    for (int g = 0; g < n; ++g)
      for (int c = 0; c < chunks; ++c)
        for (int k = 0; k < n; ++k)
          EXPECT_EQ(counts[r][g][c][k], 1) << "ring " << r << " " << machine.device(gpus[g]).name
                                           << " chunk " << c << " contribution of gpu #" << k;
}

}  // namespace opsim::testing
