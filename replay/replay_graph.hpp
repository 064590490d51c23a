// The op graph of a recorded PyTorch step: each host thread a chain of its recorded time, each
// GPU op after its launch and after the op before it on its CUDA stream, synchronizing calls
// waiting for the GPU work they waited for, cross-stream waits, and collectives joined across
// the ranks of one job. Simulated, it gives the replayed timeline (replay/replay_run.hpp).
//
//   ReplayGraph g = build_replay_graph(traces, machine, {});
//   SimulationResult r = simulate(g.machine, g.graph, {.scheduler = {.host_threads =
//   g.host_threads}});
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/op_graph.hpp"
#include "engine/trace.hpp"
#include "hw_models/machine.hpp"
#include "replay/kineto_trace.hpp"

namespace opsim::replay {

enum class KernelTiming : std::uint8_t { kRecorded, kModelled };
enum class CollectiveTiming : std::uint8_t { kRecorded, kModelled };

struct ReplayOptions {
  KernelTiming kernels = KernelTiming::kRecorded;
  CollectiveTiming collectives = CollectiveTiming::kRecorded;
  /// How much later than its launch and its stream allow a GPU op may start before the
  /// recording is read as showing a wait on another stream (traces without cuda_sync
  /// events), and how close an end must be to a blocking call's return to be what it
  /// waited for.
  TraceNs wait_tolerance_ns = 10'000;
  /// Ranks to replay: 0 for one per trace; more replicates the traces in turn (rank r
  /// replays trace r mod T), each on a GPU of its own, with every collective over all ranks:
  /// "this step on that machine's N GPUs".
  std::uint32_t ranks = 0;
};

enum class KernelMethod : std::uint8_t {
  kShapes,    ///< flops and bytes from the launching op's Input Dims, timed by the model
  kScaled,    ///< recorded time x (recording GPU's peak / target's peak) for its class
  kRecorded,  ///< the recorded time: collectives, copies to or from the host, and every op
              ///< of a recording GPU whose peaks are not known
};

std::string_view to_string(KernelMethod method);

/// What one GPU event became.
struct GpuOpInfo {
  std::uint32_t rank = 0;
  std::uint32_t event = 0;  ///< index into the rank's KinetoTrace::gpu_events
  OpId op = 0;
  /// Time the op holds its stream before its work starts: the recorded gap after whatever
  /// let it start (its launch returning, the op before it on the stream ending, or the op
  /// it waited for on another stream ending): the GPU's own cost of starting it, and any
  /// wait the trace does not explain.
  TraceNs lead_ns = 0;
  KernelMethod method = KernelMethod::kRecorded;  ///< where its time came from
};

/// A recorded host time on one thread and the op that starts there in the replay.
struct TimelineMark {
  TraceNs recorded_ns = 0;
  OpId op = 0;
  bool at_op_end = false;  ///< the mark is where `op` ends (a thread's last event)
  OpId before = ~OpId{0};  ///< the thread's op that ends at the mark (none: its first op)
};

/// A profiler step of one rank: where it starts and ends on its thread, recorded and replayed.
struct ReplayStep {
  std::uint32_t rank = 0;
  std::string name;  ///< "ProfilerStep#4", or "whole trace"
  TraceNs recorded_start_ns = 0;
  TraceNs recorded_end_ns = 0;
  TimelineMark start;
  TimelineMark end;
};

/// How the graph was built, for the one-line account of what replay understood.
struct ReplayCounts {
  std::int64_t host_ops = 0;
  std::int64_t gpu_ops = 0;
  std::int64_t collectives = 0;
  std::int64_t launches_without_gpu_op = 0;  ///< launch calls whose GPU op is not in the trace
  std::int64_t gpu_ops_without_launch = 0;   ///< GPU ops with no launch call on any thread
  std::int64_t blocking_calls = 0;           ///< synchronize / synchronous copy waits
  std::int64_t polling_loops = 0;            ///< runs of cudaEventQuery read as one wait
  std::int64_t thread_wakes = 0;             ///< a host thread woken by another (thread_wakes.hpp)
  std::int64_t graph_launches = 0;           ///< cudaGraphLaunch calls
  std::int64_t cross_stream_edges = 0;       ///< from cuda_sync events
  std::int64_t inferred_cross_stream_edges = 0;  ///< read off the recorded start times
  /// --kernels modelled: GPU ops timed from their op's shapes, scaled, or left as recorded.
  std::int64_t kernels_from_shapes = 0;
  std::int64_t kernels_scaled = 0;
  std::int64_t kernels_recorded = 0;
  /// --collectives modelled: collectives simulated on the machine, or left as recorded (a
  /// size or kind the model does not cover, or a collective of one rank).
  std::int64_t collectives_modelled = 0;
  std::int64_t collectives_kept_recorded = 0;
};

struct ReplayGraph {
  Machine machine;  ///< the target machine, with as many GPU streams as the trace used
  OpGraph graph;
  std::uint32_t host_threads = 1;  ///< SchedulerOptions::host_threads for this graph
  std::vector<GpuOpInfo> gpu_ops;
  std::vector<ReplayStep> steps;             ///< every rank's steps, by rank then start
  std::vector<DeviceId> rank_gpu;            ///< the GPU each rank's first device runs on
  std::vector<std::uint32_t> trace_of_rank;  ///< index into the traces replayed by each rank
  /// Per op: its rank, and where it lay in the recording (the recorded trace of the overlay).
  std::vector<std::uint32_t> rank_of_op;
  std::vector<TraceNs> recorded_start_ns;
  std::vector<TraceNs> recorded_end_ns;
  /// Per op: its lane in traces (a recorded thread or CUDA stream, named as recorded).
  std::vector<std::uint32_t> lane_of_op;
  std::vector<TraceLane> lanes;
  ReplayCounts counts;

  /// Adds `op` on `lane` with its recorded place.
  OpId add(const Op& op, std::string_view name, std::uint32_t rank, std::uint32_t lane,
           TraceNs recorded_start_ns, TraceNs recorded_end_ns);
  /// Adds a lane; returns its index.
  std::uint32_t add_lane(TraceLane lane);
};

/// Builds the graph of `traces` (one per rank of one job, or replicated: options.ranks) on
/// `machine`. Throws InputError when the machine has fewer GPUs than the ranks use, when
/// collectives do not match across ranks, or when a trace has nothing to replay.
ReplayGraph build_replay_graph(const std::vector<KinetoTrace>& traces, Machine machine,
                               const ReplayOptions& options = {});

}  // namespace opsim::replay
