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

QVariant TwinClassModel::text(int row, int column) const {
  const Row& r = rows_[static_cast<std::size_t>(row)];
  switch (column) {
    case kRealBusy:
    case kSimBusy:
      return format_ms(value(row, column).toDouble());
    case kDifference: {
      const double s = value(row, column).toDouble();
      return (s >= 0 ? QStringLiteral("+") : QString()) + format_ms(s);
    }
    case kRelative: {
      const double fraction = r.c.relative_difference();
      return std::isnan(fraction) ? QStringLiteral("—") : format_percent(fraction);
    }
    default:
      return value(row, column);
  }
}

QVariant TwinClassModel::value(int row, int column) const {
  const Row& r = rows_[static_cast<std::size_t>(row)];
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
