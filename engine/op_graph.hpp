// The op graph: ops and "must finish before" edges, on Boost.Graph. Ops are stored apart
// from the graph's topology so that a two-million-op graph stays small; names are pooled.
//
//   OpGraph g;
//   Op gemm{.kind = OpKind::kCompute, .kernel = KernelClass::kGemm, .device = gpu0};
//   gemm.flops = 2e9;
//   OpId a = g.add(gemm, "gemm0");
//   OpId b = g.add(copy_to_cpu, "copy0");
//   g.add_dependency(a, b);
//   g.validate(machine);   // throws InputError naming a cycle, an unknown device, a bad size
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/op.hpp"

namespace opsim {

class OpGraph {
 public:
  using Topology = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

  OpId add(const Op& op, std::string_view name);
  /// `before` must finish before `after` starts. Duplicate edges are kept (harmless).
  void add_dependency(OpId before, OpId after);
  void reserve(std::size_t ops);

  std::size_t size() const { return ops_.size(); }
  std::size_t dependency_count() const { return boost::num_edges(topology_); }
  const Op& op(OpId id) const { return ops_[id]; }
  Op& mutable_op(OpId id) { return ops_[id]; }
  std::string_view name(OpId id) const;
  std::uint32_t in_degree(OpId id) const { return in_degree_[id]; }
  const Topology& topology() const { return topology_; }

  /// Calls fn(successor) for each op that depends on `id`.
  template <typename Fn>
  void for_each_successor(OpId id, Fn&& fn) const {
    auto [begin, end] = boost::adjacent_vertices(id, topology_);
    for (auto it = begin; it != end; ++it) fn(static_cast<OpId>(*it));
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
  Topology topology_;
  std::vector<Op> ops_;
  std::vector<std::uint32_t> in_degree_;
  std::vector<char> name_chars_;
  std::vector<std::uint64_t> name_offsets_;  // offset << 16 | length
};

}  // namespace opsim
