// "ps": the book's multi-machine parameter server (12.7.3/12.7.4) with sharded key-value
// push and pull. On each of the M servers:
//   1. the local GPUs send their gradients to the server's first GPU, which adds them (the
//      book's step 2: aggregate on one GPU, over fast local links, not on the CPU);
//   2. that GPU copies the sum to its host CPU (step 3);
//   3. the CPU pushes shard k (S/M bytes) to the parameter server on server k's CPU (step 4;
//      sharding makes the exchange O(1) per server instead of O(M) on one PS);
//   4. server k's CPU adds the M pushed shards (the "push" accumulation);
//   5. every CPU pulls every shard back (S/M each, step 5);
//   6. the CPU copies the summed gradient to the first GPU, which broadcasts it to the
//      others (steps 6 and 7).
#include <algorithm>
#include <limits>
#include <string_view>
#include <tuple>
#include <utility>

#include "experiments/sync/sync_common.hpp"

namespace opsim::sync {

namespace {

struct Server {
  std::vector<DeviceId> gpus;  // participating GPUs of this server, in the given order
  DeviceId cpu = kNoDevice;
  std::vector<OpId> pushed;  // copies that bring shards into this server's CPU
  std::vector<OpId> pulled;  // copies that bring summed shards back
};

/// The GPUs grouped by server in order of first appearance, each with its host CPU.
std::vector<Server> group_by_server(const SyncInput& input) {
  const Machine& machine = input.machine;
  std::vector<Server> servers;
  std::vector<std::uint32_t> server_of_node(machine.node_names().size(), UINT32_MAX);
  for (DeviceId gpu : input.gpus) {
    const std::uint32_t node = machine.device(gpu).node;
    if (server_of_node[node] == UINT32_MAX) {
      server_of_node[node] = static_cast<std::uint32_t>(servers.size());
      servers.emplace_back();
    }
    servers[server_of_node[node]].gpus.push_back(gpu);
  }
  if (servers.size() < 2)
    fail(input, "needs GPUs on at least 2 servers, the GPUs given are all on server '" +
                    machine.node_names()[machine.device(input.gpus.front()).node] + "'");
  for (Server& s : servers) s.cpu = machine.host_cpu_of(s.gpus.front());
  return servers;
}

/// What every step adds to: the graph being built, and the load on every link so far.
struct PsBuild {
  const SyncInput& input;
  std::vector<Server>& servers;
  SyncGraphBuilder& builder;
  double shard_bytes;
  LinkLoad total;
  NameBuffer name;

