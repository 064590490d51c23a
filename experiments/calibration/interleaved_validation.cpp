#include "experiments/calibration/interleaved_validation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "experiments/calibration/calibration.hpp"

namespace opsim::calibration {

ValidationResult validate_interleaved(const WorkloadFile& workload, const Machine& base_profile,
                                      const InterleavedOptions& options) {
  if (options.rounds < 1) throw std::invalid_argument("validate_interleaved: rounds < 1");
  const ValidationOptions& vo = options.validation;
  const auto rounds = static_cast<std::size_t>(options.rounds);
  const std::size_t steps = 2 * rounds + 1;
  std::size_t done = 0;
  auto step = [&] {
    if (options.on_progress) options.on_progress(++done, steps);
  };

  std::vector<std::vector<Trace>> real(rounds);
  std::vector<Machine> profiles;
  std::vector<std::vector<std::pair<std::string, double>>> measured;  // per round
  std::string disk_note;
  {
    CalibrationOptions co;
    co.only = groups_used_by(build_workload_graph(workload, base_profile), base_profile);
    if (co.only.empty()) co.only = {"host dispatch"};  // an empty workload: nothing to measure
    co.base = &base_profile;
    co.quick = options.quick_calibration;
    co.statistic = vo.statistic;
    co.scratch_dir = vo.scratch_dir;
    Calibrator calibrator(co);
    RealWorkloadRunner runner(workload, base_profile, vo);
    (void)runner.run();  // warm-up: scratch memory, disk files, worker threads

    const int runs_per_round =
        static_cast<int>((std::max(1, vo.repeats) + options.rounds - 1) / options.rounds);
    const double seconds_per_round = vo.min_real_s / options.rounds;
    const int max_runs_per_round = std::max(runs_per_round, kMaxRealRuns / options.rounds);
    calibrator.take_pass();
    step();
    for (std::size_t r = 0; r < rounds; ++r) {
      // Untimed runs first: the first run after a pass ran 8-13 % slower than the next
      // ones on a 2-vCPU VM, with or without a 300 ms sleep between (the pass maps and frees
      // hundreds of MB; after such a free the executor's next 96 MB copy took 89 ms, not 5).
      // Timed, it made every round of a one-run-per-round workload read slow. And a vCPU
      // that idled through the pass runs slow for its first 100-300 ms (rate_over_cores):
      // short runs go on untimed for as long as the pass warms each core.
      double warm_s = 0;
      do {
        warm_s += ns_to_seconds(runner.run().makespan_ns());
      } while (warm_s < kRoundWarmUpS);
      double round_s = 0;
      while (
          static_cast<int>(real[r].size()) < runs_per_round ||
          (round_s < seconds_per_round && static_cast<int>(real[r].size()) < max_runs_per_round)) {
        real[r].push_back(runner.run());
        round_s += ns_to_seconds(real[r].back().makespan_ns());
      }
      step();
      calibrator.take_pass();
      step();
    }
    disk_note = runner.disk_note();
    for (std::size_t r = 0; r < rounds; ++r) {
      const CalibrationReport beside = calibrator.report(r, r + 2);
      profiles.push_back(beside.machine);
      measured.emplace_back();
      for (const Measurement& m : beside.measurements)
        measured.back().emplace_back(m.name, m.value);
    }
    profiles.push_back(calibrator.report().machine);  // every pass: the pooled profile
  }  // the executor's and the calibration's threads end before the simulations fork

  const std::uint32_t window = effective_max_in_flight(workload, vo.max_in_flight);
  std::vector<ValidationResult> compared;
  for (std::size_t r = 0; r < rounds; ++r)
    compared.push_back(compare_runs(
        workload.name, real[r], simulate_workload(workload, profiles[r], window), vo.statistic));

  // The round with the median (signed) error stands for the workload, with its own real and
  // simulated makespans and traces, so that the numbers shown agree with each other.
  std::vector<std::size_t> order(rounds);
  for (std::size_t r = 0; r < rounds; ++r) order[r] = r;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return compared[a].makespan_error < compared[b].makespan_error;
  });
  ValidationResult result = compared[order[(rounds - 1) / 2]];
  result.real_samples_s.clear();
  for (std::size_t r = 0; r < rounds; ++r) {
    const ValidationResult& c = compared[r];
    result.rounds.push_back({c.real_s, c.simulated_s, c.makespan_error, measured[r]});
    result.real_samples_s.insert(result.real_samples_s.end(), c.real_samples_s.begin(),
                                 c.real_samples_s.end());
  }
  result.real_iqr = interquartile_spread(result.real_samples_s);
  std::vector<Trace> all_real;
  for (auto& round : real)
    for (Trace& t : round) all_real.push_back(std::move(t));
  const ValidationResult pooled = compare_runs(
      workload.name, all_real, simulate_workload(workload, profiles.back(), window), vo.statistic);
  result.pooled = {pooled.real_s, pooled.simulated_s, pooled.makespan_error, {}};
  result.disk_note = disk_note;
  return result;
}

}  // namespace opsim::calibration
