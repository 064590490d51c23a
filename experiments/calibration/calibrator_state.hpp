// Inside Calibrator (calibration.hpp): the plan of a calibration and the state its samples
// share. calibration_plan.cpp builds the items in order; profile_build.cpp turns their
// samples into a report and a machine; calibration.cpp samples them.
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/exec/gpu_runtime.hpp"
#include "engine/frontend/context.hpp"
#include "experiments/calibration/calibration.hpp"
#include "experiments/calibration/measurement_kernels.hpp"

namespace opsim::calibration {

/// Which sizes a calibration measures, how long each sample runs and how many it takes.
struct Plan {
  std::vector<std::size_t> gemm_sizes;
  std::size_t memcpy_bytes;
  std::size_t chase_bytes;
  std::uint64_t disk_bytes;
  int random_reads;
  int dispatch_ops;
  double min_s;
  int repeats;
};

Plan plan_for(const CalibrationOptions& o);

/// The every-core GEMM's size (a 1024 GEMM, ~20 ms here; the largest size when smaller).
std::size_t every_core_gemm_size(const Plan& p);

// The parameters a calibration measures (the ones CalibrationOptions::only asks for) and the
// state their samples share: scratch files, a frontend Context, every sample so far.
struct Calibrator::State {
  CalibrationOptions options;
  Plan plan;
  int hw = 1;
  std::vector<std::size_t> pass_sizes;
  std::vector<std::size_t> copy_sizes;  // memcpy sizes below the plan's, one stream
  std::vector<CalibrationItem> items;
  std::vector<std::vector<double>> samples;  // per item, in the order taken
  Clock::time_point t0 = Clock::now();
  // The executor's disk ops use the same scratch disk: their regions and these lie together.
  ScratchDisks disks;
  std::string gpu_note;
  std::unique_ptr<frontend::Context> ctx;
  std::shared_ptr<GpuRuntime> gpu_runtime_used;
  // Which of a parameter's back-to-back samples is being taken (Calibrator::sample).
  int repeat = 0;
  // Per rate measured over the cores since the pass began (take_pass clears them): each
  // core's rate / the mean core's, for the elementwise passes, memcpy and one-thread GEMMs,
  // with the repeat it was taken in.
  struct CoreRatios {
    int repeat = 0;
    std::vector<double> per_core;
  };
  std::vector<CoreRatios> pass_core_ratios, copy_core_ratios, gemm_core_ratios;

  explicit State(const CalibrationOptions& o);
  // The steps of State(): each appends its group's items, in the order they are sampled.
  void add_gemm_items();
  void add_memory_items();
  void add_memcpy_by_size_items();
  void add_core_speed_items();
  void add_disk_items();
  void add_disk_traffic_items();
  void add_disk_beside_compute_items();
  void add_dispatch_items();
  void add_gpu_items();
  void keep_only_groups_asked_for();

  // rate_over_cores(), keeping each core's ratio to the mean in `ratios`.
  double over_cores(std::vector<CoreRatios>& ratios, double min_s, const CoreMeasure& measure) {
    std::vector<double> per_core;
    const double mean = rate_over_cores(min_s, measure, &per_core);
    for (double& rate : per_core) rate /= mean;
    ratios.push_back({repeat, std::move(per_core)});
    return mean;
  }
  // A core's speed: the geometric mean of its ratios taken in the same repeat (a full
  // calibration's n-th sample of it comes from every rate's n-th), 1 when none were kept.
  double core_speed(const std::vector<CoreRatios>& ratios, int core) const {
    double log_sum = 0;
    int count = 0;
    for (const CoreRatios& r : ratios)
      if (r.repeat == repeat && static_cast<std::size_t>(core) < r.per_core.size() &&
          r.per_core[core] > 0)
        log_sum += std::log(r.per_core[core]), ++count;
    return count > 0 ? std::exp(log_sum / count) : 1.0;
  }

  CalibrationReport build(std::size_t first, std::size_t end) const;
  // The steps of build(): each takes its group's measurements, where present, into `in`.
  std::vector<Measurement> measurements(std::size_t first, std::size_t end) const;
  void take_gemm(const CalibrationReport& report, ProfileInputs& in) const;
  void take_core_speeds(const CalibrationReport& report, MeasurementId id,
                        std::vector<double>& speeds) const;
  void take_memory(const CalibrationReport& report, ProfileInputs& in) const;
  void take_disk(const CalibrationReport& report, ProfileInputs& in) const;
  void take_gpu(CalibrationReport& report, GpuInputs& g) const;
};

}  // namespace opsim::calibration
