#include "gui/twin_class_model.hpp"

#include <cmath>

#include "gui/step_error_model.hpp"
#include "gui/summary_model.hpp"

namespace opsim::gui {

void TwinClassModel::set_overlays(std::vector<Overlay> overlays) {
  beginResetModel();
  rows_.clear();
  for (Overlay& o : overlays)
    for (ClassDifference& c : o.classes) rows_.push_back({o.title, std::move(c)});
  endResetModel();
}

int TwinClassModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int TwinClassModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant TwinClassModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Row& r = rows_[static_cast<std::size_t>(index.row())];
  const int column = index.column();
  if (role == Qt::TextAlignmentRole)
    return column <= kClass ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::UserRole) return value(r, column);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  switch (column) {
    case kRealBusy:
    case kSimBusy:
      return format_ms(value(r, column).toDouble());
    case kDifference: {
      const double s = value(r, column).toDouble();
      return (s >= 0 ? QStringLiteral("+") : QString()) + format_ms(s);
    }
    case kRelative: {
      const double fraction = r.c.relative_difference();
      return std::isnan(fraction) ? QStringLiteral("—") : format_percent(fraction);
    }
    default:
      return value(r, column);
  }
}

QVariant TwinClassModel::value(const Row& r, int column) const {
  switch (column) {
    case kTrace:
      return r.trace;
    case kClass:
      return QString::fromStdString(r.c.op_class);
    case kRealOps:
      return static_cast<qulonglong>(r.c.recorded_ops);
    case kSimOps:
      return static_cast<qulonglong>(r.c.replayed_ops);
    case kRealBusy:
      return static_cast<double>(r.c.recorded_busy_ns) / 1e9;
    case kSimBusy:
      return static_cast<double>(r.c.replayed_busy_ns) / 1e9;
    case kDifference:
      return static_cast<double>(r.c.difference_ns()) / 1e9;
    case kRelative:
      return r.c.relative_difference();
    default:
      return {};
  }
}

QVariant TwinClassModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kTrace:
      return tr("Trace");
    case kClass:
      return tr("Op class");
    case kRealOps:
      return tr("Real ops");
    case kSimOps:
      return tr("Sim ops");
    case kRealBusy:
      return tr("Real busy");
    case kSimBusy:
      return tr("Sim busy");
    case kDifference:
      return tr("Sim − real");
    case kRelative:
      return tr("Difference");
    default:
      return {};
  }
}

}  // namespace opsim::gui
