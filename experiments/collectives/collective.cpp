// The table of collectives and algorithms, the checks every request gets, and nccl-tests'
// bus-bandwidth factors.
#include "experiments/collectives/collective.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/input_error.hpp"
#include "experiments/collectives/collective_common.hpp"
#include "hw_models/units.hpp"

namespace opsim {

namespace {

constexpr std::string_view kCollectives[] = {"allreduce", "reduce_scatter", "all_gather",
                                             "broadcast", "reduce",         "all_to_all"};
constexpr std::string_view kAlgorithms[] = {"ring", "direct"};

template <typename Names>
std::string joined(const Names& names) {
  std::string text;
  for (std::string_view name : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

[[noreturn]] void fail(std::string_view op, const std::string& what) {
  throw InputError("collective " + std::string(op) + ": " + what);
}

std::vector<DeviceId> checked_gpus(std::string_view op, const Machine& machine,
                                   const CollectiveOptions& options) {
  std::vector<DeviceId> gpus = options.gpus.empty() ? machine.gpus() : options.gpus;
  std::vector<char> seen(machine.devices().size(), 0);
  for (DeviceId id : gpus) {
    if (id >= machine.devices().size())
      fail(op, "device #" + std::to_string(id) + " is not on machine '" + machine.name() + "'");
    if (machine.device(id).kind != DeviceKind::kGpu)
      fail(op, "'" + machine.device(id).name + "' is not a GPU");
    if (seen[id]) fail(op, "GPU '" + machine.device(id).name + "' is listed twice");
    seen[id] = 1;
  }
  if (gpus.size() < 2)
    fail(op, "needs at least 2 GPUs, machine '" + machine.name() + "' offers " +
                 std::to_string(gpus.size()));
  return gpus;
}

}  // namespace

std::vector<std::string_view> collective_names() {
  return {std::begin(kCollectives), std::end(kCollectives)};
}

std::vector<std::string_view> collective_algorithms() {
  return {std::begin(kAlgorithms), std::end(kAlgorithms)};
}

std::vector<std::string_view> collective_algorithms(std::string_view op) {
  if (std::find(std::begin(kCollectives), std::end(kCollectives), op) == std::end(kCollectives))
    fail(op, "unknown collective (choose " + joined(kCollectives) + ")");
  if (op == "all_to_all") return {"direct"};
  return {"ring"};
}

double bus_factor(std::string_view op, std::size_t n) {
  const double ranks = static_cast<double>(n);
  if (op == "allreduce") return 2.0 * (ranks - 1) / ranks;
  if (op == "reduce_scatter" || op == "all_gather" || op == "all_to_all")
    return (ranks - 1) / ranks;
  if (op == "broadcast" || op == "reduce") return 1.0;
  fail(op, "unknown collective (choose " + joined(kCollectives) + ")");
}

std::size_t pipeline_chunks(double bytes) {
  constexpr double kPieceBytes = 128.0 * 1024.0;
  constexpr double kMostPieces = 4096;
  return static_cast<std::size_t>(std::clamp(std::ceil(bytes / kPieceBytes), 1.0, kMostPieces));
}

CollectivePlan make_collective(std::string_view op, const Machine& machine,
                               const CollectiveOptions& options) {
  const std::vector<std::string_view> applies = collective_algorithms(op);
  const std::string algorithm =
      options.algorithm.empty() ? std::string(applies.front()) : options.algorithm;
  if (std::find(std::begin(kAlgorithms), std::end(kAlgorithms), algorithm) == std::end(kAlgorithms))
    fail(op, "unknown algorithm '" + algorithm + "' (choose " + joined(kAlgorithms) + ")");
  if (std::find(applies.begin(), applies.end(), algorithm) == applies.end())
    fail(op, "algorithm '" + algorithm + "' does not apply; " + std::string(op) + " has " +
                 joined(applies));
  if (!std::isfinite(options.bytes) || options.bytes <= 0)
    fail(op, "size must be a positive number of bytes");
  const std::vector<DeviceId> gpus = checked_gpus(op, machine, options);
  const std::size_t chunks = options.chunks > 0 ? options.chunks : pipeline_chunks(options.bytes);

  CollectivePlan plan;
  try {
    plan.order = collectives::ring_order(machine, gpus);
    if (op == "allreduce")
      collectives::add_ring_allreduce(machine, plan.order, options.bytes, plan.graph);
    else if (op == "reduce_scatter")
      collectives::add_ring_reduce_scatter(machine, plan.order, options.bytes, plan.graph);
    else if (op == "all_gather")
      collectives::add_ring_all_gather(machine, plan.order, options.bytes, plan.graph);
    else if (op == "broadcast")
      collectives::add_ring_broadcast(machine, plan.order, options.bytes, chunks, plan.graph);
    else if (op == "reduce")
      collectives::add_ring_reduce(machine, plan.order, options.bytes, chunks, plan.graph);
    else
      collectives::add_direct_all_to_all(machine, plan.order, options.bytes, plan.graph);
  } catch (const std::invalid_argument& e) {  // e.g. no route between two GPUs
    fail(op, e.what());
  }
  plan.summary = std::string(op) + " (" + algorithm + "): " + std::to_string(gpus.size()) +
                 " GPUs, " + format_bytes(options.bytes) + ", " +
                 std::to_string(plan.graph.size()) + " copies";
  return plan;
}

}  // namespace opsim
