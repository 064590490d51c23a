#include "gui/step_error_model.hpp"

#include <QFileInfo>

#include "gui/summary_model.hpp"

namespace opsim::gui {

namespace {

// The file name of the step's rank's trace.
QString trace_name(const ReplaySteps& r, const StepError& s) {
  if (s.rank < 0 || static_cast<std::size_t>(s.rank) >= r.traces.size()) return {};
  return QFileInfo(QString::fromStdString(r.traces[static_cast<std::size_t>(s.rank)])).fileName();
}

}  // namespace

QString format_percent(double fraction) {
  return (fraction >= 0 ? QStringLiteral("+") : QString()) +
         QString::number(fraction * 100, 'f', 2) + QStringLiteral(" %");
}

void StepErrorModel::set_replays(const std::vector<std::shared_ptr<const ReplaySteps>>& replays) {
  beginResetModel();
  rows_.clear();
  for (const auto& r : replays) {
    if (!r) continue;
    for (const StepError& s : r->steps) rows_.push_back({trace_name(*r, s), s});
  }
  endResetModel();
}

QVariant StepErrorModel::text(int row, int column) const {
  const Row& r = rows_[static_cast<std::size_t>(row)];
  switch (column) {
    case kRecorded:
      return format_ms(r.step.recorded_s);
    case kReplayed:
      return format_ms(r.step.replayed_s);
    case kError:
      return format_percent(r.step.error);
    default:
      return value(row, column);
  }
}

QVariant StepErrorModel::value(int row, int column) const {
  const Row& r = rows_[static_cast<std::size_t>(row)];
  switch (column) {
    case kTrace:
      return r.trace;
    case kRank:
      return static_cast<qlonglong>(r.step.rank);
    case kStep:
      return QString::fromStdString(r.step.name);
    case kRecorded:
      return r.step.recorded_s;
    case kReplayed:
      return r.step.replayed_s;
    case kError:
      return r.step.error;
    default:
      return {};
  }
}

QVariant StepErrorModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kTrace:
      return tr("Trace");
    case kRank:
      return tr("Rank");
    case kStep:
      return tr("Step");
    case kRecorded:
      return tr("Recorded");
    case kReplayed:
      return tr("Replayed");
    case kError:
      return tr("Error");
    default:
      return {};
  }
}

}  // namespace opsim::gui
