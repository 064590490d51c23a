// RunOutputs (common/run_outputs.hpp): what a failed run wrote into its output directory is
// removed, what it did not write stays, and a run that completes keeps everything.
#include "common/run_outputs.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/support/scratch_files.hpp"

namespace opsim {
namespace {

namespace fs = std::filesystem;

fs::path run_outputs_dir(const std::string& name) {
  return test::empty_build_scratch_dir(fs::path("run_outputs") / name);
}

void write(const fs::path& path, const char* text) {
  std::ofstream(path) << text;
}

TEST(RunOutputs, AFailedRunRemovesItsFilesAndTheDirectoriesItMade) {
  const fs::path base = run_outputs_dir("failed");
  const fs::path dir = base / "a" / "b";
  {
    RunOutputs outputs(dir);
    outputs.prepare();
    ASSERT_TRUE(fs::is_directory(dir));
    write(dir / "ring.json", "{}");
    outputs.wrote(dir / "ring.json");
  }  // no keep(): the run failed
  EXPECT_FALSE(fs::exists(base / "a"));
  EXPECT_TRUE(fs::exists(base));
}

TEST(RunOutputs, FilesItDidNotWriteStay) {
  const fs::path dir = run_outputs_dir("others");
  write(dir / "notes.txt", "mine");
  write(dir / "victim.json", "old");
  fs::create_symlink("victim.json", dir / "link.json");
  {
    RunOutputs outputs(dir);
    outputs.prepare();
    write(dir / "ring.json", "{}");
    outputs.wrote(dir / "ring.json");
    outputs.wrote(dir / "ring.json");  // twice: recorded once
    outputs.wrote(dir / "link.json");  // its target was written; a link is not this run's
  }
  EXPECT_FALSE(fs::exists(dir / "ring.json"));
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_TRUE(fs::exists(dir / "victim.json"));
}

TEST(RunOutputs, ACompleteRunKeepsEverything) {
  const fs::path dir = run_outputs_dir("kept") / "traces";
  {
    RunOutputs outputs(dir);
    outputs.prepare();
    write(dir / "ring.json", "{}");
    outputs.wrote(dir / "ring.json");
    outputs.keep();
  }
  EXPECT_TRUE(fs::exists(dir / "ring.json"));
}

TEST(RunOutputs, WithoutADirectoryNothingHappens) {
  RunOutputs outputs("");
  outputs.prepare();
  outputs.wrote("nothing.json");
  EXPECT_TRUE(outputs.directory().empty());
}

TEST(RunOutputs, SigtermRemovesWhatTheRunWrote) {
  const fs::path dir = run_outputs_dir("signal");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RunOutputs outputs(dir);
    outputs.prepare();
    write(dir / "ring.json", "{}");
    outputs.wrote(dir / "ring.json");
    ::raise(SIGTERM);
    ::_exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(fs::exists(dir / "ring.json"));
}

}  // namespace
}  // namespace opsim
