// Gradient synchronization strategies from the D2L "Parameter Servers" section, as op-graph
// generators: aggregate on GPU0 ("tree"), on the CPU ("cpu"), split across GPUs ("split"),
// ring allreduce ("ring"), several NVLink rings at once ("multi-ring") and a sharded
// multi-server parameter server ("ps"). Each returns an OpGraph of copies and reductions
// that the one scheduler runs for real or simulated.
//
//   Machine m = ...;                        // e.g. 4 GPUs behind one 16 GB/s PCIe switch
//   SyncOptions options;                    // 160 MB of fp32 gradients on every GPU
//   options.include_reductions = false;     // the book's arithmetic: transfers only
//   SyncPlan plan = make_sync_plan("split", m, options);
//   plan.graph.validate(m);                 // plan.lower_bound_s == 0.015
//
// Reductions are compute ops with kernel kReduce on the device that adds: summing k fp32
// buffers of b bytes each costs (k-1)*b/4 flops and touches (k+1)*b bytes (k reads, one
// write).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/op_graph.hpp"
#include "hw_models/machine.hpp"

namespace opsim {

struct SyncOptions {
  double bytes = 160e6;            ///< gradient size S on every GPU, bytes (fp32)
  std::vector<DeviceId> gpus;      ///< participating GPUs in order; empty: all GPUs
  bool include_reductions = true;  ///< false: no reduce ops, only transfers (--comm-only)
  /// multi-ring: run each NVLink cycle in both directions (links are full duplex); false
  /// runs one direction per cycle, the book's "3 x 18 GB/s" arithmetic.
  bool multi_ring_both_directions = true;
};

struct SyncPlan {
  OpGraph graph;
  /// Transfer-only lower bound in seconds (link capacity along the strategy's dependency
  /// phases, no latency, no reductions); NaN where none is known.
  double lower_bound_s = 0;
  std::string summary;  ///< one line: strategy, GPUs, size, op counts, bound
};

/// The strategy names, in the book's order: tree, cpu, split, ring, multi-ring, ps.
std::vector<std::string_view> sync_strategy_names();

/// Builds the op graph of one strategy on `machine` (sealed). Throws InputError with a
/// one-line message on an unknown strategy, fewer than 2 GPUs, a non-GPU or repeated id in
/// options.gpus, a size that is not a positive number, or a machine the strategy cannot
/// use (ps on one server, multi-ring without a Hamiltonian cycle over NVLink).
SyncPlan make_sync_plan(std::string_view strategy, const Machine& machine,
                        const SyncOptions& options);

/// Makes make_sync_plan's checks of its input and the strategy's needs (a CPU that reaches
/// the GPUs, GPUs on two servers, an NVLink cycle, a size limit) without building the graph,
/// so that a command refuses a strategy that cannot run before it starts any: throws the
/// same InputError.
void check_sync_plan(std::string_view strategy, const Machine& machine, const SyncOptions& options);

}  // namespace opsim
