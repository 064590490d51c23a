#include "gui/summary_model.hpp"

#include <QFont>
#include <algorithm>
#include <cmath>

#include "hw_models/units.hpp"

namespace opsim::gui {

QString format_ms(double seconds) {
  if (std::isnan(seconds)) return QStringLiteral("–");
  return QString::number(seconds * 1e3, 'f', 3) + QStringLiteral(" ms");
}

void SummaryModel::set_rows(std::vector<SummaryRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int SummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int SummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

namespace {

QString gbps_text(double gbps) {
  return std::isnan(gbps) ? QStringLiteral("–") : QString::number(gbps, 'f', 2) + " GB/s";
}

bool cell_has_data(const SummaryRow& r, int column) {
  switch (column) {
    case SummaryModel::kAlgbw:
      return !std::isnan(r.algbw_GBps);
    case SummaryModel::kBusbw:
      return !std::isnan(r.busbw_GBps);
    case SummaryModel::kChosen:
      return !r.chosen.empty();
    case SummaryModel::kLowerBound:
      return !std::isnan(r.lower_bound_s);
    case SummaryModel::kBusiestLink:
    case SummaryModel::kLinkUtilization:
      return !r.busiest_link.empty();
    case SummaryModel::kPeakMemory:
      return !std::isnan(r.peak_memory_bytes);
    default:
      return true;
  }
}

}  // namespace

bool SummaryModel::column_has_data(int column) const {
  return std::any_of(rows_.begin(), rows_.end(),
                     [column](const SummaryRow& r) { return cell_has_data(r, column); });
}

QVariant SummaryModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const SummaryRow& r = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole) {
    return index.column() == kName || index.column() == kBusiestLink || index.column() == kChosen
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::FontRole && rows_.size() > 1) {
    // The fastest strategy reads bold: the answer to "which one wins?" at a glance.
    double best = r.makespan_s;
    for (const SummaryRow& other : rows_) best = std::min(best, other.makespan_s);
    if (r.makespan_s == best) {
      QFont f;
      f.setBold(true);
      return f;
    }
    return {};
  }
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case kName:
        return QString::fromStdString(r.name);
      case kMakespan:
        return format_ms(r.makespan_s);
      case kAlgbw:
        return gbps_text(r.algbw_GBps);
      case kBusbw:
        return gbps_text(r.busbw_GBps);
      case kChosen:
        return r.chosen.empty() ? QStringLiteral("–") : QString::fromStdString(r.chosen);
      case kLowerBound:
        return format_ms(r.lower_bound_s);
      case kBusiestLink:
        return r.busiest_link.empty() ? QStringLiteral("–")
                                      : QString::fromStdString(r.busiest_link);
      case kLinkUtilization:
        return r.busiest_link.empty()
                   ? QStringLiteral("–")
                   : QString::number(r.busiest_link_utilization * 100, 'f', 1) + "%";
      case kBytesMoved:
        return QString::fromStdString(format_bytes(r.bytes_moved));
      case kPeakMemory:
        return std::isnan(r.peak_memory_bytes)
                   ? QStringLiteral("–")
                   : QString::fromStdString(format_bytes(r.peak_memory_bytes));
      default:
        return {};
    }
  }
  if (role == Qt::UserRole) {
    switch (index.column()) {
      case kName:
        return QString::fromStdString(r.name);
      case kMakespan:
        return r.makespan_s;
      case kAlgbw:
        return r.algbw_GBps;
      case kBusbw:
        return r.busbw_GBps;
      case kChosen:
        return QString::fromStdString(r.chosen);
      case kLowerBound:
        return r.lower_bound_s;
      case kBusiestLink:
        return QString::fromStdString(r.busiest_link);
      case kLinkUtilization:
        return r.busiest_link_utilization;
      case kBytesMoved:
        return r.bytes_moved;
      case kPeakMemory:
        return r.peak_memory_bytes;
      default:
        return {};
    }
  }
  return {};
}

QVariant SummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  switch (section) {
    case kName:
      return tr("Name");
    case kMakespan:
      return tr("Makespan");
    case kAlgbw:
      return tr("algbw");
    case kBusbw:
      return tr("busbw");
    case kChosen:
      return tr("Algorithm · protocol");
    case kLowerBound:
      return tr("Lower bound");
    case kBusiestLink:
      return tr("Busiest link");
    case kLinkUtilization:
      return tr("Utilization");
    case kBytesMoved:
      return tr("Bytes moved");
    case kPeakMemory:
      return tr("Peak memory");
    default:
      return {};
  }
}

}  // namespace opsim::gui
