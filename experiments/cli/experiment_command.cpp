#include "experiments/cli/experiment_command.hpp"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "common/run_outputs.hpp"
#include "engine/chrome_trace_writer.hpp"
#include "experiments/book/experiment.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/text_table.hpp"
#include "hw_models/units.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {
namespace {

// Simulated runs need the devices the program uses: one GPU for most, several for the
// data-parallel step.
std::string default_sim_topology(const std::string& experiment) {
  return experiment == "data-parallel" ? "pcie-switch-4gpu" : "desktop-1gpu";
}

std::string file_stem(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return out;
}

}  // namespace

int run_experiment_command(const ExperimentCommandOptions& options) {
  if (options.backend == "real" && !options.topology.empty())
    throw InputError("--topology: applies to --backend sim only (real runs use this machine)");

  book::ExperimentOptions experiment;
  experiment.backend = options.backend;
  experiment.window = options.window;
  experiment.repeats = options.repeats;
  std::string topology;
  if (options.backend == "sim") {
    topology = options.topology.empty() ? default_sim_topology(options.name) : options.topology;
    experiment.machine = resolve_topology(topology);
  }
  const book::ExperimentResult result = book::run_experiment(options.name, experiment);

  std::vector<std::string> trace_files;
  // A trace that cannot be written removes those written before it (run_outputs.hpp).
  RunOutputs traces(options.trace_dir);
  if (!options.trace_dir.empty()) {
    traces.prepare();
    for (const book::Variant& v : result.variants) {
      const auto path = std::filesystem::path(options.trace_dir) /
                        (file_stem(options.name + "-" + options.backend + "-" + v.name) + ".json");
      write_chrome_trace(v.trace, path);
      traces.wrote(path);
      trace_files.push_back(path.string());
    }
  }
  traces.keep();

  if (options.format == "json") {
    nlohmann::json out = {{"experiment", result.experiment}, {"backend", result.backend}};
    if (!topology.empty()) out["topology"] = topology;
    out["variants"] = nlohmann::json::array();
    for (std::size_t i = 0; i < result.variants.size(); ++i) {
      const book::Variant& v = result.variants[i];
      nlohmann::json row = {
          {"name", v.name}, {"wall_s", v.wall_s}, {"peak_memory_bytes", v.peak_memory_bytes}};
      if (i < trace_files.size()) row["trace_file"] = trace_files[i];
      out["variants"].push_back(row);
    }
    out["notes"] = result.notes;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "experiment " << result.experiment << ", "
            << (options.backend == "real" ? std::string("real run on this machine")
                                          : "simulated on " + topology)
            << "\n\n";
  TextTable table(
      {"variant", options.backend == "real" ? "wall time" : "simulated time", "peak memory"},
      {false, true, true});
  for (const book::Variant& v : result.variants)
    table.add_row({v.name, format_seconds(v.wall_s), format_bytes(v.peak_memory_bytes)});
  std::cout << table.render();
  for (const std::string& note : result.notes) std::cout << "note: " << note << "\n";
  if (!trace_files.empty()) std::cout << "\nTraces in " << options.trace_dir << "/\n";
  return 0;
}

Command register_experiment_command(CLI::App& opsim) {
  auto options = std::make_shared<ExperimentCommandOptions>();
  CLI::App* experiment = opsim.add_subcommand(
      "experiment",
      "Run one of the book's experiments for real or simulated: async, cpu-gpu, compute-copy, "
      "mlp-memory, data-parallel");
  std::vector<std::string> names;
  for (std::string_view name : book::experiment_names()) names.emplace_back(name);
  experiment->add_option("name", options->name, "Experiment")
      ->required()
      ->check(CLI::IsMember(names));
  experiment->add_option("--backend", options->backend, "real (this machine) or sim")
      ->check(CLI::IsMember({"real", "sim"}))
      ->capture_default_str();
  experiment->add_option(
      "--topology", options->topology,
      "sim: preset, family or file (default: desktop-1gpu; data-parallel: pcie-switch-4gpu)");
  add_format_option(*experiment, options->format, {"table", "json"});
  experiment
      ->add_option("--trace-dir", options->trace_dir, "Write one Chrome trace per variant here")
      ->check(writable_directory("traces"));
  experiment->add_option("--window", options->window, "In-flight window of the frontend (0: none)");
  experiment->add_option("--repeats", options->repeats, "real: runs per variant, fastest reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  return {experiment, [options] { return run_experiment_command(*options); }};
}

}  // namespace opsim
