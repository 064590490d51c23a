// The Kineto trace reader on small traces written here (plain and gzip), and, when
// OPSIM_SHARED_TRACES names a folder of real traces, on those (KinetoSharedTraces.*).
#include "replay/kineto_trace.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/gzip_input.hpp"
#include "common/input_error.hpp"
#include "tests/support/gzip_text.hpp"

namespace opsim::replay {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSource = "t.json";

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::path(OPSIM_BINARY_DIR) / "test_scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

using opsim::test::gzip;

std::string trace_of(const std::string& events, const std::string& top = "") {
  return "{\"schemaVersion\": 1, " + top + "\"traceEvents\": [" + events + "]}";
}

// A cpu_op "X" event.
std::string op(const std::string& name, std::int64_t tid, const std::string& ts,
               const std::string& dur, const std::string& args = "{}") {
  return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name +
         "\", \"pid\": 100, \"tid\": " + std::to_string(tid) + ", \"ts\": " + ts +
         ", \"dur\": " + dur + ", \"args\": " + args + "}";
}

std::string event(const std::string& cat, const std::string& name, std::int64_t pid,
                  std::int64_t tid, const std::string& ts, const std::string& dur,
                  const std::string& args) {
  return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
         "\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
         ", \"ts\": " + ts + ", \"dur\": " + dur + ", \"args\": " + args + "}";
}

KinetoTrace parse(const std::string& text) {
  return parse_kineto_trace(text, kSource);
}

// The message of the InputError that reading `text` throws ("" when it reads).
std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
std::string file_error_of(const fs::path& path) {
  try {
    (void)read_kineto_trace(path.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(text, expected)                               \
  do {                                                             \
    const std::string message_ = error_of(text);                   \
    EXPECT_EQ(message_, std::string(kSource) + ": " + (expected)); \
    EXPECT_EQ(message_.find('\n'), std::string::npos) << message_; \
  } while (false)

#define EXPECT_ERROR_HAS(message, part)                            \
  do {                                                             \
    const std::string message_ = (message);                        \
    EXPECT_NE(message_.find(part), std::string::npos) << message_; \
    EXPECT_EQ(message_.find('\n'), std::string::npos) << message_; \
  } while (false)

// A small trace with every kind replay reads: two host threads, nesting, runtime calls with
// their kernels (correlation in args), a memcpy and a memset, an NCCL kernel with PyTorch's
// collective args, two profiler steps, a stream synchronize's cuda_sync, and events replay
// ignores.
std::string small_trace() {
  const std::string events =
      // Metadata: thread names (the second main-thread name wins), a process name.
      R"J({"name": "process_name", "ph": "M", "ts": 1000, "pid": 100, "tid": 0, "args": {"name": "python3"}},)J"
      R"J({"name": "thread_name", "ph": "M", "ts": 1000, "pid": 100, "tid": 1, "args": {"name": "thread 1 (first)"}},)J"
      R"J({"name": "thread_name", "ph": "M", "ts": 1000, "pid": 100, "tid": 1, "args": {"name": "thread 1 (python)"}},)J"
      R"J({"name": "thread_name", "ph": "M", "ts": 1000, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},)J"
      // The step, then an op that contains a launch (given before its parent in the file).
      R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 100, "tid": 1, "ts": 1000.5, "dur": 50, "args": {"External id": 1}},)J"
      R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 1002, "dur": 3, "args": {"External id": 2, "cbid": 211, "correlation": 77}},)J"
      R"J({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": 1001, "dur": 10, "args": {"External id": 2, "Input Dims": [[64, 32], [32, 16]], "Input type": ["float", "float"]}},)J"
      R"J({"ph": "X", "cat": "kernel", "name": "sgemm_64x32", "pid": 0, "tid": 7, "ts": 1010, "dur": 20.25, "args": {"External id": 2, "device": 0, "stream": 7, "correlation": 77, "grid": [1, 1, 1]}},)J"
      R"J({"ph": "s", "id": 77, "pid": 100, "tid": 1, "ts": 1002, "cat": "ac2g", "name": "ac2g"},)J"
      R"J({"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 1010, "cat": "ac2g", "name": "ac2g", "bp": "e"},)J"
      R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": 1, "ts": 1012, "dur": 2, "args": {"correlation": 78}},)J"
      R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1031, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 78, "bytes": 4096, "memory bandwidth (GB/s)": 1.5}},)J"
      R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 100, "tid": 1, "ts": 1015, "dur": 1, "args": {"correlation": 79}},)J"
      R"J({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 1036, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 79, "bytes": 16}},)J"
      // The second step, an NCCL launch on the other thread.
      R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 100, "tid": 1, "ts": 1051, "dur": 40.125, "args": {}},)J"
      R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": -549452224, "ts": 1052, "dur": 2, "args": {"correlation": 80}},)J"
      R"J({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 40, "ts": 1055, "dur": 30, "args": {"device": 0, "stream": 40, "correlation": 80, "Collective name": "allreduce", "In msg nelems": 6637568, "Out msg nelems": 6637568, "Group size": 2, "dtype": "Float", "In split size": "[]", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]"}},)J"
      // A cudaStreamSynchronize and what it waited for.
      R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 100, "tid": 1, "ts": 1038, "dur": 3, "args": {"correlation": 81}},)J"
      R"J({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 1040, "dur": 1, "args": {"External id": 81, "cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 81, "device": 0, "context": 1}},)J"
      // Ignored: fwdbwd flows, a GPU annotation, the profiler span, instants.
      R"J({"ph": "s", "id": 1, "pid": 100, "tid": 1, "ts": 1001, "cat": "fwdbwd", "name": "fwdbwd"},)J"
      R"J({"ph": "f", "id": 1, "pid": 100, "tid": 1, "ts": 1001, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},)J"
      R"J({"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 1010, "dur": 5, "args": {}},)J"
      R"J({"ph": "X", "cat": "Trace", "ts": 900, "dur": 500, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},)J"
      R"J({"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": 900},)J"
      R"J({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1500})J";
  return trace_of(
      events,
      R"J("deviceProperties": [{"id": 0, "name": "NVIDIA A100-PG509-200", "numSms": 108}],)J"
      R"J( "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},)J");
}

// --- what is read ------------------------------------------------------------------------

TEST(KinetoTrace, ReadsThreadsNamesAndTopLevel) {
  const KinetoTrace t = parse(small_trace());
  EXPECT_EQ(t.path, kSource);
  ASSERT_EQ(t.threads.size(), 2u);
  // In order of their first event.
  EXPECT_EQ(t.threads[0].pid, 100);
  EXPECT_EQ(t.threads[0].tid, 1);
  EXPECT_EQ(t.threads[0].name, "thread 1 (python)");  // the last thread_name wins
  EXPECT_EQ(t.threads[1].tid, -549452224);            // negative tids exist
  EXPECT_EQ(t.threads[1].name, "");
  EXPECT_EQ(t.gpu_name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.world_size, 2);
  EXPECT_DOUBLE_EQ(t.origin_us, 1000.5);  // the earliest event replay reads
}

