// opsim-gui-screenshots: the timeline explorer's key views as PNGs a person can look at, taken
// from the real window (run it under xvfb-run, see scripts/gui-screenshots.sh):
//   1-default-scenario.png      the default scenario as it opens
//   2-what-if-before.png        zoomed in, before an edit
//   3-what-if-stale.png         link bandwidth halved, while it re-simulates
//   4-what-if-after.png         the new run at the same zoom, the old one as the baseline
//   5-ring-expanded.png ...     a big ring trace: all lanes, its server collapsed, one row
//                               per device, filtered, scrolled (sticky headers)
//   9-collective-dgx-h100.png   allreduce by ring, tree, nvls and auto on dgx-h100, one row
//                               per device, the links in one row
// Usage: opsim-gui-screenshots OUT_DIR [RING_TRACE.json]
#include <QApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <cstdio>
#include <set>
#include <string>

#include "gui/main_window.hpp"
#include "gui/scenario_panel.hpp"
#include "gui/timeline_view.hpp"

namespace {

using opsim::gui::MainWindow;

void settle(int ms = 300) {
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 20);
}

bool wait_for_simulation(MainWindow& w, bool& done) {
  QElapsedTimer clock;
  clock.start();
  while (!done && clock.elapsed() < 300000) QApplication::processEvents(QEventLoop::AllEvents, 20);
  const bool ok = done;
  done = false;
  settle();
  if (!ok)
    std::fprintf(stderr, "opsim-gui-screenshots: no simulation result: %s\n",
                 qPrintable(w.status_text()));
  return ok;
}

bool save(QWidget& w, const QDir& dir, const char* name) {
  const QString path = dir.filePath(QString::fromLatin1(name));
  const bool ok = w.grab().save(path);
  std::printf("%s %s\n", ok ? "wrote" : "could not write", qPrintable(path));
  return ok;
}

bool what_if_views(const QDir& out) {
  MainWindow w;
  w.resize(1920, 1080);
  w.show();
  bool done = false;
  QObject::connect(&w, &MainWindow::simulation_done, [&done](bool) { done = true; });
  if (!wait_for_simulation(w, done)) return false;
  bool ok = save(w, out, "1-default-scenario.png");
  w.view_state().show_range(0, 45e6);
  settle();
  ok = save(w, out, "2-what-if-before.png") && ok;
  auto* scale = w.findChild<opsim::gui::ScenarioPanel*>()->findChild<QDoubleSpinBox*>();
  scale->setValue(0.5);
  QApplication::processEvents();
  ok = save(w, out, "3-what-if-stale.png") && ok;
  if (!wait_for_simulation(w, done)) return false;
  return save(w, out, "4-what-if-after.png") && ok;
}

// The rows "One row per device" collapses (each device, each server's links).
std::set<std::string> device_rows(MainWindow& w) {
  std::set<std::string> devices;
  for (const auto& r : w.trace_set().panes().at(0).model->rows()) {
    if (r.kind == opsim::gui::RowKind::kSubgroup) devices.insert(r.key);
  }
  return devices;
}

bool collective_view(const QDir& out) {
  MainWindow w(MainWindow::Options{false, {}});
  w.resize(1920, 1080);
  w.show();
  bool done = false;
  QObject::connect(&w, &MainWindow::simulation_done, [&done](bool) { done = true; });
  opsim::gui::Scenario s;
  s.kind = opsim::gui::ScenarioKind::kCollective;
  s.topology = QStringLiteral("dgx-h100");
  s.collective.algorithms = {"ring", "tree", "nvls", "auto"};
  w.set_scenario(s);
  w.simulate(s);
  if (!wait_for_simulation(w, done)) return false;
  std::set<std::string> collapsed = device_rows(w);
  collapsed.insert("Links");  // one row per link direction would fill the screen
  w.view_state().set_collapsed(collapsed);
  settle();
  return save(w, out, "9-collective-dgx-h100.png");
}

bool ring_views(const QDir& out, const QString& trace) {
  MainWindow w(MainWindow::Options{false, {}});
  w.resize(1920, 1080);
  w.show();
  QElapsedTimer clock;
  clock.start();
  if (!w.open_traces({trace}).isEmpty()) return false;
  std::printf("opened %s in %.1f s\n", qPrintable(trace), clock.elapsed() / 1e3);
  settle();
  w.tabs()->setCurrentIndex(2);  // the topology of the ring
  bool ok = save(w, out, "5-ring-expanded.png");
  const auto& rows = w.trace_set().panes().at(0).model->rows();
  w.view_state().toggle_collapsed(rows.at(0).key);  // the server: 1,024 GPUs in one bar
  settle();
  ok = save(w, out, "6-ring-server-collapsed.png") && ok;
  w.view_state().set_collapsed(device_rows(w));
  settle();
  ok = save(w, out, "6b-ring-one-row-per-device.png") && ok;
  w.findChild<QLineEdit*>(QStringLiteral("lane_filter"))->setText(QStringLiteral("gpu5"));
  w.view_state().set_collapsed({});
  settle();
  ok = save(w, out, "7-ring-filter-gpu5.png") && ok;
  w.findChild<QLineEdit*>(QStringLiteral("lane_filter"))->clear();
  settle();
  QScrollBar* bar = w.timeline_scroll()->verticalScrollBar();
  bar->setValue(bar->maximum() / 2);
  w.view_state().show_range(0, w.trace_set().end_ns() / 20);
  settle();
  return save(w, out, "8-ring-scrolled-zoomed.png") && ok;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: opsim-gui-screenshots OUT_DIR [RING_TRACE.json]\n");
    return 2;
  }
  const QDir out(QString::fromLocal8Bit(argv[1]));
  if (!QDir().mkpath(out.path())) {
    std::fprintf(stderr, "opsim-gui-screenshots: %s: cannot create the folder\n", argv[1]);
    return 2;
  }
  bool ok = what_if_views(out);
  ok = collective_view(out) && ok;
  if (argc > 2) ok = ring_views(out, QString::fromLocal8Bit(argv[2])) && ok;
  return ok ? 0 : 1;
}
