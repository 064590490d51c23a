// opsim: what does this op graph cost on that machine, and why?
//
// Exit codes: 0 done; 2 a mistake in the user's input (one line on stderr naming the file or
// flag, the place and what is wrong); 3 an internal error or a crashed simulation process.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "experiments/cli/calibrate_command.hpp"
#include "experiments/cli/collective_command.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/cli/compare_command.hpp"
#include "experiments/cli/experiment_command.hpp"
#include "experiments/cli/nccl_check_command.hpp"
#include "experiments/cli/plot_command.hpp"
#include "experiments/cli/replay_command.hpp"
#include "experiments/cli/sim_command.hpp"
#include "experiments/cli/sweep_command.hpp"
#include "experiments/cli/topology_commands.hpp"
#include "experiments/cli/validate_command.hpp"

namespace {

constexpr int kInputErrorExit = 2;
constexpr int kInternalErrorExit = 3;

using RegisterCommand = opsim::Command (*)(CLI::App&);

// In the order `opsim --help` lists them.
constexpr RegisterCommand kCommands[] = {
    opsim::register_compare_command,    opsim::register_collective_command,
    opsim::register_sim_command,        opsim::register_topologies_command,
    opsim::register_topology_command,   opsim::register_sweep_command,
    opsim::register_experiment_command, opsim::register_calibrate_command,
    opsim::register_validate_command,   opsim::register_replay_command,
    opsim::register_nccl_check_command, opsim::register_plot_command,
};

// Every error is one line, whatever its source put in it.
int print_error(const char* kind, std::string message, int exit_code) {
  for (char& c : message)
    if (c == '\n') c = ' ';
  std::fprintf(stderr, "opsim: %s: %s\n", kind, message.c_str());
  return exit_code;
}

// `opsim gui [ARGS]` hands over to opsim-gui, installed next to this binary. Returns only
// when that fails.
int hand_over_to_gui(int argc, char** argv) {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::string gui = (self.parent_path() / "opsim-gui").string();
  if (error || ::access(gui.c_str(), X_OK) != 0)
    return print_error("error", gui + " not found (build with -DOPSIM_BUILD_GUI=ON)",
                       kInputErrorExit);
  std::vector<char*> args = {const_cast<char*>(gui.c_str())};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(gui.c_str(), args.data());
  return print_error("error", "cannot start " + gui, kInputErrorExit);
}

void describe_app(CLI::App& app) {
  app.description(
      "opsim: what does this op graph cost on that machine, and why?\n"
      "Simulates op graphs on SimGrid models of CPUs, GPUs, PCIe, NVLink, disks and Ethernet.");
  app.set_version_flag("--version", "opsim 0.1.0");
  app.require_subcommand(1);
  app.fallthrough(false);
}

// Help and version print and exit 0; any other parse error is the user's, in one line.
int report_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
  std::string what = e.what();
  if (what.find("subcommand is required") != std::string::npos && argc > 1)
    what = std::string("unknown command '") + argv[1] + "'";
  return print_error("error", what + " (see opsim --help)", kInputErrorExit);
}

int run_parsed(const std::vector<opsim::Command>& commands) {
  try {
    for (const opsim::Command& command : commands)
      if (command.subcommand->parsed()) return command.run();
  } catch (const opsim::InputError& e) {
    return print_error("error", e.what(), kInputErrorExit);
  } catch (const std::exception& e) {
    return print_error("internal error", e.what(), kInternalErrorExit);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "gui") return hand_over_to_gui(argc, argv);
  CLI::App app;
  describe_app(app);
  std::vector<opsim::Command> commands;
  for (RegisterCommand register_command : kCommands) commands.push_back(register_command(app));
  app.add_subcommand("gui", "Open the timeline explorer (opsim-gui); arguments go to it");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return report_parse_error(app, e, argc, argv);
  }
  return run_parsed(commands);
}
