// GPU op times on another GPU, for `opsim replay --kernels modelled`: a GEMM or convolution
// from the shapes its PyTorch op recorded (the roofline of the target GPU's model), any
// other kernel, copy or memset from its recorded time scaled by how much faster the target's
// peak compute or memory bandwidth is than the recording GPU's.
//
//   KernelModel model(trace, target_gpu);
//   KernelEstimate e = model.estimate(event_index);   // e.seconds, e.method
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw_models/gpu_model.hpp"
#include "replay/kineto_trace.hpp"

namespace opsim::replay {

enum class KernelMethod : std::uint8_t {
  kShapes,    ///< flops and bytes from the launching op's Input Dims, timed by the model
  kScaled,    ///< recorded time x (recording GPU's peak / target's peak) for its class
  kRecorded,  ///< the recorded time: collectives, copies to or from the host, and every op
              ///< of a recording GPU whose peaks are not known
};

std::string_view to_string(KernelMethod method);

struct KernelEstimate {
  double seconds = 0;
  KernelMethod method = KernelMethod::kRecorded;
};

/// Nominal peaks of a recording GPU, from deviceProperties' name ("Tesla V100-SXM2-16GB",
/// "NVIDIA A100-PG509-200", "NVIDIA H100 80GB HBM3"); zero rates when the name is unknown.
struct RecordedGpuPeaks {
  std::string family;  ///< "V100", "A100", "H100", or "" when unknown
  double fp32_flops_per_s = 0;
  double fp16_flops_per_s = 0;  ///< dense tensor-core fp16/bf16
  double memory_bytes_per_s = 0;
};
RecordedGpuPeaks recorded_gpu_peaks(std::string_view device_name);

class KernelModel {
 public:
  KernelModel(const KinetoTrace& trace, const GpuModel& target);
  KernelEstimate estimate(std::uint32_t gpu_event) const;
  const RecordedGpuPeaks& recorded_peaks() const { return peaks_; }

 private:
  struct Shape {
    double flops = 0;
    double bytes = 0;
    bool half = false;  ///< fp16/bf16 inputs
  };
  const KinetoTrace& trace_;
  const GpuModel& target_;
  RecordedGpuPeaks peaks_;
  std::vector<Shape> shape_of_event_;  ///< per gpu event: its op's work (flops 0: unknown)
  std::vector<bool> half_of_event_;
};

}  // namespace opsim::replay
