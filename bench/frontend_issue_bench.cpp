// What the frontend costs per op: a program issuing N tiny elementwise adds (1 x 16 floats)
// through Context on this host's real backend, asynchronously (one wait at the end) and
// synchronously (a wait after each, blocking and polling), median of R repeats. The
// asynchronous figure is t1, the issuing cost per op that `opsim experiment async` hides.
//
//   frontend_issue_bench [N=100000] [R=5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "engine/frontend/context.hpp"
#include "engine/frontend/host_machine.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using opsim::frontend::Array;
using opsim::frontend::Context;

// ns per op of one program run; `issue_ns` gets the time to issue alone (async).
double run(int n, bool sync, bool polls, double* issue_ns) {
  opsim::frontend::ContextOptions options;
  options.cpu.caller_polls = polls;
  Context ctx(opsim::frontend::host_machine(), options);
  const Array x = ctx.full(opsim::frontend::cpu(), 1, 16, 1.0f);
  const Array one = ctx.full(opsim::frontend::cpu(), 1, 16, 1.0f);
  ctx.waitall();
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    const Array y = ctx.add(x, one);
    if (sync) ctx.wait_to_read(y);
  }
  const auto t1 = Clock::now();
  ctx.waitall();
  const auto t2 = Clock::now();
  if (issue_ns) *issue_ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
  return std::chrono::duration<double, std::nano>(t2 - t0).count() / n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100'000;
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  std::vector<double> issue, async, sync_block, sync_poll;
  for (int r = 0; r < repeats; ++r) {
    double i = 0;
    async.push_back(run(n, false, true, &i));
    issue.push_back(i);
    sync_block.push_back(run(n / 10, true, false, nullptr));
    sync_poll.push_back(run(n / 10, true, true, nullptr));
  }
  std::printf("frontend, %d tiny adds, median of %d (ns per op)\n", n, repeats);
  std::printf("  async: issue %8.1f  total %8.1f\n", median(issue), median(async));
  std::printf("  sync, blocking wait  %8.1f  (%.1fx async)\n", median(sync_block),
              median(sync_block) / median(async));
  std::printf("  sync, polling wait   %8.1f  (%.1fx async)\n", median(sync_poll),
              median(sync_poll) / median(async));
  return 0;
}
