// The SimGrid backend: simulates, on SimGrid 3.32 models of an opsim::Machine, exactly the
// ops the scheduler hands it, each started only when launch() is called (never the whole
// graph up front).
//
//   SimBackend backend;                          // creates the process's one SimGrid Engine
//   Scheduler scheduler(machine, graph, backend);
//   scheduler.submit_all();
//   scheduler.run();                             // backend.run_until_idle() inside
//   double seconds = ns_to_seconds(scheduler.makespan_ns());
//
// Model (all times in seconds of simulated time):
// - compute: launch_s + max(flops / (peak × eff), bytes / (memory bw × eff)) as work on the
//   device's host (one SimGrid core); concurrent ops on one device share it fairly. CPUs
//   use CpuModel::peak_flops_per_s() / compute_streams (one SimGrid core per
//   compute stream), DRAM bandwidth and no launch latency.
// - host dispatch: `seconds` on the CPU's program-thread host (not the CPU's compute host).
// - copy: the route latency as a delay, then `bytes` over the routed SimGrid links (split
//   duplex at LinkModel::bytes_per_s per direction, or one shared link when half duplex;
//   SimGrid link latency is zero so that max-min sharing is latency-neutral). A copy within
//   one device's memory crosses a memory-bus link of half the memory bandwidth, because a
//   memcpy reads and writes every byte.
// - disk: the drive's access time (sequential: access_s; random: ceil(bytes / block) /
//   IOPS) as a delay, then `bytes` through the disk's media link (read or write
//   bandwidth) and the routed links, as one streamed flow (the delay includes the route
//   latency too).
// - a flow alone on all its links runs in closed form (no SimGrid comm) until another flow
//   joins one of them; SimGrid 3.32's host-to-host comms cost O(comms in flight) each to
//   finish (a std::list scan), which dominated a 1024-GPU ring.
// Only one Engine may exist per process: run separate simulations in separate processes
// (sim/isolated_run.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
class Activity;
}  // namespace simgrid::s4u

namespace opsim {

struct SimBackendOptions {
  /// SimGrid log control, e.g. "root.thres:info"; empty: only critical messages.
  std::string log_control;
  /// Extra SimGrid configuration items ("name:value"), applied before the platform exists.
  std::vector<std::string> config;
  /// Create route endpoints for every pair of memory devices (so ops added after prepare()
  /// can use any pair) when there are at most this many pairs; larger machines get only
  /// the pairs the graph uses at prepare() time.
  std::size_t all_pairs_limit = 4096;
  /// A copy or disk flow alone on all its links takes bytes / narrowest bandwidth without a
  /// SimGrid comm (what max-min sharing gives a lone flow); it becomes a SimGrid comm for
  /// its remaining bytes as soon as another flow joins one of its links. false: every flow
  /// is a SimGrid comm from the start (same times, slower).
  bool closed_form_uncontended = true;
  /// Host dispatch ops run on the CPU's compute cores (one SimGrid core per compute stream),
  /// sharing them with the CPU's compute ops, instead of on a program thread of their own:
  /// what a real executor does when its threads outnumber the cores it gets (opsim validate
  /// on a calibrated profile). false: the program thread is a core of its own.
  bool dispatch_on_compute_cores = false;
  /// A copy within one CPU's memory (a memcpy) runs on that CPU's compute cores at half its
  /// DRAM bandwidth, sharing them with compute ops, instead of as a flow over a memory-bus
  /// link of its own: what a host whose copy threads compete with its compute threads does.
  bool cpu_copies_on_compute_cores = false;
};

class SimBackend final : public Backend {
 public:
  /// Creates the process's SimGrid Engine. Throws std::logic_error if one already exists.
  explicit SimBackend(SimBackendOptions options = {});
  ~SimBackend() override;
  SimBackend(const SimBackend&) = delete;
  SimBackend& operator=(const SimBackend&) = delete;

  std::string_view name() const override { return "sim"; }
  /// Builds the SimGrid platform for `machine` and the routes the graph's copies and disk
  /// ops use. Throws std::invalid_argument when a copy or disk op has no route.
  void prepare(const Machine& machine, const OpGraph& graph, const StreamTable& streams,
               CompletionSink& sink) override;
  void launch(const OpLaunch& launch) override;
  void run_until_idle() override;
  TimeNs now_ns() const override;

  /// Simulated duration of a compute op on `device` by the roofline, in seconds; on a CPU
  /// core whose memory-bound passes and GEMMs run at `core_pass_speed` and `core_gemm_speed`
  /// x the CPU's rates (CpuModel::core_pass_speeds, core_gemm_speeds).
  static double compute_time_s(const Machine& machine, const Op& op, DeviceId device,
                               double core_pass_speed = 1.0, double core_gemm_speed = 1.0);

  /// Number of SimGrid hosts and links the platform has (for tests of its size).
  std::size_t host_count() const;
  std::size_t link_count() const;

  // Internal: called by the SimGrid completion signal and the kernel timers.
  void on_activity_completed(const simgrid::s4u::Activity& activity);
  void on_timer(std::uint32_t slot);

 private:
  void launch_into(std::uint32_t slot, const OpLaunch& launch);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace opsim
