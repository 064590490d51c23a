// Table of per-lane stats for the selected time range, across every pane of the comparison.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "gui/range_stats.hpp"

namespace opsim::gui {

class RangeStatsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kTrace, kLane, kBusy, kBytes, kIdleGaps, kLongestGap, kColumnCount };

  struct Entry {
    QString trace;
    QString lane;
    LaneRangeStats stats;
  };

  explicit RangeStatsModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  /// Recomputes for [begin_ns, end_ns) over `models` (titles give the Trace column).
  void compute(const std::vector<const TimelineModel*>& models, const QStringList& titles,
               TimeNs begin_ns, TimeNs end_ns);
  void clear();
  const std::vector<Entry>& entries() const { return entries_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<Entry> entries_;
};

}  // namespace opsim::gui
