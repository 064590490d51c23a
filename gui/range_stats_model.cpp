#include "gui/range_stats_model.hpp"

#include "gui/time_axis.hpp"
#include "hw_models/units.hpp"

namespace opsim::gui {

void RangeStatsModel::compute(const std::vector<const TimelineModel*>& models,
                              const QStringList& titles, TimeNs begin_ns, TimeNs end_ns) {
  beginResetModel();
  entries_.clear();
  for (std::size_t m = 0; m < models.size(); ++m) {
    const TimelineModel& model = *models[m];
    const auto stats = range_stats(model, begin_ns, end_ns);
    const QString title = m < static_cast<std::size_t>(titles.size())
                              ? titles[static_cast<int>(m)]
                              : QString::fromStdString(model.trace().title);
    // Display order, so the table reads like the timeline.
    for (const TimelineRow& row : model.rows()) {
      if (row.kind != RowKind::kLane) continue;
      entries_.push_back(
          {title, QString::fromStdString(model.trace().lanes[row.lane].name), stats[row.lane]});
    }
  }
  endResetModel();
}

void RangeStatsModel::clear() {
  beginResetModel();
  entries_.clear();
  endResetModel();
}

int RangeStatsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int RangeStatsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RangeStatsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Entry& e = entries_[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole) {
    return index.column() <= kLane ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case kTrace:
        return e.trace;
      case kLane:
        return e.lane;
      case kBusy:
        return QString::number(e.stats.busy_fraction * 100, 'f', 1) + "%";
      case kBytes:
        return QString::fromStdString(format_bytes(e.stats.bytes));
      case kIdleGaps:
        return e.stats.idle_gaps;
      case kLongestGap:
        return QString::fromStdString(
            format_duration_ns(static_cast<double>(e.stats.longest_gap_ns)));
      default:
        return {};
    }
  }
  if (role == Qt::UserRole) {
    switch (index.column()) {
      case kTrace:
        return e.trace;
      case kLane:
        return e.lane;
      case kBusy:
        return e.stats.busy_fraction;
      case kBytes:
        return e.stats.bytes;
      case kIdleGaps:
        return e.stats.idle_gaps;
      case kLongestGap:
        return static_cast<qlonglong>(e.stats.longest_gap_ns);
      default:
        return {};
    }
  }
  return {};
}

QVariant RangeStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  switch (section) {
    case kTrace:
      return tr("Trace");
    case kLane:
      return tr("Lane");
    case kBusy:
      return tr("Busy");
    case kBytes:
      return tr("Bytes");
    case kIdleGaps:
      return tr("Idle gaps");
    case kLongestGap:
      return tr("Longest gap");
    default:
      return {};
  }
}

}  // namespace opsim::gui
