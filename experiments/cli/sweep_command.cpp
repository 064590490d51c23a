#include "experiments/cli/sweep_command.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <iostream>
#include <sstream>

#include "common/input_error.hpp"
#include "common/atomic_file.hpp"
#include "engine/csv_trace_writer.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/progress_bar.hpp"
#include "experiments/cli/strategy_run.hpp"
#include "experiments/cli/text_table.hpp"
#include "hw_models/units.hpp"
#include "sim/isolated_run.hpp"

namespace opsim {
namespace {

struct SweepSpec {
  std::vector<std::string> topologies;
  std::vector<std::string> strategies;
  std::vector<double> bytes;
  std::vector<int> gpus = {0};
  bool comm_only = false;
};

SweepSpec read_spec(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError(path + ": cannot open sweep spec");
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  auto place = [&](const YAML::Node& node) {
    return path + ":" + std::to_string(node.Mark().line + 1) + ":" +
           std::to_string(node.Mark().column + 1);
  };
  if (!root.IsMap())
    throw InputError(path + ": the spec must be a mapping (topologies, strategies, bytes, ...)");
  SweepSpec spec;
  auto strings = [&](const char* key, bool required) {
    std::vector<std::string> out;
    const YAML::Node node = root[key];
    if (!node) {
      if (required) throw InputError(path + ": missing '" + key + "'");
      return out;
    }
    if (node.IsScalar()) return std::vector<std::string>{node.as<std::string>()};
    if (!node.IsSequence() || node.size() == 0)
      throw InputError(place(node) + ": '" + key + "' must be a non-empty list");
    for (const auto& item : node) {
      if (!item.IsScalar())
        throw InputError(place(item) + ": '" + key + "' entries must be plain values");
      out.push_back(item.as<std::string>());
    }
    return out;
  };
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (key != "topologies" && key != "strategies" && key != "bytes" && key != "gpus" &&
        key != "comm_only")
      throw InputError(place(entry.first) + ": unknown key '" + key +
                       "' (topologies, strategies, bytes, gpus, comm_only)");
  }
  spec.topologies = strings("topologies", true);
  spec.strategies = strings("strategies", true);
  for (const std::string& text : strings("bytes", true)) {
    auto bytes = parse_bytes(text);
    if (!bytes || !(*bytes > 0))
      throw InputError(place(root["bytes"]) + ": cannot read '" + text + "' as a size");
    spec.bytes.push_back(*bytes);
  }
  if (root["gpus"]) {
    spec.gpus.clear();
    for (const std::string& text : strings("gpus", false)) {
      char* end = nullptr;
      const long n = std::strtol(text.c_str(), &end, 10);
      if (*end != '\0' || n < 2 || n > 1'000'000)
        throw InputError(place(root["gpus"]) + ": '" + text + "' is not a GPU count >= 2");
      spec.gpus.push_back(static_cast<int>(n));
    }
  }
  if (root["comm_only"]) {
    try {
      spec.comm_only = root["comm_only"].as<bool>();
    } catch (const YAML::Exception&) {
      throw InputError(place(root["comm_only"]) + ": 'comm_only' must be true or false");
    }
  }
  return spec;
}

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
  const SweepSpec spec = read_spec(options.spec_path);
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
      run_isolated_jobs(jobs, options.parallel, [&](std::size_t) { progress.advance(); });
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