TEST(KinetoTrace, HostEventsByThreadThenStartEnclosingFirst) {
  const KinetoTrace t = parse(small_trace());
  std::vector<std::string> main_thread;
  for (const HostEvent& e : t.host_events)
    if (e.thread == 0) main_thread.emplace_back(t.name(e.name));
  EXPECT_EQ(main_thread, (std::vector<std::string>{"ProfilerStep#4", "aten::mm", "cudaLaunchKernel",
                                                   "cudaMemcpyAsync", "cudaMemsetAsync",
                                                   "cudaStreamSynchronize", "ProfilerStep#5"}));
  // Grouped by thread: thread 0's events, then thread 1's.
  for (std::size_t i = 1; i < t.host_events.size(); ++i)
    EXPECT_LE(t.host_events[i - 1].thread, t.host_events[i].thread);
  EXPECT_EQ(t.host_events.back().thread, 1u);

  // Same start: the longer (enclosing) one first, whatever the file order.
  const KinetoTrace tie =
      parse(trace_of(op("inner", 1, "10", "2") + "," + op("outer", 1, "10", "5") + "," +
                     op("zero", 1, "10", "0")));
  ASSERT_EQ(tie.host_events.size(), 3u);
  EXPECT_EQ(tie.name(tie.host_events[0].name), "outer");
  EXPECT_EQ(tie.name(tie.host_events[1].name), "inner");
  EXPECT_EQ(tie.name(tie.host_events[2].name), "zero");
}

TEST(KinetoTrace, HostEventFields) {
  const KinetoTrace t = parse(small_trace());
  const HostEvent& mm = t.host_events[1];
  EXPECT_EQ(t.name(mm.name), "aten::mm");
  EXPECT_EQ(mm.kind, HostEventKind::kCpuOp);
  EXPECT_EQ(mm.start_ns, 500);  // 1001 us - 1000.5 us
  EXPECT_EQ(mm.duration_ns, 10000);
  EXPECT_EQ(mm.correlation, -1);
  EXPECT_EQ(mm.external_id, 2);
  EXPECT_EQ(mm.input_dims, (std::vector<std::vector<std::int64_t>>{{64, 32}, {32, 16}}));
  EXPECT_EQ(mm.input_types, (std::vector<std::string>{"float", "float"}));
  const HostEvent& launch = t.host_events[2];
  EXPECT_EQ(launch.kind, HostEventKind::kRuntime);
  EXPECT_EQ(launch.correlation, 77);
  EXPECT_EQ(t.host_events[0].kind, HostEventKind::kUserAnnotation);
}

TEST(KinetoTrace, GpuEventsWithStreamCorrelationAndSizes) {
  const KinetoTrace t = parse(small_trace());
  ASSERT_EQ(t.gpu_events.size(), 4u);
  const GpuEvent& k = t.gpu_events[0];
  EXPECT_EQ(t.name(k.name), "sgemm_64x32");
  EXPECT_EQ(k.kind, GpuEventKind::kKernel);
  EXPECT_EQ(k.start_ns, 9500);
  EXPECT_EQ(k.duration_ns, 20250);
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(k.correlation, 77);
  EXPECT_EQ(k.external_id, 2);
  EXPECT_FALSE(k.collective.has_value());
  const GpuEvent& copy = t.gpu_events[1];
  EXPECT_EQ(copy.kind, GpuEventKind::kMemcpy);
  EXPECT_EQ(copy.direction, CopyDirection::kHostToDevice);
  EXPECT_EQ(copy.bytes, 4096);
  const GpuEvent& set = t.gpu_events[2];
  EXPECT_EQ(set.kind, GpuEventKind::kMemset);
  EXPECT_EQ(set.bytes, 16);
  EXPECT_EQ(set.direction, CopyDirection::kNone);
  for (std::size_t i = 1; i < t.gpu_events.size(); ++i)
    EXPECT_LE(t.gpu_events[i - 1].start_ns, t.gpu_events[i].start_ns);
}

TEST(KinetoTrace, StepsWithTheirDurations) {
  const KinetoTrace t = parse(small_trace());
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[0].number, 4);
  EXPECT_EQ(t.steps[0].thread, 0u);
  EXPECT_EQ(t.steps[0].start_ns, 0);
  EXPECT_EQ(t.steps[0].duration_ns, 50000);
  EXPECT_EQ(t.steps[1].number, 5);
  EXPECT_EQ(t.steps[1].start_ns, 50500);
  EXPECT_EQ(t.steps[1].duration_ns, 40125);
}

TEST(KinetoTrace, CollectiveFromPyTorchArgs) {
  const KinetoTrace t = parse(small_trace());
  const GpuEvent& nccl = t.gpu_events[3];
  ASSERT_TRUE(nccl.collective.has_value());
  const Collective& c = *nccl.collective;
  EXPECT_EQ(c.name, "allreduce");
  EXPECT_EQ(c.in_elements, 6637568);
  EXPECT_EQ(c.out_elements, 6637568);
  EXPECT_EQ(c.dtype, "Float");
  EXPECT_EQ(c.element_bytes, 4);
  EXPECT_EQ(c.group_size, 2);
  EXPECT_EQ(c.group_name, "0");
  EXPECT_EQ(c.group_ranks, (std::vector<std::int64_t>{0, 1}));
  EXPECT_FALSE(c.group_ranks_truncated);
  EXPECT_EQ(nccl.stream, 40);
}

TEST(KinetoTrace, CollectiveFromKernelNameWithoutArgs) {
  const auto kernel = [](const std::string& name, int ts) {
    return event("kernel", name, 1, 15, std::to_string(ts), "10",
                 "{\"device\": 1, \"stream\": 15, \"correlation\": " + std::to_string(ts) + "}");
  };
  const KinetoTrace t = parse(trace_of(
      kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 100) + "," +
      kernel("ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
             200) +
      "," +
      kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 300) +
      "," + kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 400) + "," +
      kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", 500) + "," +
      kernel("ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", 600) + "," +
      kernel("void at::native::vectorized_elementwise_kernel<4>(int)", 700)));
  ASSERT_EQ(t.gpu_events.size(), 7u);
  const std::vector<std::tuple<std::string, std::string, std::int64_t>> expected = {
      {"allreduce", "float", 4}, {"broadcast", "int8_t", 1},    {"allreduce", "f32", 4},
      {"sendrecv", "int8_t", 1}, {"reduce_scatter", "bf16", 2}, {"unknown", "", 0}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE(t.gpu_events[i].collective.has_value()) << i;
    const Collective& c = *t.gpu_events[i].collective;
    EXPECT_EQ(c.name, std::get<0>(expected[i])) << i;
    EXPECT_EQ(c.dtype, std::get<1>(expected[i])) << i;
    EXPECT_EQ(c.element_bytes, std::get<2>(expected[i])) << i;
    EXPECT_EQ(c.in_elements, -1);
    EXPECT_EQ(c.group_size, -1);
    EXPECT_TRUE(c.group_ranks.empty());
  }
  EXPECT_FALSE(t.gpu_events[6].collective.has_value());
  EXPECT_EQ(t.gpu_events[0].device, 1);
}

