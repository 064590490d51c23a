#include "experiments/cli/sweep_command.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <iostream>
#include <sstream>

#include "engine/atomic_file.hpp"
#include "engine/csv_trace_writer.hpp"
#include "experiments/cli/process_pool.hpp"
#include "experiments/cli/progress_bar.hpp"
#include "experiments/cli/strategy_run.hpp"
#include "experiments/cli/sweep_spec.hpp"
#include "experiments/cli/text_table.hpp"
#include "common/input_error.hpp"
#include "hw_models/units.hpp"

namespace opsim {

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
  const auto outcomes =
      run_in_children(jobs, options.parallel, [&](std::size_t) { progress.advance(); });
  progress.finish();

  std::ostringstream csv;
  csv << "topology,strategy,bytes,gpus,comm_only,makespan_s,lower_bound_s,bytes_moved,busiest_link,"
         "busiest_link_utilization,ops,sim_wall_s,error\n";
  std::size_t failures = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& q = requests[i];
    csv << csv_field(q.topology) << "," << q.strategy << "," << number(q.bytes) << ",";
    if (!outcomes[i].ok) {
      ++failures;
      csv << (q.gpus ? std::to_string(q.gpus) : "") << "," << (q.comm_only ? "true" : "false")
          << ",,,,,,,," << csv_field(outcomes[i].output) << "\n";
      continue;
    }
    const auto r = strategy_result_from_json(nlohmann::json::parse(outcomes[i].output));
    csv << r.gpus << "," << (q.comm_only ? "true" : "false") << "," << number(r.makespan_s) << ","
        << (std::isfinite(r.lower_bound_s) ? number(r.lower_bound_s) : "") << ","
        << number(r.bytes_moved) << "," << csv_field(r.busiest_link) << "," << number(r.busiest_link_utilization)
        << "," << r.ops << "," << number(r.wall_s) << ",\n";
  }
  if (options.out_path.empty()) {
    std::cout << csv.str();
  } else {
    write_file_atomically(options.out_path, csv.str());
    std::cerr << "wrote " << requests.size() << " rows to " << options.out_path << "\n";
  }
  if (failures)
    std::cerr << failures << " of " << requests.size()
              << " simulations failed (see the error column)\n";
  return failures ? 1 : 0;
}

}  // namespace opsim
