// Physical cores from the kernel's topology files: SMT siblings count once, packages apart,
// and a tree that cannot be read gives no answer rather than a guess.
#include "experiments/calibration/cpu_topology.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "engine/exec/real_backend.hpp"

namespace opsim::calibration {
namespace {

namespace fs = std::filesystem;

class CpuTopology : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("opsim-cpu-topology-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void describe(int cpu, int package, int core) {
    const fs::path dir = root_ / ("cpu" + std::to_string(cpu)) / "topology";
    fs::create_directories(dir);
    std::ofstream(dir / "physical_package_id") << package << "\n";
    std::ofstream(dir / "core_id") << core << "\n";
  }

  fs::path root_;
};

TEST_F(CpuTopology, CountsSmtSiblingsOnce) {
  // Two packages of two cores, each core with two hardware threads (Linux numbers the
  // siblings apart: cpu0 and cpu4 share a core).
  for (int cpu = 0; cpu < 8; ++cpu) describe(cpu, cpu % 4 / 2, cpu % 2);
  EXPECT_EQ(physical_cores({0, 1, 2, 3, 4, 5, 6, 7}, root_), 4);
  EXPECT_EQ(physical_cores({0, 4}, root_), 1);
  EXPECT_EQ(physical_cores({0, 1, 4, 5}, root_), 2);
  // The same core id in two packages is two cores.
  EXPECT_EQ(physical_cores({0, 2}, root_), 2);
}

TEST_F(CpuTopology, GivesNoAnswerWhereAFileIsMissingOrUnreadable) {
  describe(0, 0, 0);
  EXPECT_EQ(physical_cores({0, 1}, root_), std::nullopt);  // no cpu1
  describe(1, 0, 1);
  std::ofstream(root_ / "cpu1" / "topology" / "core_id") << "unknown\n";
  EXPECT_EQ(physical_cores({0, 1}, root_), std::nullopt);
  EXPECT_EQ(physical_cores({}, root_), std::nullopt);
}

TEST(CpuTopologyOfThisMachine, HasAtLeastOneCoreAndNoMoreThanItsCpus) {
  const std::vector<int> cpus = allowed_cpus();
  const std::optional<int> cores = physical_cores(cpus);
  // A kernel without the topology files (some containers) gets no answer, not a guess.
  if (!fs::exists("/sys/devices/system/cpu/cpu" + std::to_string(cpus.front()) + "/topology")) {
    EXPECT_EQ(cores, std::nullopt);
    return;
  }
  ASSERT_TRUE(cores.has_value());
  EXPECT_GE(*cores, 1);
  EXPECT_LE(*cores, static_cast<int>(cpus.size()));
}

}  // namespace
}  // namespace opsim::calibration