TEST(KinetoTrace, CollectiveRanksAsArrayOrTruncatedString) {
  std::string truncated = "[";
  for (int r = 0; r < 30; ++r) truncated += std::to_string(r) + ", ";
  truncated += "...]";
  const std::string args_truncated =
      R"J({"stream": 3, "device": 0, "Collective name": "_allgather_base", "dtype": "BFloat16", "Group size": 64, "Process Group Ranks": ")J" +
      truncated + "\"}";
  const KinetoTrace t = parse(trace_of(
      event("kernel", "ncclDevKernel_AllGather_RING_LL(x)", 0, 3, "1", "1", args_truncated) + "," +
      event(
          "kernel", "ncclDevKernel_Generic", 0, 3, "5", "1",
          R"J({"stream": 3, "Collective name": "allreduce", "Group size": 3, "Process Group Ranks": [0, 2, 4]})J")));
  const Collective& a = *t.gpu_events[0].collective;
  EXPECT_EQ(a.name, "_allgather_base");  // args win over the name
  EXPECT_EQ(a.element_bytes, 2);
  EXPECT_EQ(a.group_size, 64);
  EXPECT_EQ(a.group_ranks.size(), 30u);
  EXPECT_TRUE(a.group_ranks_truncated);
  const Collective& b = *t.gpu_events[1].collective;
  EXPECT_EQ(b.group_ranks, (std::vector<std::int64_t>{0, 2, 4}));
  EXPECT_EQ(t.gpu_events[1].device, 0);  // from the pid
}

TEST(KinetoTrace, MemcpyDirectionsAndBytes) {
  const auto copy = [](const std::string& name, int ts, std::int64_t bytes) {
    return event("gpu_memcpy", name, 0, 7, std::to_string(ts), "1",
                 "{\"device\": 0, \"stream\": 7, \"bytes\": " + std::to_string(bytes) + "}");
  };
  const KinetoTrace t =
      parse(trace_of(copy("Memcpy HtoD (Pinned -> Device)", 1, 100) + "," +
                     copy("Memcpy DtoH (Device -> Pageable)", 2, 200) + "," +
                     copy("Memcpy DtoD (Device -> Device)", 3, 300) + "," +
                     copy("Memcpy PtoP (Device -> Device)", 4, 400) + "," +
                     copy("Memcpy HtoH (Pinned -> Pinned)", 5, 0) + "," +
                     copy("Memcpy DtoH (Device -> Pinned)", 6, std::int64_t{1} << 40)));
  const std::vector<CopyDirection> expected = {
      CopyDirection::kHostToDevice, CopyDirection::kDeviceToHost, CopyDirection::kDeviceToDevice,
      CopyDirection::kPeer,         CopyDirection::kHostToHost,   CopyDirection::kDeviceToHost};
  ASSERT_EQ(t.gpu_events.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.gpu_events[i].direction, expected[i]) << i;
    EXPECT_EQ(t.gpu_events[i].kind, GpuEventKind::kMemcpy);
  }
  EXPECT_EQ(t.gpu_events[1].bytes, 200);
  EXPECT_EQ(t.gpu_events[5].bytes, std::int64_t{1} << 40);
}

TEST(KinetoTrace, CorrelationFromAc2gFlowsWhenArgsLackIt) {
  // Kernels and runtime calls without args.correlation: the flows tie them together. The
  // "f" binds to the GPU op running at its ts on its lane, the "s" to the runtime call.
  const std::string events =
      event("cuda_runtime", "cudaLaunchKernel", 100, 1, "10", "5", "{}") + "," +
      event("cuda_runtime", "cudaLaunchKernel", 100, 1, "20", "5", "{}") + "," +
      event("kernel", "k1", 0, 7, "30", "10", R"J({"stream": 7})J") + "," +
      event("kernel", "k2", 0, 7, "40", "10", R"J({"stream": 7})J") + "," +
      event("kernel", "k3", 0, 8, "40", "10", R"J({"stream": 8, "correlation": 9})J") + "," +
      R"J({"ph": "s", "id": 501, "pid": 100, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"},)J"
      R"J({"ph": "f", "id": 501, "pid": 0, "tid": 7, "ts": 30, "cat": "ac2g", "name": "ac2g", "bp": "e"},)J"
      R"J({"ph": "s", "id": 502, "pid": 100, "tid": 1, "ts": 21, "cat": "async_cpu_to_gpu", "name": "async_gpu"},)J"
      R"J({"ph": "f", "id": 502, "pid": 0, "tid": 7, "ts": 45, "cat": "async_cpu_to_gpu", "name": "async_gpu", "bp": "e"},)J"
      R"J({"ph": "f", "id": 503, "pid": 0, "tid": 8, "ts": 40, "cat": "ac2g", "name": "ac2g", "bp": "e"})J";
  const KinetoTrace t = parse(trace_of(events));
  ASSERT_EQ(t.host_events.size(), 2u);
  EXPECT_EQ(t.host_events[0].correlation, 501);
  EXPECT_EQ(t.host_events[1].correlation, 502);  // the flow starts inside the call
  ASSERT_EQ(t.gpu_events.size(), 3u);
  std::map<std::string, std::int64_t> by_name;
  for (const GpuEvent& e : t.gpu_events) by_name[std::string(t.name(e.name))] = e.correlation;
  EXPECT_EQ(by_name["k1"], 501);
  EXPECT_EQ(by_name["k2"], 502);
  EXPECT_EQ(by_name["k3"], 9);  // args.correlation stays
  EXPECT_EQ(t.ignored_events.count("ac2g"), 0u);
}

// A cuda_sync "X" event on GPU 0's lane `tid`, with `args`.
std::string sync_event(std::int64_t tid, const std::string& ts, const std::string& args) {
  return event("cuda_sync", "sync", 0, tid, ts, "1", args);
}

