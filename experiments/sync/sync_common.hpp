// Internal helpers shared by the synchronization strategies: checked inputs, a builder
// that adds copies and reductions (or leaves reductions out), a reusable name buffer and
// link-load bounds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/op_graph.hpp"
#include "experiments/sync/sync_strategy.hpp"
#include "hw_models/machine.hpp"

namespace opsim::sync {

/// The checked request: at least 2 distinct GPUs, bytes > 0.
struct SyncInput {
  const Machine& machine;
  std::string_view strategy;
  std::vector<DeviceId> gpus;
  double bytes = 0;
  bool include_reductions = true;
  bool both_directions = true;
};

/// Throws InputError "sync <strategy>: <what>".
[[noreturn]] void fail(const SyncInput& input, const std::string& what);

/// Builds short op names in one reused buffer, so two million names cost no allocations.
class NameBuffer {
 public:
  NameBuffer& clear() {
    text_.clear();
    return *this;
  }
  NameBuffer& text(std::string_view part) {
    text_.append(part);
    return *this;
  }
  NameBuffer& number(std::uint64_t value);
  std::string_view view() const { return text_; }

 private:
  std::string text_;
};

/// Adds copies and reductions to a graph. Reductions are left out when the input says so;
/// callers then make later ops wait on the reduction's inputs directly.
class SyncGraphBuilder {
 public:
  SyncGraphBuilder(const SyncInput& input, OpGraph& graph) : input_(input), graph_(graph) {}

  /// A copy of `bytes` from src's memory to dst's; `stream` is the scheduler's hint.
  OpId copy(DeviceId src, DeviceId dst, double bytes, std::string_view name, int stream = -1);
  /// Sums `buffers` fp32 buffers of `bytes` each on `device` after all of `inputs`:
  /// (buffers-1)*bytes/4 flops, (buffers+1)*bytes touched. Returns the ops that later work
  /// must wait for: the reduce, or `inputs` themselves when reductions are left out.
  std::vector<OpId> reduce(DeviceId device, int buffers, double bytes, std::span<const OpId> inputs,
                           std::string_view name, int stream = -1);
  /// The same for one input, without allocating: returns the reduce or the input.
  OpId reduce_one(DeviceId device, int buffers, double bytes, OpId input, std::string_view name,
                  int stream = -1);
  void after(std::span<const OpId> before, OpId op);
  void after(OpId before, OpId op) { graph_.add_dependency(before, op); }

  bool reductions() const { return input_.include_reductions; }
  std::string_view device_name(DeviceId id) const { return input_.machine.device(id).name; }

 private:
  OpId add_reduce(DeviceId device, int buffers, double bytes, std::string_view name, int stream);
  // Copies into `device` that a reduction consumes land in receive buffers: allocated when
  // the copy starts, released when `consumer` ends, or when the copy ends if reductions are
  // left out. Broadcasts and all-gathers overwrite the gradient in place and hold none.
  void hold_receive_buffers(DeviceId device, std::span<const OpId> inputs,
                            std::optional<OpId> consumer);

  const SyncInput& input_;
  OpGraph& graph_;
};

/// Bytes per link direction (half-duplex links: one shared slot), to bound transfer time.
class LinkLoad {
 public:
  explicit LinkLoad(const Machine& machine);
  /// Adds `bytes` along Machine::route(src, dst).
  void add(DeviceId src, DeviceId dst, double bytes);
  /// max over link directions of bytes / bytes_per_s, and over full-duplex links with a
  /// duplex bound of both directions' bytes / duplex_bytes_per_s: no schedule moves them faster.
  double seconds() const;

 private:
  std::size_t slot(LinkId link, bool forward) const;
  const Machine& machine_;
  std::vector<double> bytes_;
};

/// Strategy generators (one per file).
SyncPlan make_tree_plan(const SyncInput& input);
SyncPlan make_cpu_plan(const SyncInput& input);
SyncPlan make_split_plan(const SyncInput& input);
SyncPlan make_ring_plan(const SyncInput& input);
SyncPlan make_multi_ring_plan(const SyncInput& input);
SyncPlan make_ps_plan(const SyncInput& input);

// What each strategy needs of its input, checked without building the graph (the plan
// builders make the same checks): throws InputError when the strategy cannot run.
void check_cpu_plan(const SyncInput& input);
void check_split_plan(const SyncInput& input);
void check_multi_ring_plan(const SyncInput& input);
void check_ps_plan(const SyncInput& input);

/// Adds a chunked ring allreduce of `bytes` over `order` (2(n-1) steps of bytes/n each).
/// `ring` >= 0 prefixes names with "r<ring> " and is the copies' stream hint.
void add_ring_allreduce(SyncGraphBuilder& builder, std::span<const DeviceId> order, double bytes,
                        int ring);

/// Steps [first_step, end_step) of that allreduce: steps 0..n-2 are the reduce-scatter
/// (each GPU ends with one reduced chunk of bytes/n), n-1..2n-3 the all-gather (each GPU's
/// chunk reaches every other). The first step given waits for nothing.
void add_ring_steps(SyncGraphBuilder& builder, std::span<const DeviceId> order, double bytes,
                    int ring, std::size_t first_step, std::size_t end_step);

/// "tree: 4 GPUs, 160 MB, <detail>; 6 copies, 1 reduces, transfer bound 60.000 ms".
std::string describe(const SyncInput& input, const OpGraph& graph, double lower_bound_s,
                     std::string_view detail);

/// Gathers every sender's full gradient on `hub`, reduces `buffers` buffers there and
/// broadcasts the result back to the senders. Its bound: the gather must end before the
/// broadcast starts, so inbound and outbound link times add.
SyncPlan make_hub_plan(const SyncInput& input, DeviceId hub, std::span<const DeviceId> senders,
                       int buffers, std::string_view detail);

}  // namespace opsim::sync
