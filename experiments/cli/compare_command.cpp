#include "experiments/cli/compare_command.hpp"

#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "common/input_error.hpp"
#include "common/run_outputs.hpp"
#include "engine/chrome_trace_reader.hpp"
#include "engine/csv_trace_writer.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/number_text.hpp"
#include "experiments/cli/text_table.hpp"
#include "experiments/collectives/collective.hpp"
#include "experiments/sync/sync_strategy.hpp"
#include "hw_models/units.hpp"
#include "sim/isolated_run.hpp"
#include "topologies/topology_catalog.hpp"
#ifdef OPSIM_HAVE_GUI
#include <QString>

#include "gui/comparison_render.hpp"
#endif

namespace opsim {
namespace {

// --format, --strategies, --bytes and --jobs are checked as they are parsed.
void check_options(const CompareOptions& options) {
  if (options.strategies.empty()) throw InputError("--strategies: give at least one strategy");
  // 0 (the default) means all of the machine's GPUs; --gpus itself is checked by CLI11.
  if (options.gpus == 1 || options.gpus < 0) throw InputError("--gpus: needs at least 2 GPUs");
  // Resolve once here so a bad topology is one clear error, not one per strategy.
  (void)apply_what_if(resolve_topology(options.topology), options.what_if);
}

}  // namespace

namespace {

// Renders every strategy's timeline on one time axis into a PNG (the GUI's renderer,
// offscreen). Traces come from the children's trace files.
void render_png(const std::vector<StrategyRunResult>& results, const std::string& path) {
#ifdef OPSIM_HAVE_GUI
  std::vector<Trace> traces;
  std::vector<std::string> titles;
  std::vector<double> lower_bounds;
  for (const StrategyRunResult& r : results) {
    traces.push_back(read_chrome_trace(r.trace_file));
    titles.push_back(r.strategy);
    lower_bounds.push_back(r.lower_bound_s);
  }
  if (const std::string missing = gui::missing_platform_plugin(); !missing.empty())
    throw InputError("--png " + path + ": " + missing);
  if (!gui::render_comparison_png(traces, titles, QString::fromStdString(path), QSize(1600, 0),
                                  lower_bounds))
    throw InputError("--png " + path + ": cannot write the image");
#else
  (void)results;
  throw InputError("--png " + path +
                   ": this opsim was built without the GUI (OPSIM_BUILD_GUI=OFF)");
#endif
}

// A scratch directory for traces that only the PNG needs; removed afterwards.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "opsim-png-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw InputError("--png: cannot create a temporary directory");
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

namespace {

// One strategy's result, with its transfers-only twin's makespan when reductions are modelled.
struct CompareRow {
  StrategyRunResult result;
  double comm_only_s = std::nan("");
};

// nccl-tests' bandwidths of an allreduce of the gradient: algbw = S / makespan, busbw = algbw x
// 2(n-1)/n (S the gradient's bytes per GPU, n its GPUs). NaN for a makespan under 1 us.
struct Bandwidths {
  double algbw_bytes_per_s = 0;
  double busbw_bytes_per_s = 0;
};

Bandwidths bandwidths_of(const StrategyRunResult& r, double bytes) {
  const double algbw = algbw_bytes_per_s(bytes, r.makespan_s);
  return {algbw, algbw * bus_factor("allreduce", static_cast<std::size_t>(r.gpus))};
}

// Each strategy runs as asked; with reductions modelled, a transfers-only twin shows what
// the reductions add. Traces go to `trace_dir` (CSV too when the user asked for traces).
std::vector<StrategyRunRequest> compare_requests(const CompareOptions& options,
                                                 const std::string& trace_dir) {
  std::vector<StrategyRunRequest> requests;
  for (const std::string& strategy : options.strategies) {
    StrategyRunRequest request;
    request.topology = options.topology;
    request.strategy = strategy;
    request.bytes = options.bytes;
    request.gpus = options.gpus;
    request.comm_only = options.comm_only;
    request.what_if = options.what_if;
    if (!trace_dir.empty()) {
      request.trace_path = (std::filesystem::path(trace_dir) / (strategy + ".json")).string();
      if (!options.trace_dir.empty())
        request.csv_path = (std::filesystem::path(trace_dir) / (strategy + ".csv")).string();
    }
    requests.push_back(request);
    if (!options.comm_only) {
      request.comm_only = true;
      request.trace_path.clear();
      request.csv_path.clear();
      requests.push_back(request);
    }
  }
  return requests;
}

// Runs every request in its own process; the first failure ends the command with its cause.
// Each trace and CSV a request wrote is noted in `traces` as its job ends.
std::vector<CompareRow> run_compare_requests(const CompareOptions& options,
                                             const std::vector<StrategyRunRequest>& requests,
                                             RunOutputs& traces) {
  std::vector<std::function<std::string()>> jobs;
  for (const auto& request : requests)
    jobs.push_back([request] { return to_json(run_strategy(request)).dump(); });
  const auto outcomes =
      run_isolated_jobs(jobs, options.parallel, [&](std::size_t i, const ChildOutcome& outcome) {
        if (!outcome.ok()) return;
        for (const std::string& path : {requests[i].trace_path, requests[i].csv_path})
          if (!path.empty()) traces.wrote(path);
      });
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    throw_if_failed(outcomes[i], requests[i].strategy + " on " + options.topology + ": ");
  std::vector<CompareRow> rows;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    auto result = strategy_result_from_json(nlohmann::json::parse(outcomes[i].text));
    if (requests[i].comm_only && !options.comm_only)
      rows.back().comm_only_s = result.makespan_s;
    else
      rows.push_back(CompareRow{result, std::nan("")});
  }
  return rows;
}

void print_compare_json(const CompareOptions& options, const Machine& machine, int gpus,
                        const std::vector<CompareRow>& rows) {
  nlohmann::json out;
  out["topology"] = machine.name();
  out["bytes"] = options.bytes;
  out["gpus"] = gpus;
  out["comm_only"] = options.comm_only;
  out["results"] = nlohmann::json::array();
  for (const CompareRow& row : rows) {
    nlohmann::json r = to_json(row.result);
    r.erase("wall_s");
    const Bandwidths bw = bandwidths_of(row.result, options.bytes);
    r["algbw_GBps"] = std::isfinite(bw.algbw_bytes_per_s)
                          ? nlohmann::json(bw.algbw_bytes_per_s / 1e9)
                          : nlohmann::json(nullptr);
    r["busbw_GBps"] = std::isfinite(bw.busbw_bytes_per_s)
                          ? nlohmann::json(bw.busbw_bytes_per_s / 1e9)
                          : nlohmann::json(nullptr);
    if (!options.comm_only) {
      r["comm_only_makespan_s"] = row.comm_only_s;
      r["reductions_add_s"] = row.result.makespan_s - row.comm_only_s;
    }
    out["results"].push_back(r);
  }
  std::cout << out.dump(2) << "\n";
}

void print_compare_csv(const CompareOptions& options, const Machine& machine,
                       const std::vector<CompareRow>& rows) {
  std::cout
      << "topology,strategy,bytes,gpus,comm_only,makespan_s,lower_bound_s,bytes_moved,"
         "busiest_link,"
         "busiest_link_utilization,reductions_add_s,peak_memory_bytes,algbw_GBps,busbw_GBps\n";
  for (const CompareRow& row : rows) {
    const auto& r = row.result;
    const Bandwidths bw = bandwidths_of(r, options.bytes);
    std::cout << csv_field(machine.name()) << "," << r.strategy << "," << number(options.bytes)
              << "," << r.gpus << "," << (options.comm_only ? "true" : "false") << ","
              << number(r.makespan_s) << ","
              << (std::isfinite(r.lower_bound_s) ? number(r.lower_bound_s) : "") << ","
              << number(r.bytes_moved) << "," << csv_field(r.busiest_link) << ","
              << number(r.busiest_link_utilization) << ","
              << (std::isfinite(row.comm_only_s) ? number(r.makespan_s - row.comm_only_s) : "")
              << "," << number(r.peak_memory_bytes) << ","
              << (std::isfinite(bw.algbw_bytes_per_s) ? number(bw.algbw_bytes_per_s / 1e9) : "")
              << ","
              << (std::isfinite(bw.busbw_bytes_per_s) ? number(bw.busbw_bytes_per_s / 1e9) : "")
              << "\n";
  }
}

void print_compare_table(const CompareOptions& options, const Machine& machine, int gpus,
                         const std::vector<CompareRow>& rows) {
  std::cout << "Gradient synchronization on " << machine.name() << " (" << gpus << " GPUs), "
            << format_bytes(options.bytes) << " per GPU"
            << (options.comm_only ? ", transfers only (--comm-only)" : ", reductions modelled")
            << "\n\n";
  std::vector<std::string> header = {"strategy", "makespan"};
  if (!options.comm_only) header.insert(header.end(), {"transfers only", "reductions add"});
  // Buffer peak: the most receive-buffer memory one device holds at once (gradients
  // themselves are not counted: every strategy has them).
  // algbw and busbw: nccl-tests' bandwidths of the makespan (bandwidths_of).
  header.insert(header.end(), {"algbw", "busbw", "lower bound", "bytes moved", "buffer peak",
                               "busiest link", "util"});
  std::vector<bool> right_aligned(header.size(), true);
  right_aligned.front() = false;
  right_aligned[header.size() - 2] = false;  // busiest link
  TextTable table(header, right_aligned);
  for (const CompareRow& row : rows) {
    const auto& r = row.result;
    std::vector<std::string> cells = {r.strategy, format_seconds(r.makespan_s)};
    if (!options.comm_only)
      cells.insert(cells.end(), {format_seconds(row.comm_only_s),
                                 "+" + format_seconds(r.makespan_s - row.comm_only_s)});
    const Bandwidths bw = bandwidths_of(r, options.bytes);
    for (double value : {bw.algbw_bytes_per_s, bw.busbw_bytes_per_s})
      cells.push_back(std::isfinite(value) ? format_bytes_per_s(value) : "-");
    cells.insert(cells.end(),
                 {std::isfinite(r.lower_bound_s) ? format_seconds(r.lower_bound_s) : "-",
                  format_bytes(r.bytes_moved), format_bytes(r.peak_memory_bytes), r.busiest_link,
                  fixed_text(100 * r.busiest_link_utilization, 1) + "%"});
    table.add_row(cells);
  }
  std::cout << table.render();
  if (!options.trace_dir.empty())
    std::cout << "\nTraces: " << options.trace_dir
              << "/<strategy>.json (Perfetto, opsim-gui) and .csv\n";
}

}  // namespace

int run_compare(const CompareOptions& options) {
  check_options(options);
  // A PNG without --trace-dir renders from traces written to a scratch directory.
  std::unique_ptr<ScratchDir> png_scratch;
  std::string trace_dir = options.trace_dir;
  if (!options.png_path.empty() && trace_dir.empty()) {
    png_scratch = std::make_unique<ScratchDir>();
    trace_dir = png_scratch->path.string();
  }
  const std::vector<StrategyRunRequest> requests = compare_requests(options, trace_dir);
  // Every strategy's needs and size limits before any simulation runs or file is made.
  check_strategy_requests(requests);
  // A run that fails from here on removes the traces it wrote (run_outputs.hpp).
  RunOutputs traces(options.trace_dir);
  traces.prepare();
  const std::vector<CompareRow> rows = run_compare_requests(options, requests, traces);
  if (!options.png_path.empty()) {
    std::vector<StrategyRunResult> shown;
    for (const CompareRow& row : rows) shown.push_back(row.result);
    render_png(shown, options.png_path);
  }
  const Machine machine = resolve_topology(options.topology);
  const int gpus = rows.empty() ? 0 : rows.front().result.gpus;
  if (options.format == "json")
    print_compare_json(options, machine, gpus, rows);
  else if (options.format == "csv")
    print_compare_csv(options, machine, rows);
  else
    print_compare_table(options, machine, gpus, rows);
  traces.keep();
  return 0;
}

Command register_compare_command(CLI::App& opsim) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* compare = opsim.add_subcommand(
      "compare", "Compare gradient-sync strategies on a machine (the main job)");
  compare
      ->add_option("--topology", options->topology, "Preset, family (nvlink-ring:8) or YAML file")
      ->capture_default_str();
  std::vector<std::string> known;
  for (std::string_view name : sync_strategy_names()) known.emplace_back(name);
  compare
      ->add_option("--strategies", options->strategies,
                   "Comma-separated: tree,cpu,split,ring,multi-ring,ps")
      ->delimiter(',')
      ->check(CLI::IsMember(known))
      ->capture_default_str();
  compare
      ->add_option("--bytes", options->bytes, "Gradient size per GPU: 160MB, 1GiB or plain bytes")
      ->transform(size_in_bytes())
      ->default_str("160MB");
  compare->add_option("--gpus", options->gpus, "Use the first N GPUs (default: all)")
      ->check(CLI::Range(2, 1 << 20));
  compare->add_flag("--comm-only", options->comm_only,
                    "Leave out the reductions' compute time, as the book's arithmetic does");
  add_format_option(*compare, options->format, {"table", "json", "csv"});
  compare
      ->add_option("--trace-dir", options->trace_dir,
                   "Write <strategy>.json Chrome traces and .csv here")
      ->check(writable_directory("traces"));
  compare
      ->add_option("--png", options->png_path,
                   "Render the strategies' timelines on one axis to a PNG")
      ->check(writable_file("the PNG"));
  add_jobs_option(*compare, options->parallel);
  add_what_if_options(*compare, options->what_if);
  return {compare, [options] { return run_compare(*options); }};
}

}  // namespace opsim
