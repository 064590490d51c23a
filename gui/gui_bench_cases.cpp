#include "gui/gui_bench_cases.hpp"

#include <sys/resource.h>

#include <QEventLoop>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gui/comparison_render.hpp"
#include "gui/row_layout.hpp"
#include "gui/scenario.hpp"
#include "gui/sim_runner.hpp"
#include "gui/timeline_model.hpp"
#include "gui/timeline_painter.hpp"

namespace opsim::gui::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// CPU time (user + system) of this process and its finished children so far, in ms.
double cpu_ms() {
  double ms = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    ms += (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
          (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
  }
  return ms;
}

double worst(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

// Ring allreduce over `gpus` GPUs: in each of 2(gpus-1) steps every GPU sends a chunk to its
// neighbour (one op on its copy-out lane, one span on the link's forward lane).
Trace ring_trace(int gpus) {
  Trace t;
  t.title = "ring on nvlink-ring:" + std::to_string(gpus);
  t.backend = "sim";
  const std::string node = "nvlink-ring:" + std::to_string(gpus);
  for (int g = 0; g < gpus; ++g) {
    const std::string d = "gpu" + std::to_string(g);
    t.lanes.push_back({d + "/compute0", node, d, LaneKind::kCompute, 0});
    t.lanes.push_back({d + "/copy-out", node, d, LaneKind::kCopy, 0});
    t.lanes.push_back({d + "/copy-in", node, d, LaneKind::kCopy, 0});
  }
  const auto first_link = static_cast<std::uint32_t>(t.lanes.size());
  for (int g = 0; g < gpus; ++g) {
    const std::string a = "gpu" + std::to_string(g), b = "gpu" + std::to_string((g + 1) % gpus);
    t.lanes.push_back({a + "-" + b + " " + a + "→" + b, node, a + "-" + b, LaneKind::kLink, 25e9});
    t.lanes.push_back({a + "-" + b + " " + b + "→" + a, node, a + "-" + b, LaneKind::kLink, 25e9});
  }
  const int steps = 2 * (gpus - 1);
  const TimeNs step_ns = 6250;
  t.ops.reserve(static_cast<std::size_t>(steps) * gpus);
  t.link_spans.reserve(t.ops.capacity());
  for (int s = 0; s < steps; ++s) {
    const std::string name = (s < gpus - 1 ? "rs s" : "ag s") + std::to_string(s);
    for (int g = 0; g < gpus; ++g) {
      const auto op = static_cast<std::uint32_t>(t.ops.size());
      const TimeNs start = s * step_ns;
      t.ops.push_back({name, "copy", "gpu" + std::to_string(g),
                       "gpu" + std::to_string((g + 1) % gpus), 0, 156250,
                       static_cast<std::uint32_t>(3 * g + 1), start, start + step_ns});
      t.link_spans.push_back(
          {op, first_link + 2 * static_cast<std::uint32_t>(g), start, start + step_ns});
      if (s > 0) t.dependencies.emplace_back(op - static_cast<std::uint32_t>(gpus), op);
    }
  }
  for (int g = 0; g < gpus; ++g) {
    const std::string d = "gpu" + std::to_string(g);
    t.counters.push_back({"memory " + d, "bytes", {{0, 160e6}, {steps * step_ns, 160e6}}, node, d});
  }
  return t;
}

/// Paints of a 1920x1080 viewport onto one pane scrolled `scroll_px` down.
struct Viewport {
  const TimelineModel& model;
  TimelineStyle style;
  QImage image{1920, 1080, QImage::Format_ARGB32_Premultiplied};
  PaneDecor decor;

  double paint(const RowLayout& layout, const TimeAxis& axis, int scroll_px) {
    QPainter p(&image);
    const auto t0 = Clock::now();
    paint_pane(p, model, layout, axis, QRect(0, -scroll_px, image.width(), layout.height_px()),
               image.rect(), decor, style);
    p.end();
    return ms_since(t0);
  }
  double plot_width() const { return image.width() - style.label_width_px; }
};

void print_line(const char* what, const std::vector<double>& times) {
  std::printf("    %-34s %7.2f ms  [%6.2f]\n", what, median(times), worst(times));
}

/// Scrolls from the top to the bottom in `steps` jumps at the zoom `fraction` of the trace.
std::vector<double> scroll_through(Viewport& v, const RowLayout& layout, double fraction,
                                   int steps) {
  TimeAxis axis;
  const double end = static_cast<double>(v.model.end_ns());
  axis.fit(end * (0.5 - fraction / 2), end * (0.5 + fraction / 2), v.plot_width(), 0);
  const int max_scroll = std::max(0, layout.height_px() - v.image.height());
  std::vector<double> times;
  for (int i = 0; i <= steps; ++i) times.push_back(v.paint(layout, axis, max_scroll * i / steps));
  return times;
}

/// Zooms in around the middle, one wheel notch (1.25x) per frame, from the whole trace to 0.01%.
std::vector<double> zoom_in(Viewport& v, const RowLayout& layout, int scroll_px) {
  TimeAxis axis;
  axis.fit(0, static_cast<double>(v.model.end_ns()), v.plot_width(), 0);
  std::vector<double> times;
  for (int i = 0; i < 42; ++i) {  // 1.25^42 ~ 10^4
    times.push_back(v.paint(layout, axis, scroll_px));
    axis.zoom_around(v.plot_width() / 2, 1.25);
  }
  return times;
}

}  // namespace

void measure_many_lanes(int gpus, int repeats) {
  auto t0 = Clock::now();
  auto trace = std::make_shared<const Trace>(ring_trace(gpus));
  const double make_ms = ms_since(t0);
  t0 = Clock::now();
  const TimelineModel model(trace);
  const double model_ms = ms_since(t0);
  Viewport v{model, {}, QImage(1920, 1080, QImage::Format_ARGB32_Premultiplied), {}};
  v.decor.title = QString::fromStdString(trace->title);
  v.decor.show_critical_path = true;
  t0 = Clock::now();
  const RowLayout all(model, v.style);
  const double layout_ms = ms_since(t0);
  std::printf("opsim-gui-bench: %s, %zu lanes, %zu spans, %zu rows (%d px tall)\n",
              trace->title.c_str(), trace->lanes.size(), model.span_count(), all.rows().size(),
              all.height_px());
  std::printf("  synthetic trace %.0f ms, model build %.0f ms, row layout %.2f ms\n", make_ms,
              model_ms, layout_ms);
  RowVisibility filtered;
  filtered.filter = "gpu5";
  t0 = Clock::now();
  const RowLayout only_gpu5(model, filtered, v.style);
  const double filter_ms = ms_since(t0);
  RowVisibility collapsed;
  for (const TimelineRow& r : model.rows()) {
    if (r.kind == RowKind::kGroup) collapsed.collapsed.insert(r.key);
  }
  collapsed.collapsed.erase("Links");  // the server collapsed to its bar, the links open
  SummaryCache cache;
  t0 = Clock::now();
  const RowLayout server_collapsed(model, collapsed, v.style, &cache);
  const double collapse_ms = ms_since(t0);
  std::printf(
      "  filter \"gpu5\": %zu lanes kept in %.1f ms; server collapsed: %zu rows, its busy "
      "profile built in %.1f ms\n",
      only_gpu5.lane_rows(), filter_ms, server_collapsed.rows().size(), collapse_ms);
  std::printf("  paint 1920x1080 viewport, median (max in brackets):\n");
  const int steps = std::max(repeats, 20);
  std::vector<double> all_times;
  auto record = [&](const char* what, const std::vector<double>& times) {
    print_line(what, times);
    all_times.push_back(median(times));
  };
  record("scroll top->bottom, whole trace", scroll_through(v, all, 1.0, steps));
  record("scroll top->bottom, 1% of trace", scroll_through(v, all, 0.01, steps));
  record("zoom whole -> 0.01%, middle lanes", zoom_in(v, all, all.height_px() / 2));
  record("filtered: scroll, whole trace", scroll_through(v, only_gpu5, 1.0, steps));
  record("filtered: zoom", zoom_in(v, only_gpu5, 0));
  record("server collapsed: scroll", scroll_through(v, server_collapsed, 1.0, steps));
  record("server collapsed: zoom", zoom_in(v, server_collapsed, 0));
  const double worst_median = *std::max_element(all_times.begin(), all_times.end());
  std::printf("  budget: paint <= 16 ms while scrolling and zooming (worst median %.2f ms: %s)\n",
              worst_median, worst_median <= 16 ? "ok" : "OVER");
}

void measure_edit_to_picture(int runs) {
  SimRunner runner;
  Scenario scenario;
  std::vector<double> total, cli, models, paint, cpu;
  QImage image(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  const TimelineStyle style;
  for (int i = 0; i < runs; ++i) {
    scenario.link_bandwidth_scale = i % 2 == 0 ? 0.5 : 1.0;
    QEventLoop loop;
    RunResult result;
    bool ok = false;
    QObject::connect(&runner, &SimRunner::finished, &loop, [&](const RunResult& r) {
      result = r;
      ok = true;
      loop.quit();
    });
    QObject::connect(&runner, &SimRunner::failed, &loop, [&](const QString& why) {
      std::printf("  what-if run failed: %s\n", why.toStdString().c_str());
      loop.quit();
    });
    const auto edit = Clock::now();
    const double cpu_before = cpu_ms();
    runner.run(scenario);
    loop.exec();
    QObject::disconnect(&runner, nullptr, &loop, nullptr);
    if (!ok) return;
    const double cli_ms = ms_since(edit);
    auto t0 = Clock::now();
    std::vector<ComparisonPane> panes;
    for (const auto& trace : result.traces) {
      if (!trace) continue;
      ComparisonPane pane;
      pane.model = std::make_shared<const TimelineModel>(trace, TimelineOptions{true});
      pane.layout = std::make_shared<const RowLayout>(*pane.model, style);
      panes.push_back(std::move(pane));
    }
    const double model_ms = ms_since(t0);
    t0 = Clock::now();
    TimeAxis axis;
    axis.fit(0, 80e6, image.width() - style.label_width_px);
    QPainter p(&image);
    paint_comparison(p, panes, axis, image.rect(), style);
    p.end();
    const double paint_ms = ms_since(t0);
    cli.push_back(cli_ms);
    models.push_back(model_ms);
    paint.push_back(paint_ms);
    total.push_back(ms_since(edit));
    cpu.push_back(cpu_ms() - cpu_before);
  }
  std::printf(
      "opsim-gui-bench: what-if edit to picture, default scenario (pcie-switch-4gpu, 160MB, "
      "tree/cpu/split), link bandwidth 0.5x <-> 1x, %d edits, median (max):\n",
      runs);
  print_line("opsim compare child + reading traces", cli);
  print_line("timeline models and row layout", models);
  print_line("paint 1920x1080", paint);
  print_line("edit to picture", total);
  print_line("  of it CPU time (GUI + opsim child)", cpu);
  std::printf(
      "  budget: edit to picture <= 150 ms (median %.1f ms: %s); wall time above CPU time is "
      "waiting for a core (load average counts it)\n",
      median(total), median(total) <= 150 ? "ok" : "OVER");
}

}  // namespace opsim::gui::bench