TEST(KinetoTrace, SyncEventsOfEachKindInFileOrder) {
  const std::string events =
      op("a", 1, "1", "1") + "," +
      sync_event(
          7, "50",
          R"J({"cuda_sync_kind": "Stream Sync", "stream": 7, "correlation": 15, "device": 0, "context": 1})J") +
      "," +
      // Kineto writes a Context Sync's stream, and lane, as "none".
      sync_event(
          -1, "40",
          R"J({"cuda_sync_kind": "Context Sync", "stream": 4294967295, "correlation": 16, "device": 1})J") +
      "," +
      sync_event(
          7, "30",
          R"J({"cuda_sync_kind": "Event Sync", "stream": 7, "correlation": 17, "device": 0})J") +
      "," +
      sync_event(
          20, "20",
          R"J({"External id": 18, "cuda_sync_kind": "Stream Wait Event", "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 12, "wait_on_cuda_event_id": 1, "stream": 20, "correlation": 18, "device": 0, "context": 1})J") +
      "," + sync_event(7, "10", R"J({"cuda_sync_kind": "Graph Sync", "stream": 7})J") + "," +
      sync_event(3, "-100", "{}") + "," +
      R"J({"ph": "i", "cat": "cuda_sync", "name": "sync", "pid": 0, "tid": 7, "ts": 5, "s": "t"})J";
  const KinetoTrace t = parse(trace_of(events));
  ASSERT_EQ(t.syncs.size(), 6u);
  const auto fields = [](const SyncEvent& s) {
    return std::make_tuple(s.kind, s.correlation, s.device, s.stream, s.wait_on_stream,
                           s.event_record_correlation);
  };
  EXPECT_EQ(fields(t.syncs[0]), std::make_tuple(SyncKind::kStreamSync, 15, 0, 7, -1, -1));
  EXPECT_EQ(fields(t.syncs[1]), std::make_tuple(SyncKind::kContextSync, 16, 1, -1, -1, -1));
  EXPECT_EQ(fields(t.syncs[2]), std::make_tuple(SyncKind::kEventSync, 17, 0, 7, -1, -1));
  EXPECT_EQ(fields(t.syncs[3]), std::make_tuple(SyncKind::kStreamWaitEvent, 18, 0, 20, 7, 12));
  // A kind Kineto may add later, or none: kOther. Without args: device from the pid, no stream.
  EXPECT_EQ(fields(t.syncs[4]), std::make_tuple(SyncKind::kOther, -1, 0, 7, -1, -1));
  EXPECT_EQ(fields(t.syncs[5]), std::make_tuple(SyncKind::kOther, -1, 0, -1, -1, -1));
  // Read, so not counted; cuda_sync in another phase is.
  EXPECT_EQ(t.ignored_events, (std::map<std::string, std::int64_t>{{"cuda_sync (ph i)", 1}}));
  // Their times are not kept and do not move the origin (one is at -100 us).
  EXPECT_DOUBLE_EQ(t.origin_us, 1);

  const KinetoTrace small = parse(small_trace());
  ASSERT_EQ(small.syncs.size(), 1u);
  EXPECT_EQ(fields(small.syncs[0]), std::make_tuple(SyncKind::kStreamSync, 81, 0, 7, -1, -1));
}

TEST(KinetoTrace, CountsWhatReplayDoesNotUse) {
  const KinetoTrace t = parse(small_trace());
  // M: process_name, and the thread_name of GPU stream 7.
  const std::map<std::string, std::int64_t> expected = {
      {"M", 2}, {"Trace", 1}, {"fwdbwd", 2}, {"gpu_user_annotation", 1}, {"i", 2}};
  EXPECT_EQ(t.ignored_events, expected);
  // A category replay reads, in a phase it does not: counted with its phase.
  const KinetoTrace b = parse(trace_of(
      op("a", 1, "1", "1") +
      R"J(, {"ph": "i", "cat": "cpu_op", "name": "mark", "pid": 100, "tid": 1, "ts": 2, "s": "t"})J"));
  EXPECT_EQ(b.ignored_events, (std::map<std::string, std::int64_t>{{"cpu_op (ph i)", 1}}));
}

TEST(KinetoTrace, TimesAreExactNanosecondsRoundedHalfAwayFromZero) {
  const KinetoTrace t = parse(trace_of(op("origin", 1, "4458676522690.655", "156.777") + "," +
                                       op("half", 1, "4458676522690.6555", "0.0005") + "," +
                                       op("below", 1, "4458676522690.6554999", "0.0004999") + "," +
                                       op("exp", 1, "4.4586765226907e12", "1.5e-3") + "," +
                                       op("int", 1, "4458676522691", "2")));
  std::map<std::string, std::pair<TraceNs, TraceNs>> times;
  for (const HostEvent& e : t.host_events)
    times[std::string(t.name(e.name))] = {e.start_ns, e.duration_ns};
  EXPECT_EQ(times["origin"], std::make_pair(TraceNs{0}, TraceNs{156777}));
  EXPECT_EQ(times["half"], std::make_pair(TraceNs{1}, TraceNs{1}));
  EXPECT_EQ(times["below"], std::make_pair(TraceNs{0}, TraceNs{0}));
  EXPECT_EQ(times["exp"], std::make_pair(TraceNs{45}, TraceNs{2}));
  EXPECT_EQ(times["int"], std::make_pair(TraceNs{345}, TraceNs{2000}));
  EXPECT_DOUBLE_EQ(t.origin_us, 4458676522690.655);
}

