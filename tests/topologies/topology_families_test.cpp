// Parametric families: shapes for small and large N, build time, and bad arguments.
#include "topologies/topology_families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "common/input_error.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {
namespace {

int nvlinks_of(const Machine& m, DeviceId gpu) {
  int n = 0;
  for (LinkId l : m.links_of(gpu)) n += m.link(l).model.kind == LinkKind::kNvlink;
  return n;
}

void expect_ring(const Machine& m, int n) {
  const auto gpus = m.gpus();
  ASSERT_EQ(gpus.size(), static_cast<std::size_t>(n));
  ASSERT_EQ(m.cpus().size(), 1u);
  for (int i = 0; i < n; ++i) {
    const DeviceId a = gpus[i], b = gpus[(i + 1) % n];
    EXPECT_EQ(m.device(a).name, "gpu" + std::to_string(i));
    const auto hops = m.route(a, b);
    ASSERT_EQ(hops.size(), 1u) << i;
    const LinkModel& link = m.link(hops[0].link).model;
    EXPECT_EQ(link.kind, LinkKind::kNvlink);
    EXPECT_EQ(link.bytes_per_s, 25e9);
    EXPECT_EQ(link.latency_s, 0.0);
    EXPECT_EQ(link.count, 1);
    EXPECT_EQ(nvlinks_of(m, a), n == 2 ? 1 : 2);
  }
  // Every GPU reaches the host CPU over PCIe.
  EXPECT_FALSE(m.route(gpus.back(), m.cpus()[0]).empty());
  EXPECT_EQ(m.host_cpu_of(gpus[n / 2]), m.cpus()[0]);
}

TEST(TopologyFamilies, NvlinkRingOf2And8) {
  const Machine two = resolve_topology("nvlink-ring:2");
  expect_ring(two, 2);
  int nvlink_count = 0;
  for (const Link& link : two.links()) nvlink_count += link.model.kind == LinkKind::kNvlink;
  EXPECT_EQ(nvlink_count, 1);  // one full-duplex link, not two parallel ones
  const Machine eight = resolve_topology("nvlink-ring:8");
  expect_ring(eight, 8);
  // Non-neighbours go over PCIe, not through a GPU.
  const auto hops = eight.route(eight.gpus()[0], eight.gpus()[4]);
  for (const Hop& hop : hops) EXPECT_EQ(eight.link(hop.link).model.kind, LinkKind::kPcie);
}

TEST(TopologyFamilies, NvlinkRingOf1024BuildsFast) {
  double best_s = 1e9;
  for (int attempt = 0; attempt < 3; ++attempt) {  // best of three: the machine is shared
    const auto start = std::chrono::steady_clock::now();
    const Machine m = resolve_topology("nvlink-ring:1024");
    best_s = std::min(
        best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (attempt == 0) {
      expect_ring(m, 1024);
      EXPECT_LT(m.links().size(), 3u * 1024);  // linear, nothing n^2
    }
  }
  RecordProperty("build_seconds", std::to_string(best_s));
  EXPECT_LT(best_s, 0.2);
}

TEST(TopologyFamilies, PcieSwitchSmallAndLarge) {
  for (int n : {1, 2, 4}) {
    const Machine m = resolve_topology("pcie-switch:" + std::to_string(n));
    EXPECT_EQ(m.gpus().size(), static_cast<std::size_t>(n));
    EXPECT_EQ(m.devices_of_kind(DeviceKind::kSwitch).size(), 1u);
    EXPECT_EQ(m.route(m.gpus()[0], m.cpus()[0]).size(), 2u);
  }
  const Machine eight = resolve_topology("pcie-switch:8");
  EXPECT_EQ(eight.devices_of_kind(DeviceKind::kSwitch).size(), 3u);     // two leaves and a root
  EXPECT_EQ(eight.route(eight.gpus()[0], eight.gpus()[1]).size(), 2u);  // same leaf
  EXPECT_EQ(eight.route(eight.gpus()[0], eight.gpus()[5]).size(), 4u);  // via the root
  const Machine big = resolve_topology("pcie-switch:1024");
  EXPECT_EQ(big.gpus().size(), 1024u);
  EXPECT_EQ(big.devices_of_kind(DeviceKind::kSwitch).size(), 256u + 64 + 16 + 4 + 1);
  EXPECT_EQ(big.route(big.gpus()[1023], big.cpus()[0]).size(), 6u);  // leaf + 4 levels + CPU
  for (const Link& link : big.links()) EXPECT_EQ(link.model.bytes_per_s, 16e9);
}

TEST(TopologyFamilies, Clusters) {
  const Machine m = resolve_topology("cluster:4x8");
  EXPECT_EQ(m.gpus().size(), 32u);
  EXPECT_EQ(m.cpus().size(), 4u);
  EXPECT_EQ(m.node_names().size(), 5u);
  EXPECT_EQ(m.node_names()[3], "server3");
  EXPECT_EQ(m.device(*m.find_device("gpu31")).node, 3u);
  EXPECT_EQ(m.host_cpu_of(*m.find_device("gpu9")), *m.find_device("cpu1"));
  EXPECT_DOUBLE_EQ(m.route_bytes_per_s(*m.find_device("gpu0"), *m.find_device("gpu31")),
                   100e9 / 8);  // default 100 GbE
  const Machine slow = resolve_topology("cluster:2x2@10");
  EXPECT_DOUBLE_EQ(slow.route_bytes_per_s(*slow.find_device("cpu0"), *slow.find_device("cpu1")),
                   10e9 / 8);
  const Machine one = resolve_topology("cluster:1x1");
  EXPECT_EQ(one.gpus().size(), 1u);
}

std::string error_of(const std::string& spec) {
  try {
    resolve_topology(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(TopologyFamilies, BadArguments) {
  for (const char* spec :
       {"nvlink-ring:1", "nvlink-ring:x", "nvlink-ring:", "nvlink-ring:8x", "nvlink-ring:-4",
        "nvlink-ring:99999", "pcie-switch:0", "cluster:2x", "cluster:x4", "cluster:0x4",
        "cluster:2x4@", "cluster:2x4@-10", "cluster:2x4@fast", "cluster:24"}) {
    const std::string message = error_of(spec);
    SCOPED_TRACE(message);
    EXPECT_EQ(message.rfind("bad topology '" + std::string(spec) + "': ", 0), 0u);
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
  EXPECT_NE(error_of("nvlink-ring:1").find("N must be an integer from 2 to"), std::string::npos);
}

TEST(TopologyFamilies, UnknownNameListsTheValidOnes) {
  const std::string message = error_of("dgx2");
  EXPECT_EQ(message.rfind("unknown topology 'dgx2' (valid: ", 0), 0u) << message;
  for (const char* name : {"dgx1-v100", "pcie-switch-4gpu", "desktop-1gpu", "cluster-2x4gpu",
                           "nvlink-ring:N", "pcie-switch:N", "cluster:MxG"})
    EXPECT_NE(message.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace opsim
