#include "experiments/sync/nvlink_cycles.hpp"

#include <algorithm>
#include <functional>
#include <map>

namespace opsim::sync {

namespace {

// Work (search steps plus links scanned while pruning) before the search gives up, so a
// graph without the cycles sought costs at most a fraction of a second; 8 GPUs need a few
// thousand.
constexpr std::uint64_t kSearchBudget = 50'000'000;
// Pruning costs O(n * degree) per step; above this size the search relies on the budget.
constexpr std::uint32_t kPruneUpTo = 64;

/// Depth-first enumeration of Hamiltonian cycles in the pairs still available. Each cycle is
/// reported once (start 0, second vertex < last) with its pairs taken out of `available`,
/// which the caller may use for a nested search; they are put back afterwards.
class CycleSearch {
 public:
  using Visit = std::function<bool(const Cycle&)>;  // true: stop

  CycleSearch(const GpuLinkGraph& graph, std::vector<int>& available, double min_width,
              std::uint64_t& budget)
      : graph_(graph),
        available_(available),
        min_width_(min_width),
        budget_(budget),
        visited_(graph.size(), 0) {}

  /// Returns true when `visit` asked to stop.
  bool run(const Visit& visit) {
    visit_ = &visit;
    path_.assign(1, 0);
    visited_.assign(graph_.size(), 0);
    visited_[0] = 1;
    return extend();
  }

 private:
  bool usable(const GpuLinkGraph::Edge& e) const {
    return available_[e.pair] > 0 && graph_.width_bytes_per_s(e.pair) >= min_width_;
  }

  // Every vertex off the path needs two usable ways in or out (to other free vertices or
  // to the path's two ends), else no cycle can pass through it.
  bool hopeless() {
    const std::uint32_t end = path_.back();
    for (std::uint32_t v = 0; v < graph_.size(); ++v) {
      if (visited_[v]) continue;
      int ways = 0;
      const auto& neighbours = graph_.neighbours(v);
      budget_ -= std::min<std::uint64_t>(budget_, neighbours.size());
      for (const auto& e : neighbours)
        if (usable(e) && (!visited_[e.to] || e.to == end || e.to == 0)) ++ways;
      if (ways < 2) return true;
    }
    return false;
  }

  bool extend() {
    if (budget_ == 0) return true;
    --budget_;
    const std::uint32_t n = graph_.size();
    const std::uint32_t at = path_.back();
    if (path_.size() == n) {
      if (path_[1] > path_[n - 1]) return false;  // the reverse of a cycle already reported
      for (const auto& e : graph_.neighbours(at)) {
        if (e.to != 0 || !usable(e)) continue;
        --available_[e.pair];
        const bool stop = (*visit_)(path_);
        ++available_[e.pair];
        return stop;
      }
      return false;
    }
    if (n <= kPruneUpTo && path_.size() > 1 && hopeless()) return false;
    for (const auto& e : graph_.neighbours(at)) {
      if (visited_[e.to] || !usable(e)) continue;
      --available_[e.pair];
      visited_[e.to] = 1;
      path_.push_back(e.to);
      const bool stop = extend();
      path_.pop_back();
      visited_[e.to] = 0;
      ++available_[e.pair];
      if (stop) return true;
    }
    return false;
  }

