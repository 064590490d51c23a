// Internal to the collectives: the checked request, the ring order, and one generator per
// collective (one file each).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "experiments/collectives/collective.hpp"
#include "experiments/sync/sync_common.hpp"

namespace opsim::collectives {

/// The GPUs in ring order: along direct GPU-GPU links (NVLink) when they form a
/// Hamiltonian cycle, else as given.
std::vector<DeviceId> ring_order(const Machine& machine, std::span<const DeviceId> gpus);

/// A builder that adds copies only: reductions are fused into the transfers.
struct FusedBuilder {
  sync::SyncInput input;
  sync::SyncGraphBuilder builder;
  FusedBuilder(const Machine& machine, std::string_view op, std::span<const DeviceId> gpus,
               double bytes, OpGraph& graph)
      : input{machine, op, {gpus.begin(), gpus.end()}, bytes, false, true}, builder(input, graph) {}
};

// Each adds its collective of S = `bytes` over `order` to `graph`.
void add_ring_allreduce(const Machine& machine, std::span<const DeviceId> order, double bytes,
                        OpGraph& graph);
void add_ring_reduce_scatter(const Machine& machine, std::span<const DeviceId> order, double bytes,
                             OpGraph& graph);
void add_ring_all_gather(const Machine& machine, std::span<const DeviceId> order, double bytes,
                         OpGraph& graph);
void add_ring_broadcast(const Machine& machine, std::span<const DeviceId> order, double bytes,
                        std::size_t chunks, OpGraph& graph);
void add_ring_reduce(const Machine& machine, std::span<const DeviceId> order, double bytes,
                     std::size_t chunks, OpGraph& graph);
void add_direct_all_to_all(const Machine& machine, std::span<const DeviceId> order, double bytes,
                           OpGraph& graph);

/// Copies of `chunks` pieces of `bytes` along `chain` (chain[0] first), each hop sending
/// its pieces in order and forwarding a piece as soon as it has it.
void add_pipeline(const Machine& machine, std::string_view op, std::span<const DeviceId> chain,
                  double bytes, std::size_t chunks, OpGraph& graph);

}  // namespace opsim::collectives
