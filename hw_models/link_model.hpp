// A point-to-point link. Rates are per direction: PCIe, NVLink and Ethernet are full duplex,
// so a link carries `bytes_per_s` each way at once.
#pragma once

#include <string_view>

namespace opsim {

enum class LinkKind { kPcie, kNvlink, kEthernet, kSata, kMemoryBus, kGeneric, kInfiniband };

std::string_view to_string(LinkKind kind);

struct LinkModel {
  LinkKind kind = LinkKind::kGeneric;
  double bytes_per_s = 16e9;  ///< per direction, all bonded lanes/links together
  double latency_s = 0.0;     ///< one-way latency added once per transfer
  bool full_duplex = true;    ///< false: both directions share one `bytes_per_s`
  /// Full duplex: both directions together at most this (0: no bound but each direction's).
  /// A host's PCIe path to a GPU moves less each way when copies run both ways at once.
  double duplex_bytes_per_s = 0.0;
  int count = 1;  ///< physical links bonded (e.g. two NVLinks between a GPU pair)

  /// PCIe generation 1..5 with `lanes` lanes: 0.25, 0.5, 0.985, 1.969, 3.938 GB/s per lane.
  static LinkModel pcie(int generation, int lanes);
  /// NVLink generation 1..4 with `links` links: 20 GB/s (gen 1), 25 GB/s (gen 2-4) per link.
  static LinkModel nvlink(int generation, int links);
  /// Ethernet at `gigabits_per_s` (10, 25, 100 ...), 10 us latency through a switch.
  static LinkModel ethernet(double gigabits_per_s);
  /// InfiniBand at `gigabits_per_s` (HDR 200, NDR 400), 0.6 us per link: a NIC-switch-NIC
  /// path (two links) takes about 1.2 us, as ib_write_lat measures through one switch.
  static LinkModel infiniband(double gigabits_per_s);
  /// RoCE: Ethernet with RDMA, 1 us per link (about 2 us NIC-switch-NIC).
  static LinkModel roce(double gigabits_per_s);
};

}  // namespace opsim
