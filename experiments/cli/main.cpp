// opsim: what does this op graph cost on that machine, and why?
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "experiments/cli/calibrate_command.hpp"
#include "experiments/cli/compare_command.hpp"
#include "experiments/cli/experiment_command.hpp"
#include "experiments/cli/sim_command.hpp"
#include "experiments/cli/sweep_command.hpp"
#include "experiments/cli/topology_commands.hpp"
#include "experiments/cli/validate_command.hpp"
#include "common/input_error.hpp"
#include "hw_models/units.hpp"

namespace {

// Sizes on the command line: "160MB", "1GiB" or plain bytes.
double bytes_option(const std::string& flag, const std::string& text) {
  auto bytes = opsim::parse_bytes(text);
  if (!bytes || !(*bytes > 0))
    throw opsim::InputError(flag + ": cannot read '" + text +
                            "' as a size (e.g. 160MB, 1GiB, 4096)");
  return *bytes;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, end - start);
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

void add_what_if(CLI::App* command, opsim::WhatIf& what_if) {
  command->add_option("--link-bandwidth-scale", what_if.link_bandwidth_scale,
                      "Multiply every link's bandwidth (what-if)");
  command->add_option("--set", what_if.assignments,
                      "What-if edit NAME.FIELD=VALUE, e.g. gpu0-sw0.bandwidth=8GB/s (" +
                          opsim::what_if_fields_help() + ")");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "opsim: what does this op graph cost on that machine, and why?\n"
      "Simulates op graphs on SimGrid models of CPUs, GPUs, PCIe, NVLink, disks and Ethernet."};
  app.set_version_flag("--version", "opsim 0.1.0");
  app.require_subcommand(1);
  app.fallthrough(false);

  opsim::CompareOptions compare;
  std::string compare_bytes = "160MB", compare_strategies = "tree,cpu,split,ring";
  auto* compare_cmd =
      app.add_subcommand("compare", "Compare gradient-sync strategies on a machine (the main job)");
  compare_cmd
      ->add_option("--topology", compare.topology, "Preset, family (nvlink-ring:8) or YAML file")
      ->capture_default_str();
  compare_cmd
      ->add_option("--strategies", compare_strategies,
                   "Comma-separated: tree,cpu,split,ring,multi-ring,ps")
      ->capture_default_str();
  compare_cmd
      ->add_option("--bytes", compare_bytes, "Gradient size per GPU: 160MB, 1GiB or plain bytes")
      ->capture_default_str();
  compare_cmd->add_option("--gpus", compare.gpus, "Use the first N GPUs (default: all)");
  compare_cmd->add_flag("--comm-only", compare.comm_only,
                        "Leave out the reductions' compute time, as the book's arithmetic does");
  compare_cmd->add_option("--format", compare.format, "table, json or csv")->capture_default_str();
  compare_cmd->add_option("--trace-dir", compare.trace_dir,
                          "Write <strategy>.json Chrome traces and .csv here");
  compare_cmd->add_option("--png", compare.png_path,
                          "Render the strategies' timelines on one axis to a PNG");
  compare_cmd->add_option("--jobs,-j", compare.parallel, "Simulations run at once")
      ->capture_default_str();
  add_what_if(compare_cmd, compare.what_if);

  opsim::SimCommandOptions sim;
  auto* sim_cmd = app.add_subcommand("sim", "Simulate a workload file (JSON op graph)");
  sim_cmd->add_option("workload", sim.workload_path, "Workload file")->required();
  sim_cmd->add_option("--topology", sim.topology,
                      "Preset, family or YAML file (default: the workload's)");
  sim_cmd->add_option("--trace", sim.trace_path, "Write a Chrome trace (Perfetto, opsim-gui)");
  sim_cmd->add_option("--csv", sim.csv_path, "Write one CSV row per op");
  sim_cmd->add_option("--dot", sim.dot_path, "Write the op graph as GraphViz DOT");
  sim_cmd->add_option("--max-in-flight", sim.max_in_flight, "Bound on ops in flight (0: none)");
  sim_cmd->add_option("--format", sim.format, "table or json")->capture_default_str();
  add_what_if(sim_cmd, sim.what_if);

  app.add_subcommand("topologies", "List the preset machines and parametric families");
  auto* topology_cmd = app.add_subcommand("topology", "Check or show a machine description");
  topology_cmd->require_subcommand(1);
  std::string check_path, show_name;
  topology_cmd->add_subcommand("check", "Validate a topology YAML file")
      ->add_option("file", check_path, "Topology file")
      ->required();
  topology_cmd->add_subcommand("show", "Print a preset, family or file as YAML")
      ->add_option("name", show_name, "Preset, family or file")
      ->required();

  opsim::SweepOptions sweep;
  auto* sweep_cmd =
      app.add_subcommand("sweep", "Run a grid of simulations (one process each) to CSV");
  sweep_cmd->add_option("spec", sweep.spec_path, "Sweep spec (YAML)")->required();
  sweep_cmd->add_option("--out,-o", sweep.out_path, "CSV file (default: stdout)");
  sweep_cmd->add_option("--jobs,-j", sweep.parallel, "Simulations run at once")
      ->capture_default_str();

  opsim::ExperimentCommandOptions experiment;
  auto* experiment_cmd = app.add_subcommand(
      "experiment",
      "Run one of the book's experiments for real or simulated: async, cpu-gpu, compute-copy, "
      "mlp-memory, data-parallel");
  experiment_cmd->add_option("name", experiment.name, "Experiment")->required();
  experiment_cmd->add_option("--backend", experiment.backend, "real (this machine) or sim")
      ->capture_default_str();
  experiment_cmd->add_option(
      "--topology", experiment.topology,
      "sim: preset, family or file (default: desktop-1gpu; data-parallel: pcie-switch-4gpu)");
  experiment_cmd->add_option("--format", experiment.format, "table or json")->capture_default_str();
  experiment_cmd->add_option("--trace-dir", experiment.trace_dir,
                             "Write one Chrome trace per variant here");
  experiment_cmd->add_option("--window", experiment.window,
                             "In-flight window of the frontend (0: none)");
  experiment_cmd
      ->add_option("--repeats", experiment.repeats, "real: runs per variant, fastest reported")
      ->capture_default_str();