  const GpuLinkGraph& graph_;
  std::vector<int>& available_;
  double min_width_;
  std::uint64_t& budget_;
  const Visit* visit_ = nullptr;
  std::vector<char> visited_;
  Cycle path_;
};

/// Cheap necessary conditions: 3+ vertices, each with 2+ distinct neighbours, connected.
bool may_have_cycle(const GpuLinkGraph& graph) {
  const std::uint32_t n = graph.size();
  if (n < 3) return false;
  for (std::uint32_t v = 0; v < n; ++v)
    if (graph.neighbours(v).size() < 2) return false;
  std::vector<char> seen(n, 0);
  std::vector<std::uint32_t> stack{0};
  seen[0] = 1;
  std::uint32_t reached = 1;
  while (!stack.empty()) {
    const std::uint32_t v = stack.back();
    stack.pop_back();
    for (const auto& e : graph.neighbours(v))
      if (!seen[e.to]) {
        seen[e.to] = 1;
        ++reached;
        stack.push_back(e.to);
      }
  }
  return reached == n;
}

}  // namespace

GpuLinkGraph::GpuLinkGraph(const Machine& machine, std::span<const DeviceId> gpus)
    : neighbours_(gpus.size()) {
  std::vector<std::uint32_t> index(machine.devices().size(), UINT32_MAX);
  for (std::uint32_t i = 0; i < gpus.size(); ++i) index[gpus[i]] = i;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> pairs;
  for (const Link& link : machine.links()) {
    const std::uint32_t a = index[link.a];
    const std::uint32_t b = index[link.b];
    if (a == UINT32_MAX || b == UINT32_MAX) continue;
    const auto key = std::minmax(a, b);
    auto [it, added] = pairs.emplace(std::pair(key.first, key.second), multiplicity_.size());
    if (added) {
      multiplicity_.push_back(0);
      // The route, not the link, decides what a copy between the pair gets.
      width_.push_back(std::min(machine.route_bytes_per_s(gpus[a], gpus[b]),
                                machine.route_bytes_per_s(gpus[b], gpus[a])));
      neighbours_[a].push_back(Edge{b, it->second});
      neighbours_[b].push_back(Edge{a, it->second});
    }
    multiplicity_[it->second] += std::max(1, link.model.count);
  }
  for (auto& list : neighbours_)
    std::sort(list.begin(), list.end(), [](const Edge& x, const Edge& y) { return x.to < y.to; });
}

std::uint32_t GpuLinkGraph::pair_of(std::uint32_t a, std::uint32_t b) const {
  for (const auto& e : neighbours_[a])
    if (e.to == b) return e.pair;
  return UINT32_MAX;
}

Cycle find_widest_hamiltonian_cycle(const GpuLinkGraph& graph, bool* gave_up) {
  if (gave_up != nullptr) *gave_up = false;
  if (graph.size() == 2) return graph.pair_of(0, 1) == UINT32_MAX ? Cycle{} : Cycle{0, 1};
  if (!may_have_cycle(graph)) return {};
  std::vector<double> widths;
  for (std::uint32_t p = 0; p < graph.pair_count(); ++p)
    widths.push_back(graph.width_bytes_per_s(p));
  std::sort(widths.begin(), widths.end(), std::greater<>());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  std::vector<int> available(graph.pair_count());
  for (std::uint32_t p = 0; p < graph.pair_count(); ++p) available[p] = graph.multiplicity(p);
  std::uint64_t budget = kSearchBudget;
  Cycle found;
  // Widest threshold first: the first cycle found has the widest narrowest pair.
  for (double min_width : widths) {
    CycleSearch search(graph, available, min_width, budget);
    search.run([&](const Cycle& c) {
      found = c;
      return true;
    });
    if (!found.empty() || budget == 0) break;
  }
  if (gave_up != nullptr) *gave_up = found.empty() && budget == 0;
  return found;
}

std::vector<Cycle> find_disjoint_hamiltonian_cycles(const GpuLinkGraph& graph, bool* gave_up) {
  if (gave_up != nullptr) *gave_up = false;
  std::vector<int> available(graph.pair_count());
  for (std::uint32_t p = 0; p < graph.pair_count(); ++p) available[p] = graph.multiplicity(p);
  if (graph.size() == 2) {
    const std::uint32_t pair = graph.pair_of(0, 1);
    if (pair == UINT32_MAX) return {};
    return std::vector<Cycle>(static_cast<std::size_t>(available[pair]), Cycle{0, 1});
  }
  if (!may_have_cycle(graph)) return {};
  // No vertex can be on more cycles than half its link units.
  int most = INT32_MAX;
  for (std::uint32_t v = 0; v < graph.size(); ++v) {
    int units = 0;
    for (const auto& e : graph.neighbours(v)) units += graph.multiplicity(e.pair);
    most = std::min(most, units / 2);
  }
  std::uint64_t budget = kSearchBudget;
  std::vector<Cycle> chosen;
  std::vector<Cycle> best;
  // Exhaustive (within the budget) search for `most` cycles, remembering the largest set seen.
  std::function<bool()> search_more = [&]() -> bool {
    if (chosen.size() > best.size()) best = chosen;
    if (static_cast<int>(chosen.size()) == most) return true;
    CycleSearch search(graph, available, 0.0, budget);
    return search.run([&](const Cycle& c) {
      chosen.push_back(c);
      const bool done = search_more();
      chosen.pop_back();
      return done || budget == 0;
    });
  };
  search_more();
  if (gave_up != nullptr) *gave_up = static_cast<int>(best.size()) < most && budget == 0;
  return best;
}

}  // namespace opsim::sync
