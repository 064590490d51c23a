// A PyTorch profiler (Kineto) trace, read into what replay needs: each host thread's events,
// each GPU op with its stream and launch correlation, the collectives' arguments, the
// profiler steps, what each synchronizing runtime call waited for (cuda_sync events), and a
// count of every event kind that replay does not use.
//
//   KinetoTrace trace = read_kineto_trace("rank0.json.gz");   // throws InputError
//
// Times are integer nanoseconds from the trace's earliest event that replay reads (a host or
// GPU "X" event; origin_us). Kineto writes microseconds, with three decimals or none: they
// are converted from the decimal text exactly, rounded half away from zero below 1 ns, and
// must stay below 2^62 ns (about 146 years) in magnitude. Host events of one thread are
// sorted by start, an enclosing event before the events it contains (longer first on a tie);
// threads come in the order of their first event.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opsim::replay {

using TraceNs = std::int64_t;

/// A host thread of the trace: Kineto's (pid, tid) with its thread_name if given.
struct HostThread {
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  std::string name;  ///< "thread 2910249 (python)", or "" when the trace names none
};

enum class HostEventKind : std::uint8_t {
  kCpuOp,           ///< cat "cpu_op": an aten:: op or autograd node
  kUserAnnotation,  ///< cat "user_annotation" (record_function; ProfilerStep#N too)
  kRuntime,         ///< cat "cuda_runtime" or "cuda_driver": cudaLaunchKernel, cudaMemcpyAsync...
  kPythonFunction,  ///< cat "python_function"
};

/// One "X" event on a host thread.
struct HostEvent {
  HostEventKind kind = HostEventKind::kCpuOp;
  std::uint32_t thread = 0;  ///< index into KinetoTrace::threads
  std::uint32_t name = 0;    ///< index into KinetoTrace::names
  TraceNs start_ns = 0;
  TraceNs duration_ns = 0;
  std::int64_t correlation = -1;  ///< args.correlation (runtime calls), -1: none
  std::int64_t external_id = -1;  ///< args."External id" (ties an op to its kernels), -1: none
  /// cpu_op's args."Input Dims" (one shape per input, [] for a non-tensor) and
  /// args."Input type" ("float", "c10::Half", ...), empty when not recorded.
  std::vector<std::vector<std::int64_t>> input_dims;
  std::vector<std::string> input_types;
};

enum class GpuEventKind : std::uint8_t { kKernel, kMemcpy, kMemset };

/// memcpy direction, from the event's name ("Memcpy HtoD (Pageable -> Device)"): HtoD, DtoH,
/// DtoD, PtoP (peer), HtoH; a CUDA array ("A", as in "AtoD") counts as device memory.
enum class CopyDirection : std::uint8_t {
  kNone,
  kHostToDevice,
  kDeviceToHost,
  kDeviceToDevice,
  kPeer,
  kHostToHost,
};

/// An NCCL kernel's collective, from args ("Collective name", "In msg nelems",
/// "Out msg nelems", "dtype", "Group size", "Process Group Name", "Process Group Ranks").
/// Traces that lack the args (older PyTorch) get it from the kernel name
/// ("ncclKernel_AllReduce_RING_LL_Sum_float" / "ncclDevKernel_AllReduce_Sum_f32_RING_LL").
struct Collective {
  /// From args: as PyTorch writes it ("allreduce", "broadcast", "_allgather_base",
  /// "reduce_scatter", "alltoall_base", "send", "recv", ...). From the kernel name: lower case,
  /// one of "allreduce", "allgather", "reduce_scatter", "broadcast", "reduce", "sendrecv",
  /// "send", "recv", "alltoall", or the name's own word lowered; "unknown" for NCCL's generic
  /// kernel (ncclDevKernel_Generic), whose name does not say.
  std::string name;
  std::int64_t in_elements = -1;
  std::int64_t out_elements = -1;
  /// "Float", "Half", "BFloat16", ... as args write it; from a kernel name its type word
  /// ("float", "int8_t", "f32"); "" when absent.
  std::string dtype;
  std::int64_t element_bytes = 0;  ///< from dtype; 0 when unknown
  std::int64_t group_size = -1;
  std::string group_name;  ///< "Process Group Name", "" when absent
  /// "Process Group Ranks" ("[0, 1]" as a string, or an array); PyTorch lists at most 30 and
  /// then writes ", ...": those are kept and group_ranks_truncated is set.
  std::vector<std::int64_t> group_ranks;
  bool group_ranks_truncated = false;
};