TEST(KinetoTrace, GzipAndPlainReadTheSame) {
  const fs::path dir = scratch_dir("kineto_gzip");
  const std::string text = small_trace();
  write_bytes(dir / "rank0.json", text);
  write_bytes(dir / "rank0.json.gz", gzip(text));
  write_bytes(dir / "named-plain.json.gz", text);  // by content, not by name
  // Two gzip members, as `cat a.gz b.gz` makes, and zero padding after the end.
  const std::size_t half = text.size() / 2;
  write_bytes(dir / "members.gz",
              gzip(text.substr(0, half)) + gzip(text.substr(half)) + std::string(8, '\0'));
  const KinetoTrace plain = read_kineto_trace((dir / "rank0.json").string());
  for (const char* name : {"rank0.json.gz", "named-plain.json.gz", "members.gz"}) {
    const KinetoTrace other = read_kineto_trace((dir / name).string());
    EXPECT_EQ(other.path, (dir / name).string());
    EXPECT_EQ(other.names, plain.names) << name;
    ASSERT_EQ(other.host_events.size(), plain.host_events.size()) << name;
    for (std::size_t i = 0; i < plain.host_events.size(); ++i) {
      const HostEvent &a = plain.host_events[i], &b = other.host_events[i];
      EXPECT_EQ(std::tie(a.kind, a.thread, a.name, a.start_ns, a.duration_ns, a.correlation,
                         a.external_id, a.input_dims, a.input_types),
                std::tie(b.kind, b.thread, b.name, b.start_ns, b.duration_ns, b.correlation,
                         b.external_id, b.input_dims, b.input_types));
    }
    ASSERT_EQ(other.gpu_events.size(), plain.gpu_events.size()) << name;
    for (std::size_t i = 0; i < plain.gpu_events.size(); ++i) {
      const GpuEvent &a = plain.gpu_events[i], &b = other.gpu_events[i];
      EXPECT_EQ(std::tie(a.kind, a.name, a.start_ns, a.duration_ns, a.device, a.stream,
                         a.correlation, a.bytes, a.direction),
                std::tie(b.kind, b.name, b.start_ns, b.duration_ns, b.device, b.stream,
                         b.correlation, b.bytes, b.direction));
      EXPECT_EQ(a.collective.has_value(), b.collective.has_value());
    }
    EXPECT_EQ(other.steps.size(), plain.steps.size());
    ASSERT_EQ(other.syncs.size(), plain.syncs.size()) << name;
    for (std::size_t i = 0; i < plain.syncs.size(); ++i) {
      const SyncEvent &a = plain.syncs[i], &b = other.syncs[i];
      EXPECT_EQ(std::tie(a.kind, a.correlation, a.device, a.stream, a.wait_on_stream,
                         a.event_record_correlation),
                std::tie(b.kind, b.correlation, b.device, b.stream, b.wait_on_stream,
                         b.event_record_correlation));
    }
    EXPECT_EQ(other.ignored_events, plain.ignored_events);
    EXPECT_EQ(other.gpu_name, plain.gpu_name);
    EXPECT_EQ(other.rank, plain.rank);
    EXPECT_EQ(other.origin_us, plain.origin_us);
  }
}

TEST(KinetoTrace, ReadsTheMinimalTraceAndGpuOnlyTraces) {
  const KinetoTrace host_only = parse(trace_of(op("a", 1, "0", "0")));
  EXPECT_EQ(host_only.host_events.size(), 1u);
  EXPECT_TRUE(host_only.steps.empty());
  EXPECT_EQ(host_only.gpu_name, "");
  EXPECT_EQ(host_only.rank, -1);
  const KinetoTrace gpu_only =
      parse(trace_of(event("kernel", "k", 0, 7, "-5", "1", R"J({"stream": 7})J")));
  EXPECT_EQ(gpu_only.gpu_events.size(), 1u);
  EXPECT_EQ(gpu_only.gpu_events[0].start_ns, 0);
  EXPECT_DOUBLE_EQ(gpu_only.origin_us, -5);
}

// --- what is refused, with one line naming the file and the place ---------------------------

TEST(KinetoTraceErrors, FilesThatAreNotRegularOrMissing) {
  const fs::path dir = scratch_dir("kineto_not_regular");
  const fs::path fifo = dir / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(file_error_of(fifo), fifo.string() + ": is a FIFO (named pipe), not a trace file");
  EXPECT_EQ(file_error_of(dir), dir.string() + ": is a directory, not a trace file");
  EXPECT_ERROR_HAS(file_error_of(dir / "missing.json.gz"),
                   "missing.json.gz: cannot open trace file");
}

TEST(KinetoTraceErrors, TruncatedGzip) {
  const fs::path dir = scratch_dir("kineto_truncated_gzip");
  const std::string packed = gzip(small_trace());
  write_bytes(dir / "cut.json.gz", packed.substr(0, packed.size() / 2));
  const std::string message = file_error_of(dir / "cut.json.gz");
  EXPECT_EQ(
      message.rfind(
          (dir / "cut.json.gz").string() + ": truncated gzip data: the stream ends after ", 0),
      0u)
      << message;
  EXPECT_ERROR_HAS(message, "without its end marker");
  // Only the 8-byte trailer missing.
  write_bytes(dir / "no-trailer.json.gz", packed.substr(0, packed.size() - 8));
  EXPECT_ERROR_HAS(file_error_of(dir / "no-trailer.json.gz"), "truncated gzip data");
}

TEST(KinetoTraceErrors, CorruptGzip) {
  const fs::path dir = scratch_dir("kineto_corrupt_gzip");
  std::string packed = gzip(small_trace());
  std::string crc = packed;
  crc[crc.size() - 6] = static_cast<char>(crc[crc.size() - 6] ^ 0x55);  // the CRC32
  write_bytes(dir / "crc.json.gz", crc);
  EXPECT_EQ(file_error_of(dir / "crc.json.gz")
                .rfind((dir / "crc.json.gz").string() +
                           ": corrupt gzip data: the checksum or length at its end does not match "
                           "(at compressed byte ",
                       0),
            0u);
  std::string method = packed;
  method[2] = 7;  // not deflate
  write_bytes(dir / "method.json.gz", method);
  EXPECT_ERROR_HAS(file_error_of(dir / "method.json.gz"), ": corrupt gzip data: bad header");
  std::string block = packed;
  block[10] = static_cast<char>(0xff);  // an invalid block type right after the header
  write_bytes(dir / "block.json.gz", block);
  EXPECT_ERROR_HAS(file_error_of(dir / "block.json.gz"), "block.json.gz: corrupt gzip data");
  write_bytes(dir / "garbage.json.gz", packed + "trailing");
  EXPECT_ERROR_HAS(file_error_of(dir / "garbage.json.gz"),
                   ": data after the end of the gzip stream");
}

TEST(KinetoTraceErrors, GzipBombIsStoppedAtTheLimit) {
  // 64 MiB of zeros compress to about 64 KiB; with a 1 MiB limit the output stops there.
  const std::string packed = gzip(std::string(64 << 20, '0'), 9);
  EXPECT_LT(packed.size(), 100u << 10);
  try {
    (void)gunzip_input(packed, "bomb.json.gz", 1 << 20);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "bomb.json.gz: gzip data decompresses to more than 1.0 MiB, the most opsim reads (a "
              "gzip bomb, or a file too large to read)");
  }
  // Exactly at the limit is fine.
  EXPECT_EQ(gunzip_input(gzip(std::string(1 << 20, 'x')), "ok.gz", 1 << 20).size(), 1u << 20);
}

