#include "replay/kernel_model.hpp"

#include <algorithm>
#include <unordered_map>

#include "hw_models/roofline.hpp"

namespace opsim::replay {
namespace {

bool is_half(std::string_view type) {
  return type.find("Half") != std::string_view::npos ||
         type.find("BFloat16") != std::string_view::npos;
}

double element_bytes(std::string_view type) {
  return is_half(type) ? 2 : 4;
}

double product(const std::vector<std::int64_t>& dims) {
  double p = 1;
  for (std::int64_t d : dims) p *= static_cast<double>(d);
  return p;
}

// (M x K) x (K x N), batched over B.
OpWork matmul(double b, double m, double k, double n, double element) {
  return {2 * b * m * k * n, element * b * (m * k + k * n + m * n)};
}

}  // namespace

// Convolutions are read as stride 1 with the output as large as the input (the trace has
// shapes only): an estimate.
OpWork op_work(std::string_view name, const HostEvent& op) {
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

namespace {

bool uses_tf32(std::string_view kernel_name) {
  return kernel_name.find("tf32") != std::string_view::npos;
}

// A memory-bound op's bytes: its tensor inputs read and an output as large as its largest.
double memory_op_bytes(const HostEvent& op) {
  double total = 0, largest = 0;
  for (std::size_t i = 0; i < op.input_dims.size(); ++i) {
    if (op.input_dims[i].empty()) continue;
    const double e = i < op.input_types.size() ? element_bytes(op.input_types[i]) : 4;
    const double bytes = e * product(op.input_dims[i]);
    total += bytes;
    largest = std::max(largest, bytes);
  }
  return total + largest;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
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
    shape_of_event_[i].tf32 = uses_tf32(trace.name(g.name));
    auto [longest, added] = longest_of_op.try_emplace(it->second, i);
    if (!added && trace.gpu_events[longest->second].duration_ns < g.duration_ns)
      longest->second = i;
  }
  bytes_of_event_.assign(trace.gpu_events.size(), 0);
  for (const auto& [op_index, event] : longest_of_op) {
    const HostEvent& op = trace.host_events[static_cast<std::size_t>(op_index)];
    const OpWork work = op_work(trace.name(op.name), op);
    shape_of_event_[event].flops = work.flops;
    shape_of_event_[event].bytes = work.bytes;
    if (work.flops == 0) bytes_of_event_[event] = memory_op_bytes(op);
  }
  factors_ = measured_factors();
}

double KernelModel::shape_seconds(const Shape& shape) const {
  // Tensor cores: fp16/bf16 at the fp16 peak, TF32 (float GEMMs and convolutions that cuDNN
  // or cuBLAS ran as TF32, as their kernel names say) at half of it.
  double peak = target_.sgemm_peak_flops_per_s(shape.flops);
  if (shape.half) peak = target_.fp16_flops_per_s;
  if (shape.tf32) peak = std::max(peak, target_.fp16_flops_per_s / 2);
  return roofline_time_s(shape.flops, shape.bytes, peak, target_.memory_bytes_per_s, 0,
                         target_.efficiency);
}

KernelModel::Factors KernelModel::measured_factors() const {
  constexpr double kMeasurableBytes = 1 << 20;
  std::vector<double> compute, memory;
  for (std::uint32_t i = 0; i < trace_.gpu_events.size(); ++i) {
    const double recorded_s = static_cast<double>(trace_.gpu_events[i].duration_ns) * 1e-9;
    if (recorded_s <= 0) continue;
    if (shape_of_event_[i].flops > 0)
      compute.push_back(shape_seconds(shape_of_event_[i]) / recorded_s);
    else if (bytes_of_event_[i] > kMeasurableBytes)
      memory.push_back(bytes_of_event_[i] / (target_.memory_bytes_per_s * target_.efficiency) /
                       recorded_s);
  }
  return {median(std::move(compute)), median(std::move(memory))};
}

double KernelModel::scale_factor(bool compute, bool half) const {
  const double measured = compute ? factors_.compute : factors_.memory;
  if (measured > 0) return measured;
  if (peaks_.family.empty()) return 0;
  if (!compute) return peaks_.memory_bytes_per_s / target_.memory_bytes_per_s;
  return half ? peaks_.fp16_flops_per_s / target_.fp16_flops_per_s
              : peaks_.fp32_flops_per_s / target_.fp32_flops_per_s;
}

KernelEstimate KernelModel::estimate(std::uint32_t gpu_event) const {
  const GpuEvent& g = trace_.gpu_events[gpu_event];
  const double recorded_s = static_cast<double>(g.duration_ns) * 1e-9;
  if (g.collective) return {recorded_s, KernelMethod::kRecorded};
  const Shape& shape = shape_of_event_[gpu_event];
  if (shape.flops > 0) return {shape_seconds(shape), KernelMethod::kShapes};
  const bool host_copy =
      g.kind == GpuEventKind::kMemcpy && g.direction != CopyDirection::kDeviceToDevice;
  const std::string_view name = trace_.name(g.name);
  const bool compute =
      g.kind == GpuEventKind::kKernel &&
      (name.find("gemm") != std::string_view::npos || name.find("conv") != std::string_view::npos);
  const double factor = host_copy ? 0 : scale_factor(compute, shape.half);
  if (factor <= 0) return {recorded_s, KernelMethod::kRecorded};
  return {recorded_s * factor, KernelMethod::kScaled};
}

}  // namespace opsim::replay
