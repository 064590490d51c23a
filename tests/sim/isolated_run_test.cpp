// The one child-process runner: results, bad input, internal errors and crashes crossing the
// process boundary each as what they are; a pool that keeps job order; children that die
// with their parent.
#include "sim/isolated_run.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

#include "common/input_error.hpp"

namespace opsim {
namespace {

TEST(IsolatedRun, ReturnsTheChildsString) {
  const std::string big(1 << 20, 'x');  // larger than a pipe buffer
  EXPECT_EQ(run_isolated([] { return std::string("hello"); }), "hello");
  EXPECT_EQ(run_isolated([&] { return big; }), big);
}

TEST(IsolatedRun, BadInputInTheChildIsAnInputErrorInTheParent) {
  try {
    run_isolated([]() -> std::string { throw InputError("topology.yaml:3: bad link"); });
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "topology.yaml:3: bad link");
  }
}

TEST(IsolatedRun, OtherExceptionsInTheChildAreInternalFailures) {
  try {
    run_isolated([]() -> std::string { throw std::logic_error("scheduler stalled"); });
    FAIL() << "no exception";
  } catch (const InputError& e) {
    FAIL() << "an internal error came back as bad input: " << e.what();
  } catch (const ChildProcessFailure& e) {
    EXPECT_STREQ(e.what(), "scheduler stalled");
  }
}

TEST(IsolatedRun, ReportsACrashClearly) {
  try {
    run_isolated([]() -> std::string {
      std::raise(SIGSEGV);
      return "unreachable";
    });
    FAIL() << "no exception";
  } catch (const ChildProcessFailure& e) {
    EXPECT_STREQ(e.what(), "child process killed by signal 11 (Segmentation fault)");
  }
}

TEST(IsolatedRun, ReportsAnExitWithoutResult) {
  try {
    run_isolated([]() -> std::string { std::_Exit(7); });
    FAIL() << "no exception";
  } catch (const ChildProcessFailure& e) {
    EXPECT_STREQ(e.what(), "child process exited with status 7 without a result");
  }
}

TEST(IsolatedRunJobs, KeepsJobOrderAndEachFailuresKind) {
  std::vector<std::function<std::string()>> jobs = {
      [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // ends last
        return std::string("slow");
      },
      []() -> std::string { throw InputError("spec.yaml:2: unknown strategy"); },
      []() -> std::string { std::abort(); },
      [] { return std::string("fast"); },
  };
  std::vector<std::size_t> done_order;
  const auto outcomes = run_isolated_jobs(
      jobs, 4, [&](std::size_t index, const ChildOutcome&) { done_order.push_back(index); });
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(outcomes[0].failure, ChildFailure::kNone);
  EXPECT_EQ(outcomes[0].text, "slow");
  EXPECT_EQ(outcomes[1].failure, ChildFailure::kInputError);
  EXPECT_EQ(outcomes[1].text, "spec.yaml:2: unknown strategy");
  EXPECT_EQ(outcomes[2].failure, ChildFailure::kCrashed);
  EXPECT_EQ(outcomes[2].text, "child process killed by signal 6 (Aborted)");
  EXPECT_EQ(outcomes[3].text, "fast");
  ASSERT_EQ(done_order.size(), 4u);
  EXPECT_EQ(done_order.back(), 0u);
}

TEST(IsolatedRunJobs, RunsNoMoreThanParallelAtOnce) {
  // Each job takes 150 ms: two at a time, four jobs take two rounds (>= 300 ms).
  std::vector<std::function<std::string()>> jobs(4, [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    return std::string("done");
  });
  const auto start = std::chrono::steady_clock::now();
  const auto outcomes = run_isolated_jobs(jobs, 2);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& outcome : outcomes) EXPECT_EQ(outcome.text, "done");
  EXPECT_GE(elapsed_s, 0.3);
}

bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return true;
  return state == "Z" || state == "X";  // dead, waiting for whoever adopted it to reap it
}

TEST(IsolatedRunJobs, ChildrenDieWithTheirParent) {
  int pid_pipe[2];
  ASSERT_EQ(::pipe(pid_pipe), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {  // a parent whose one job reports its pid and then outlives everything
    ::close(pid_pipe[0]);
    run_isolated_jobs({[&] {
                        const pid_t self = ::getpid();
                        (void)!::write(pid_pipe[1], &self, sizeof self);
                        std::this_thread::sleep_for(std::chrono::seconds(60));
                        return std::string();
                      }},
                      1);
    ::_exit(0);
  }
  ::close(pid_pipe[1]);
  pid_t child = 0;
  ASSERT_EQ(::read(pid_pipe[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::close(pid_pipe[0]);
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!process_gone(child) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(process_gone(child)) << "child " << child << " outlived its parent";
  if (!process_gone(child)) ::kill(child, SIGKILL);
}

// Collects every outcome the pool has, waiting for each.
std::map<std::size_t, ChildOutcome> collect(IsolatedJobPool& pool) {
  std::map<std::size_t, ChildOutcome> out;
  while (pool.running() > 0)
    for (auto& [id, outcome] : pool.wait(-1)) out[id] = std::move(outcome);
  return out;
}

TEST(IsolatedJobPool, ReturnsEachChildsOutcomeWithTheIdItWasStartedWith) {
  IsolatedJobPool pool;
  pool.start(7, [] { return std::string("seven"); });
  pool.start(3, []() -> std::string { throw InputError("three is wrong"); });
  EXPECT_EQ(pool.running(), 2u);
  const auto outcomes = collect(pool);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_TRUE(outcomes.at(7).ok());
  EXPECT_EQ(outcomes.at(7).text, "seven");
  EXPECT_EQ(outcomes.at(3).failure, ChildFailure::kInputError);
  EXPECT_EQ(outcomes.at(3).text, "three is wrong");
}

TEST(IsolatedJobPool, WaitReturnsEmptyAfterItsTimeoutWhileChildrenRun) {
  IsolatedJobPool pool;
  pool.start(1, [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return std::string("late");
  });
  EXPECT_TRUE(pool.wait(10).empty());
  EXPECT_EQ(pool.running(), 1u);
  EXPECT_EQ(collect(pool).at(1).text, "late");
}

TEST(IsolatedJobPool, KillAllReportsTheRunningChildrenAsKilled) {
  IsolatedJobPool pool;
  pool.start(1, [] {
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return std::string("never");
  });
  pool.kill_all();
  const ChildOutcome outcome = collect(pool).at(1);
  EXPECT_EQ(outcome.failure, ChildFailure::kCrashed);
  EXPECT_EQ(outcome.text, "child process killed by signal 9 (Killed)");
}

TEST(IsolatedJobPool, ChildrenThatIgnoreInterruptsFinishTheirJobAfterSigintAndSigterm) {
  IsolatedJobPool pool;
  pool.set_children_ignore_interrupts(true);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  pool.start(1, [&] {
    const pid_t self = ::getpid();
    (void)!::write(pipe_fds[1], &self, sizeof self);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return std::string("finished");
  });
  pid_t child = 0;
  ASSERT_EQ(::read(pipe_fds[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  ::kill(child, SIGINT);
  ::kill(child, SIGTERM);
  const ChildOutcome outcome = collect(pool).at(1);
  EXPECT_TRUE(outcome.ok()) << outcome.text;
  EXPECT_EQ(outcome.text, "finished");
}

}  // namespace
}  // namespace opsim
