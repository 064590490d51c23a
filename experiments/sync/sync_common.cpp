#include "experiments/sync/sync_common.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/input_error.hpp"
#include "hw_models/units.hpp"

namespace opsim::sync {

void fail(const SyncInput& input, const std::string& what) {
  throw InputError("sync " + std::string(input.strategy) + ": " + what);
}

NameBuffer& NameBuffer::number(std::uint64_t value) {
  char digits[20];  // 2^64 has 20 digits
  const char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  text_.append(digits,
               static_cast<std::size_t>(
                   end - digits));  // one append: a push_back per digit cost more than the copy
  return *this;
}

OpId SyncGraphBuilder::copy(DeviceId src, DeviceId dst, double bytes, std::string_view name,
                            int stream) {
  Op op;
  op.kind = OpKind::kCopy;
  op.device = src;
  op.peer = dst;
  op.bytes = bytes;
  op.stream = stream;
  return graph_.add(op, name);
}

OpId SyncGraphBuilder::add_reduce(DeviceId device, int buffers, double bytes, std::string_view name,
                                  int stream) {
  Op op;
  op.kind = OpKind::kCompute;
  op.kernel = KernelClass::kReduce;
  op.dtype = DataType::kF32;
  op.device = device;
  op.stream = stream;
  op.flops = static_cast<double>(buffers - 1) * bytes / 4.0;
  op.bytes = static_cast<double>(buffers + 1) * bytes;
  return graph_.add(op, name);
}

void SyncGraphBuilder::hold_receive_buffers(DeviceId device, std::span<const OpId> inputs,
                                            std::optional<OpId> consumer) {
  for (OpId id : inputs) {
    const Op& in = graph_.op(id);
    if (in.kind != OpKind::kCopy || in.peer != device) continue;
    graph_.add_memory_effect(id, {.alloc_bytes = in.bytes});
    graph_.add_memory_effect(consumer.value_or(id), {.release_bytes = in.bytes});
  }
}

std::vector<OpId> SyncGraphBuilder::reduce(DeviceId device, int buffers, double bytes,
                                           std::span<const OpId> inputs, std::string_view name,
                                           int stream) {
  if (!input_.include_reductions) {
    hold_receive_buffers(device, inputs, std::nullopt);
    return {inputs.begin(), inputs.end()};
  }
  const OpId op = add_reduce(device, buffers, bytes, name, stream);
  after(inputs, op);
  hold_receive_buffers(device, inputs, op);
  return {op};
}

OpId SyncGraphBuilder::reduce_one(DeviceId device, int buffers, double bytes, OpId input,
                                  std::string_view name, int stream) {
  const OpId inputs[] = {input};
  if (!input_.include_reductions) {
    hold_receive_buffers(device, inputs, std::nullopt);
    return input;
  }
  const OpId op = add_reduce(device, buffers, bytes, name, stream);
  graph_.add_dependency(input, op);
  hold_receive_buffers(device, inputs, op);
  return op;
}

void SyncGraphBuilder::after(std::span<const OpId> before, OpId op) {
  for (OpId b : before) graph_.add_dependency(b, op);
}

LinkLoad::LinkLoad(const Machine& machine)
    : machine_(machine), bytes_(machine.links().size() * 2, 0.0) {}

std::size_t LinkLoad::slot(LinkId link, bool forward) const {
  // A half-duplex link has one capacity for both directions.
  const bool split = machine_.link(link).model.full_duplex;
  return static_cast<std::size_t>(link) * 2 + (split && !forward ? 1 : 0);
}

void LinkLoad::add(DeviceId src, DeviceId dst, double bytes) {
  for (const Hop& hop : machine_.route(src, dst)) bytes_[slot(hop.link, hop.forward)] += bytes;
}

double LinkLoad::seconds() const {
  double worst = 0;
  for (std::size_t s = 0; s < bytes_.size(); ++s)
    if (bytes_[s] > 0)
      worst =
          std::max(worst, bytes_[s] / machine_.link(static_cast<LinkId>(s / 2)).model.bytes_per_s);
  // A full-duplex link with a bound on both directions together (a host's PCIe path to a
  // GPU) cannot move its two directions' bytes faster than that bound either.
  for (LinkId link = 0; link < machine_.links().size(); ++link) {
    const LinkModel& model = machine_.link(link).model;
    if (!model.full_duplex || model.duplex_bytes_per_s <= 0) continue;
    const double both = bytes_[std::size_t{link} * 2] + bytes_[std::size_t{link} * 2 + 1];
    worst = std::max(worst, both / model.duplex_bytes_per_s);
  }
  return worst;
}

std::string describe(const SyncInput& input, const OpGraph& graph, double lower_bound_s,
                     std::string_view detail) {
  std::size_t copies = 0;
  std::size_t reduces = 0;
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    if (op.kind == OpKind::kCopy) ++copies;
    if (op.kind == OpKind::kCompute && op.kernel == KernelClass::kReduce) ++reduces;
  }
  std::string text = std::string(input.strategy) + ": " + std::to_string(input.gpus.size()) +
                     " GPUs, " + format_bytes(input.bytes) + ", " + std::string(detail) + "; " +
                     std::to_string(copies) + " copies, " + std::to_string(reduces) +
                     " reduces, transfer bound ";
  text += std::isnan(lower_bound_s) ? std::string("unknown") : format_seconds(lower_bound_s);
  return text;
}

SyncPlan make_hub_plan(const SyncInput& input, DeviceId hub, std::span<const DeviceId> senders,
                       int buffers, std::string_view detail) {
  SyncPlan plan;
  plan.graph.reserve(2 * senders.size() + 1);
  SyncGraphBuilder builder(input, plan.graph);
  NameBuffer name;
  const std::string_view hub_name = builder.device_name(hub);
  LinkLoad gather_load(input.machine);
  LinkLoad broadcast_load(input.machine);

  std::vector<OpId> gathered;
  for (DeviceId gpu : senders) {
    name.clear().text("gather ").text(builder.device_name(gpu)).text("→").text(hub_name);
    gathered.push_back(builder.copy(gpu, hub, input.bytes, name.view()));
    gather_load.add(gpu, hub, input.bytes);
  }
  name.clear().text("reduce ").text(hub_name);
  const std::vector<OpId> ready = builder.reduce(hub, buffers, input.bytes, gathered, name.view());
  for (DeviceId gpu : senders) {
    name.clear().text("bcast ").text(hub_name).text("→").text(builder.device_name(gpu));
    builder.after(ready, builder.copy(hub, gpu, input.bytes, name.view()));
    broadcast_load.add(hub, gpu, input.bytes);
  }
  plan.lower_bound_s = gather_load.seconds() + broadcast_load.seconds();
  plan.summary = describe(input, plan.graph, plan.lower_bound_s, detail);
  return plan;
}

}  // namespace opsim::sync
