// Collectives as op-graph generators over a list of GPUs on any machine, NCCL style:
// allreduce, reduce_scatter, all_gather, broadcast, reduce, all_to_all and sendrecv, by
// algorithm (ring, tree, nvls, hierarchical, direct, or auto as NCCL's tuner chooses) and
// protocol (LL, LL128, Simple, wire, or auto). Reductions are fused into the transfers, as
// NCCL reduces inside its copy kernels: a graph holds copies only. A protocol makes each
// copy one step: its bytes over the protocol's and link's efficiency, a fixed delay of the
// step's latency (Machine::collectives(), NCCL's tuning constants; docs/collectives.md).
//
//   const Machine m = resolve_topology("dgx-a100");
//   CollectiveOptions options;               // all GPUs, algorithm and protocol auto
//   options.bytes = 64e6;                    // nccl-tests' size S
//   CollectivePlan plan = make_collective("allreduce", m, options);
//   // plan.algorithm == "ring", plan.protocol == "Simple"
//   double t = simulate_isolated(m, plan.graph).makespan_s;
//   double busbw = options.bytes / t * bus_factor("allreduce", 8);
//
// S follows nccl-tests: the per-rank buffer, for all_gather the gathered buffer, for
// reduce_scatter and all_to_all the whole input buffer, for sendrecv what each GPU sends.
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
  /// one of collective_algorithms(op) or "auto" (NCCL's tuner: by size and machine); empty: auto
  std::string algorithm;
  /// LL, LL128, Simple, wire (the links alone, no protocol cost), auto, or a comma-separated
  /// list of LL, LL128 and Simple: auto among those (NCCL_PROTO=LL,Simple); empty: auto
  std::string protocol;
  /// broadcast, reduce and tree: pieces the buffer is cut into for the pipeline; 0: by size
  /// and the hop's latency (pipeline_chunks' 128 KiB pieces on latency-free links, else the
  /// k that minimizes (k + hops - 1)(L + S/(k B))).
  std::size_t chunks = 0;
  /// nccl-tests' -g: GPUs one host thread drives (1 to the GPU count). Above 1 the thread
  /// launches their kernels one after another, GpuModel::launch_s each, and since nccl-tests
  /// runs its iterations back to back, one takes at least that: the graph gets that chain of
  /// host dispatches on the first GPU's CPU, beside the copies.
  int gpus_per_thread = 1;
};

struct CollectivePlan {
  OpGraph graph;
  /// The GPUs in the first ring's order (ring algorithms), else as given; order[0] is the root.
  std::vector<DeviceId> order;
  std::string algorithm;  ///< the algorithm built (auto's choice)
  std::string protocol;   ///< the protocol built (auto's choice)
  /// The tuner's estimate of the time (latency + transfer), seconds; what auto compared.
  double estimate_s = 0;
  std::string summary;  ///< one line: collective, algorithm, protocol, GPUs, size, ops
};

/// allreduce, reduce_scatter, all_gather, broadcast, reduce, all_to_all, sendrecv.
std::vector<std::string_view> collective_names();
/// Every algorithm that exists: ring, tree, nvls, hierarchical, direct, auto.
std::vector<std::string_view> collective_algorithms();
/// Those that exist for `op` (whether the machine allows them is make_collective's check):
/// allreduce ring, tree, nvls, hierarchical; reduce_scatter and all_gather ring, nvls;
/// broadcast, reduce ring; all_to_all and sendrecv direct. Throws InputError on an unknown op.
std::vector<std::string_view> collective_algorithms(std::string_view op);
/// LL, LL128, Simple, wire, auto.
std::vector<std::string_view> collective_protocols();
/// Empty when `text` names protocols as CollectiveOptions::protocol allows, else why not.
std::string protocol_choice_error(std::string_view text);

/// nccl-tests' busbw / algbw for `op` on `n` ranks: 2(n-1)/n allreduce; (n-1)/n
/// reduce_scatter, all_gather and all_to_all; 1 broadcast, reduce and sendrecv.
double bus_factor(std::string_view op, std::size_t n);

/// nccl-tests' data types (its -d names: int8, uint8, int32, uint32, int64, uint64, half,
/// float, double, bfloat16, f8e4m3, f8e5m2) and their element sizes in bytes.
std::vector<std::string_view> nccl_tests_dtypes();
/// The element size of `dtype`; throws InputError naming the types on an unknown one.
std::size_t nccl_tests_element_bytes(std::string_view dtype);

/// What nccl-tests runs when asked for `requested_bytes` of `dtype` on `ranks` ranks
/// (setupArgs and each test's GetCollByteCount): `bytes`, the buffer it times and prints as
/// the size, and `count`, the element count it prints. allreduce, broadcast, reduce and
/// sendrecv: whole elements, count = bytes / element size. reduce_scatter, all_gather and
/// all_to_all: the elements of one rank's share rounded down to whole 16-byte units, count =
/// that share. `bytes` is 0 when not one such unit fits. Throws InputError on an unknown op
/// or type.
struct NcclTestsSize {
  double bytes = 0;
  double count = 0;
};
NcclTestsSize nccl_tests_size(std::string_view op, double requested_bytes, std::size_t ranks,
                              std::string_view dtype = "float");
/// The least size that nccl_tests_size() runs as more than 0 bytes, and a sentence on why
/// smaller ones run as 0 bytes.
struct NcclTestsLeastSize {
  double bytes = 0;
  std::string why;
};
NcclTestsLeastSize nccl_tests_least_size(std::string_view op, std::size_t ranks,
                                         std::string_view dtype = "float");

/// Simulated times are whole nanoseconds, so a bandwidth from a shorter time than this could
/// be off by more than 0.05 % (a 32-byte copy of 1.28 ns on a 25 GB/s link ends at 1 ns).
inline constexpr double kShortestTimeForBandwidth_s = 1e-6;

/// nccl-tests' algbw: `bytes` / `time_s`; NaN (shown as "-" or null) for a time under
/// kShortestTimeForBandwidth_s.
double algbw_bytes_per_s(double bytes, double time_s);

/// The pieces a pipelined broadcast or reduce cuts S into: 128 KiB each (NCCL's slices are
/// of that order), at most 4096 (from 512 MiB on, the pieces grow).
std::size_t pipeline_chunks(double bytes);

/// The first `per_server` GPUs of every server (Device::node) of `machine`, servers in
/// order: the ranks of a job that runs that many per node (nccl-tests on N nodes x G GPUs).
/// Throws InputError ("G GPUs per server: the server of ... has n") when one has fewer.
std::vector<DeviceId> first_gpus_per_server(const Machine& machine, int per_server);

/// Builds the op graph (sealed). Throws InputError with a one-line message on an unknown
/// collective, algorithm or protocol, an algorithm that does not apply to the collective or
/// the machine (saying why), fewer than 2 GPUs, a non-GPU or repeated id, a size that is not
/// a positive number.
CollectivePlan make_collective(std::string_view op, const Machine& machine,
                               const CollectiveOptions& options);

/// make_collective's checks and the tuner's choice (algorithm, protocol, estimate_s) without
/// building the graph: what a parent process asks before a child simulates the collective.
/// Throws as make_collective does.
CollectivePlan choose_collective(std::string_view op, const Machine& machine,
                                 const CollectiveOptions& options);

}  // namespace opsim
