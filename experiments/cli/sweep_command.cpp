#include "experiments/cli/sweep_command.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <iostream>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "engine/csv_trace_writer.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/progress_bar.hpp"
#include "experiments/cli/strategy_run.hpp"
#include "experiments/cli/sweep_spec.hpp"
#include "experiments/cli/text_table.hpp"
#include "hw_models/units.hpp"
#include "sim/isolated_run.hpp"

namespace opsim {
namespace {

std::string describe(const StrategyRunRequest& q) {
  return q.strategy + " on " + q.topology + ", " + format_bytes(q.bytes) +
         (q.gpus ? ", " + std::to_string(q.gpus) + " GPUs" : "") + ": ";
}

void write_sweep_csv(const SweepOptions& options, const std::vector<StrategyRunRequest>& requests,
                     const std::vector<ChildOutcome>& outcomes) {
  std::ostringstream csv;
  csv << "topology,strategy,bytes,gpus,comm_only,makespan_s,lower_bound_s,bytes_moved,busiest_link,"
         "busiest_link_utilization,ops,sim_wall_s,error\n";
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& q = requests[i];
    csv << csv_field(q.topology) << "," << q.strategy << "," << number(q.bytes) << ",";
    if (!outcomes[i].ok()) {
      csv << (q.gpus ? std::to_string(q.gpus) : "") << "," << (q.comm_only ? "true" : "false")
          << ",,,,,,,," << csv_field(outcomes[i].text) << "\n";
      continue;
    }
    const auto r = strategy_result_from_json(nlohmann::json::parse(outcomes[i].text));
    csv << r.gpus << "," << (q.comm_only ? "true" : "false") << "," << number(r.makespan_s) << ","
        << (std::isfinite(r.lower_bound_s) ? number(r.lower_bound_s) : "") << ","
        << number(r.bytes_moved) << "," << csv_field(r.busiest_link) << ","
        << number(r.busiest_link_utilization) << "," << r.ops << "," << number(r.wall_s) << ",\n";
  }
  if (options.out_path.empty())
    std::cout << csv.str();
  else
    write_file_atomically(options.out_path, csv.str());
}

// The rows are written whatever failed; the exit code then says why the first failure
// happened: a crash or internal error of a child (3) outranks bad input (2).
void throw_first_failure(const std::vector<StrategyRunRequest>& requests,
                         const std::vector<ChildOutcome>& outcomes) {
  std::size_t failures = 0, first = outcomes.size(), first_internal = outcomes.size();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].ok()) continue;
    ++failures;
    first = std::min(first, i);
    if (outcomes[i].failure != ChildFailure::kInputError)
      first_internal = std::min(first_internal, i);
  }
  if (failures == 0) return;
  const std::size_t shown = first_internal < outcomes.size() ? first_internal : first;
  ChildOutcome outcome = outcomes[shown];
  outcome.text += " (" + std::to_string(failures) + " of " + std::to_string(outcomes.size()) +
                  " simulations failed; the error column names each)";
  throw_if_failed(outcome, describe(requests[shown]));
}

}  // namespace

int run_sweep(const SweepOptions& options) {
  const SweepSpec spec = load_sweep_spec(options.spec_path);
  std::vector<StrategyRunRequest> requests;
  for (const auto& topology : spec.topologies)
    for (int gpus : spec.gpus)
      for (double bytes : spec.bytes)
        for (const auto& strategy : spec.strategies) {
          StrategyRunRequest r;
          r.topology = topology;
          r.strategy = strategy;
          r.bytes = bytes;
          r.gpus = gpus;
          r.comm_only = spec.comm_only;
          requests.push_back(r);
        }
  std::vector<std::function<std::string()>> jobs;
  for (const auto& request : requests)
    jobs.push_back([request] { return to_json(run_strategy(request)).dump(); });
  ProgressBar progress(jobs.size(), "simulations");
  const auto outcomes = run_isolated_jobs(
      jobs, options.parallel, [&](std::size_t, const ChildOutcome&) { progress.advance(); });
  progress.finish();
  write_sweep_csv(options, requests, outcomes);
  throw_first_failure(requests, outcomes);
  if (!options.out_path.empty())
    std::cerr << "wrote " << requests.size() << " rows to " << options.out_path << "\n";
  return 0;
}

Command register_sweep_command(CLI::App& opsim) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* sweep =
      opsim.add_subcommand("sweep", "Run a grid of simulations (one process each) to CSV");
  sweep->add_option("spec", options->spec_path, "Sweep spec (YAML)")
      ->required()
      ->check(CLI::ExistingFile);
  sweep->add_option("--out,-o", options->out_path, "CSV file (default: stdout)")
      ->check(writable_file("the results"));
  add_jobs_option(*sweep, options->parallel);
  return {sweep, [options] { return run_sweep(*options); }};
}

}  // namespace opsim