TEST(KinetoTraceErrors, NotJsonOrTruncatedJson) {
  EXPECT_ERROR_HAS(error_of("hello"), "t.json:1:1: invalid JSON: ");
  const std::string text = small_trace();
  const std::string message = error_of(text.substr(0, text.size() / 2));
  EXPECT_EQ(message.rfind("t.json:1:", 0), 0u) << message;
  EXPECT_ERROR_HAS(message, "invalid JSON: syntax error");
  EXPECT_ERROR(std::string(""), "empty file, not a PyTorch profiler trace");
  EXPECT_ERROR(std::string("\x28\xb5\x2f\xfd rest"),
               "zstd-compressed; opsim reads a trace as JSON or gzip (zstd -d it first)");
  EXPECT_ERROR(std::string("PK\x03\x04...", 7),
               "a zip archive; opsim reads a trace as JSON or gzip (unzip it first)");
}

TEST(KinetoTraceErrors, TheArrayFormOfAChromeTrace) {
  EXPECT_ERROR("[" + op("a", 1, "1", "1") + "]",
               "the top level: a JSON array: the array form of a Chrome trace; opsim replay reads "
               "the object form {\"traceEvents\": [...]} that torch.profiler writes "
               "(export_chrome_trace, tensorboard_trace_handler)");
}

TEST(KinetoTraceErrors, JsonThatIsNotAPyTorchTrace) {
  EXPECT_ERROR(R"J({"name": "w", "topology": "desktop", "ops": []})J",
               "the top level: a JSON object with keys name, topology, ops and no "
               "\"traceEvents\": not a PyTorch profiler trace");
  EXPECT_ERROR("42",
               "the top level: a JSON value that is an integer, not a PyTorch profiler trace (an "
               "object with \"traceEvents\")");
  EXPECT_ERROR(R"J({"traceEvents": {}})J",
               "the top level: \"traceEvents\" is an object, not the array of events a PyTorch "
               "profiler trace has");
  EXPECT_ERROR(R"J({"traceEvents": []})J", "traceEvents: is empty: the trace holds no events");
  // An opsim trace: a Chrome trace, but none of PyTorch's categories.
  EXPECT_ERROR(
      R"J({"otherData": {"opsim": {"format": "opsim-trace"}}, "traceEvents": [)J"
      R"J({"ph": "X", "cat": "op", "name": "mm", "pid": 0, "tid": 0, "ts": 0, "dur": 1},)J"
      R"J({"ph": "X", "cat": "op", "name": "mm", "pid": 0, "tid": 0, "ts": 1, "dur": 1},)J"
      R"J({"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "gpu0"}}]})J",
      "traceEvents: not a PyTorch profiler trace (an opsim trace: it has otherData.opsim): no "
      "cpu_op, user_annotation, cuda_runtime, kernel, gpu_memcpy or gpu_memset \"X\" events (it "
      "has op 2, M 1)");
}

TEST(KinetoTraceErrors, CompleteEventWithoutTimesOrWithNegativeDuration) {
  EXPECT_ERROR(
      trace_of(op("a", 1, "1", "1") +
               R"J(, {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "dur": 1})J"),
      "traceEvents[1]: no \"ts\" (an \"X\" event needs \"ts\" and \"dur\")");
  EXPECT_ERROR(
      trace_of(
          R"J({"ph": "X", "cat": "kernel", "name": "b", "pid": 1, "tid": 1, "ts": 5, "args": {"stream": 7}})J"),
      "traceEvents[0]: no \"dur\" (an \"X\" event needs \"ts\" and \"dur\")");
  EXPECT_ERROR(
      trace_of(op("a", 1, "1", "-0.5")),
      "traceEvents[0]: \"dur\" is negative (-500 ns): an event cannot end before it starts");
  EXPECT_ERROR(trace_of(op("a", 1, "\"1\"", "1")),
               "traceEvents[0]: \"ts\" is a string, not a number");
}

TEST(KinetoTraceErrors, TimesOutOfRange) {
  EXPECT_ERROR(trace_of(op("a", 1, "1e300", "1")),
               "traceEvents[0]: \"ts\" = 1e300 us is outside the range opsim reads (magnitude "
               "below 4.6e15 us, about 146 years)");
  EXPECT_ERROR(trace_of(op("a", 1, "-9300000000000000", "1")),
               "traceEvents[0]: \"ts\" = -9300000000000000 us is outside the range opsim reads "
               "(magnitude below 4.6e15 us, about 146 years)");
  EXPECT_ERROR(trace_of(op("a", 1, "4000000000000000", "1000000000000000")),
               "traceEvents[0]: \"ts\" + \"dur\" ends past what opsim reads (4.6e15 us, about 146 "
               "years)");
  EXPECT_ERROR_HAS(error_of(trace_of(op("a", 1, "1e400", "1"))),
                   "t.json:1:108: invalid JSON: number overflow parsing '1e400' (outside the range "
                   "of a double)");
}

TEST(KinetoTraceErrors, GpuEventsWithoutWhatReplayNeeds) {
  const std::string launch = op("a", 1, "1", "1") + ",";
  EXPECT_ERROR(trace_of(launch + event("kernel", "k", 0, 7, "2", "1",
                                       R"J({"device": 0, "correlation": 5})J")),
               "traceEvents[1]: kernel without args.stream");
  EXPECT_ERROR(trace_of(event("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, "2", "1",
                              R"J({"stream": 7})J")),
               "traceEvents[0]: gpu_memcpy without args.bytes");
  EXPECT_ERROR(
      trace_of(event("gpu_memcpy", "Memcpy", 0, 7, "2", "1", R"J({"stream": 7, "bytes": 8})J")),
      "traceEvents[0]: gpu_memcpy \"Memcpy\": no copy direction (HtoD, DtoH, DtoD, PtoP, "
      "HtoH) in its name");
  EXPECT_ERROR(
      trace_of(event("gpu_memset", "Memset", 0, 7, "2", "1", R"J({"stream": 7, "bytes": -8})J")),
      "traceEvents[0]: args.bytes = -8 is out of range [0, 4611686018427387904]");
  EXPECT_ERROR(trace_of(event("kernel", "k", 0, 7, "2", "1", R"J({"stream": "7"})J")),
               "traceEvents[0]: args.stream is a string, not an integer");
  EXPECT_ERROR(trace_of(event("kernel", "k", -1, 7, "2", "1", R"J({"stream": 7})J")),
               "traceEvents[0]: kernel without args.device, and \"pid\" = -1 is no device number");
}

