#include "gui/twin_tooltip.hpp"

#include <QObject>
#include <cstdlib>

#include "gui/time_axis.hpp"

namespace opsim::gui {
namespace {

QString duration(TimeNs ns) {
  return QString::fromStdString(format_duration_ns(static_cast<double>(ns)));
}

QString signed_duration_text(TimeNs ns) {
  return (ns < 0 ? QStringLiteral("-") : QStringLiteral("+")) + duration(std::llabs(ns));
}

QString ran(const QString& what, TimeNs start_ns, TimeNs duration_ns) {
  return QObject::tr("%1: start %2, duration %3")
      .arg(what, duration(start_ns), duration(duration_ns));
}

}  // namespace

QString twin_tooltip_html(const TwinTiming& t) {
  QString change = signed_duration_text(t.duration_change_ns());
  if (t.recorded_duration_ns > 0)
    change += QStringLiteral(" (%1%2 %)")
                  .arg(t.duration_change_ns() < 0 ? QString() : QStringLiteral("+"))
                  .arg(100.0 * static_cast<double>(t.duration_change_ns()) /
                           static_cast<double>(t.recorded_duration_ns),
                       0, 'f', 1);
  return ran(QObject::tr("recorded"), t.recorded_start_ns, t.recorded_duration_ns) +
         QStringLiteral("<br>") +
         ran(QObject::tr("replayed"), t.replayed_start_ns, t.replayed_duration_ns) +
         QStringLiteral("<br><b>") +
         QObject::tr("difference: start %1, duration %2")
             .arg(signed_duration_text(t.start_shift_ns()), change) +
         QStringLiteral("</b>");
}

}  // namespace opsim::gui
