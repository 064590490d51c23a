#include "engine/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace opsim {

Scheduler::Scheduler(const Machine& machine, const OpGraph& graph, Backend& backend,
                     SchedulerOptions options)
    : machine_(machine),
      graph_(graph),
      backend_(backend),
      completion_mutex_(backend.completion_mutex()),
      in_order_streams_(backend.queues_streams_in_order()),
      options_(options),
      streams_(machine, options.host_threads),
      stream_state_(streams_.size()),
      memory_bytes_(machine.devices().size(), 0.0),
      peak_memory_bytes_(machine.devices().size(), 0.0),
      placed_count_(machine.devices().size(), 0) {}

void Scheduler::grow_to(std::size_t ops) {
  if (!prepared_) {
    backend_.prepare(machine_, graph_, streams_, *this);
    prepared_ = true;
  }
  if (state_.size() < ops) state_.resize(ops);
  if (options_.keep_op_times && times_.size() < ops) times_.resize(ops);
}

void Scheduler::submit_all() {
  // Held over every launch: a worker may finish the first op before the last is submitted.
  const auto guard = lock();
  grow_to(graph_.size());
  std::vector<OpId> ready;
  for (OpId id = 0; id < graph_.size(); ++id) {
    if (state_[id].remaining != kNotSubmitted) continue;
    state_[id].remaining = graph_.in_degree(id);
    ++submitted_count_;
    if (state_[id].remaining == 0) ready.push_back(id);
  }
  for (OpId id : ready) make_ready(id);
}

void Scheduler::submit_locked(OpId op, std::span<const OpId> predecessors) {
  grow_to(graph_.size());
  OpState& state = state_.at(op);
  if (state.remaining != kNotSubmitted)
    throw std::logic_error("Scheduler::submit: op submitted twice");
  state.remaining = 0;
  ++submitted_count_;
  for (OpId p : predecessors)
    if (!finished(p)) ++state.remaining;
  if (state.remaining == 0) make_ready(op);
}

void Scheduler::run() {
  backend_.run_until_idle();
  const auto guard = lock();
  if (finished_count_ != submitted_count_)
    throw std::logic_error(
        "scheduler stalled: " + std::to_string(submitted_count_ - finished_count_) +
        " submitted ops never became ready (missing predecessor?)");
  for (SchedulerObserver* o : observers_) o->on_run_finished(makespan_ns_);
}

DeviceId Scheduler::place(const Op& op) {
  if (op.device != kNoDevice) return op.device;
  // Unpinned compute goes to the GPU (else CPU) that has received the fewest ops so far.
  auto candidates = machine_.gpus();
  if (candidates.empty()) candidates = machine_.cpus();
  if (candidates.empty()) throw std::invalid_argument("no CPU or GPU to place an op on");
  DeviceId best = candidates.front();
  for (DeviceId d : candidates)
    if (placed_count_[d] < placed_count_[best]) best = d;
  return best;
}

StreamIndex Scheduler::least_loaded(DeviceId device, StreamKind kind) {
  const std::uint32_t n = streams_.count(device, kind);
  StreamIndex best = streams_.at(device, kind, 0);
  auto load = [&](StreamIndex s) {
    return stream_state_[s].queue.size() + stream_state_[s].launched;
  };
  for (std::uint32_t i = 1; i < n; ++i) {
    const StreamIndex s = streams_.at(device, kind, i);
    if (load(s) < load(best)) best = s;
  }
  return best;
}

StreamIndex Scheduler::choose_stream(const Op& op, DeviceId device) {
  switch (op.kind) {
    case OpKind::kCompute:
      if (op.stream >= 0)
        return streams_.at(device, StreamKind::kCompute, static_cast<std::uint32_t>(op.stream));
      return least_loaded(device, StreamKind::kCompute);
    case OpKind::kCopy: {
      // A kernel copy runs on its source GPU's channel lane. A GPU's DMA engines drive the
      // other copies: the source GPU's outbound engine, else the destination GPU's inbound
      // one; host-to-host copies use the CPU's memcpy workers.
      const Device& src = machine_.device(op.device);
      const Device& dst = machine_.device(op.peer);
      if (op.kernel_copy && src.kind == DeviceKind::kGpu)
        return streams_.at(op.device, StreamKind::kChannel,
                           op.stream >= 0 ? static_cast<std::uint32_t>(op.stream) : 0);
      if (src.kind == DeviceKind::kGpu) {
        const std::uint32_t index = op.stream >= 0 ? static_cast<std::uint32_t>(op.stream) : 0;
        return streams_.at(op.device, StreamKind::kCopy, index);
      }
      if (dst.kind == DeviceKind::kGpu) {
        const std::uint32_t engines = streams_.count(op.peer, StreamKind::kCopy);
        const std::uint32_t index =
            op.stream >= 0 ? static_cast<std::uint32_t>(op.stream) : (engines >= 2 ? 1 : 0);
        return streams_.at(op.peer, StreamKind::kCopy, index);
      }
      if (op.stream >= 0)
        return streams_.at(op.device, StreamKind::kCopy, static_cast<std::uint32_t>(op.stream));
      return least_loaded(op.device, StreamKind::kCopy);
    }
    case OpKind::kDiskRead:
    case OpKind::kDiskWrite:
      if (op.stream >= 0)
        return streams_.at(op.device, StreamKind::kIo, static_cast<std::uint32_t>(op.stream));
      return least_loaded(op.device, StreamKind::kIo);
    case OpKind::kHostDispatch:
      return streams_.at(op.device, StreamKind::kHost,
                         op.stream >= 0 ? static_cast<std::uint32_t>(op.stream) : 0);
  }
  return 0;
}