/// One "X" GPU event (cat "kernel", "gpu_memcpy", "gpu_memset").
struct GpuEvent {
  GpuEventKind kind = GpuEventKind::kKernel;
  std::uint32_t name = 0;  ///< index into KinetoTrace::names
  TraceNs start_ns = 0;
  TraceNs duration_ns = 0;
  std::int64_t device = 0;        ///< args.device, else the pid
  std::int64_t stream = 0;        ///< args.stream
  std::int64_t correlation = -1;  ///< args.correlation, else from an ac2g flow; -1: none
  std::int64_t external_id = -1;  ///< args."External id" (the cpu_op it ran for), -1: none
  std::int64_t bytes = 0;         ///< memcpy/memset args.bytes
  CopyDirection direction = CopyDirection::kNone;
  std::optional<Collective> collective;  ///< NCCL kernels only
};

/// args.cuda_sync_kind as Kineto writes it: "Stream Sync" (cudaStreamSynchronize), "Context
/// Sync" (cudaDeviceSynchronize), "Event Sync" (cudaEventSynchronize), "Stream Wait Event"
/// (cudaStreamWaitEvent); kOther for any other kind, or none.
enum class SyncKind : std::uint8_t {
  kStreamSync,
  kContextSync,
  kEventSync,
  kStreamWaitEvent,
  kOther
};

/// A "cuda_sync" "X" event (newer Kineto, on a GPU lane): what a synchronizing runtime call
/// waited for. Its times are not kept (the runtime call's are) and do not set the origin. A
/// stream Kineto writes as 4294967295 (a Context Sync's) or does not write is -1.
struct SyncEvent {
  SyncKind kind = SyncKind::kOther;  ///< from args.cuda_sync_kind ("Stream Sync", ...)
  std::int64_t correlation = -1;     ///< args.correlation, the runtime call's; -1: none
  std::int64_t device = 0;           ///< args.device, else the pid
  std::int64_t stream = -1;          ///< args.stream (the waiting stream); -1: none/all
  std::int64_t wait_on_stream = -1;  ///< Stream Wait Event: args.wait_on_stream; -1: none
  /// Stream Wait Event: args.wait_on_cuda_event_record_corr_id, the cudaEventRecord's
  /// correlation; -1 when absent.
  std::int64_t event_record_correlation = -1;
};

/// A ProfilerStep#N span on a host thread: a user_annotation (or a cpu_op, as older PyTorch
/// wrote it) of that name, which is also among host_events.
struct StepSpan {
  std::int64_t number = 0;  ///< N
  std::uint32_t thread = 0;
  TraceNs start_ns = 0;
  TraceNs duration_ns = 0;
};

struct KinetoTrace {
  std::string path;
  std::vector<std::string> names;  ///< interned event names
  std::vector<HostThread> threads;
  std::vector<HostEvent> host_events;  ///< grouped by thread, then by start (see above)
  std::vector<GpuEvent> gpu_events;    ///< sorted by start
  std::vector<StepSpan> steps;         ///< sorted by start
  std::vector<SyncEvent> syncs;        ///< cuda_sync events, in file order
  /// deviceProperties[...].name of the GPU the events ran on, "" when absent.
  std::string gpu_name;
  std::int64_t rank = -1;        ///< distributedInfo.rank, -1 when absent
  std::int64_t world_size = -1;  ///< distributedInfo.world_size
  /// Events not used by replay, by "cat" (or "ph" when there is no cat): ("gpu_user_annotation",
  /// 30); a category replay reads in a phase it does not, as "cpu_op (ph i)". Read, so not
  /// here: the host and GPU "X" events, the cuda_sync "X" events (in syncs), the ac2g /
  /// async_cpu_to_gpu flows (a missing correlation comes from them), and the thread_name "M"
  /// events of host threads.
  std::map<std::string, std::int64_t> ignored_events;
  /// The trace's time origin in its own microseconds (to print recorded times as written).
  double origin_us = 0;
  /// How many entries traceEvents holds, read or not.
  std::int64_t trace_events = 0;

  std::string_view name(std::uint32_t index) const { return names[index]; }
};

/// Reads a Kineto trace, plain JSON or gzip (by content, not by name): the object form with
/// "traceEvents". The file is at most 2 GiB, and so is its decompressed text
/// (kMaxInputFileBytes: a gzip bomb stops there). Throws InputError, one line "PATH: ...", for a
/// file that cannot be read, is not JSON (with line and column), is not a PyTorch profiler trace,
/// is truncated (gzip or JSON), or has an event that breaks the format ("PATH: traceEvents[812]:
/// kernel without args.stream").
KinetoTrace read_kineto_trace(const std::string& path);
/// Same, from text already in memory (decompressed); `source` names it in errors.
KinetoTrace parse_kineto_trace(std::string_view text, const std::string& source);

}  // namespace opsim::replay
