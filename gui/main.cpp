// opsim-gui: the timeline explorer. Starts simulating the default scenario (the book's 4-GPU
// PCIe server, 160 MB, tree/cpu/split, communication only) so a new user sees a comparison
// at once. Traces given are opened beside it: opsim's own, or PyTorch profiler (Kineto)
// traces, replayed and shown recorded against replayed. The scenario options start another
// scenario, e.g. a collective timed per algorithm (gui/scenario_options.hpp).
// Usage: opsim-gui [--no-run] [--smoke-test] [--screenshot FILE] [--topology T]
//        [--collective OP [--algorithm LIST] [--protocol P] [--sizes S]] [--gpus N]
//        [TRACE.json[.gz]...]
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/input_error.hpp"
#include "gui/comparison_render.hpp"
#include "gui/main_window.hpp"
#include "gui/scenario_options.hpp"

namespace {

bool unset(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || *value == 0;
}

// Qt aborts the process when it cannot open its platform (no display to connect to, or the
// plug-in not installed); empty when it can, else why not, for a one-line error first.
std::string platform_problem() {
  if (unset("QT_QPA_PLATFORM")) {
    if (unset("DISPLAY") && unset("WAYLAND_DISPLAY"))
      return "no display: DISPLAY and WAYLAND_DISPLAY are unset (run it in a desktop session, "
             "or headless with QT_QPA_PLATFORM=offscreen and --smoke-test --screenshot FILE)";
    return {};
  }
  return opsim::gui::missing_platform_plugin();
}

// Qt's own debug, info and warning lines ("QStandardPaths: XDG_RUNTIME_DIR not set", "This
// plugin does not support propagateSizeHints()") would come between opsim-gui's lines and
// read as part of an error: they are dropped unless OPSIM_GUI_QT_MESSAGES is set. Critical
// and fatal messages stay, one line each.
void qt_message(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type != QtCriticalMsg && type != QtFatalMsg && unset("OPSIM_GUI_QT_MESSAGES")) return;
  QString line = message;
  line.replace(QLatin1Char('\n'), QLatin1Char(' '));
  std::fprintf(stderr, "opsim-gui: qt: %s\n", qPrintable(line));
  if (type == QtFatalMsg) std::abort();
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::string problem = platform_problem(); !problem.empty()) {
    std::fprintf(stderr, "opsim-gui: %s\n", problem.c_str());
    return 2;
  }
  qInstallMessageHandler(qt_message);
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("opsim-gui"));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("opsim timeline explorer"));
  parser.addHelpOption();
  QCommandLineOption no_run(QStringLiteral("no-run"),
                            QStringLiteral("Do not simulate the default scenario at start"));
  QCommandLineOption smoke(
      QStringLiteral("smoke-test"),
      QStringLiteral("Show the window, wait for the first simulation and the replays of the "
                     "traces given (at most 120 s), grab it and exit 0 if the grab worked, "
                     "2 if the simulation failed or a trace given could not be opened"));
  QCommandLineOption shot(QStringLiteral("screenshot"),
                          QStringLiteral("Save the grabbed window here"), QStringLiteral("FILE"));
  parser.addOption(no_run);
  parser.addOption(smoke);
  parser.addOption(shot);
  opsim::gui::add_scenario_options(parser);
  parser.addPositionalArgument(QStringLiteral("traces"), QStringLiteral("Trace files to open"));
  parser.process(app);
  opsim::gui::Scenario scenario;
  try {
    scenario = opsim::gui::scenario_from_options(parser);
  } catch (const opsim::InputError& e) {
    std::fprintf(stderr, "opsim-gui: %s\n", e.what());
    return 2;
  }

  opsim::gui::MainWindow window(opsim::gui::MainWindow::Options{!parser.isSet(no_run), {}});
  window.set_scenario(scenario);
  window.show();
  QObject::connect(&window, &opsim::gui::MainWindow::load_failed, [](const QString& e) {
    std::fprintf(stderr, "opsim-gui: %s\n", qPrintable(e));
  });
  if (!parser.positionalArguments().isEmpty()) window.open_traces(parser.positionalArguments());
  if (!parser.isSet(smoke)) return app.exec();

  // Smoke test: the window is up on a real display; wait for the first run (or its failure)
  // and for the replays of the traces given.
  bool done = parser.isSet(no_run);
  bool simulated_ok = true;
  QObject::connect(&window, &opsim::gui::MainWindow::simulation_done, [&](bool ok) {
    done = true;
    simulated_ok = ok;
  });
  QElapsedTimer clock;
  clock.start();
  while ((!done || window.replays_running() > 0) && clock.elapsed() < 120000)
    app.processEvents(QEventLoop::AllEvents, 50);
  for (int i = 0; i < 10; ++i) app.processEvents();
  const QPixmap pixmap = window.grab();
  std::printf("opsim-gui smoke test: platform %s, window %dx%d, status: %s\n",
              qPrintable(QGuiApplication::platformName()), pixmap.width(), pixmap.height(),
              qPrintable(window.status_text()));
  if (pixmap.isNull() || !window.isVisible()) return 1;
  if (parser.isSet(shot) && !pixmap.save(parser.value(shot))) return 1;
  if (!done) {
    std::fprintf(stderr, "opsim-gui: the simulation did not finish within 120 s\n");
    return 2;
  }
  if (!simulated_ok) {
    std::fprintf(stderr, "opsim-gui: %s\n", qPrintable(window.status_text()));
    return 2;
  }
  if (window.replays_running() > 0) {
    std::fprintf(stderr, "opsim-gui: a replay did not finish within 120 s\n");
    return 2;
  }
  return window.load_errors().isEmpty() ? 0 : 2;
}
