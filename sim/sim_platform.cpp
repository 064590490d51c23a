// The platform builder: SimGrid hosts, links and routes for an opsim Machine.
//
// A star zone stores one up-route and one down-route per host: linear in size, where a
// full zone stores n² routes. Every route gets its own source host whose up-route is the
// whole path, and all comms go to one sink host with an empty down-route.
#include <algorithm>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "sim/sim_backend_impl.hpp"

namespace opsim {

using namespace sim_internals;

class SimBackend::Impl::PlatformBuilder {
 public:
  PlatformBuilder(Impl& m, sg4::NetZone* zone)
      : m_(m), zone_(zone), devices_(m.machine->devices()), n_(devices_.size()) {}

  void add_hosts();
  void add_links();
  // Every (tag, src, dst) the graph's copies and disk ops use, then on small machines every
  // pair of memory devices and every disk-memory pair; the first `required` are the graph's.
  void want_routes(const OpGraph& graph);
  void add_routes();

 private:
  void want(std::uint8_t tag, DeviceId src, DeviceId dst);
  void want_disk_routes(DeviceId disk, DeviceId memory, bool read);
  std::uint32_t index_of(const sg4::Link* link);
  sg4::Link* beside_link(std::vector<sg4::Link*>& made, DeviceId disk, const char* what,
                         double bytes_per_s);
  sg4::Link* plain_link(const std::string& name, double bytes_per_s);
  // The path of one route, and its latency; throws std::invalid_argument when it has none.
  void disk_path(std::uint8_t tag, DeviceId disk, bool read);
  void within_memory_path(std::uint8_t tag, DeviceId device);
  double machine_path(DeviceId src, DeviceId dst);
  void add_route(std::uint8_t tag, DeviceId src, DeviceId dst, double latency_s);