DeviceId Scheduler::placed_device(OpId op) const {
  const DeviceId pinned = graph_.op(op).device;
  if (pinned != kNoDevice) return pinned;
  auto it = placed_unpinned_.find(op);
  return it == placed_unpinned_.end() ? kNoDevice : it->second;
}

void Scheduler::make_ready(OpId id) {
  const Op& op = graph_.op(id);
  OpState& state = state_[id];
  const DeviceId device = place(op);
  if (op.device == kNoDevice) placed_unpinned_.emplace(id, device);
  ++placed_count_[device];
  state.stream = choose_stream(op, device);
  StreamState& stream = stream_state_[state.stream];
  // Only a backend that runs one op per stream at a time (simulation) asks how long an op
  // waited; one that queues streams in order holds the op itself, and skips the clock read.
  stream.queue.push_back({id, in_order_streams_ ? 0 : backend_.now_ns()});
  ++stream.assigned;
  try_start(state.stream);
}

void Scheduler::try_start(StreamIndex s) {
  StreamState& stream = stream_state_[s];
  // A backend that keeps streams in order takes a stream's ready ops as they come;
  // otherwise one op per stream at a time. Not under a window: ops queued on a busy stream
  // would hold window slots that ready ops on idle streams could use, and a pipelining
  // backend (real) would then schedule differently from one that does not (simulated).
  const bool pipelined = in_order_streams_ && options_.max_in_flight == 0;
  while (!stream.queue.empty() && (pipelined || stream.launched == 0)) {
    if (options_.max_in_flight != 0 && in_flight_ >= options_.max_in_flight) {
      if (!stream.waiting_for_window) {
        stream.waiting_for_window = true;
        window_waiters_.push_back(s);
      }
      return;
    }
    const auto [id, ready_ns] = stream.queue.front();
    stream.queue.pop_front();
    ++stream.launched;
    ++in_flight_;
    const Op& op = graph_.op(id);
    if (graph_.has_memory_effects())
      if (const double alloc_bytes = graph_.memory_effect(id).alloc_bytes; alloc_bytes > 0)
        change_memory(op.result_device(), alloc_bytes, backend_.now_ns());
    // Under a window the real executor does not pipeline (see above), so no stream holds an
    // op before its launch and no wait hides its launch latency: it counts from now.
    const TimeNs since_ns = options_.max_in_flight == 0 ? ready_ns : backend_.now_ns();
    backend_.launch(OpLaunch{id, &op, placed_device(id), s, since_ns});
  }
}

void Scheduler::change_memory(DeviceId device, double delta_bytes, TimeNs at_ns) {
  if (device >= memory_bytes_.size()) return;
  memory_bytes_[device] += delta_bytes;
  peak_memory_bytes_[device] = std::max(peak_memory_bytes_[device], memory_bytes_[device]);
  for (SchedulerObserver* o : observers_)
    o->on_memory_changed(device, memory_bytes_[device], at_ns);
}

void Scheduler::on_op_completed(OpId id, TimeNs start_ns, TimeNs end_ns) {
  OpState& state = state_[id];
  state.remaining = kFinished;
  if (options_.keep_op_times) times_[id] = OpTimes{start_ns, end_ns};
  makespan_ns_ = std::max(makespan_ns_, end_ns);
  ++finished_count_;
  --in_flight_;
  const Op& op = graph_.op(id);
  if (graph_.has_memory_effects())
    if (const double release_bytes = graph_.memory_effect(id).release_bytes; release_bytes > 0)
      change_memory(op.result_device(), -release_bytes, end_ns);
  if (!observers_.empty()) {
    const DeviceId device = placed_device(id);
    for (SchedulerObserver* o : observers_)
      o->on_op_finished(id, device, state.stream, start_ns, end_ns);
  }

  StreamState& stream = stream_state_[state.stream];
  --stream.launched;

  // Successors that became ready, in op-id order so that runs are deterministic. Backends
  // never complete an op inside launch(), so this is not re-entered.
  newly_ready_.clear();
  graph_.for_each_successor(id, [&](OpId s) {
    if (s >= state_.size()) return;
    std::uint32_t& remaining = state_[s].remaining;
    if (remaining != kNotSubmitted && remaining != kFinished && --remaining == 0)
      newly_ready_.push_back(s);
  });
  std::sort(newly_ready_.begin(), newly_ready_.end());
  // With a bounded window and streams already waiting for a slot, this stream queues
  // behind them (round robin) instead of taking the freed slot straight back.
  if (window_waiters_.empty()) {
    try_start(state.stream);
  } else if (!stream.queue.empty() && !stream.waiting_for_window) {
    stream.waiting_for_window = true;
    window_waiters_.push_back(state.stream);
  }
  // Streams that waited for a slot go before ops that only just became ready.
  while (!window_waiters_.empty() &&
         (options_.max_in_flight == 0 || in_flight_ < options_.max_in_flight)) {
    const StreamIndex s = window_waiters_.front();
    window_waiters_.pop_front();
    stream_state_[s].waiting_for_window = false;
    try_start(s);
  }
  for (OpId r : newly_ready_) make_ready(r);
}

}  // namespace opsim