  /// Adds a copy named "<verb> <src>→<dst>" and counts it in the total load.
  OpId copy(std::string_view verb, DeviceId src, DeviceId dst, double bytes) {
    name.clear()
        .text(verb)
        .text(" ")
        .text(builder.device_name(src))
        .text("→")
        .text(builder.device_name(dst));
    total.add(src, dst, bytes);
    return builder.copy(src, dst, bytes, name.view());
  }
};

/// Steps 1-2 on server m: gather and sum on the first GPU, then copy the sum to the CPU.
/// Returns the copy to the CPU and the seconds this local phase needs at least.
std::pair<OpId, double> aggregate_on_server(PsBuild& b, std::size_t m) {
  const Server& s = b.servers[m];
  const DeviceId lead = s.gpus.front();
  const double bytes = b.input.bytes;
  LinkLoad gather(b.input.machine);
  std::vector<OpId> gathered;
  for (std::size_t i = 1; i < s.gpus.size(); ++i) {
    gathered.push_back(b.copy("gather", s.gpus[i], lead, bytes));
    gather.add(s.gpus[i], lead, bytes);
  }
  std::vector<OpId> ready = gathered;
  if (s.gpus.size() > 1) {
    b.name.clear().text("reduce ").text(b.builder.device_name(lead));
    ready = b.builder.reduce(lead, static_cast<int>(s.gpus.size()), bytes, gathered, b.name.view());
  }
  const OpId at_cpu = b.copy("d2h", lead, s.cpu, bytes);
  b.builder.after(ready, at_cpu);
  return {at_cpu, gather.seconds() + bytes / b.input.machine.route_bytes_per_s(lead, s.cpu)};
}

/// Adds a shard copy named "<verb> <src>→<dst> k<shard>".
OpId copy_shard(PsBuild& b, std::string_view verb, std::size_t src, std::size_t dst,
                std::size_t shard) {
  const DeviceId from = b.servers[src].cpu;
  const DeviceId to = b.servers[dst].cpu;
  b.name.clear().text(verb).text(" ").text(b.builder.device_name(from)).text("→");
  b.name.text(b.builder.device_name(to)).text(" k").number(shard);
  b.total.add(from, to, b.shard_bytes);
  return b.builder.copy(from, to, b.shard_bytes, b.name.view());
}

/// Step 3, sharded push: server m's CPU sends shard k to server k's CPU, by distance like
/// split. Returns the load on the links per shard.
std::vector<LinkLoad> push_shards(PsBuild& b, const std::vector<OpId>& at_cpu) {
  const std::size_t m_count = b.servers.size();
  std::vector<LinkLoad> load(m_count, LinkLoad(b.input.machine));
  for (std::size_t step = 1; step < m_count; ++step)
    for (std::size_t m = 0; m < m_count; ++m) {
      const std::size_t k = (m + step) % m_count;
      const OpId push = copy_shard(b, "push", m, k, k);
      b.builder.after(at_cpu[m], push);
      b.servers[k].pushed.push_back(push);
      load[k].add(b.servers[m].cpu, b.servers[k].cpu, b.shard_bytes);
    }
  return load;
}

/// Step 4: each parameter server adds its M copies of its shard. Returns, per shard, the ops
/// its pulls wait for.
std::vector<std::vector<OpId>> reduce_shards(PsBuild& b, const std::vector<OpId>& at_cpu) {
  const std::size_t m_count = b.servers.size();
  std::vector<std::vector<OpId>> shard_ready(m_count);
  for (std::size_t k = 0; k < m_count; ++k) {
    const DeviceId cpu = b.servers[k].cpu;
    std::vector<OpId> inputs = b.servers[k].pushed;
    inputs.push_back(at_cpu[k]);
    b.name.clear().text("ps reduce ").text(b.builder.device_name(cpu)).text(" k").number(k);
    shard_ready[k] =
        b.builder.reduce(cpu, static_cast<int>(m_count), b.shard_bytes, inputs, b.name.view());
  }
  return shard_ready;
}

/// Step 5: every server fetches every other server's summed shard. Returns the load on the
/// links per shard.
std::vector<LinkLoad> pull_shards(PsBuild& b, const std::vector<std::vector<OpId>>& shard_ready) {
  const std::size_t m_count = b.servers.size();
  std::vector<LinkLoad> load(m_count, LinkLoad(b.input.machine));
  for (std::size_t step = 1; step < m_count; ++step)
    for (std::size_t k = 0; k < m_count; ++k) {
      const std::size_t m = (k + step) % m_count;
      const OpId pull = copy_shard(b, "pull", k, m, k);
      b.builder.after(shard_ready[k], pull);
      b.servers[m].pulled.push_back(pull);
      load[k].add(b.servers[k].cpu, b.servers[m].cpu, b.shard_bytes);
    }
  return load;
}

/// Step 6 on server m: the CPU copies the sum to the first GPU, which broadcasts it to the
/// others. Returns the seconds this final phase needs at least.
double broadcast_on_server(PsBuild& b, std::size_t m, const std::vector<OpId>& own_shard_ready) {
  const Server& s = b.servers[m];
  const DeviceId lead = s.gpus.front();
  const double bytes = b.input.bytes;
  const OpId h2d = b.copy("h2d", s.cpu, lead, bytes);
  b.builder.after(s.pulled, h2d);
  b.builder.after(own_shard_ready, h2d);
  LinkLoad broadcast(b.input.machine);
  for (std::size_t i = 1; i < s.gpus.size(); ++i) {
    b.builder.after(h2d, b.copy("bcast", lead, s.gpus[i], bytes));
    broadcast.add(lead, s.gpus[i], bytes);
  }
  return bytes / b.input.machine.route_bytes_per_s(s.cpu, lead) + broadcast.seconds();
}

/// Bounds: (a) every shard's pushes start after some server's local phase and its pulls end
/// before some server's final phase; (b) every final phase waits for every local phase (each
/// needs all shards, each shard needs every server's push); (c) link capacity.
double ps_lower_bound_s(const std::vector<double>& pre_s, const std::vector<double>& post_s,
                        const std::vector<LinkLoad>& push_load,
                        const std::vector<LinkLoad>& pull_load, const LinkLoad& total) {
  double exchange_s = 0;
  for (std::size_t k = 0; k < push_load.size(); ++k)
    exchange_s = std::max(exchange_s, push_load[k].seconds() + pull_load[k].seconds());
  const auto [pre_min, pre_max] = std::minmax_element(pre_s.begin(), pre_s.end());
  const auto [post_min, post_max] = std::minmax_element(post_s.begin(), post_s.end());
  return std::max({*pre_min + exchange_s + *post_min, *pre_max + *post_max, total.seconds()});
}

}  // namespace

void check_ps_plan(const SyncInput& input) {
  (void)group_by_server(input);
}

SyncPlan make_ps_plan(const SyncInput& input) {
  std::vector<Server> servers = group_by_server(input);
  const std::size_t m_count = servers.size();
  SyncPlan plan;
  plan.graph.reserve(4 * input.gpus.size() + 3 * m_count * m_count);
  SyncGraphBuilder builder(input, plan.graph);
  PsBuild b{input,
            servers,
            builder,
            input.bytes / static_cast<double>(m_count),
            LinkLoad(input.machine),
            NameBuffer()};

  std::vector<double> pre_s(m_count, 0.0);
  std::vector<OpId> at_cpu(m_count);
  for (std::size_t m = 0; m < m_count; ++m)
    std::tie(at_cpu[m], pre_s[m]) = aggregate_on_server(b, m);
  const std::vector<LinkLoad> push_load = push_shards(b, at_cpu);
  const std::vector<std::vector<OpId>> shard_ready = reduce_shards(b, at_cpu);
  const std::vector<LinkLoad> pull_load = pull_shards(b, shard_ready);
  std::vector<double> post_s(m_count, 0.0);
  for (std::size_t m = 0; m < m_count; ++m) post_s[m] = broadcast_on_server(b, m, shard_ready[m]);

  plan.lower_bound_s = ps_lower_bound_s(pre_s, post_s, push_load, pull_load, b.total);
  const std::string detail = std::to_string(m_count) + " servers, local sum on each first GPU, " +
                             "shard k on server k's CPU";
  plan.summary = describe(input, plan.graph, plan.lower_bound_s, detail);
  return plan;
}

}  // namespace opsim::sync
