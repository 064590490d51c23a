#include "experiments/calibration/gpu_calibration.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include "engine/exec/gpu_runtime.hpp"
#include "engine/frontend/context.hpp"
#include "engine/frontend/host_machine.hpp"
#include "engine/workload_file.hpp"
#include "experiments/calibration/measurement_kernels.hpp"
#include "experiments/calibration/validation.hpp"

namespace opsim::calibration {
namespace {

using frontend::Array;
using frontend::Context;

constexpr std::size_t kCopyFloats = 16u << 20;  // 64 MiB
constexpr std::size_t kPassFloats = 64u << 20;  // 256 MiB per array

// One Context on this host (its GPUs included) for every GPU item, made on first use.
class GpuProbe {
 public:
  Context& ctx() {
    if (!ctx_) ctx_ = std::make_unique<Context>(frontend::host_machine());
    return *ctx_;
  }

  // Seconds the ops writing `results` ran on their device in total, by the CUDA events
  // the executor recorded for them.
  double device_seconds(const std::vector<Array>& results) {
    ctx().waitall();
    const Scheduler& s = *ctx().scheduler();
    const auto guard = s.lock();
    TimeNs total = 0;
    for (const Array& a : results) total += s.end_ns(a.producer()) - s.start_ns(a.producer());
    return ns_to_seconds(total);
  }

  // Runs `issue` (which returns the arrays it wrote) until `min_s` of device time; returns
  // the median over the rounds of `work_per_op` x ops / device seconds, so that rounds the
  // host slowed do not pull it down (an H100 host's copies both ways: samples of 33 and 47
  // GB/s where the workload's copies got 50). The first round warms up and is not counted.
  template <typename Issue>
  double device_rate(double work_per_op, double min_s, Issue issue) {
    device_seconds(issue());
    double seconds = 0;
    std::vector<double> rates;
    do {
      const std::vector<Array> results = issue();
      const double round_s = device_seconds(results);
      seconds += round_s;
      rates.push_back(work_per_op * static_cast<double>(results.size()) / round_s);
    } while (seconds < min_s);
    std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
    return rates[rates.size() / 2];
  }

