// Kineto trace reading speed: each file read (gzip included) REPEATS times, the best time,
// events per second, and the decompressed text's bytes per second.
//
//   build/bin/kineto_read_bench ../shared/traces/v100-ddp-2ranks-rank1.json.gz [REPEATS]
//
// Run it under /usr/bin/time -v for the peak memory.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "replay/kineto_trace.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg.find_first_not_of("0123456789") == std::string::npos)
      repeats = std::max(1, std::atoi(arg.c_str()));
    else
      paths.push_back(arg);
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: kineto_read_bench TRACE.json[.gz]... [REPEATS]\n");
    return 2;
  }
  try {
    for (const std::string& path : paths) {
      double best = 1e300;
      opsim::replay::KinetoTrace trace;
      for (int r = 0; r < repeats; ++r) {
        const auto began = std::chrono::steady_clock::now();
        trace = opsim::replay::read_kineto_trace(path);
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
      }
      std::printf("%s: %lld events (%zu host, %zu GPU) in %.3f s (best of %d): %.0f events/s\n",
                  path.c_str(), static_cast<long long>(trace.trace_events),
                  trace.host_events.size(), trace.gpu_events.size(), best, repeats,
                  static_cast<double>(trace.trace_events) / best);
    }
  } catch (const opsim::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
