// One subcommand of `opsim`. Each *_command.cpp registers its own: it adds its CLI11
// subcommand and options to the app and returns how to run it once parsed; main() only
// walks the list.
//
//   Command register_sim_command(CLI::App& opsim);  // in sim_command.hpp
//   for (const Command& c : commands) if (c.subcommand->parsed()) return c.run();
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace opsim {

struct Command {
  CLI::App* subcommand = nullptr;  ///< owned by the app
  std::function<int()> run;        ///< returns the process exit code
};

}  // namespace opsim
