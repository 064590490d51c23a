#include "gui/row_layout.hpp"

#include <algorithm>
#include <cctype>

namespace opsim::gui {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool contains(const std::string& haystack, const std::string& needle_lower) {
  return lower(haystack).find(needle_lower) != std::string::npos;
}

bool lane_matches(const TimelineModel& model, std::uint32_t lane, const std::string& needle) {
  const TraceLane& l = model.trace().lanes[lane];
  return contains(l.name, needle) || contains(l.device, needle) ||
         model.lane_has_op_matching(lane, needle);
}

bool is_header(RowKind kind) {
  return kind == RowKind::kGroup || kind == RowKind::kSubgroup;
}

}  // namespace

std::vector<bool> rows_kept_by_filter(const TimelineModel& model, const std::string& filter) {
  const auto& rows = model.rows();
  std::vector<bool> kept(rows.size(), filter.empty());
  if (filter.empty()) return kept;
  const std::string needle = lower(filter);
  // A header whose label matches keeps everything under it.
  std::vector<bool> forced(rows.size(), false);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const TimelineRow& row = rows[r];
    const bool parent_forced = row.parent != kNoRow && forced[row.parent];
    forced[r] = parent_forced || (is_header(row.kind) && contains(row.label, needle));
    if (row.kind == RowKind::kLane) kept[r] = forced[r] || lane_matches(model, row.lane, needle);
  }
  // Counters follow what they measure: a link's utilization its lane (the row before), a
  // device's memory any kept lane of that device.
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].kind != RowKind::kCounter) continue;
    const TraceCounter& c = model.trace().counters[rows[r].counter];
    bool keep = forced[r] || contains(c.name, needle);
    for (std::size_t q = r; !keep && q-- > 0 && rows[q].parent == rows[r].parent;) {
      if (rows[q].kind != RowKind::kLane) continue;
      keep = kept[q];
      if (c.unit == "fraction") break;  // utilization: only its own lane counts
    }
    kept[r] = keep;
  }
  // Headers stay when anything under them does.
  for (std::size_t r = rows.size(); r-- > 0;) {
    if (forced[r]) kept[r] = true;
    if (kept[r] && rows[r].parent != kNoRow) kept[rows[r].parent] = true;
  }
  return kept;
}

int RowLayout::row_height_px(RowKind kind, int sub_rows, const TimelineStyle& s) {
  switch (kind) {
    case RowKind::kGroup:
      return s.group_height_px;
    case RowKind::kSubgroup:
      return s.subgroup_height_px;
    case RowKind::kCounter:
      return s.counter_height_px;
    case RowKind::kLane:
      break;
  }
  if (sub_rows <= 1) return s.lane_height_px;
  return std::max(s.lane_height_px, 6 + std::min(sub_rows, s.max_sub_rows) * s.sub_row_height_px);
}

RowLayout::RowLayout(const TimelineModel& model, const TimelineStyle& style)
    : RowLayout(model, RowVisibility{}, style) {}

RowLayout::RowLayout(const TimelineModel& model, const RowVisibility& visibility,
                     const TimelineStyle& style, SummaryCache* cache) {
  const auto& rows = model.rows();
  index_of_lane_.assign(model.trace().lanes.size(), -1);
  index_of_row_.assign(rows.size(), -1);
  height_px_ = style.title_height_px;
  const std::vector<bool> kept = rows_kept_by_filter(model, visibility.filter);
  // hidden_under[r]: r sits under a collapsed header (rows come in tree order).
  std::vector<bool> hidden_under(rows.size(), false);
  for (std::uint32_t r = 0; r < rows.size(); ++r) {
    const TimelineRow& row = rows[r];
    const std::uint32_t up = row.parent;
    if (up != kNoRow) {
      hidden_under[r] =
          hidden_under[up] || index_of_row_[up] < 0 || rows_[index_of_row_[up]].collapsed;
    }
    if (!kept[r] || hidden_under[r]) continue;
    if (row.kind == RowKind::kCounter && !visibility.show_counters) continue;
    const bool collapsed = is_header(row.kind) && visibility.collapsed.count(row.key) > 0;
    place(model, r, collapsed, style, cache);
  }
}

void RowLayout::place(const TimelineModel& model, std::uint32_t r, bool collapsed,
                      const TimelineStyle& style, SummaryCache* cache) {
  const TimelineRow& row = model.rows()[r];
  const int sub_rows = row.kind == RowKind::kLane ? model.lane_spans(row.lane).sub_rows : 1;
  LaidOutRow out{r, height_px_, row_height_px(row.kind, sub_rows, style), collapsed, nullptr};
  if (collapsed) {
    std::shared_ptr<const BusyProfile>* slot = nullptr;
    if (cache != nullptr) slot = &(*cache)[r];
    if (slot != nullptr && *slot) {
      out.summary = *slot;
    } else {
      out.summary = std::make_shared<const BusyProfile>(model, model.lanes_under(r));
      if (slot != nullptr) *slot = out.summary;
    }
  }
  index_of_row_[r] = static_cast<int>(rows_.size());
  if (row.kind == RowKind::kLane) {
    index_of_lane_[row.lane] = static_cast<int>(rows_.size());
    ++lane_rows_;
  }
  height_px_ += out.height_px;
  rows_.push_back(std::move(out));
}

std::size_t RowLayout::first_index_below(int y_px) const {
  const auto it =
      std::upper_bound(rows_.begin(), rows_.end(), y_px,
                       [](int y, const LaidOutRow& row) { return y < row.top_px + row.height_px; });
  return static_cast<std::size_t>(it - rows_.begin());
}

int RowLayout::index_at(int y_px) const {
  const std::size_t i = first_index_below(y_px);
  if (i >= rows_.size() || y_px < rows_[i].top_px) return -1;
  return static_cast<int>(i);
}

int RowLayout::index_of_lane(std::uint32_t lane) const {
  return lane < index_of_lane_.size() ? index_of_lane_[lane] : -1;
}

int RowLayout::index_of_row(std::uint32_t row) const {
  return row < index_of_row_.size() ? index_of_row_[row] : -1;
}

}  // namespace opsim::gui