TEST(KinetoTraceErrors, CorrelationNotAnInteger) {
  EXPECT_ERROR(trace_of(event("cuda_runtime", "cudaLaunchKernel", 1, 1, "1", "1",
                              R"J({"correlation": "77"})J")),
               "traceEvents[0]: args.correlation is a string, not an integer");
  EXPECT_ERROR(
      trace_of(event("kernel", "k", 0, 7, "1", "1", R"J({"stream": 7, "correlation": 7.5})J")),
      "traceEvents[0]: args.correlation is a fractional number, not an integer");
  EXPECT_ERROR(
      trace_of(event("kernel", "k", 0, 7, "1", "1", R"J({"stream": 7, "correlation": -3})J")),
      "traceEvents[0]: args.correlation = -3 is out of range [0, 9223372036854775807]");
  EXPECT_ERROR(
      trace_of(
          op("a", 1, "1", "1") +
          R"J(, {"ph": "f", "id": "0x1f", "pid": 0, "tid": 7, "ts": 1, "cat": "ac2g", "name": "ac2g"})J"),
      "traceEvents[1]: flow \"id\" is a string (an ac2g flow's id is the launch's "
      "correlation, an integer)");
}

TEST(KinetoTraceErrors, SyncEventArgsOfTheWrongType) {
  const std::string first = op("a", 1, "1", "1") + ",";
  const auto error = [&](const std::string& args) {
    return error_of(trace_of(first + event("cuda_sync", "Stream Sync", 0, 7, "2", "1", args)));
  };
  const std::string prefix = std::string(kSource) + ": traceEvents[1]: ";
  EXPECT_EQ(error(R"J({"cuda_sync_kind": "Stream Sync", "stream": "7"})J"),
            prefix + "args.stream is a string, not an integer");
  EXPECT_EQ(error(R"J({"cuda_sync_kind": 1, "stream": 7})J"),
            prefix + "args.cuda_sync_kind is an integer, not a string");
  EXPECT_EQ(error(R"J({"stream": 7, "correlation": 7.5})J"),
            prefix + "args.correlation is a fractional number, not an integer");
  EXPECT_EQ(error(R"J({"stream": 7, "device": -1})J"),
            prefix + "args.device = -1 is out of range [0, 2147483647]");
  EXPECT_EQ(error(R"J({"stream": 20, "wait_on_stream": -1})J"),
            prefix + "args.wait_on_stream = -1 is out of range [0, 4611686018427387904]");
  EXPECT_EQ(error(R"J({"stream": 20, "wait_on_cuda_event_record_corr_id": "12"})J"),
            prefix + "args.wait_on_cuda_event_record_corr_id is a string, not an integer");
  EXPECT_EQ(error(R"J({"stream": 20, "stream": 21})J"),
            prefix.substr(0, prefix.size() - 2) +
                ".args: key 'stream' appears twice (each key once per object)");
  EXPECT_EQ(error("[7]"), prefix + "\"args\" is an array, not an object");
  EXPECT_EQ(error_of(trace_of(first + event("cuda_sync", "s", -1, -1, "2", "1", "{}"))),
            prefix + "cuda_sync without args.device, and \"pid\" = -1 is no device number");
  for (const std::string& message : {error(R"J({"stream": "7"})J"), error("[7]")})
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(KinetoTraceErrors, NamesThatAreNotCleanUtf8) {
  // Ill-formed UTF-8 is refused by the JSON reader, with its line and column.
  const std::string bad = trace_of(op(std::string("aten::\xff"), 1, "1", "1"));
  EXPECT_ERROR_HAS(error_of(bad), "t.json:1:");
  EXPECT_ERROR_HAS(error_of(bad), "invalid JSON");
  EXPECT_ERROR_HAS(error_of(bad), "UTF-8");
  // Escaped control characters are well-formed JSON but not a name.
  EXPECT_ERROR(trace_of(op("aten::\\u0001mm", 1, "1", "1")),
               "traceEvents[0]: \"name\" holds a control character (a line break, ...)");
  EXPECT_ERROR(
      trace_of(op("a", 1, "1", "1") +
               R"J(, {"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 1, "dur": 1})J"),
      "traceEvents[1]: cpu_op event without \"name\"");
}

TEST(KinetoTraceErrors, EventShapeAndKeys) {
  EXPECT_ERROR(trace_of(op("a", 1, "1", "1") + ", 7"),
               "traceEvents[1]: is an integer, not an event object");
  EXPECT_ERROR(trace_of(R"J({"cat": "cpu_op", "name": "a"})J"),
               "traceEvents[0]: no \"ph\" (every trace event has a phase)");
  EXPECT_ERROR(trace_of(R"J({"ph": "X", "ts": 1, "ts": 2})J"),
               "traceEvents[0]: key 'ts' appears twice (each key once per object)");
  EXPECT_ERROR(trace_of(event("kernel", "k", 0, 7, "1", "1", R"J({"stream": 7, "stream": 8})J")),
               "traceEvents[0].args: key 'stream' appears twice (each key once per object)");
  EXPECT_ERROR(R"J({"traceEvents": [], "traceEvents": []})J",
               "the top level: key 'traceEvents' appears twice (each key once per object)");
  EXPECT_ERROR(
      trace_of(
          R"J({"ph": "X", "cat": "cpu_op", "name": "a", "pid": "Spans", "tid": 1, "ts": 1, "dur": 1})J"),
      "traceEvents[0]: \"pid\" is a string, not an integer (PyTorch writes the process "
      "and thread ids as numbers)");
  EXPECT_ERROR(trace_of(op("a", 1, "1", "1", "[1]")),
               "traceEvents[0]: \"args\" is an array, not an object");
}

TEST(KinetoTraceErrors, ArgsOutOfShape) {
  EXPECT_ERROR(trace_of(op("aten::mm", 1, "1", "1", R"J({"Input Dims": [[2, -1]]})J")),
               "traceEvents[0]: args.\"Input Dims\" is not a list of shapes (one list of "
               "dimensions >= 0 per input)");
  EXPECT_ERROR(trace_of(op("aten::mm", 1, "1", "1", R"J({"Input Dims": [3]})J")),
               "traceEvents[0]: args.\"Input Dims\" is not a list of shapes (one list of "
               "dimensions >= 0 per input)");
  EXPECT_ERROR(trace_of(op("aten::mm", 1, "1", "1", R"J({"Input type": ["float", 3]})J")),
               "traceEvents[0]: args.\"Input type\" is not a list of strings");
  // A TensorList input given as its shapes is kept as one input without a shape.
  const KinetoTrace t = parse(
      trace_of(op("aten::cat", 1, "1", "1", R"J({"Input Dims": [[[2, 3], [4, 3]], [], [5]]})J")));
  EXPECT_EQ(t.host_events[0].input_dims, (std::vector<std::vector<std::int64_t>>{{}, {}, {5}}));
  const std::string nccl = R"J({"stream": 7, "Collective name": "allreduce", "Group size": 2, )J";
  EXPECT_ERROR(trace_of(event("kernel", "k", 0, 7, "1", "1",
                              nccl + R"J("Process Group Ranks": "[0, x]"})J")),
               "traceEvents[0]: args.\"Process Group Ranks\" = \"[0, x]\" is not a list of ranks "
               "like \"[0, 1]\"");
  EXPECT_ERROR(trace_of(event("kernel", "k", 0, 7, "1", "1",
                              nccl + R"J("Process Group Ranks": "[0, 1, 2]"})J")),
               "traceEvents[0]: args.\"Process Group Ranks\" lists 3 ranks but args.\"Group "
               "size\" is 2");
  EXPECT_ERROR(
      trace_of(event("kernel", "k", 0, 7, "1", "1",
                     R"J({"stream": 7, "Collective name": "allreduce", "Group size": 0})J")),
      "traceEvents[0]: args.\"Group size\" = 0 is out of range [1, 4611686018427387904]");
  EXPECT_ERROR(
      trace_of(event("kernel", "k", 0, 7, "1", "1",
                     R"J({"stream": 7, "Collective name": "allreduce", "In msg nelems": 1.5})J")),
      "traceEvents[0]: args.\"In msg nelems\" is a fractional number, not an integer");
}

