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

#include "experiments/sync/sync_common.hpp"

namespace opsim::sync {

namespace {

struct Server {
  std::vector<DeviceId> gpus;  // participating GPUs of this server, in the given order
  DeviceId cpu = kNoDevice;
  std::vector<OpId> pushed;  // copies that bring shards into this server's CPU
  std::vector<OpId> pulled;  // copies that bring summed shards back
};

}  // namespace

SyncPlan make_ps_plan(const SyncInput& input) {
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
  const std::size_t m_count = servers.size();
  if (m_count < 2)
    fail(input, "needs GPUs on at least 2 servers, the GPUs given are all on server '" +
                    machine.node_names()[machine.device(input.gpus.front()).node] + "'");
  for (Server& s : servers) s.cpu = machine.host_cpu_of(s.gpus.front());

  const double shard_bytes = input.bytes / static_cast<double>(m_count);
  SyncPlan plan;
  plan.graph.reserve(4 * input.gpus.size() + 3 * m_count * m_count);
  SyncGraphBuilder builder(input, plan.graph);
  NameBuffer name;
  LinkLoad total(machine);
  std::vector<double> pre_s(m_count, 0.0);
  std::vector<double> post_s(m_count, 0.0);
  std::vector<OpId> at_cpu(m_count);

  // Local aggregation on the first GPU, then to the CPU.
  for (std::size_t m = 0; m < m_count; ++m) {
    const Server& s = servers[m];
    const DeviceId lead = s.gpus.front();
    LinkLoad gather(machine);
    std::vector<OpId> gathered;
    for (std::size_t i = 1; i < s.gpus.size(); ++i) {
      name.clear()
          .text("gather ")
          .text(builder.device_name(s.gpus[i]))
          .text("→")
          .text(builder.device_name(lead));
      gathered.push_back(builder.copy(s.gpus[i], lead, input.bytes, name.view()));
      gather.add(s.gpus[i], lead, input.bytes);
      total.add(s.gpus[i], lead, input.bytes);
    }
    std::vector<OpId> ready = gathered;
    if (s.gpus.size() > 1) {
      name.clear().text("reduce ").text(builder.device_name(lead));
      ready =
          builder.reduce(lead, static_cast<int>(s.gpus.size()), input.bytes, gathered, name.view());
    }
    name.clear()
        .text("d2h ")
        .text(builder.device_name(lead))
        .text("→")
        .text(builder.device_name(s.cpu));
    at_cpu[m] = builder.copy(lead, s.cpu, input.bytes, name.view());
    builder.after(ready, at_cpu[m]);
    total.add(lead, s.cpu, input.bytes);
    pre_s[m] = gather.seconds() + input.bytes / machine.route_bytes_per_s(lead, s.cpu);
  }

  // Sharded push: server m's CPU sends shard k to server k's CPU.
  std::vector<LinkLoad> push_load(m_count, LinkLoad(machine));
  std::vector<LinkLoad> pull_load(m_count, LinkLoad(machine));
  for (std::size_t step = 1; step < m_count; ++step)  // by distance, like split
    for (std::size_t m = 0; m < m_count; ++m) {
      const std::size_t k = (m + step) % m_count;
      name.clear().text("push ").text(builder.device_name(servers[m].cpu)).text("→");
      name.text(builder.device_name(servers[k].cpu)).text(" k").number(k);
      const OpId push = builder.copy(servers[m].cpu, servers[k].cpu, shard_bytes, name.view());
      builder.after(at_cpu[m], push);
      servers[k].pushed.push_back(push);
      push_load[k].add(servers[m].cpu, servers[k].cpu, shard_bytes);
      total.add(servers[m].cpu, servers[k].cpu, shard_bytes);
    }
  // Each parameter server adds its M copies of its shard.
  std::vector<std::vector<OpId>> shard_ready(m_count);
  for (std::size_t k = 0; k < m_count; ++k) {
    std::vector<OpId> inputs = servers[k].pushed;
    inputs.push_back(at_cpu[k]);
    name.clear().text("ps reduce ").text(builder.device_name(servers[k].cpu)).text(" k").number(k);
    shard_ready[k] =
        builder.reduce(servers[k].cpu, static_cast<int>(m_count), shard_bytes, inputs, name.view());
  }
  // Pull: every server fetches every other server's summed shard.
  for (std::size_t step = 1; step < m_count; ++step)
    for (std::size_t k = 0; k < m_count; ++k) {
      const std::size_t m = (k + step) % m_count;
      name.clear().text("pull ").text(builder.device_name(servers[k].cpu)).text("→");
      name.text(builder.device_name(servers[m].cpu)).text(" k").number(k);
      const OpId pull = builder.copy(servers[k].cpu, servers[m].cpu, shard_bytes, name.view());
      builder.after(shard_ready[k], pull);
      servers[m].pulled.push_back(pull);
      pull_load[k].add(servers[k].cpu, servers[m].cpu, shard_bytes);
      total.add(servers[k].cpu, servers[m].cpu, shard_bytes);
    }
  // Back to the first GPU, then to the others.
  for (std::size_t m = 0; m < m_count; ++m) {
    const Server& s = servers[m];
    const DeviceId lead = s.gpus.front();
    name.clear()
        .text("h2d ")
        .text(builder.device_name(s.cpu))
        .text("→")
        .text(builder.device_name(lead));
    const OpId h2d = builder.copy(s.cpu, lead, input.bytes, name.view());
    builder.after(s.pulled, h2d);
    builder.after(shard_ready[m], h2d);
    total.add(s.cpu, lead, input.bytes);
    LinkLoad broadcast(machine);
    for (std::size_t i = 1; i < s.gpus.size(); ++i) {
      name.clear()
          .text("bcast ")
          .text(builder.device_name(lead))
          .text("→")
          .text(builder.device_name(s.gpus[i]));
      builder.after(h2d, builder.copy(lead, s.gpus[i], input.bytes, name.view()));
      broadcast.add(lead, s.gpus[i], input.bytes);
      total.add(lead, s.gpus[i], input.bytes);
    }
    post_s[m] = input.bytes / machine.route_bytes_per_s(s.cpu, lead) + broadcast.seconds();
  }

  // Bounds: (a) every shard's pushes start after some server's local phase and its pulls
  // end before some server's final phase; (b) every final phase waits for every local
  // phase (each needs all shards, each shard needs every server's push); (c) link capacity.
  double exchange_s = 0;
  for (std::size_t k = 0; k < m_count; ++k)
    exchange_s = std::max(exchange_s, push_load[k].seconds() + pull_load[k].seconds());
  const auto [pre_min, pre_max] = std::minmax_element(pre_s.begin(), pre_s.end());
  const auto [post_min, post_max] = std::minmax_element(post_s.begin(), post_s.end());
  plan.lower_bound_s =
      std::max({*pre_min + exchange_s + *post_min, *pre_max + *post_max, total.seconds()});
  const std::string detail = std::to_string(m_count) + " servers, local sum on each first GPU, " +
                             "shard k on server k's CPU";
  plan.summary = describe(input, plan.graph, plan.lower_bound_s, detail);
  return plan;
}

}  // namespace opsim::sync
