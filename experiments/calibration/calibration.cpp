// Calibrator's sampling and the report's look-ups. The measurements themselves are in
// measurement_kernels.cpp, which of them and in what order in calibration_plan.cpp, and the
// profile built from them in profile_build.cpp.
#include "experiments/calibration/calibration.hpp"

#include <set>
#include <stdexcept>

#include "engine/exec/cpu_kernels.hpp"
#include "experiments/calibration/accuracy.hpp"
#include "experiments/calibration/calibrator_state.hpp"

namespace opsim::calibration {

bool Measurement::noisy() const {
  return spread > kNoisySpread;
}

const Measurement* CalibrationReport::find(const MeasurementKey& key) const {
  for (const Measurement& m : measurements)
    if (m.key == key) return &m;
  return nullptr;
}

const Measurement& CalibrationReport::get(const MeasurementKey& key) const {
  if (const Measurement* m = find(key)) return *m;
  throw std::out_of_range("no measurement '" + measurement_name(key) + "'");
}

std::vector<std::string> groups_used_by(const OpGraph& graph, const Machine& machine) {
  std::set<std::string> groups;
  auto on_gpu = [&](DeviceId d) {
    return d != kNoDevice && d < machine.devices().size() &&
           machine.device(d).kind == DeviceKind::kGpu;
  };
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    if (on_gpu(op.device) || (op.kind == OpKind::kCopy && on_gpu(op.peer))) {
      groups.insert("gpu");
      continue;
    }
    switch (op.kind) {
      case OpKind::kCompute:
        if (op.kernel == KernelClass::kGemm)
          groups.insert("gemm");
        else if (op.kernel != KernelClass::kNoop)
          groups.insert("elementwise");
        break;
      case OpKind::kCopy:
        groups.insert("memcpy");
        break;
      case OpKind::kDiskRead:
      case OpKind::kDiskWrite:
        groups.insert("disk");
        break;
      case OpKind::kHostDispatch:
        groups.insert("host dispatch");
        break;
    }
  }
  return {groups.begin(), groups.end()};
}

Calibrator::Calibrator(const CalibrationOptions& options)
    : state_(std::make_unique<State>(options)) {}

Calibrator::~Calibrator() {
  state_->disks.close_read_files();
  state_->ctx.reset();
  cpu::set_blas_threads(state_->hw);
}

std::size_t Calibrator::parameter_count() const {
  return state_->items.size();
}

std::vector<MeasurementKey> Calibrator::parameters() const {
  std::vector<MeasurementKey> keys;
  for (const CalibrationItem& item : state_->items) keys.push_back(item.key);
  return keys;
}

int Calibrator::repeats() const {
  return state_->plan.repeats;
}

void Calibrator::sample(std::size_t parameter, int count) {
  State& s = *state_;
  for (int r = 0; r < count; ++r) {
    s.repeat = r;
    s.samples.at(parameter).push_back(s.items.at(parameter).sample());
  }
  // The executor sets its own thread counts per op; leave OpenBLAS as a fresh process has it.
  cpu::set_blas_threads(s.hw);
}

std::size_t Calibrator::take_pass() {
  state_->pass_core_ratios.clear();
  state_->copy_core_ratios.clear();
  state_->gemm_core_ratios.clear();
  for (std::size_t i = 0; i < parameter_count(); ++i) {
    sample(i, 1);
    if (state_->options.on_progress) state_->options.on_progress(i + 1, parameter_count());
  }
  return state_->samples.empty() ? 0 : state_->samples.front().size() - 1;
}

CalibrationReport Calibrator::report(std::size_t first_sample, std::size_t end_sample) const {
  return state_->build(first_sample, end_sample);
}

CalibrationReport calibrate(const CalibrationOptions& options) {
  Calibrator calibrator(options);
  // All samples of one parameter back to back: its spread is the host's noise over
  // seconds, not the drift over the whole calibration.
  for (std::size_t i = 0; i < calibrator.parameter_count(); ++i) {
    calibrator.sample(i, calibrator.repeats());
    if (options.on_progress) options.on_progress(i + 1, calibrator.parameter_count());
  }
  return calibrator.report();
}

}  // namespace opsim::calibration
