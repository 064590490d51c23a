#include "hw_models/machine.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace opsim {

std::string_view to_string(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kGpu: return "gpu";
    case DeviceKind::kSwitch: return "switch";
    case DeviceKind::kNic: return "nic";
    case DeviceKind::kDisk: return "disk";
  }
  return "cpu";
}

// A breadth-first search's per-device state, kept between searches on one thread: a search
// on a 4096-GPU cluster touches a few thousand of its devices, and clearing (or allocating)
// an array per device for each of thousands of routes cost more than the searches.
namespace {

constexpr LinkId kNoHop = std::numeric_limits<LinkId>::max();  // in a kept search: unreached

struct RouteSearch {
  static constexpr std::size_t kUnseen = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> hops;
  std::vector<double> bottleneck;
  std::vector<Hop> via;
  std::vector<DeviceId> frontier;  // in visiting order; also what to reset next time

  void start(std::size_t devices) {
    for (DeviceId d : frontier) hops[d] = kUnseen;  // also whatever a search that threw left
    frontier.clear();
    if (hops.size() < devices) {
      hops.resize(devices, kUnseen);
      bottleneck.resize(devices, 0.0);
      via.resize(devices);
    }
  }
  bool reached(DeviceId d) const { return hops[d] != kUnseen; }
};

// Breadth-first by hops; among equal hop counts keep the widest bottleneck. Only forwarding
// devices are expanded, so GPUs and disks never relay traffic. Once `stop_at` has its hop
// count h, devices h or more hops away cannot change its route: the search ends there. With
// kNoDevice it reaches every device, each by the route a search for it alone would find.
void search_routes(const Machine& machine, RouteSearch& search, DeviceId src, DeviceId stop_at) {
  const std::span<const Device> devices = machine.devices();
  const std::span<const Link> links = machine.links();
  search.start(devices.size());
  std::vector<std::size_t>& hops = search.hops;
  std::vector<double>& bottleneck = search.bottleneck;
  std::vector<DeviceId>& frontier = search.frontier;
  frontier.push_back(src);
  hops[src] = 0;
  bottleneck[src] = std::numeric_limits<double>::infinity();
  for (std::size_t next_index = 0; next_index < frontier.size(); ++next_index) {
    const DeviceId here = frontier[next_index];
    if (stop_at != kNoDevice && search.reached(stop_at) && hops[here] >= hops[stop_at]) break;
    if (here != src && !devices[here].forwards_traffic()) continue;
    for (LinkId link_id : machine.links_of(here)) {
      const Link& link = links[link_id];
      const bool forward = link.a == here;
      const DeviceId next = forward ? link.b : link.a;
      const double width = std::min(bottleneck[here], link.model.bytes_per_s);
      if (hops[next] == RouteSearch::kUnseen) {
        hops[next] = hops[here] + 1;
        bottleneck[next] = width;
        search.via[next] = Hop{link_id, forward};
        frontier.push_back(next);
      } else if (hops[next] == hops[here] + 1 && width > bottleneck[next]) {
        bottleneck[next] = width;
        search.via[next] = Hop{link_id, forward};
      }
    }
  }
}

// The route from src to dst that `via` (each device's last hop from src) records.
std::vector<Hop> path_back(const Machine& machine, std::span<const Hop> via, DeviceId src,
                           DeviceId dst) {
  std::vector<Hop> path;
  for (DeviceId at = dst; at != src;) {
    const Hop hop = via[at];
    path.push_back(hop);
    const Link& link = machine.link(hop.link);
    at = hop.forward ? link.a : link.b;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

// Routes asked for, and the searches kept for sources asked for many: an all-to-all asks
// every GPU for a route to each other GPU, round by round, and a search from a GPU of a
// cluster reaches nearly every device before it settles one on another server.
struct Machine::RouteCache {
  static constexpr std::uint32_t kSearchesBeforeKeepingOne = 2;  // a ring asks for 1 or 2
  static constexpr std::size_t kKeptSearchBytes = std::size_t{256} << 20;

  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::vector<Hop>> routes;
  std::vector<std::uint32_t> searches_from;             // by source
  std::unordered_map<DeviceId, std::vector<Hop>> kept;  // by source: each device's last hop
  std::size_t kept_bytes = 0;
};

Machine::Machine(std::string name)
    : name_(std::move(name)), route_cache_(std::make_unique<RouteCache>()) {
  node_names_.push_back(name_);
}

Machine::Machine(const Machine& other)
    : name_(other.name_),
      description_(other.description_),
      collectives_(other.collectives_),
      node_names_(other.node_names_),
      devices_(other.devices_),
      links_(other.links_),
      adjacency_(other.adjacency_),
      device_index_(other.device_index_),
      link_index_(other.link_index_),
      sealed_(other.sealed_),
      route_cache_(std::make_unique<RouteCache>()) {}

Machine& Machine::operator=(const Machine& other) {
  if (this != &other) {
    Machine copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Machine::Machine(Machine&&) noexcept = default;
Machine& Machine::operator=(Machine&&) noexcept = default;
Machine::~Machine() = default;

std::uint32_t Machine::add_node(std::string node_name) {
  // The implicit first server is renamed by the first explicit add_node with no devices yet.
  if (node_names_.size() == 1 && devices_.empty() && node_names_[0] == name_) {
    node_names_[0] = std::move(node_name);
    return 0;
  }
  node_names_.push_back(std::move(node_name));
  return static_cast<std::uint32_t>(node_names_.size() - 1);
}

DeviceId Machine::add_device(Device device) {
  if (sealed_) throw std::logic_error("Machine::add_device after seal()");
  device.node = static_cast<std::uint32_t>(node_names_.size() - 1);
  if (device_index_.count(device.name))
    throw std::invalid_argument("duplicate device name '" + device.name + "'");
  const auto id = static_cast<DeviceId>(devices_.size());
  device_index_.emplace(device.name, id);
  devices_.push_back(std::move(device));
  adjacency_.emplace_back();
  return id;
}

DeviceId Machine::add_cpu(std::string device_name, const CpuModel& model) {
  Device d;
  d.name = std::move(device_name);
  d.kind = DeviceKind::kCpu;
  d.cpu = model;
  return add_device(std::move(d));
}

DeviceId Machine::add_gpu(std::string device_name, const GpuModel& model) {
  Device d;
  d.name = std::move(device_name);
  d.kind = DeviceKind::kGpu;
  d.gpu = model;
  return add_device(std::move(d));
}

DeviceId Machine::add_switch(std::string device_name) {
  Device d;
  d.name = std::move(device_name);
  d.kind = DeviceKind::kSwitch;
  return add_device(std::move(d));
}

DeviceId Machine::add_nic(std::string device_name) {
  Device d;
  d.name = std::move(device_name);
  d.kind = DeviceKind::kNic;
  return add_device(std::move(d));
}

DeviceId Machine::add_disk(std::string device_name, const DiskModel& model) {
  Device d;
  d.name = std::move(device_name);
  d.kind = DeviceKind::kDisk;
  d.disk = model;
  return add_device(std::move(d));
}

LinkId Machine::add_link(std::string link_name, DeviceId a, DeviceId b, const LinkModel& model) {
  if (sealed_) throw std::logic_error("Machine::add_link after seal()");
  if (a >= devices_.size() || b >= devices_.size())
    throw std::invalid_argument("link '" + link_name + "' joins an unknown device");
  if (a == b) throw std::invalid_argument("link '" + link_name + "' joins a device to itself");
  if (link_index_.count(link_name))
    throw std::invalid_argument("duplicate link name '" + link_name + "'");
  if (!(model.bytes_per_s > 0))
    throw std::invalid_argument("link '" + link_name + "' needs a positive bandwidth");
  const auto id = static_cast<LinkId>(links_.size());
  link_index_.emplace(link_name, id);
  links_.push_back(Link{std::move(link_name), a, b, model});
  adjacency_[a].push_back(id);
  adjacency_[b].push_back(id);
  return id;
}

void Machine::seal() {
  if (devices_.empty()) throw std::invalid_argument("machine '" + name_ + "' has no devices");
  sealed_ = true;
}

std::optional<DeviceId> Machine::find_device(std::string_view device_name) const {
  auto it = device_index_.find(std::string(device_name));
  if (it == device_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<LinkId> Machine::find_link(std::string_view link_name) const {
  auto it = link_index_.find(std::string(link_name));
  if (it == link_index_.end()) return std::nullopt;
  return it->second;
}

std::vector<DeviceId> Machine::devices_of_kind(DeviceKind kind) const {
  std::vector<DeviceId> result;
  for (DeviceId id = 0; id < devices_.size(); ++id)
    if (devices_[id].kind == kind) result.push_back(id);
  return result;
}

DeviceId Machine::host_cpu_of(DeviceId device) const {
  if (devices_.at(device).kind == DeviceKind::kCpu) return device;
  DeviceId best = kNoDevice;
  std::size_t best_hops = std::numeric_limits<std::size_t>::max();
  for (DeviceId cpu : cpus()) {
    if (devices_[cpu].node != devices_[device].node) continue;
    std::size_t hops = 0;
    try {
      hops = route(device, cpu).size();
    } catch (const std::invalid_argument&) {
      continue;
    }
    if (hops < best_hops) {
      best_hops = hops;
      best = cpu;
    }
  }
  if (best == kNoDevice) {
    auto all = cpus();
    if (all.empty()) throw std::invalid_argument("machine '" + name_ + "' has no CPU");
    best = all.front();
  }
  return best;
}

std::span<const Hop> Machine::route(DeviceId src, DeviceId dst) const {
  if (!sealed_) throw std::logic_error("Machine::route before seal()");
  const std::uint64_t key = (static_cast<std::uint64_t>(src) << 32) | dst;
  std::lock_guard lock(route_cache_->mutex);
  auto it = route_cache_->routes.find(key);
  if (it == route_cache_->routes.end())
    it = route_cache_->routes.emplace(key, compute_route(src, dst)).first;
  return it->second;
}

// The caller holds route_cache_->mutex.
std::vector<Hop> Machine::compute_route(DeviceId src, DeviceId dst) const {
  if (src >= devices_.size() || dst >= devices_.size())
    throw std::invalid_argument("route between unknown devices");
  if (src == dst) return {};
  RouteCache& cache = *route_cache_;
  if (auto kept = cache.kept.find(src); kept != cache.kept.end()) {
    if (kept->second[dst].link == kNoHop) throw_no_route(src, dst);
    return path_back(*this, kept->second, src, dst);
  }
  if (cache.searches_from.size() < devices_.size()) cache.searches_from.resize(devices_.size());
  const bool keep =
      ++cache.searches_from[src] > RouteCache::kSearchesBeforeKeepingOne &&
      cache.kept_bytes + devices_.size() * sizeof(Hop) <= RouteCache::kKeptSearchBytes;
  thread_local RouteSearch search;
  search_routes(*this, search, src, keep ? kNoDevice : dst);
  if (keep) {  // before a missing route throws, so the search is not run again for the next
    std::vector<Hop>& via = cache.kept[src];
    via.assign(devices_.size(), Hop{kNoHop, true});
    for (DeviceId d : search.frontier) via[d] = search.via[d];
    cache.kept_bytes += via.size() * sizeof(Hop);
  }
  if (!search.reached(dst)) throw_no_route(src, dst);
  return path_back(*this, search.via, src, dst);
}

void Machine::throw_no_route(DeviceId src, DeviceId dst) const {
  throw std::invalid_argument("no route from '" + devices_[src].name + "' to '" +
                              devices_[dst].name + "'");
}

double Machine::route_latency_s(DeviceId src, DeviceId dst) const {
  double total = 0.0;
  for (const Hop& hop : route(src, dst)) total += links_[hop.link].model.latency_s;
  return total;
}

double Machine::route_bytes_per_s(DeviceId src, DeviceId dst) const {
  double narrowest = std::numeric_limits<double>::infinity();
  for (const Hop& hop : route(src, dst))
    narrowest = std::min(narrowest, links_[hop.link].model.bytes_per_s);
  return narrowest;
}

}  // namespace opsim
