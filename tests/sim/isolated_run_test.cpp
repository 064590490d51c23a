// run_isolated: results, child exceptions and child crashes crossing the process boundary.
#include "sim/isolated_run.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

namespace opsim {
namespace {

TEST(IsolatedRun, ReturnsTheChildsString) {
  const std::string big(1 << 20, 'x');  // larger than a pipe buffer
  EXPECT_EQ(run_isolated([] { return std::string("hello"); }), "hello");
  EXPECT_EQ(run_isolated([&] { return big; }), big);
}

TEST(IsolatedRun, PropagatesTheChildsExceptionMessage) {
  try {
    run_isolated([]() -> std::string { throw std::invalid_argument("topology.yaml:3: bad link"); });
    FAIL() << "no exception";
  } catch (const IsolatedRunError& e) {
    EXPECT_STREQ(e.what(), "topology.yaml:3: bad link");
  }
}

TEST(IsolatedRun, ReportsACrashClearly) {
  try {
    run_isolated([]() -> std::string {
      std::raise(SIGSEGV);
      return "unreachable";
    });
    FAIL() << "no exception";
  } catch (const IsolatedRunError& e) {
    EXPECT_NE(std::string(e.what()).find("signal 11"), std::string::npos) << e.what();
  }
}

TEST(IsolatedRun, ReportsAnExitWithoutResult) {
  try {
    run_isolated([]() -> std::string { std::_Exit(7); });
    FAIL() << "no exception";
  } catch (const IsolatedRunError& e) {
    EXPECT_NE(std::string(e.what()).find("status 7"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace opsim
