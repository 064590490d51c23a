// Parametric machine families, built directly in code so that even thousands of GPUs take
// milliseconds (no YAML, nothing quadratic).
#pragma once

#include "hw_models/machine.hpp"

namespace opsim {

/// Per-direction bandwidth of every PCIe link in the families and the book presets: the
/// book's "16 GB/s" (PCIe 3.0 x16 is 15.76 GB/s). Latency 0, as in the book's arithmetic.
inline constexpr double kBookPcieBytesPerS = 16e9;

/// `gpus` V100s under a PCIe switch with the CPU cpu0 on the same switch, every link
/// 16 GB/s per direction with zero latency. Up to 4 GPUs share one switch sw0 (exactly the
/// pcie-switch-4gpu preset for 4); more GPUs hang off a tree of switches with fan-out 4,
/// whose root is linked to the CPU. Names: cpu0, sw0.., gpu0..gpuN-1.
Machine make_pcie_switch_machine(int gpus);

/// `gpus` V100s in a ring of single NVLink 2.0 links (25 GB/s per direction, latency 0, so
/// ring allreduce takes exactly 2(n-1)/n * S/B); two GPUs share one link. The GPUs also sit
/// on the same PCIe tree as make_pcie_switch_machine, so that cpu0 can reach them.
Machine make_nvlink_ring_machine(int gpus);

/// `servers` copies of make_pcie_switch_machine(gpus_per_server), nodes "server0"..; each
/// server's CPU (cpuS) has a NIC (nicS) on a 16 GB/s link, and the NICs meet at one
/// Ethernet switch ethsw0 (node "network") over `ethernet_gbit_per_s` Ethernet links
/// (LinkModel::ethernet, 10 us latency). GPUs, CPUs and switches are numbered globally.
Machine make_cluster_machine(int servers, int gpus_per_server, double ethernet_gbit_per_s);

/// `nodes` servers of `gpus_per_node` GPUs on a rail-optimized two-level InfiniBand fat tree.
/// Each server is a copy of `server` (nodes "server0"..; devices renamed with global numbers:
/// cpu, sw, nvsw, gpu, nic counted across servers; links named A-B) when given — the
/// dgx-h100 preset for 8 GPUs — else H100s on a PCIe 5.0 switch tree of fan-out 4 under one
/// CPU with one NIC per GPU on the GPU's leaf switch. NIC i of every server (the i-th NIC in
/// the server, one per GPU) joins leaf switch ibleafI (the rail) at `nic_gbit_per_s`
/// (LinkModel::infiniband). The leaves join one aggregate spine ibspine0 (node "network"),
/// each by one link carrying nodes x NIC rate / `oversubscription`: opsim routes every
/// transfer over one path, so one aggregate spine stands for the spine switches that
/// adaptive routing spreads traffic over. Without several rails there is no spine.
Machine make_ib_cluster_machine(int nodes, int gpus_per_node, double nic_gbit_per_s,
                                double oversubscription, const Machine* server);

}  // namespace opsim
