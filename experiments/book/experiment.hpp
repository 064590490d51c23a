// The book's "Computational Performance" experiments as library functions: each writes its
// program once against the frontend and runs it for real (this host, RealBackend) or in
// simulation (the recorded graph, dispatch cost and waits included, handed to a Backend).
//
//   ExperimentOptions options;               // backend "real", the book's sizes
//   ExperimentResult r = run_experiment("async", options);
//   for (const Variant& v : r.variants) std::printf("%s %.3f s\n", v.name.c_str(), v.wall_s);
//
// Experiments: async, cpu-gpu, compute-copy, mlp-memory, data-parallel (see names()).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend.hpp"
#include "engine/trace.hpp"

namespace opsim::book {

struct ExperimentOptions {
  /// "real" (this host) or "sim" (recorded, then run on make_sim_backend's backend).
  std::string backend = "real";
  /// sim: the machine to simulate; it needs the CPUs/GPUs the experiment uses. Unset: the
  /// host machine (CPU only). real: ignored (the host as the real executor sees it).
  std::optional<Machine> machine;
  /// sim: makes the backend that runs the recorded graph in this process. Unset: the
  /// SimGrid backend, each variant in a forked child (one SimGrid engine per process).
  std::function<std::unique_ptr<Backend>(const Machine&)> make_sim_backend;
  /// Frontend in-flight window (ops issued and unfinished); 0: none. mlp-memory adds a
  /// "no barrier, window" variant when set.
  std::uint32_t window = 0;
  /// sim: host seconds per issued op (t1); negative: the machine's CPU dispatch_s.
  double dispatch_s = -1;
  /// real: runs per variant; the fastest is reported (other load on the host only adds time).
  int repeats = 1;

  int tiny_ops = 1000;                ///< async: ops per variant
  int matmuls = 10;                   ///< cpu-gpu, compute-copy: matmuls per group
  std::size_t matmul_n = 512;         ///< cpu-gpu, compute-copy: n of the n x n matrices
  int mlp_batches = 150;              ///< mlp-memory
  std::size_t mlp_batch = 1024;       ///< mlp-memory: examples per batch
  std::size_t mlp_inputs = 512;       ///< mlp-memory: input features
  std::size_t mlp_hidden1 = 2048;     ///< mlp-memory: first dense layer
  std::size_t mlp_hidden2 = 512;      ///< mlp-memory: second dense layer (the third has 1 unit)
  std::string dp_strategy = "ring";   ///< data-parallel: a strategy of experiments/sync
  int dp_gpus = 0;                    ///< data-parallel: GPUs used; 0: all of the machine's
  int dp_buckets = 4;                 ///< data-parallel: gradient buckets (layers)
  double dp_gradient_bytes = 160e6;   ///< data-parallel: gradient bytes per GPU
  double dp_backward_flops = 1.2e12;  ///< data-parallel: backward flops per GPU per step
};

/// One way of running the experiment's program ("sync", "async", "with barrier" ...).
struct Variant {
  std::string name;
  double wall_s = 0;             ///< real: measured wall time; sim: simulated makespan
  double peak_memory_bytes = 0;  ///< highest memory in use on the experiment's device
  Trace trace;
};

struct ExperimentResult {
  std::string experiment;
  std::string backend;  ///< "real" or "sim"
  std::vector<Variant> variants;
  /// Plain sentences: what was skipped and why (e.g. "no usable GPU (no NVIDIA driver …)"), what stands in.
  std::vector<std::string> notes;

  /// The variant called `name`, or null.
  const Variant* find(std::string_view name) const;
};

/// Runs experiment `name` with `options`. Throws InputError for an unknown name or backend,
/// or a sim run without make_sim_backend or with a machine lacking the devices it needs.
ExperimentResult run_experiment(std::string_view name, const ExperimentOptions& options);

/// The experiment names run_experiment accepts, in the book's order.
std::span<const std::string_view> experiment_names();

}  // namespace opsim::book
