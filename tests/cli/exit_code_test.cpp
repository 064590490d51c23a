// Exit codes by cause when the error happens inside a simulation process of `compare` or
// `sweep`: bad input is one line and exit code 2, as it is in the parent; a simulation
// process that dies is one line saying so and exit code 3.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/cli/cli_test_scratch.hpp"
#include "tests/support/opsim_command.hpp"

namespace {

namespace fs = std::filesystem;

using opsim::test::CommandResult;

using opsim::test::cli::opsim;
using opsim::test::cli::scratch_dir;

void expect_one_line(const std::string& text) {
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "more than one line: " << text;
}

TEST(CliExitCode, BadInputFoundInsideACompareProcessIsExit2) {
  // Only the simulation process learns that the run would pass 292 simulated years.
  const auto r = opsim("compare --strategies tree --bytes 8PB --link-bandwidth-scale 1e-6");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err,
            "opsim: error: tree on pcie-switch-4gpu: pcie-switch-4gpu: op 'gather gpu1→gpu0' "
            "(#0) alone takes 5e+11 s, beyond the 9.2e9 s (292 years) a simulation can "
            "represent: its size or the machine's rates are out of range\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliExitCode, AStrategyThatCannotRunIsRefusedBeforeAnySimulation) {
  // The parameter server needs several servers: the parent says so before starting any.
  const auto r = opsim("compare --strategies tree,ps");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err,
            "opsim: error: sync ps: needs GPUs on at least 2 servers, the GPUs given are all "
            "on server 'pcie-switch-4gpu'\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliExitCode, BadInputFoundInsideASweepProcessKeepsTheRowsAndIsExit2) {
  const fs::path spec = scratch_dir() / "tree_and_ps.yaml";
  std::ofstream(spec) << "topologies: [pcie-switch-4gpu]\nstrategies: [tree, ps]\n"
                         "bytes: [160MB]\ncomm_only: true\n";
  const fs::path csv = scratch_dir() / "tree_and_ps.csv";
  const auto r = opsim("sweep " + spec.string() + " -o " + csv.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  expect_one_line(r.err);
  EXPECT_EQ(r.err.rfind("opsim: error: topology=pcie-switch-4gpu, bytes=160000000, comm_only=true, "
                        "strategy=ps: sync ps: needs GPUs",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("(1 of 2 points failed; the error column names each)"), std::string::npos)
      << r.err;
  // Nothing lost: the tree row has its 60 ms, the ps row its reason.
  const std::string rows = opsim::test::slurp(csv);
  EXPECT_NE(rows.find(",pcie-switch-4gpu,160000000,true,tree,0.06,"), std::string::npos) << rows;
  EXPECT_NE(rows.find(",pcie-switch-4gpu,160000000,true,ps,,,,,,,,,,,\"sync ps: needs GPUs"),
            std::string::npos)
      << rows;
}

using opsim::test::children_of;

// Starts opsim with `args`, stderr into `err_path`; returns its pid.
pid_t start_opsim(std::vector<std::string> args, const fs::path& err_path) {
  args.insert(args.begin(), std::string(OPSIM_BINARY_DIR) + "/bin/opsim");
  return opsim::test::start_process(args, err_path);
}

TEST(CliExitCode, ASimulationProcessKilledBySignalIsExit3) {
  // A ring over 1024 GPUs takes seconds to simulate: long enough to kill its process, as the
  // kernel's out-of-memory killer would.
  const fs::path err_path = scratch_dir() / "killed.err";
  const pid_t opsim_pid = start_opsim(
      {"compare", "--topology", "nvlink-ring:1024", "--strategies", "ring", "--comm-only"},
      err_path);
  ASSERT_GT(opsim_pid, 0);
  std::vector<pid_t> children;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((children = children_of(opsim_pid)).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(children.size(), 1u) << "no simulation process appeared";
  ::kill(children.front(), SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(opsim_pid, &status, 0), opsim_pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const std::string err = opsim::test::slurp(err_path);
  EXPECT_EQ(err,
            "opsim: internal error: ring on nvlink-ring:1024: child process killed by signal 9 "
            "(Killed)\n");
}

}  // namespace