  Impl& m_;
  sg4::NetZone* zone_;
  std::span<const Device> devices_;
  std::size_t n_;
  // Per opsim link: its SimGrid links each way, and the both-ways one where it has one.
  std::vector<sg4::Link*> up_, down_, duplex_;
  std::vector<double> link_bytes_per_s_;  // per index in Impl::links
  std::unordered_map<const sg4::Link*, std::uint32_t> link_index_;
  std::vector<std::uint64_t> keys_;
  std::unordered_set<std::uint64_t> seen_;
  std::size_t required_ = 0;
  // Per device: its memory bus, disk media and the links of its Beside routes (RouteTag),
  // made on first use.
  std::vector<sg4::Link*> membus_;
  std::vector<sg4::SplitDuplexLink*> media_;
  std::vector<sg4::Link*> beside_random_, beside_write_, beside_read_, reads_together_;
  std::vector<sg4::LinkInRoute> path_;
};

void SimBackend::Impl::build_platform(const OpGraph& graph) {
  PlatformBuilder builder(*this, sg4::create_star_zone("opsim"));
  builder.add_hosts();
  builder.add_links();
  builder.want_routes(graph);
  builder.add_routes();
}

void SimBackend::Impl::PlatformBuilder::add_hosts() {
  m_.compute_host.assign(n_, nullptr);
  m_.exec_bound.assign(n_, 0.0);
  m_.dispatches_on.assign(n_, 0);
  m_.compute_ops_on.assign(n_, 0);
  m_.program_host.assign(n_, nullptr);
  for (DeviceId d = 0; d < n_; ++d) {
    const Device& dev = devices_[d];
    if (dev.kind == DeviceKind::kCpu || dev.kind == DeviceKind::kGpu ||
        dev.kind == DeviceKind::kDisk) {
      const int streams = std::max(1, dev.cpu.compute_streams);
      // A CPU whose streams slow down when all are busy: one core holding the streams'
      // capacity together (streams x the busy fraction of one stream's speed), each exec
      // bounded by one stream's speed alone. SimGrid bounds an exec by its host's core speed
      // too, so several cores cannot express this.
      const double busy =
          std::max(dev.cpu.all_streams_busy_speed, 1.0 / static_cast<double>(streams));
      const double beside = dev.cpu.beside_dispatch_speed;
      const bool pooled =
          dev.kind == DeviceKind::kCpu && streams > 1 && (busy < 1.0 || beside < 1.0);
      // Pstate 1, while a host dispatch runs: the busy wait holds a core of its own, and the
      // streams left run at beside_dispatch_speed (measured: a busy wait is a lighter
      // neighbour than a GEMM, 0.98-1.04 on this project's VM in calm minutes), times the
      // pool's busy speed only where several of them are left to contend with each other.
      const double others = static_cast<double>(streams - 1);
      const double beside_dispatch = 1.0 + others * beside * (others > 1 ? busy : 1.0);
      sg4::Host* host =
          pooled
              ? zone_->create_host(dev.name, std::vector<double>{streams * busy * kWorkPerSecond,
                                                                 beside_dispatch * kWorkPerSecond})
              : zone_->create_host(dev.name, kWorkPerSecond);
      if (dev.kind == DeviceKind::kCpu && !pooled) host->set_core_count(streams);
      m_.exec_bound[d] = pooled ? kWorkPerSecond : 0.0;
      m_.compute_host[d] = host->seal();
    }
    if (dev.kind == DeviceKind::kCpu)
      m_.program_host[d] = zone_->create_host(dev.name + "/program", kWorkPerSecond)->seal();
  }
  m_.sink_host = zone_->create_host("opsim/sink", kWorkPerSecond)->seal();
}

// opsim links: split duplex at bytes_per_s each way, or one shared link when half duplex.
void SimBackend::Impl::PlatformBuilder::add_links() {
  const Machine& machine = *m_.machine;
  m_.links.clear();
  up_.assign(machine.links().size(), nullptr);
  down_.assign(machine.links().size(), nullptr);
  duplex_.assign(machine.links().size(), nullptr);
  for (LinkId l = 0; l < machine.links().size(); ++l) {
    const Link& link = machine.link(l);
    if (link.model.full_duplex) {
      sg4::SplitDuplexLink* sd = zone_->create_split_duplex_link(link.name, link.model.bytes_per_s);
      sd->set_latency(0)->seal();
      up_[l] = sd->get_link_up();
      down_[l] = sd->get_link_down();
      if (link.model.duplex_bytes_per_s > 0)
        duplex_[l] = plain_link(link.name + "/duplex", link.model.duplex_bytes_per_s);
    } else {
      sg4::Link* shared = plain_link(link.name, link.model.bytes_per_s);
      up_[l] = shared;
      down_[l] = shared;
    }
  }
}

sg4::Link* SimBackend::Impl::PlatformBuilder::plain_link(const std::string& name,
                                                         double bytes_per_s) {
  return zone_->create_link(name, bytes_per_s)->set_latency(0)->seal();
}

std::uint32_t SimBackend::Impl::PlatformBuilder::index_of(const sg4::Link* link) {
  auto [it, added] = link_index_.emplace(link, static_cast<std::uint32_t>(m_.links.size()));
  if (added) {
    m_.links.emplace_back();
    link_bytes_per_s_.push_back(link->get_bandwidth());
  }
  return it->second;
}

void SimBackend::Impl::PlatformBuilder::want(std::uint8_t tag, DeviceId src, DeviceId dst) {
  const std::uint64_t key = (std::uint64_t{tag} << 60) | (std::uint64_t{src} << 30) | dst;
  if (seen_.insert(key).second) keys_.push_back(key);
}

// A disk's read (or write) route to `memory`, and the Beside routes its figures call for.
void SimBackend::Impl::PlatformBuilder::want_disk_routes(DeviceId disk, DeviceId memory,
                                                         bool read) {
  const DiskModel* d = devices_[disk].kind == DeviceKind::kDisk ? &devices_[disk].disk : nullptr;
  if (read) {
    want(kDiskReadRoute, disk, memory);
    if (d && d->sequential_read_beside_random_bytes_per_s > 0)
      want(kDiskReadBesideRandomRoute, disk, memory);
    if (d && d->sequential_read_beside_write_bytes_per_s > 0)
      want(kDiskReadBesideWriteRoute, disk, memory);
    if (d && d->sequential_reads_together_bytes_per_s > 0)
      want(kDiskReadsTogetherRoute, disk, memory);
  } else {
    want(kDiskWriteRoute, memory, disk);
    if (d && d->sequential_write_beside_read_bytes_per_s > 0)
      want(kDiskWriteBesideReadRoute, memory, disk);
  }
}

void SimBackend::Impl::PlatformBuilder::want_routes(const OpGraph& graph) {
  // Per source: the last copy's destination, wanted already (a ring's copies repeat their
  // pair 2(n-1) times; this skips the hash lookup).
  std::vector<DeviceId> last_copy_to(n_, kNoDevice);
  for (OpId id = 0; id < graph.size(); ++id) {
    const Op& op = graph.op(id);
    if (op.kind == OpKind::kCopy && op.device < n_ && last_copy_to[op.device] == op.peer &&
        op.device != op.peer)
      continue;
    if (op.kind == OpKind::kCopy && op.device < n_) last_copy_to[op.device] = op.peer;
    if (op.kind == OpKind::kCopy) want(kCopyRoute, op.device, op.peer);
    if (op.kind == OpKind::kCopy && op.device == op.peer &&
        devices_[op.device].kind == DeviceKind::kCpu &&
        !devices_[op.device].cpu.copy_stream_rates.empty())
      for (int lane = 0; lane < kCopyLanes; ++lane)
        want(static_cast<std::uint8_t>(kCopyLaneRoute + lane), op.device, op.peer);
    if (op.kind == OpKind::kDiskRead) want_disk_routes(op.device, op.peer, true);
    if (op.kind == OpKind::kDiskWrite) want_disk_routes(op.device, op.peer, false);
  }
  std::vector<DeviceId> memories;
  std::vector<DeviceId> disks;
  for (DeviceId d = 0; d < n_; ++d) {
    if (devices_[d].has_memory()) memories.push_back(d);
    if (devices_[d].kind == DeviceKind::kDisk) disks.push_back(d);
  }
  const std::size_t pairs = memories.size() * (memories.size() + 2 * disks.size());
  required_ = keys_.size();
  if (pairs > m_.options.all_pairs_limit) return;
  for (DeviceId a : memories) {
    for (DeviceId b : memories) want(kCopyRoute, a, b);
    for (DeviceId disk : disks) {
      want_disk_routes(disk, a, true);
      want_disk_routes(disk, a, false);
    }
  }
}

sg4::Link* SimBackend::Impl::PlatformBuilder::beside_link(std::vector<sg4::Link*>& made,
                                                          DeviceId disk, const char* what,
                                                          double bytes_per_s) {
  if (made[disk] == nullptr) made[disk] = plain_link(devices_[disk].name + "/" + what, bytes_per_s);
  return made[disk];
}

// The disk's part of a read's path (before the machine's links) or a write's.
void SimBackend::Impl::PlatformBuilder::disk_path(std::uint8_t tag, DeviceId disk, bool read) {
  if (devices_[disk].kind != DeviceKind::kDisk)
    throw std::invalid_argument("SimBackend: disk op on '" + devices_[disk].name +
                                "', which is not a disk");
  if (media_[disk] == nullptr) {
    // UP carries reads off the media, DOWN carries writes onto it.
    media_[disk] = zone_->create_split_duplex_link(devices_[disk].name + "/media",
                                                   devices_[disk].disk.read_bytes_per_s);
    media_[disk]->get_link_down()->set_bandwidth(devices_[disk].disk.write_bytes_per_s);
    media_[disk]->set_latency(0)->seal();
  }
  const DiskModel& d = devices_[disk].disk;
  // Reads together and reads beside random ones have measured rates of their own,
  // which may exceed one read's alone (the media link's).
  if (read && tag != kDiskReadsTogetherRoute && tag != kDiskReadBesideRandomRoute)
    path_.emplace_back(media_[disk]->get_link_up(), sg4::LinkInRoute::Direction::UP);
  if (tag == kDiskReadsTogetherRoute)
    path_.emplace_back(beside_link(reads_together_, disk, "reads-together",
                                   d.sequential_reads_together_bytes_per_s));
  if (tag == kDiskReadBesideRandomRoute)
    path_.emplace_back(beside_link(beside_random_, disk, "beside-random",
                                   d.sequential_read_beside_random_bytes_per_s));
  if (tag == kDiskReadBesideWriteRoute)
    path_.emplace_back(beside_link(beside_write_, disk, "read-beside-write",
                                   d.sequential_read_beside_write_bytes_per_s));
  if (tag == kDiskWriteBesideReadRoute)
    path_.emplace_back(beside_link(beside_read_, disk, "write-beside-read",
                                   d.sequential_write_beside_read_bytes_per_s));
}

// A memcpy within one memory reads and writes every byte: half the bandwidth.
void SimBackend::Impl::PlatformBuilder::within_memory_path(std::uint8_t tag, DeviceId device) {
  if (membus_[device] == nullptr) {
    const Device& dev = devices_[device];
    double bw = 0;
    if (dev.kind == DeviceKind::kGpu) bw = dev.gpu.memory_bytes_per_s;
    if (dev.kind == DeviceKind::kCpu) bw = dev.cpu.dram.bytes_per_s();
    if (bw <= 0)
      throw std::invalid_argument("SimBackend: copy within '" + dev.name +
                                  "', which has no memory");
    membus_[device] = plain_link(dev.name + "/membus", bw / 2);
  }
  path_.emplace_back(membus_[device]);
  if (tag < kCopyLaneRoute) return;
  // Unbounded until a copy takes the lane and sets its rate (launch_copy).
  auto& lanes = m_.copy_lanes[device];
  if (lanes.empty())
    for (int lane = 0; lane < kCopyLanes; ++lane)
      lanes.push_back(plain_link(devices_[device].name + "/copy-lane-" + std::to_string(lane),
                                 kUnboundedLaneBytesPerS));
  path_.emplace_back(lanes[tag - kCopyLaneRoute]);
}

// The machine's links from `src` to `dst`; returns the sum of their latencies.
double SimBackend::Impl::PlatformBuilder::machine_path(DeviceId src, DeviceId dst) {
  const Machine& machine = *m_.machine;
  double latency_s = 0;
  for (const Hop& hop : machine.route(src, dst)) {
    path_.emplace_back(
        hop.forward ? up_[hop.link] : down_[hop.link],
        hop.forward ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
    if (duplex_[hop.link] != nullptr) path_.emplace_back(duplex_[hop.link]);
    latency_s += machine.link(hop.link).model.latency_s;
  }
  return latency_s;
}

void SimBackend::Impl::PlatformBuilder::add_routes() {
  membus_.assign(n_, nullptr);
  m_.copy_lanes.assign(n_, {});
  m_.copy_lanes_busy.assign(n_, 0);
  media_.assign(n_, nullptr);
  for (auto* made : {&beside_random_, &beside_write_, &beside_read_, &reads_together_})
    made->assign(n_, nullptr);
  m_.routes_from.assign(n_, {});
  m_.routes.clear();
  m_.route_links.clear();
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    const auto tag = static_cast<std::uint8_t>(keys_[k] >> 60);
    const auto src = static_cast<DeviceId>((keys_[k] >> 30) & 0x3fffffffu);
    const auto dst = static_cast<DeviceId>(keys_[k] & 0x3fffffffu);
    path_.clear();
    double latency_s = 0;
    try {
      const bool read = tag == kDiskReadRoute || tag == kDiskReadBesideRandomRoute ||
                        tag == kDiskReadBesideWriteRoute || tag == kDiskReadsTogetherRoute;
      const bool write = tag == kDiskWriteRoute || tag == kDiskWriteBesideReadRoute;
      if (read || write) disk_path(tag, read ? src : dst, read);
      if (src == dst)
        within_memory_path(tag, src);
      else
        latency_s = machine_path(src, dst);
      if (write)
        path_.emplace_back(media_[dst]->get_link_down(), sg4::LinkInRoute::Direction::DOWN);
    } catch (const std::invalid_argument&) {
      if (k < required_) throw;  // the graph needs it
      continue;                  // an optional pair that has no route
    }
    add_route(tag, src, dst, latency_s);
  }
  zone_->seal();
}

// A source host whose up-route is `path_`, and the route's rates.
void SimBackend::Impl::PlatformBuilder::add_route(std::uint8_t tag, DeviceId src, DeviceId dst,
                                                  double latency_s) {
  const auto route = static_cast<std::uint32_t>(m_.routes.size());
  sg4::Host* source =
      zone_->create_host("opsim/route" + std::to_string(route), kWorkPerSecond)->seal();
  zone_->add_route(source->get_netpoint(), nullptr, nullptr, nullptr, path_, false);
  Route r{source, latency_s, std::numeric_limits<double>::infinity(),
          static_cast<std::uint32_t>(m_.route_links.size()), 0};
  for (const sg4::LinkInRoute& hop : path_) {
    const std::uint32_t l = index_of(hop.get_link());
    m_.route_links.push_back(l);
    r.bytes_per_s = std::min(r.bytes_per_s, link_bytes_per_s_[l]);
  }
  r.link_count = static_cast<std::uint32_t>(m_.route_links.size()) - r.link_begin;
  r.path_bytes_per_s = r.bytes_per_s;
  if (src == dst && devices_[src].kind == DeviceKind::kCpu &&
      devices_[src].cpu.copy_stream_bytes_per_s > 0) {
    // One memcpy thread copies at most this fast, however idle the DRAM.
    r.flow_cap_bytes_per_s = devices_[src].cpu.copy_stream_bytes_per_s;
    r.bytes_per_s = std::min(r.bytes_per_s, r.flow_cap_bytes_per_s);
  }
  m_.routes.push_back(r);
  m_.routes_from[src].push_back(RouteEntry{dst, tag, route});
}

}  // namespace opsim
