#include "replay/kernel_model.hpp"

#include <algorithm>
#include <unordered_map>

#include "hw_models/roofline.hpp"

namespace opsim::replay {
namespace {

bool is_half(std::string_view type) {
  return type.find("Half") != std::string_view::npos || type.find("BFloat16") != std::string_view::npos;
}

double element_bytes(std::string_view type) { return is_half(type) ? 2 : 4; }

double product(const std::vector<std::int64_t>& dims) {
  double p = 1;
  for (std::int64_t d : dims) p *= static_cast<double>(d);
  return p;
}

struct Work {
  double flops = 0;
  double bytes = 0;
};

// (M x K) x (K x N), batched over B.
Work matmul(double b, double m, double k, double n, double element) {
  return {2 * b * m * k * n, element * b * (m * k + k * n + m * n)};
}

// The flops and bytes of the PyTorch ops whose kernels are GEMMs or convolutions; nothing
// for any other op. Convolutions are read as stride 1 with the output as large as the input
// (the trace has shapes only): an estimate.
Work op_work(std::string_view name, const HostEvent& op) {
  const auto& d = op.input_dims;
  const double e = op.input_types.empty() ? 4 : element_bytes(op.input_types.front());
  auto rank_is = [&](std::size_t i, std::size_t r) { return i < d.size() && d[i].size() == r; };
  if (name == "aten::mm" && rank_is(0, 2) && rank_is(1, 2))
    return matmul(1, d[0][0], d[0][1], d[1][1], e);
  if (name == "aten::addmm" && rank_is(1, 2) && rank_is(2, 2))
    return matmul(1, d[1][0], d[1][1], d[2][1], e);
  if (name == "aten::bmm" && rank_is(0, 3) && rank_is(1, 3))
    return matmul(d[0][0], d[0][1], d[0][2], d[1][2], e);
  if (name == "aten::baddbmm" && rank_is(1, 3) && rank_is(2, 3))
    return matmul(d[1][0], d[1][1], d[1][2], d[2][2], e);
  const bool forward = name == "aten::cudnn_convolution" || name == "aten::_convolution" ||
                       name == "aten::convolution";
  const bool backward = name == "aten::convolution_backward";
  const std::size_t input = backward ? 1 : 0, weight = backward ? 2 : 1;
  if ((forward || backward) && rank_is(input, 4) && rank_is(weight, 4)) {
    const auto& x = d[input];
    const auto& w = d[weight];
    const double flops = 2 * product(w) * static_cast<double>(x[0] * x[2] * x[3]);
    const double bytes = e * (2 * product(x) + product(w));
    return {backward ? 2 * flops : flops, backward ? 2 * bytes : bytes};
  }
  return {};
}

// Per runtime call of each thread: the innermost cpu_op around it, or -1.
std::unordered_map<std::int64_t, std::int64_t> launching_ops(const KinetoTrace& trace) {
  std::unordered_map<std::int64_t, std::int64_t> op_of_correlation;
  std::vector<std::size_t> open;  // cpu_ops containing the current event, outermost first
  std::uint32_t thread = UINT32_MAX;
  for (std::size_t i = 0; i < trace.host_events.size(); ++i) {
    const HostEvent& e = trace.host_events[i];
    if (e.thread != thread) open.clear(), thread = e.thread;
    while (!open.empty()) {
      const HostEvent& top = trace.host_events[open.back()];
      if (top.start_ns + top.duration_ns >= e.start_ns + e.duration_ns) break;
      open.pop_back();
    }
    if (e.kind == HostEventKind::kCpuOp) open.push_back(i);
    if (e.kind == HostEventKind::kRuntime && e.correlation >= 0 && !open.empty())
      op_of_correlation[e.correlation] = static_cast<std::int64_t>(open.back());
  }
  return op_of_correlation;
}

}  // namespace

std::string_view to_string(KernelMethod method) {
  switch (method) {
    case KernelMethod::kShapes:
      return "shapes";
    case KernelMethod::kScaled:
      return "scaled";
    case KernelMethod::kRecorded:
      return "recorded";
  }
  return "recorded";
}

RecordedGpuPeaks recorded_gpu_peaks(std::string_view name) {
  // Dense peaks from NVIDIA's data sheets (SXM parts): V100 15.7 / 125 TFLOP/s, 900 GB/s;
  // A100 19.5 / 312 TFLOP/s, 1.555 TB/s (40 GB) or 2.039 TB/s (80 GB); H100 SXM 67 / 989
  // TFLOP/s, 3.35 TB/s.
  auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (has("V100")) return {"V100", 15.7e12, 125e12, 900e9};
  if (has("A100")) return {"A100", 19.5e12, 312e12, has("80GB") ? 2.039e12 : 1.555e12};
  if (has("H100")) return {"H100", 67e12, 989e12, 3.35e12};
  return {};
}

KernelModel::KernelModel(const KinetoTrace& trace, const GpuModel& target)
    : trace_(trace), target_(target), peaks_(recorded_gpu_peaks(trace.gpu_name)) {
  const auto op_of_correlation = launching_ops(trace);
  shape_of_event_.resize(trace.gpu_events.size());
  // Of the kernels one op launched, the longest is its GEMM: it gets the op's work.
  std::unordered_map<std::int64_t, std::uint32_t> longest_of_op;
  for (std::uint32_t i = 0; i < trace.gpu_events.size(); ++i) {
    const GpuEvent& g = trace.gpu_events[i];
    auto it = op_of_correlation.find(g.correlation);
    if (g.kind != GpuEventKind::kKernel || g.correlation < 0 || it == op_of_correlation.end())
      continue;
    const HostEvent& op = trace.host_events[static_cast<std::size_t>(it->second)];
    shape_of_event_[i].half = !op.input_types.empty() && is_half(op.input_types.front());
    auto [longest, added] = longest_of_op.try_emplace(it->second, i);
    if (!added && trace.gpu_events[longest->second].duration_ns < g.duration_ns) longest->second = i;
  }
  for (const auto& [op_index, event] : longest_of_op) {
    const HostEvent& op = trace.host_events[static_cast<std::size_t>(op_index)];
    const Work work = op_work(trace.name(op.name), op);
    shape_of_event_[event].flops = work.flops;
    shape_of_event_[event].bytes = work.bytes;
  }
}

KernelEstimate KernelModel::estimate(std::uint32_t gpu_event) const {
  const GpuEvent& g = trace_.gpu_events[gpu_event];
  const double recorded_s = static_cast<double>(g.duration_ns) * 1e-9;
  if (g.collective) return {recorded_s, KernelMethod::kRecorded};
  const Shape& shape = shape_of_event_[gpu_event];
  if (shape.flops > 0) {
    const double peak = shape.half ? target_.fp16_flops_per_s
                                   : target_.sgemm_peak_flops_per_s(shape.flops);
    return {roofline_time_s(shape.flops, shape.bytes, peak, target_.memory_bytes_per_s, 0,
                            target_.efficiency),
            KernelMethod::kShapes};
  }
  const bool host_copy = g.kind == GpuEventKind::kMemcpy && g.direction != CopyDirection::kDeviceToDevice;
  if (peaks_.family.empty() || host_copy) return {recorded_s, KernelMethod::kRecorded};
  const bool compute = g.kind == GpuEventKind::kKernel &&
                       (trace_.name(g.name).find("gemm") != std::string_view::npos ||
                        trace_.name(g.name).find("conv") != std::string_view::npos);
  const double ratio =
      compute ? (shape.half ? peaks_.fp16_flops_per_s / target_.fp16_flops_per_s
                            : peaks_.fp32_flops_per_s / target_.fp32_flops_per_s)
              : peaks_.memory_bytes_per_s / target_.memory_bytes_per_s;
  return {recorded_s * ratio, KernelMethod::kScaled};
}

}  // namespace opsim::replay
