// How NCCL-style collectives use a machine: per protocol (LL, LL128, Simple) the share of a
// link's rate its payload gets and the fixed cost of each step, per algorithm a launch
// latency, per link class the usable share of the raw rate. Defaults are NCCL 2.30's own
// tuning constants (src/graph/tuning.cc, src/graph/topo.h); docs/collectives.md cites each.
// A topology file sets them under `collectives:`, `--set collectives.KEY=VALUE` one of them.
#pragma once

namespace opsim {

struct CollectiveModel {
  // Payload per byte on the wire, per protocol.
  double ll_efficiency = 0.5;      ///< LL: 8-byte stores, 4 data bytes and a 4-byte flag
  double ll128_efficiency = 0.92;  ///< LL128: 120 data bytes per 128-byte line (NCCL: .92)
  double simple_efficiency = 1.0;  ///< Simple: the data alone, a fence per chunk
  // The usable share of a link class's raw per-direction rate (NCCL's topology bandwidths).
  double nvlink_efficiency = 0.8;    ///< SM70/SM80_NVLINK_BW 20 of NVLink's 25 GB/s
  double pcie_efficiency = 0.76;     ///< PCI_BW 12 of PCIe 3.0 x16's 15.76 GB/s
  double network_efficiency = 0.96;  ///< NET_BW 12 of 100 Gbit/s's 12.5 GB/s
  /// NVLS: the share of the NVLink rate in-switch reduction reaches (nvlsEfficiency, Hopper).
  double nvls_efficiency = 0.85;
  /// LL's most bus bandwidth, bytes/s (NCCL's llMaxBws, which its tuner caps ring and tree LL
  /// at): within one server by GPU (Volta 39, Ampere 87.7, Hopper 141 GB/s; 0: no cap), across
  /// two servers and across more by CPU (Intel 39 and 20.4 GB/s, AMD 22.5 and 19).
  double ll_max_busbw_bytes_per_s = 0;
  double ll_max_busbw_two_servers_bytes_per_s = 39e9;
  double ll_max_busbw_more_servers_bytes_per_s = 20.4e9;

  /// Rings across servers, in the tuner's estimate only (the simulation pays its steps):
  /// every step's post to the network proxy (getNetOverhead: Intel 1 us, AMD 2; three times
  /// for Simple) and the Simple allreduce's latency factor ("plateau effect": 1.4 from
  /// compute capability 8.0, 1.9 below).
  double network_post_overhead_s = 1e-6;
  double ring_plateau_factor = 1.4;

  // Launch latency once per collective (baseLatencies), seconds.
  double ring_ll_base_s = 6.6e-6;
  double ring_ll128_base_s = 14e-6;
  double ring_simple_base_s = 8.4e-6;
  double tree_ll_base_s = 6.8e-6;
  double tree_ll128_base_s = 14e-6;
  double tree_simple_base_s = 8.4e-6;

  /// Rings across servers: the most one of NCCL's channels moves over the network, wire
  /// bytes/s (0: the links' alone). NCCL gives a NIC two ring channels where a server's
  /// ring graph has at most 4 (ncclTopoDupChannels, compute capability 9.0), one where it
  /// has more. Measured: the published 16 GiB rings across ten 8-GPU H100 servers (median
  /// busbw 323.4 GB/s over 8 NICs, one channel each), less each step's latency and first
  /// slice, which move at the NIC's rate (docs/collectives.md).
  double ring_network_channel_bytes_per_s = 41.1e9;
  /// Rings across servers with LL128: the most bus bandwidth NCCL's tuner grants one channel
  /// of the ring graph (perChMaxRingLL128Bws: Volta and Ampere 20, Hopper 36.7 GB/s; 0: no
  /// cap); its graph has ring_channels_per_nic channels per NIC.
  double ring_ll128_channel_busbw_bytes_per_s = 36.7e9;

  /// A ring step across servers moves in NCCL's slices, each forwarded once it is in, so one
  /// longer than a slice pays its latency on its first slice only. Payload bytes of a slice:
  /// NCCL's buffer per connection over NCCL_STEPS (8), times the ring's SLICESTEPS (Simple:
  /// 4 MiB / 8 x 2; LL128: 4,915,200 B / 8 x 120/128; LL: 512 KiB / 8, half of it data).
  double ring_simple_slice_bytes = 1048576;
  double ring_ll128_slice_bytes = 576000;
  double ring_ll_slice_bytes = 32768;