  opsim::CalibrateCommandOptions calibrate;
  auto* calibrate_cmd = app.add_subcommand(
      "calibrate", "Measure this machine (GEMM, memcpy, DRAM, disk, dispatch) into a profile YAML");
  calibrate_cmd->add_option("--out,-o", calibrate.out_path, "Profile file (written atomically)")
      ->capture_default_str();
  calibrate_cmd->add_flag("--quick", calibrate.quick, "Small sizes, 3 repeats: about 10 s");
  calibrate_cmd->add_option("--repeats", calibrate.repeats, "Runs per measurement (default 5)");
  calibrate_cmd->add_option("--format", calibrate.format, "table or json")->capture_default_str();
  calibrate_cmd
      ->add_option("--statistic", calibrate.statistic,
                   "median, or best (highest rate / shortest time) of the repeats")
      ->capture_default_str();
  calibrate_cmd->add_option("--against", calibrate.against,
                            "A previous profile: name the parameters more than 5% apart");
  calibrate_cmd->add_option("--scratch-dir", calibrate.scratch_dir,
                            "Directory for the disk scratch file (default: temp directory)");

  opsim::ValidateCommandOptions validate;
  auto* validate_cmd = app.add_subcommand(
      "validate", "Run a workload for real and simulated on a calibrated profile; compare");
  validate_cmd->add_option("workload", validate.workload_path, "Workload file (JSON op graph)");
  validate_cmd->add_option("--suite", validate.suite_dir,
                           "Validate every *.json workload in this directory (accuracy table)");
  validate_cmd->add_option("--profile", validate.profile_path,
                           "Profile YAML (default: ./calibrated.yaml, else a quick calibration)");
  validate_cmd->add_option("--format", validate.format, "table, json or markdown")
      ->capture_default_str();
  validate_cmd->add_flag("--markdown", validate.markdown, "Suite table as Markdown");
  validate_cmd->add_option("--trace-dir", validate.trace_dir,
                           "Write <workload>.real/.sim/.overlay.json Chrome traces here");
  validate_cmd->add_option("--max-in-flight", validate.max_in_flight,
                           "Bound on ops in flight (default: the workload's max_in_flight)");
  validate_cmd
      ->add_option("--repeats", validate.repeats, "Timed real runs, at least; median reported")
      ->capture_default_str();
  validate_cmd
      ->add_option("--min-time", validate.min_real_s,
                   "More timed real runs until they add up to this many seconds")
      ->capture_default_str();
  validate_cmd
      ->add_option("--statistic", validate.statistic,
                   "median real run, or best (the fastest; quick calibrations take best samples)")
      ->capture_default_str();
  validate_cmd
      ->add_option("--interleave", validate.interleave,
                   "N rounds of real runs, each between two passes measuring what the workload "
                   "uses; each round simulated on the samples beside it; the median round "
                   "reported (0: off)")
      ->capture_default_str();
  validate_cmd
      ->add_option("--rounds", validate.rounds,
                   "Suite: N rounds of a fresh calibration then the suite; each workload's "
                   "error over the rounds (median, range)")
      ->capture_default_str();
  validate_cmd->add_option("--scratch-dir", validate.scratch_dir,
                           "Directory for disk scratch files (default: temp directory)");

  // `opsim gui [ARGS]` hands over to opsim-gui, installed next to this binary.
  if (argc >= 2 && std::string(argv[1]) == "gui") {
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    const std::string gui = (self.parent_path() / "opsim-gui").string();
    if (error || ::access(gui.c_str(), X_OK) != 0) {
      std::fprintf(stderr, "opsim: error: %s not found (build with -DOPSIM_BUILD_GUI=ON)\n",
                   gui.c_str());
      return 2;
    }
    std::vector<char*> args = {const_cast<char*>(gui.c_str())};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    ::execv(gui.c_str(), args.data());
    std::fprintf(stderr, "opsim: error: cannot start %s\n", gui.c_str());
    return 2;
  }
  app.add_subcommand("gui", "Open the timeline explorer (opsim-gui); arguments go to it");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.find("subcommand is required") != std::string::npos && argc > 1)
      what = std::string("unknown command '") + argv[1] + "'";
    std::fprintf(stderr, "opsim: error: %s (see opsim --help)\n", what.c_str());
    return 2;
  }

  try {
    if (compare_cmd->parsed()) {
      compare.bytes = bytes_option("--bytes", compare_bytes);
      compare.strategies = split_commas(compare_strategies);
      return opsim::run_compare(compare);
    }
    if (sim_cmd->parsed()) return opsim::run_sim_command(sim);
    if (app.got_subcommand("topologies")) return opsim::run_list_topologies();
    if (topology_cmd->parsed()) {
      if (!check_path.empty()) return opsim::run_topology_check(check_path);
      return opsim::run_topology_show(show_name);
    }
    if (sweep_cmd->parsed()) return opsim::run_sweep(sweep);
    if (experiment_cmd->parsed()) return opsim::run_experiment_command(experiment);
    if (calibrate_cmd->parsed()) return opsim::run_calibrate_command(calibrate);
    if (validate_cmd->parsed()) return opsim::run_validate_command(validate);
  } catch (const opsim::InputError& e) {
    std::fprintf(stderr, "opsim: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opsim: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
