// Collectives as op-graph generators over a list of GPUs on any machine, NCCL style:
// allreduce, reduce_scatter, all_gather, broadcast, reduce and all_to_all, each by an
// algorithm (today: ring, and direct for all_to_all). Reductions are fused into the transfers, as
// NCCL reduces inside its copy kernels: a graph holds copies only.
//
//   const Machine m = resolve_topology("nvlink-ring:4");
//   CollectiveOptions options;               // all GPUs, ring
//   options.bytes = 64e6;                    // nccl-tests' size S
//   CollectivePlan plan = make_collective("allreduce", m, options);
//   double t = simulate_isolated(m, plan.graph).makespan_s;  // 2*3/4 * 64 MB / 25 GB/s
//   double busbw = S / t * bus_factor("allreduce", 4);        // 25 GB/s
//
// S follows nccl-tests: the per-rank buffer, for all_gather the gathered buffer, for
// reduce_scatter and all_to_all the whole input buffer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/op_graph.hpp"
#include "hw_models/machine.hpp"

namespace opsim {

struct CollectiveOptions {
  double bytes = 64e6;         ///< S, bytes (nccl-tests' size column)
  std::vector<DeviceId> gpus;  ///< participating GPUs in order; empty: all the machine's
  std::string algorithm;       ///< one of collective_algorithms(op); empty: the op's first
  /// broadcast and reduce: pieces the buffer is cut into for the pipeline; 0: by size
  /// (pipeline_chunks).
  std::size_t chunks = 0;
};

struct CollectivePlan {
  OpGraph graph;
  std::vector<DeviceId> order;  ///< the GPUs in ring order (order[0] is the root)
  std::string summary;          ///< one line: collective, algorithm, GPUs, size, ops
};

/// allreduce, reduce_scatter, all_gather, broadcast, reduce, all_to_all.
std::vector<std::string_view> collective_names();
/// Every algorithm that exists: ring, direct.
std::vector<std::string_view> collective_algorithms();
/// Those that apply to `op`: ring, except all_to_all: direct (every GPU sends to every
/// other at once). Throws InputError on an unknown op.
std::vector<std::string_view> collective_algorithms(std::string_view op);

/// nccl-tests' busbw / algbw for `op` on `n` ranks: 2(n-1)/n allreduce; (n-1)/n
/// reduce_scatter, all_gather and all_to_all; 1 broadcast and reduce.
double bus_factor(std::string_view op, std::size_t n);

/// The pieces a pipelined broadcast or reduce cuts S into: 128 KiB each (NCCL's slices are
/// of that order), at most 4096 (from 512 MiB on, the pieces grow).
std::size_t pipeline_chunks(double bytes);

/// Builds the op graph (sealed). Throws InputError with a one-line message on an unknown
/// collective or algorithm, an algorithm that does not apply to the collective, fewer than 2 GPUs,
/// a non-GPU or repeated id, a size that is not a positive number.
CollectivePlan make_collective(std::string_view op, const Machine& machine,
                               const CollectiveOptions& options);

}  // namespace opsim