  // Per step, by the link class the step crosses (hwLatencies), seconds.
  double ring_ll_nvlink_step_s = 0.6e-6;
  double ring_ll128_nvlink_step_s = 1.9e-6;
  double ring_simple_nvlink_step_s = 3.4e-6;
  double ring_ll_pcie_step_s = 1.0e-6;
  double ring_ll128_pcie_step_s = 2.5e-6;
  double ring_simple_pcie_step_s = 5.7e-6;
  double ring_ll_network_step_s = 2.7e-6;
  double ring_ll128_network_step_s = 4.0e-6;
  double ring_simple_network_step_s = 14e-6;
  double tree_ll_nvlink_step_s = 0.6e-6;
  double tree_ll128_nvlink_step_s = 1.25e-6;
  double tree_simple_nvlink_step_s = 4.0e-6;
  double tree_ll_pcie_step_s = 1.0e-6;
  double tree_ll128_pcie_step_s = 1.9e-6;
  double tree_simple_pcie_step_s = 4.0e-6;
  double tree_ll_network_step_s = 5.0e-6;
  double tree_ll128_network_step_s = 8.5e-6;
  double tree_simple_network_step_s = 14e-6;
  /// NVLS (Simple only): the whole in-switch collective's latency within a node, and the
  /// latency of its step across nodes.
  double nvls_nvlink_s = 25e-6;
  double nvls_network_s = 18e-6;
  /// NVLS tree (NVLS inside each server, a double binary tree of NICs across): the latency
  /// of its step across servers (hwLatencies[NET][NVLS_TREE]), and the most bus bandwidth of
  /// one of its channels, a NIC's (perChMaxNVLSTreeBws, Hopper) across two servers and across
  /// more; NCCL runs one channel per NIC with a local GPU, here one per GPU of a server.
  double nvls_tree_network_s = 20.9e-6;
  /// NVLS tree, in the simulation only (the tuner keeps nvls_tree_network_latency, as NCCL's
  /// does): what a step across servers costs before the pipeline hides it, per square root of
  /// the GPUs per server, seconds (0: nvls_tree_network_latency). Measured from the published
  /// ten-server H100 all-reduce tables, whose NVLS tree fills in far more than NCCL's 20.9 us
  /// a step gives, and more with more GPUs per server (docs/collectives.md).
  double nvls_tree_network_hop_s_per_sqrt_gpu = 35e-6;
  double nvls_tree_channel_busbw_two_servers_bytes_per_s = 57.7e9;
  double nvls_tree_channel_busbw_more_servers_bytes_per_s = 45.5e9;
  /// NVLS works in chunks: NCCL_NVLS_CHUNKSIZE (128 KiB), which NCCL halves for collectives
  /// below 64, 8 and 2 times channels x GPUs x chunk (src/enqueue.cc, since 2.18).
  double nvls_chunk_bytes = 131072;
  /// NVLS channels (thread blocks) per GPU: NVLS_NCHANNELS_SM90 (src/transport/nvls.cc).
  int nvls_channels = 16;
  /// The fixed cost of one chunk on one channel, paid in turn with its transfer. Measured
  /// from the H100 NVLS table: its time per byte drops where NCCL's chunk doubles.
  double nvls_chunk_s = 3.5e-6;
  /// Point-to-point (send/recv) inside a server: NCCL's p2pnChannels, the channels (thread
  /// blocks) a GPU's sends spread over, and the rate one channel moves, bytes/s (0: no
  /// limit but the links'). NCCL gives one peer's part fewer channels the smaller it is
  /// (addP2pToPlan, src/enqueue.cc); measured per GPU from published sendrecv tables.
  int p2p_channels = 32;
  double p2p_channel_bytes_per_s = 0;
  /// The most one send inside a server moves however many channels it runs on, bytes/s
  /// (0: no limit but the links'). A model of the data, not read in NCCL's source: the
  /// published 8 x A100 sends stop at 189-195 GB/s on 16 and 32 channels, below the links'
  /// rate that the same server's all-reduce rings reach (230 GB/s busbw).
  double p2p_peak_bytes_per_s = 0;
  /// Across servers: the channels NCCL gives a network peer before its cut for many peers
  /// (ncclTopoGetNchannels: at least one per NIC, and one per P2P_PER_CHANNEL_NET_BW of 14
  /// GB/s of it, so 4 for a 400 Gb/s NIC). c of them move a send at 1 / (1 / (c x channel) +
  /// 1 / shared), bytes/s: each byte passes its channel, then a stage all of them share (0:
  /// no such limit). Measured from the published sends of one H100 cluster: one channel
  /// moves 15.23 GB/s (ten 8-GPU servers), four 39.75 (two servers, one GPU each); two then
  /// give 25.9, against 24.9–26.3 published with 1, 2 and 4 GPUs on ten servers.
  int p2p_network_channels = 4;
  double p2p_network_channel_bytes_per_s = 18.52e9;
  double p2p_network_shared_bytes_per_s = 85.8e9;
  /// An out-of-place all-to-all's copy of a GPU's own part into its output: NCCL makes it a
  /// send to itself on the p2p channels, at this rate, bytes/s (0: the GPU's memory alone).
  /// Measured on H100: out of place, two servers of one GPU take S/2 / 393 GB/s more than
  /// in place.
  double p2p_self_copy_bytes_per_s = 0;
  /// How long a collective's slowest channel trails once each GPU's share of the data (S/n)
  /// is 1 GiB, seconds; it grows with the square root of the share (0: never). A channel runs
  /// through its share in loops of NCCL's chunk, as many for any n; their times vary, so the
  /// last channel ends later than the mean by the spread of a sum of loop times: the square
  /// root of their count. Rings, trees and all-to-all pay it; NVLS's chunk costs and the
  /// sends' channel rate, each measured from their own tables, hold their own. Measured from
  /// the published single-server H100 ring and all-to-all tables, which follow
  /// a + T/B + c sqrt(T) within 0.3-2.8 % from 32 MiB to 16 GiB (scripts/nccl-lag-fit.py),
  /// with c per sqrt(S/n) alike on 4 and 8 GPUs.
  double straggle_after_gib_s = 0;
};

}  // namespace opsim
