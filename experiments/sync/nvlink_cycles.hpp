// Hamiltonian cycles over the direct GPU-GPU links (NVLink) among a set of GPUs. A GPU pair
// joined by links with LinkModel::count c in total is an edge of multiplicity c, so one
// pair can serve c edge-disjoint cycles (DGX-1's doubled NVLinks serve two rings).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hw_models/machine.hpp"

namespace opsim::sync {

/// A cycle as indices into the GPU list, starting at 0; cycle[i] -> cycle[i+1] -> ... -> 0.
using Cycle = std::vector<std::uint32_t>;

class GpuLinkGraph {
 public:
  struct Edge {
    std::uint32_t to = 0;
    std::uint32_t pair = 0;
  };

  GpuLinkGraph(const Machine& machine, std::span<const DeviceId> gpus);

  std::uint32_t size() const { return static_cast<std::uint32_t>(neighbours_.size()); }
  std::uint32_t pair_count() const { return static_cast<std::uint32_t>(multiplicity_.size()); }
  const std::vector<Edge>& neighbours(std::uint32_t v) const { return neighbours_[v]; }
  int multiplicity(std::uint32_t pair) const { return multiplicity_[pair]; }
  /// Narrower direction of the route between the pair, bytes per second.
  double width_bytes_per_s(std::uint32_t pair) const { return width_[pair]; }
  /// The pair joining a and b, or UINT32_MAX.
  std::uint32_t pair_of(std::uint32_t a, std::uint32_t b) const;

 private:
  std::vector<std::vector<Edge>> neighbours_;
  std::vector<int> multiplicity_;
  std::vector<double> width_;
};

/// A Hamiltonian cycle through all GPUs whose narrowest pair is as wide as possible; empty
/// when none exists or the search (bounded to stay instant) finds none. `gave_up` (if
/// given) tells whether the search hit its work limit, i.e. whether "none" is unproven.
Cycle find_widest_hamiltonian_cycle(const GpuLinkGraph& graph, bool* gave_up = nullptr);

/// As many edge-disjoint Hamiltonian cycles as the search finds (each pair used at most its
/// multiplicity times over all cycles); for 2 GPUs, one 0 -> 1 -> 0 cycle per link unit.
/// Backtracking with degree pruning, bounded so that it stays instant.
std::vector<Cycle> find_disjoint_hamiltonian_cycles(const GpuLinkGraph& graph,
                                                    bool* gave_up = nullptr);

}  // namespace opsim::sync