 private:
  std::unique_ptr<Context> ctx_;
};

// Seconds per op, from the first op's end to the last one's over the ops after it, of `ops`
// copies of `op` (a workload file's op on GPU 0's first stream) run for real as a workload's
// ops run (the scheduler and the executor's scratch memory: no frontend arrays, whose outputs
// are allocated per op). `chained`: each op after the one before, so each waits for the
// previous one's completion to reach the host; otherwise all are ready at once and the host
// enqueues them while the stream works. The median over runs until `min_s`.
double stream_period_s(const nlohmann::json& op, int ops, bool chained, double min_s) {
  nlohmann::json doc = {{"name", "gpu-stream-period"}, {"ops", nlohmann::json::array()}};
  for (int i = 0; i < ops; ++i) {
    nlohmann::json o = op;
    o["name"] = "k" + std::to_string(i);
    o["device"] = "gpu0";
    o["stream"] = 0;
    if (chained && i > 0) o["after"] = {"k" + std::to_string(i - 1)};
    doc["ops"].push_back(std::move(o));
  }
  const WorkloadFile workload = parse_workload_json(doc.dump(), "gpu-stream-period");
  RealWorkloadRunner runner(workload, frontend::host_machine(), ValidationOptions{});
  (void)runner.run();  // scratch memory, streams, events
  std::vector<double> periods;
  const auto t0 = Clock::now();
  do {
    const Trace trace = runner.run();
    TimeNs first_end = trace.ops.front().end_ns, last_end = first_end;
    for (const TraceOp& op : trace.ops) {
      first_end = std::min(first_end, op.end_ns);
      last_end = std::max(last_end, op.end_ns);
    }
    periods.push_back(ns_to_seconds(last_end - first_end) / (ops - 1));
  } while (seconds_since(t0) < min_s || periods.size() < 3);
  std::nth_element(periods.begin(), periods.begin() + periods.size() / 2, periods.end());
  return periods[periods.size() / 2];
}

nlohmann::json elementwise_op(double bytes) {
  return {{"kind", "compute"}, {"kernel", "elementwise"}, {"bytes", bytes}};
}

nlohmann::json gemm_op(std::size_t n) {
  return {{"kind", "compute"}, {"gemm", {{"m", n}, {"n", n}, {"k", n}}}};
}

}  // namespace

GemmRate sgemm_rate_from_chain(std::size_t n, double period_s, double launch_s) {
  const double side = static_cast<double>(n);
  const double work_s = std::max(period_s - launch_s, period_s / 2);
  return {side, 2.0 * side * side * side / work_s};
}

namespace {

// The steps of gpu_calibration_items(), each appending its group's items in sampling order.
using Items = std::vector<CalibrationItem>;
using ProbePtr = std::shared_ptr<GpuProbe>;

// SGEMM by size, an elementwise pass, and the gap between dependent GEMMs.
void add_gpu_compute_items(Items& items, const ProbePtr& probe, bool quick, double min_s) {
  const auto g0 = frontend::gpu(0);
  // SGEMMs chained on one stream, as a workload's dependent GEMMs run: each one's launch path,
  // cuBLAS's host work (~7 us more than a plain kernel's on an H100 host) and its kernel.
  // The profile's rate by size is the flops over this less the launch latency.
  const std::vector<std::size_t> sizes =
      quick ? std::vector<std::size_t>{256, 512, 1024, 2048, 4096}
            : std::vector<std::size_t>{256, 512, 1024, 2048, 4096, 8192};
  for (std::size_t n : sizes)
    items.push_back(
        {{MeasurementId::kGpuDependentGemm, n}, [=] {
           // ~50 ms a run at the largest sizes on an H100.
           return stream_period_s(gemm_op(n), n <= 1024 ? 50 : n <= 4096 ? 20 : 4, true, min_s);
         }});
  items.push_back({{MeasurementId::kGpuElementwise}, [=] {
                     Context& c = probe->ctx();
                     const Array x = c.random(g0, kPassFloats, 1, 1);
                     const Array y = c.random(g0, kPassFloats, 1, 2);
                     // Bytes an op declares: two arrays read, one written.
                     return probe->device_rate(3.0 * kPassFloats * sizeof(float), min_s, [&] {
                       return std::vector<Array>{c.add(x, y), c.add(x, y)};
                     });
                   }});
  items.push_back({{MeasurementId::kGpuLaunchGap}, [=] {
                     // A chain of dependent GEMMs (2.7 ms each on an H100): from one's end to
                     // the next one's start on the GPU (the completion reaching the scheduler,
                     // the launch, the enqueue). Ops of ms length, as workloads have: while
                     // completions woke sleeping threads the gap grew with the op's length
                     // (H100 host: 60 us after 3-us kernels, 180-230 after 2-3 ms ones); with
                     // the polling completion thread it is 13 us there.
                     Context& c = probe->ctx();
                     const std::size_t n = quick ? 2048 : 4096;
                     // y x with x = 1/n everywhere keeps every value the mean of a row of y.
                     const Array x = c.full(g0, n, n, 1.0f / static_cast<float>(n));
                     Array y = c.random(g0, n, n, 6);
                     c.waitall();
                     constexpr int kOps = 12;
                     std::vector<Array> chain;
                     for (int i = 0; i < kOps; ++i) chain.push_back(y = c.dot(y, x));
                     c.waitall();
                     const Scheduler& s = *c.scheduler();
                     const auto guard = s.lock();
                     TimeNs gaps = 0;
                     for (int i = 1; i < kOps; ++i)
                       gaps += s.start_ns(chain[i].producer()) - s.end_ns(chain[i - 1].producer());
                     return ns_to_seconds(gaps) / (kOps - 1);
                   }});
}

void add_gpu_short_op_items(Items& items, double min_s) {
  // Per-op costs of short ops, on the path a workload's ops take: the floor of a dependent
  // op (64 KB passes, whose work is nothing: 15-17 us each on an H100 host), the pace of ops
  // the host enqueued while the stream worked (9.7 us), and a dependent 32 MB pass's period,
  // from which the profile takes the launch latency (that less the pass's work: ~11 us).
  items.push_back({{MeasurementId::kGpuDependentSmallKernels},
                   [=] { return stream_period_s(elementwise_op(64e3), 100, true, min_s); }});
  items.push_back({{MeasurementId::kGpuQueuedSmallKernels},
                   [=] { return stream_period_s(elementwise_op(64e3), 100, false, min_s); }});
  items.push_back({{MeasurementId::kGpuDependentPasses}, [=] {
                     return stream_period_s(elementwise_op(kGpuLaunchPassBytes), 50, true, min_s);
                   }});
}

// Pinned copies each way, alone and both at once; pageable ones; a one-float copy's latency.
void add_gpu_copy_items(Items& items, const ProbePtr& probe,
                        const std::shared_ptr<GpuRuntime>& runtime, double min_s) {
  const auto g0 = frontend::gpu(0);
  const auto host = frontend::cpu(0);
  auto copy_rate = [=](bool to_device) {
    return [=] {
      Context& c = probe->ctx();
      const Array src = c.random(to_device ? host : g0, kCopyFloats, 1, 3);
      return probe->device_rate(kCopyFloats * sizeof(float), min_s, [&] {
        return std::vector<Array>{c.copy_to(src, to_device ? g0 : host)};
      });
    };
  };
  items.push_back({{MeasurementId::kGpuHostToDevice}, copy_rate(true)});
  items.push_back({{MeasurementId::kGpuDeviceToHost}, copy_rate(false)});
  items.push_back({{MeasurementId::kGpuCopiesBothDirections}, [=] {
                     // One copy each way at once, on the two copy engines: the rate of each.
                     // An H100 host's copies ran ~7-13 % slower so than alone.
                     Context& c = probe->ctx();
                     const Array up = c.random(host, kCopyFloats, 1, 7);
                     const Array down = c.random(g0, kCopyFloats, 1, 8);
                     return probe->device_rate(kCopyFloats * sizeof(float), min_s, [&] {
                       return std::vector<Array>{c.copy_to(up, g0), c.copy_to(down, host)};
                     });
                   }});
  // Ordinary (pageable) host memory: the driver stages it through a pinned buffer, and the
  // copy blocks the host; timed on the host clock. `floats` per copy; returns s per copy.
  auto pageable_copy_s = [=](bool to_device, std::size_t floats) {
    std::vector<float> pageable(floats, 1.0f);
    const std::shared_ptr<float> device = runtime->allocate_device(0, floats);
    float* dst = to_device ? device.get() : pageable.data();
    const float* src = to_device ? pageable.data() : device.get();
    runtime->copy_now(dst, src, floats);  // warm-up
    const auto t0 = Clock::now();
    int copies = 0;
    do {
      runtime->copy_now(dst, src, floats);
      ++copies;
    } while (seconds_since(t0) < min_s);
    return seconds_since(t0) / copies;
  };
  const double copy_bytes = kCopyFloats * sizeof(float);
  items.push_back({{MeasurementId::kGpuHostToDevicePageable},
                   [=] { return copy_bytes / pageable_copy_s(true, kCopyFloats); }});
  items.push_back({{MeasurementId::kGpuDeviceToHostPageable},
                   [=] { return copy_bytes / pageable_copy_s(false, kCopyFloats); }});
  items.push_back(
      {{MeasurementId::kGpuCopyLatencyPageable}, [=] { return pageable_copy_s(true, 1); }});
  items.push_back({{MeasurementId::kGpuCopyLatency}, [=] {
                     Context& c = probe->ctx();
                     const Array src = c.full(host, 1, 1, 1.0f);
                     return 1.0 / probe->device_rate(1.0, min_s / 4, [&] {
                       std::vector<Array> out;
                       for (int i = 0; i < 16; ++i) out.push_back(c.copy_to(src, g0));
                       return out;
                     });
                   }});
}

// Copies from GPU 0 to GPU 1 (hosts with two GPUs or more).
void add_gpu_peer_items(Items& items, const ProbePtr& probe, double min_s) {
  const auto g0 = frontend::gpu(0);
  items.push_back({{MeasurementId::kGpuPeerCopyLatency}, [=] {
                     Context& c = probe->ctx();
                     const Array src = c.full(g0, 1, 1, 1.0f);
                     return 1.0 / probe->device_rate(1.0, min_s / 4, [&] {
                       std::vector<Array> out;
                       for (int i = 0; i < 16; ++i) out.push_back(c.copy_to(src, frontend::gpu(1)));
                       return out;
                     });
                   }});
  items.push_back({{MeasurementId::kGpuPeerCopy}, [=] {
                     Context& c = probe->ctx();
                     const Array src = c.random(g0, kCopyFloats, 1, 4);
                     return probe->device_rate(kCopyFloats * sizeof(float), min_s, [&] {
                       return std::vector<Array>{c.copy_to(src, frontend::gpu(1))};
                     });
                   }});
}

}  // namespace

std::vector<CalibrationItem> gpu_calibration_items(bool quick, double min_s, std::string* why) {
  std::shared_ptr<GpuRuntime> runtime = gpu_runtime(why);
  if (!runtime) return {};
  auto probe = std::make_shared<GpuProbe>();
  Items items;
  add_gpu_compute_items(items, probe, quick, min_s);
  add_gpu_short_op_items(items, min_s);
  add_gpu_copy_items(items, probe, runtime, min_s);
  if (runtime->device_count() >= 2) add_gpu_peer_items(items, probe, min_s);
  return items;
}

void add_calibrated_gpus(Machine& machine, const GpuInputs& in) {
  if (in.count <= 0) return;
  const auto cpu = machine.find_device("cpu0");
  if (!cpu) throw std::invalid_argument("add_calibrated_gpus: the profile has no cpu0");
  GpuModel gpu;
  // Measured rates are what kernels reach: efficiency 1, the rates as peaks.
  gpu.efficiency = 1.0;
  gpu.fp32_flops_per_s = in.gemm_flops_per_s;
  gpu.fp16_flops_per_s = in.gemm_flops_per_s;  // not measured; fp32 is what SGEMM gives
  gpu.memory_bytes_per_s = in.memory_bytes_per_s;
  gpu.memory_bytes = in.memory_bytes;
  gpu.launch_s = in.launch_s;
  gpu.copy_launch_s = in.launch_s;  // copies go through the same completion-to-launch path
  gpu.dependent_op_min_s = in.dependent_op_min_s;
  gpu.queued_op_min_s = in.queued_op_min_s;
  gpu.sgemm_rates = in.sgemm_rates;
  gpu.copy_engines = 2;
  // One link rate for both directions (the model's links are symmetric): their mean.
  LinkModel pcie;
  pcie.kind = LinkKind::kPcie;
  pcie.bytes_per_s = (in.host_to_device_bytes_per_s + in.device_to_host_bytes_per_s) / 2;
  pcie.latency_s = in.copy_latency_s;
  // Copies both ways at once move at most this each way.
  if (in.both_directions_bytes_per_s > 0)
    pcie.duplex_bytes_per_s = 2 * std::min(in.both_directions_bytes_per_s, pcie.bytes_per_s);
  LinkModel uplink = pcie;
  uplink.duplex_bytes_per_s = 0;
  uplink.bytes_per_s = pcie.bytes_per_s * in.count;  // the switch's uplink is not the limit
  uplink.latency_s = 0;
  const DeviceId sw = machine.add_switch("pcie_sw0");
  machine.add_link("pcie_cpu0", *cpu, sw, uplink);
  std::vector<DeviceId> gpus;
  for (int i = 0; i < in.count; ++i) {
    gpus.push_back(machine.add_gpu("gpu" + std::to_string(i), gpu));
    machine.add_link("pcie_gpu" + std::to_string(i), gpus.back(), sw, pcie);
  }
  if (in.peer_bytes_per_s > 1.5 * pcie.bytes_per_s) {
    LinkModel nvlink;
    nvlink.kind = LinkKind::kNvlink;
    nvlink.bytes_per_s = in.peer_bytes_per_s;
    nvlink.latency_s = in.copy_latency_s;
    for (int a = 0; a < in.count; ++a)
      for (int b = a + 1; b < in.count; ++b)
        machine.add_link("nvlink_gpu" + std::to_string(a) + "_gpu" + std::to_string(b), gpus[a],
                         gpus[b], nvlink);
  }
}

GpuInputs calibrated_gpu_inputs(const Machine& profile) {
  GpuInputs in;
  const auto gpus = profile.gpus();
  in.count = static_cast<int>(gpus.size());
  if (gpus.empty()) return in;
  const GpuModel& g = profile.device(gpus.front()).gpu;
  in.gemm_flops_per_s = g.fp32_flops_per_s * g.efficiency;
  in.sgemm_rates = g.sgemm_rates;
  in.memory_bytes_per_s = g.memory_bytes_per_s * g.efficiency;
  in.memory_bytes = g.memory_bytes;
  in.launch_s = g.launch_s;
  in.dependent_op_min_s = g.dependent_op_min_s;
  in.queued_op_min_s = g.queued_op_min_s;
  for (const Link& link : profile.links()) {
    if (link.name == "pcie_gpu0") {
      in.host_to_device_bytes_per_s = in.device_to_host_bytes_per_s = link.model.bytes_per_s;
      in.copy_latency_s = link.model.latency_s;
      in.both_directions_bytes_per_s = link.model.duplex_bytes_per_s / 2;
    }
    if (link.name == "nvlink_gpu0_gpu1") in.peer_bytes_per_s = link.model.bytes_per_s;
  }
  return in;
}

}  // namespace opsim::calibration
