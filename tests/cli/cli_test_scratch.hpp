// The scratch folder of a cli_test process and `opsim` run in it: what every source file of
// cli_test starts from.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/opsim_command.hpp"

namespace opsim::test::cli {

/// "<tmp>/opsim_cli_test_<pid>", removed when the test process exits.
inline std::filesystem::path scratch_dir() {
  return opsim::test::scratch_dir("opsim_cli_test");
}

/// `opsim ARGS` run in scratch_dir().
inline CommandResult opsim(const std::string& args) {
  return run_opsim(args, scratch_dir());
}

}  // namespace opsim::test::cli
