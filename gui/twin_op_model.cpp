#include "gui/twin_op_model.hpp"

#include "gui/time_axis.hpp"

namespace opsim::gui {
namespace {

QString signed_duration(TimeNs ns) {
  const QString magnitude =
      QString::fromStdString(format_duration_ns(static_cast<double>(ns < 0 ? -ns : ns)));
  return (ns < 0 ? QStringLiteral("-") : QStringLiteral("+")) + magnitude;
}

// "sim gemm" -> "gemm": the op's name without its world.
QString op_name(const TraceOp& op) {
  const QString name = QString::fromStdString(op.name);
  const qsizetype space = name.indexOf(QLatin1Char(' '));
  return space < 0 ? name : name.mid(space + 1);
}

}  // namespace

void TwinOpModel::set_overlays(std::vector<Overlay> overlays) {
  beginResetModel();
  overlays_ = std::move(overlays);
  rows_.clear();
  for (std::size_t o = 0; o < overlays_.size(); ++o) {
    const Overlay& overlay = overlays_[o];
    if (!overlay.trace || !overlay.twins) continue;
    const auto op_count = static_cast<std::uint32_t>(overlay.trace->ops.size());
    for (std::uint32_t op = 0; op < op_count; ++op)
      if (overlay.twins->is_recorded(op))
        rows_.push_back({o, overlay.twins->timing(*overlay.trace, op)});
  }
  endResetModel();
}

QVariant TwinOpModel::text(int row, int column) const {
  const TwinTiming& t = rows_[static_cast<std::size_t>(row)].timing;
  switch (column) {
    case kRealStart:
      return QString::fromStdString(format_duration_ns(static_cast<double>(t.recorded_start_ns)));
    case kSimStart:
      return QString::fromStdString(format_duration_ns(static_cast<double>(t.replayed_start_ns)));
    case kStartShift:
      return signed_duration(t.start_shift_ns());
    case kRealDuration:
      return QString::fromStdString(
          format_duration_ns(static_cast<double>(t.recorded_duration_ns)));
    case kSimDuration:
      return QString::fromStdString(
          format_duration_ns(static_cast<double>(t.replayed_duration_ns)));
    case kDurationChange:
      return signed_duration(t.duration_change_ns());
    default:
      return value(row, column);
  }
}

QVariant TwinOpModel::value(int row, int column) const {
  const Row& r = rows_[static_cast<std::size_t>(row)];
  const TwinTiming& t = r.timing;
  const Trace& trace = *overlays_[r.overlay].trace;
  const auto seconds = [](TimeNs ns) { return static_cast<double>(ns) / 1e9; };
  switch (column) {
    case kTrace:
      return overlays_[r.overlay].title;
    case kOp:
      return op_name(trace.ops[t.recorded_op]);
    case kClass:
      return QString::fromStdString(trace.ops[t.recorded_op].op_class);
    case kRealStart:
      return seconds(t.recorded_start_ns);
    case kSimStart:
      return seconds(t.replayed_start_ns);
    case kStartShift:
      return seconds(t.start_shift_ns());
    case kRealDuration:
      return seconds(t.recorded_duration_ns);
    case kSimDuration:
      return seconds(t.replayed_duration_ns);
    case kDurationChange:
      return seconds(t.duration_change_ns());
    default:
      return {};
  }
}

QVariant TwinOpModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kTrace:
      return tr("Trace");
    case kOp:
      return tr("Op");
    case kClass:
      return tr("Class");
    case kRealStart:
      return tr("Real start");
    case kSimStart:
      return tr("Sim start");
    case kStartShift:
      return tr("Start shift");
    case kRealDuration:
      return tr("Real duration");
    case kSimDuration:
      return tr("Sim duration");
    case kDurationChange:
      return tr("Duration change");
    default:
      return {};
  }
}

}  // namespace opsim::gui
