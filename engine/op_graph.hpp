// The op graph: ops and "must finish before" edges. Storage is compact because a 1024-GPU
// ring allreduce is two million ops: ops in one chunked array, successors in an append-only
// arena (4 bytes per op, 8 per edge), names pooled. Boost.Graph algorithms run on a
// compressed-sparse-row view (boost_view()); Boost's adjacency_list cost ~100 bytes per op.
//
//   OpGraph g;
//   Op gemm{.kind = OpKind::kCompute, .kernel = KernelClass::kGemm, .device = gpu0};
//   gemm.flops = 2e9;
//   OpId a = g.add(gemm, "gemm0");
//   OpId b = g.add(copy_to_cpu, "copy0");
//   g.add_dependency(a, b);
//   g.validate(machine);   // throws InputError naming a cycle, an unknown device, a bad size
#pragma once

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chunked_vector.hpp"
#include "engine/name_store.hpp"
#include "engine/op.hpp"

namespace opsim {

class OpGraph {
 public:
  /// A read-only Boost.Graph view: vertices are op ids, edges "before -> after".
  using BoostView =
      boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                         boost::no_property, std::uint32_t, std::uint32_t>;

  OpId add(const Op& op, std::string_view name);
  /// `before` must finish before `after` starts. Duplicate edges are kept (harmless).
  void add_dependency(OpId before, OpId after);
  /// Reserves room for `ops` ops, `dependencies` edges and `name_bytes` characters of names.
  void reserve(std::size_t ops, std::size_t dependencies = 0, std::size_t name_bytes = 0);
  /// Releases spare capacity once the graph is complete.
  void shrink_to_fit();

  std::size_t size() const { return ops_.size(); }
  std::size_t dependency_count() const { return edges_.size(); }
  const Op& op(OpId id) const { return ops_[id]; }
  Op& mutable_op(OpId id) { return ops_[id]; }
  /// Adds `effect` to what op `id` allocates and releases.
  void add_memory_effect(OpId id, MemoryEffect effect);
  /// What op `id` allocates and releases (zeros for most ops).
  MemoryEffect memory_effect(OpId id) const {
    return memory_effects_.empty() ? MemoryEffect{} : memory_effects_[id];
  }
  bool has_memory_effects() const { return !memory_effects_.empty(); }
  std::string_view name(OpId id) const;
  std::uint32_t in_degree(OpId id) const { return in_degree_[id]; }
  /// Builds a Boost.Graph view of the current graph (O(ops + dependencies)).
  BoostView boost_view() const;

  /// Calls fn(successor) for each op that depends on `id`, most recently added first.
  template <typename Fn>
  void for_each_successor(OpId id, Fn&& fn) const {
    for (std::uint32_t e = first_edge_[id]; e != kNoEdge; e = edges_[e].next) fn(edges_[e].after);
  }
  std::vector<OpId> successors(OpId id) const;
  /// Predecessors of every op (computed on demand: the graph stores successors only).
  std::vector<std::vector<OpId>> predecessor_lists() const;

  /// Checks the graph against a machine. Throws InputError with `context` (a file name or
  /// "workload") and the offending op: a cycle (naming the ops on it), an unknown or
  /// wrong-kind device, a negative, NaN or zero-where-invalid size.
  void validate(const Machine& machine, std::string_view context = "workload") const;
  /// One topological order (Kahn, ties by op id); throws InputError on a cycle.
  std::vector<OpId> topological_order(std::string_view context = "workload") const;

  /// GraphViz DOT, ops labelled with name, class and size, coloured by kind.
  std::string to_dot(const Machine& machine) const;

 private:
  static constexpr std::uint32_t kNoEdge = UINT32_MAX;
  struct Edge {
    OpId after;
    std::uint32_t next;  // next edge of the same `before`, or kNoEdge
  };
  // Per op and per edge in chunks (engine/chunked_vector.hpp): growing copies nothing.
  ChunkedVector<Op> ops_;
  ChunkedVector<std::uint32_t> in_degree_;
  ChunkedVector<std::uint32_t> first_edge_;
  ChunkedVector<Edge> edges_;
  NameStore names_;
  // By op, from the first effect added on (none until then: most graphs have none).
  ChunkedVector<MemoryEffect> memory_effects_;
};

}  // namespace opsim
