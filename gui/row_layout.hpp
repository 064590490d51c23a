// Which rows of a pane are on screen and where: the user's collapsed groups, lane filter and
// counter toggle applied to a TimelineModel's rows, each row given its top and height in
// pixels. Plain value types, no widget, so hit testing and painting share one geometry and
// tests check it without a window. Collapsed headers carry the busy profile of the lanes
// they hide (the summary bar).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gui/timeline_model.hpp"

namespace opsim::gui {

struct TimelineStyle {
  int label_width_px = 220;
  int title_height_px = 24;
  int group_height_px = 18;
  int subgroup_height_px = 15;
  int lane_height_px = 19;
  int sub_row_height_px = 8;  ///< per concurrent transfer on a shared link (7 px bar, 1 gap)
  int max_sub_rows = 12;      ///< more concurrent transfers than this share the last sub-row
  int counter_height_px = 26;
  int pane_gap_px = 8;
  int ruler_height_px = 26;
};

/// What the user chose to see, shared by every pane.
struct RowVisibility {
  std::set<std::string> collapsed;  ///< TimelineRow::key of collapsed headers
  /// Keeps lanes whose name, device or any op name contains this (case-insensitive), the
  /// headers above them and their counters; a header whose label matches keeps all it holds.
  std::string filter;
  bool show_counters = true;

  bool operator==(const RowVisibility&) const = default;
};

struct LaidOutRow {
  std::uint32_t row = 0;  ///< index into TimelineModel::rows()
  int top_px = 0;         ///< from the pane's top (the title bar is above the first row)
  int height_px = 0;
  bool collapsed = false;                      ///< a header whose rows are hidden
  std::shared_ptr<const BusyProfile> summary;  ///< collapsed headers: their lanes' busy profile
};

/// Busy profiles of a model's headers, built when a header is first collapsed.
using SummaryCache = std::map<std::uint32_t, std::shared_ptr<const BusyProfile>>;

class RowLayout {
 public:
  /// Every row of `model`, nothing collapsed or filtered.
  RowLayout(const TimelineModel& model, const TimelineStyle& style);
  RowLayout(const TimelineModel& model, const RowVisibility& visibility, const TimelineStyle& style,
            SummaryCache* cache = nullptr);

  const std::vector<LaidOutRow>& rows() const { return rows_; }
  /// Title bar and rows.
  int height_px() const { return height_px_; }
  /// Index into rows() of the row under `y_px` (from the pane's top); -1 on the title or below.
  int index_at(int y_px) const;
  /// Index into rows() of the first row whose bottom is below `y_px`.
  std::size_t first_index_below(int y_px) const;
  /// Index into rows() of `lane`'s row, or -1 when it is hidden.
  int index_of_lane(std::uint32_t lane) const;
  /// Index into rows() of model row `row`, or -1 when it is hidden.
  int index_of_row(std::uint32_t row) const;
  /// How many lane rows are shown.
  std::size_t lane_rows() const { return lane_rows_; }

  /// Height of a row of `kind` holding `sub_rows` overlapping spans.
  static int row_height_px(RowKind kind, int sub_rows, const TimelineStyle& style);

 private:
  void place(const TimelineModel& model, std::uint32_t row, bool collapsed,
             const TimelineStyle& style, SummaryCache* cache);

  std::vector<LaidOutRow> rows_;
  std::vector<int> index_of_lane_;
  std::vector<int> index_of_row_;
  int height_px_ = 0;
  std::size_t lane_rows_ = 0;
};

/// Which model rows `visibility.filter` keeps (all when it is empty).
std::vector<bool> rows_kept_by_filter(const TimelineModel& model, const std::string& filter);

}  // namespace opsim::gui