TEST(KinetoTraceErrors, StepNumbersAndTopLevelInfo) {
  EXPECT_ERROR(trace_of(event("user_annotation", "ProfilerStep#x", 1, 1, "1", "1", "{}")),
               "traceEvents[0]: user_annotation \"ProfilerStep#x\": the step number after '#' is "
               "not an integer >= 0");
  EXPECT_ERROR(
      trace_of(op("a", 1, "1", "1"), R"J("distributedInfo": {"rank": 2, "world_size": 2},)J"),
      "distributedInfo: rank 2 is not below world_size 2");
  EXPECT_ERROR(trace_of(op("a", 1, "1", "1"), R"J("distributedInfo": {"rank": "0"},)J"),
               "distributedInfo.rank: is not an integer >= 0");
  EXPECT_ERROR(trace_of(op("a", 1, "1", "1"), R"J("deviceProperties": {"id": 0},)J"),
               "deviceProperties: is not an array");
  EXPECT_ERROR(trace_of(op("a", 1, "1", "1"), R"J("deviceProperties": [{"id": 0, "id": 1}],)J"),
               "deviceProperties[0]: key 'id' appears twice (each key once per object)");
}

// --- the real traces in ../shared/traces (only when OPSIM_SHARED_TRACES names them) ----------

TEST(KinetoSharedTraces, ReadAll) {
  const char* dir = std::getenv("OPSIM_SHARED_TRACES");
  if (dir == nullptr || *dir == '\0')
    GTEST_SKIP() << "set OPSIM_SHARED_TRACES to a folder of PyTorch traces (../shared/traces)";
  std::set<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".gz" || entry.path().extension() == ".json")
      files.insert(entry.path());
  ASSERT_FALSE(files.empty()) << dir;
  for (const fs::path& path : files) {
    const auto began = std::chrono::steady_clock::now();
    const KinetoTrace t = read_kineto_trace(path.string());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::int64_t ignored = 0;
    for (const auto& [cat, count] : t.ignored_events) ignored += count;
    std::printf("%s: %.3f s; GPU %s, rank %lld of %lld; %zu host + %zu GPU events, %lld ignored\n",
                path.filename().c_str(), seconds, t.gpu_name.c_str(),
                static_cast<long long>(t.rank), static_cast<long long>(t.world_size),
                t.host_events.size(), t.gpu_events.size(), static_cast<long long>(ignored));
    std::vector<std::int64_t> per_thread(t.threads.size());
    for (const HostEvent& e : t.host_events) ++per_thread[e.thread];
    for (std::size_t i = 0; i < t.threads.size(); ++i)
      std::printf("  host thread %lld/%lld \"%s\": %lld events\n",
                  static_cast<long long>(t.threads[i].pid),
                  static_cast<long long>(t.threads[i].tid), t.threads[i].name.c_str(),
                  static_cast<long long>(per_thread[i]));
    std::map<std::pair<std::int64_t, std::int64_t>, std::array<std::int64_t, 3>> per_stream;
    std::map<std::string, std::int64_t> collectives;
    std::int64_t uncorrelated = 0;
    for (const GpuEvent& e : t.gpu_events) {
      ++per_stream[{e.device, e.stream}][static_cast<std::size_t>(e.kind)];
      if (e.collective) ++collectives[e.collective->name + " " + e.collective->dtype];
      if (e.correlation < 0) ++uncorrelated;
    }
    for (const auto& [lane, counts] : per_stream)
      std::printf("  GPU %lld stream %lld: %lld kernels, %lld memcpy, %lld memset\n",
                  static_cast<long long>(lane.first), static_cast<long long>(lane.second),
                  static_cast<long long>(counts[0]), static_cast<long long>(counts[1]),
                  static_cast<long long>(counts[2]));
    std::printf("  GPU ops without a correlation: %lld\n", static_cast<long long>(uncorrelated));
    for (const StepSpan& s : t.steps)
      std::printf("  ProfilerStep#%lld: %.3f ms\n", static_cast<long long>(s.number),
                  static_cast<double>(s.duration_ns) / 1e6);
    for (const auto& [name, count] : collectives)
      std::printf("  collective %s: %lld\n", name.c_str(), static_cast<long long>(count));
    // cuda_sync events by kind, and how many name a runtime call of the trace.
    std::set<std::int64_t> runtime_calls;
    for (const HostEvent& e : t.host_events)
      if (e.kind == HostEventKind::kRuntime && e.correlation >= 0)
        runtime_calls.insert(e.correlation);
    std::array<std::int64_t, 5> per_kind{};
    std::int64_t sync_matched = 0;
    for (const SyncEvent& s : t.syncs) {
      ++per_kind[static_cast<std::size_t>(s.kind)];
      sync_matched += runtime_calls.count(s.correlation) != 0 ? 1 : 0;
    }
    std::printf(
        "  cuda_sync: %zu (Stream Sync %lld, Context Sync %lld, Event Sync %lld, Stream Wait "
        "Event %lld, other %lld); %lld with their runtime call\n",
        t.syncs.size(), static_cast<long long>(per_kind[0]), static_cast<long long>(per_kind[1]),
        static_cast<long long>(per_kind[2]), static_cast<long long>(per_kind[3]),
        static_cast<long long>(per_kind[4]), static_cast<long long>(sync_matched));
    EXPECT_EQ(t.ignored_events.count("cuda_sync"), 0u);
    std::string ignored_line;
    for (const auto& [cat, count] : t.ignored_events)
      ignored_line += " " + cat + " " + std::to_string(count);
    std::printf("  ignored:%s\n", ignored_line.c_str());
    EXPECT_FALSE(t.host_events.empty());
    EXPECT_FALSE(t.gpu_events.empty());
  }
}

}  // namespace
}  // namespace opsim::replay
