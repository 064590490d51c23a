// Collectives across the ranks of a replay. Recorded: each rank's part starts when every
// rank has reached it and lasts as long as the shortest recorded part (the longer ones
// include the wait for the last rank). Modelled (--collectives modelled): the transfers of a
// ring over the ranks' GPUs on the target machine, as NCCL's ring moves them, with the
// reductions fused into the copies as NCCL's kernels do.
#pragma once

#include <vector>

#include "replay/replay_graph.hpp"

namespace opsim::replay {

/// One collective: the k-th of its process group on each rank that took part.
struct CollectiveInstance {
  struct Member {
    std::uint32_t rank;
    std::uint32_t event;  ///< index into the rank's trace's gpu_events
    OpId op;
  };
  std::vector<Member> members;  ///< by rank
};

/// Bytes each hop of a ring allreduce would carry for the same per-hop traffic as the
/// collective (allreduce: its size; all-gather and reduce-scatter: half their total;
/// broadcast and reduce: n/(2(n-1)) of it); 0 for kinds a ring does not model (all-to-all,
/// send/recv) or an unknown size.
double ring_equivalent_bytes(const Collective& collective, std::size_t ranks);

/// Joins (recorded) or simulates (modelled) every collective of two or more ranks.
void connect_collectives(ReplayGraph& g, const std::vector<KinetoTrace>& traces,
                         const std::vector<CollectiveInstance>& instances,
                         const ReplayOptions& options);

}  // namespace opsim::replay
