// GPU op times on another GPU, for `opsim replay --kernels modelled`: a GEMM or convolution
// from the shapes its PyTorch op recorded (the roofline of the target GPU's model); any
// other kernel, device copy or memset from its recorded time scaled by how much faster the
// target is for its class (compute or memory). Each class's factor is the median of
// model / recorded over the trace's own kernels whose work is known (GEMMs with shapes;
// memory-bound ops over more than 1 MiB), so that the same GPU gives 1; without such
// kernels, the ratio of the recording GPU's nominal peak to the target's.
//
//   KernelModel model(trace, target_gpu);
//   KernelEstimate e = model.estimate(event_index);   // e.seconds, e.method
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw_models/gpu_model.hpp"
#include "replay/kineto_trace.hpp"
#include "replay/replay_graph.hpp"

namespace opsim::replay {

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

/// The work of a PyTorch op from its recorded shapes: GEMMs (aten::mm, addmm, bmm, baddbmm)
/// and convolutions; zero flops for any other op (or one without Input Dims).
struct OpWork {
  double flops = 0;
  double bytes = 0;
};
OpWork op_work(std::string_view op_name, const HostEvent& op);

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
    bool tf32 = false;  ///< a float op its kernel ran as TF32 on tensor cores
  };
  const KinetoTrace& trace_;
  const GpuModel& target_;
  RecordedGpuPeaks peaks_;
  struct Factors {
    double compute = 0;  ///< target time / recorded time for compute-bound kernels; 0: none
    double memory = 0;   ///< the same for memory-bound ones
  };
  double shape_seconds(const Shape& shape) const;
  Factors measured_factors() const;
  double scale_factor(bool compute, bool half) const;

  std::vector<Shape> shape_of_event_;   ///< per gpu event: its op's work (flops 0: unknown)
  std::vector<double> bytes_of_event_;  ///< per kernel of a memory-bound op: bytes it moves
  Factors factors_;
};

}  // namespace opsim::replay
