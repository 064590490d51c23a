#include "experiments/cli/nccl_check_command.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/input_error.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/collective_simulation.hpp"
#include "experiments/cli/number_text.hpp"
#include "experiments/cli/text_table.hpp"
#include "experiments/nccl_check/nccl_comparison.hpp"
#include "sim/isolated_run.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {
namespace {

constexpr const char* kDefaultDirectory = "experiments/nccl-reference";

// What make_collective runs for `model`, for the report: "auto" is opsim's tuner, which
// picks per size as NCCL's does.
std::string algorithm_run(const NcclReferenceModel& model) {
  return model.algorithm;
}

// What opsim's tuner runs for one size: with algorithm auto it picks per size, as NCCL's does,
// so a row can be set beside NCCL_DEBUG=INFO's choice for that size.
struct RowChoice {
  std::string algorithm;
  std::string protocol;
};

// A table with the machine opsim runs it on.
struct CheckedTable {
  NcclReference reference;
  Machine machine{""};
  std::vector<DeviceId> gpus;
  std::vector<RowChoice> choices;  ///< one per reference row
  std::vector<NcclCheckRow> rows;
  NcclCheckSummary summary;
};

[[noreturn]] void fail_model(const NcclReferenceModel& model, const std::string& what) {
  throw InputError(model.metadata_path + ":" + std::to_string(model.topology_line) + ": " + what);
}

// A topology file (.yaml, .yml) named by a model is relative to the model's folder, so a
// table and its machine travel together; presets and families are taken as they are.
std::string topology_argument(const NcclReferenceModel& model) {
  const std::string& topology = model.topology;
  const bool file = topology.ends_with(".yaml") || topology.ends_with(".yml");
  if (!file || std::filesystem::path(topology).is_absolute()) return topology;
  return (std::filesystem::path(model.metadata_path).parent_path() / topology).string();
}

CheckedTable prepare(const std::string& csv_path, const WhatIf& what_if) {
  CheckedTable table;
  table.reference = read_nccl_reference(csv_path);
  const NcclReferenceModel& model = table.reference.model;
  try {
    table.machine = resolve_topology(topology_argument(model));
  } catch (const InputError& e) {
    fail_model(model, "topology '" + model.topology + "': " + e.what());
  }
  table.machine = apply_what_if(table.machine, what_if);
  table.gpus = table.machine.gpus();
  if (model.gpus_per_server > 0) try {
      table.gpus = first_gpus_per_server(table.machine, model.gpus_per_server);
    } catch (const InputError& e) {
      fail_model(model, "topology '" + model.topology + "': " + e.what());
    }
  if (table.gpus.size() < static_cast<std::size_t>(model.gpus))
    fail_model(model, "topology '" + model.topology + "' has " + std::to_string(table.gpus.size()) +
                          " GPUs, the table " + std::to_string(model.gpus));
  table.gpus.resize(static_cast<std::size_t>(model.gpus));
  return table;
}

CollectiveOptions collective_options(const CheckedTable& table, double bytes) {
  CollectiveOptions options;
  options.bytes = bytes;
  options.gpus = table.gpus;
  options.algorithm = table.reference.model.algorithm;
  options.protocol = table.reference.model.protocol;
  options.gpus_per_thread = table.reference.model.gpus_per_thread;
  return options;
}

std::string row_place(const CheckedTable& table, const NcclReferenceRow& row) {
  return table.reference.csv_path + ":" + std::to_string(row.line) + ": ";
}

// The tuner's choice for every size (no graph built; the parent asks it as `opsim collective`
// does).
void choose_per_row(CheckedTable& table) {
  for (const NcclReferenceRow& row : table.reference.rows) try {
      const CollectivePlan plan = choose_collective(table.reference.model.op, table.machine,
                                                    collective_options(table, row.bytes));
      table.choices.push_back({plan.algorithm, plan.protocol});
    } catch (const InputError& e) {
      throw InputError(row_place(table, row) + e.what());
    }
}

// Every size of every table, each in its own process.
void simulate_tables(std::vector<CheckedTable>& tables, unsigned parallel) {
  std::vector<std::function<std::string()>> jobs;
  for (CheckedTable& table : tables) {
    // The table's mistakes (a route missing, an algorithm that does not fit) before any run.
    (void)make_collective(table.reference.model.op, table.machine,
                          collective_options(table, table.reference.rows.front().bytes));
    choose_per_row(table);
    for (const NcclReferenceRow& row : table.reference.rows)
      jobs.push_back([&table, bytes = row.bytes] {
        return makespan_text(simulate_collective_s(table.machine, table.reference.model.op,
                                                   collective_options(table, bytes)));
      });
  }
  const std::vector<ChildOutcome> outcomes = run_isolated_jobs(jobs, parallel);
  std::size_t next = 0;
  for (CheckedTable& table : tables) {
    std::vector<double> times_s;
    for (const NcclReferenceRow& row : table.reference.rows) {
      throw_if_failed(outcomes[next], row_place(table, row));
      times_s.push_back(std::stod(outcomes[next++].text));
    }
    table.rows = compare_with_reference(table.reference, times_s);
    table.summary = summarize(table.rows);
  }
}

std::string fixed_or_dash(double value, int digits) {
  return std::isfinite(value) ? fixed_text(value, digits) : "-";
}

std::string signed_percent(double value) {
  if (!std::isfinite(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%+.1f%%", value);
  return text;
}

// A noisy size's busbw error in parentheses: shown, not held to the goal.
std::string busbw_error_text(const NcclCheckRow& row) {
  const std::string error = signed_percent(row.busbw_error_pct);
  return row.reference_noisy && std::isfinite(row.busbw_error_pct) ? "(" + error + ")" : error;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

struct Overall {
  std::size_t counted = 0;
  std::size_t counted_meeting_goal = 0;
  double median_abs_time_error_pct = 0;
  bool goal_met = false;
};

Overall overall_of(const std::vector<CheckedTable>& tables) {
  Overall overall;
  std::vector<std::vector<NcclCheckRow>> counted_rows;
  for (const CheckedTable& table : tables) {
    if (!table.reference.model.counts) continue;
    ++overall.counted;
    if (table.summary.goal_met) ++overall.counted_meeting_goal;
    counted_rows.push_back(table.rows);
  }
  overall.median_abs_time_error_pct = pooled_median_abs_time_error_pct(counted_rows);
  overall.goal_met = overall.counted > 0 && overall.counted_meeting_goal == overall.counted;
  return overall;
}

std::string table_heading(const CheckedTable& table) {
  const NcclReferenceModel& model = table.reference.model;
  std::string heading =
      file_name(table.reference.csv_path) + ": " + model.op + " on " + model.topology + ", " +
      std::to_string(model.gpus) + " GPUs" +
      (model.gpus_per_server > 0 ? " (" + std::to_string(model.gpus_per_server) + " per server)"
                                 : "") +
      ", algorithm " + model.algorithm;
  if (!model.protocol.empty()) heading += ", protocol " + model.protocol;
  if (model.gpus_per_thread > 1)
    heading += ", " + std::to_string(model.gpus_per_thread) + " GPUs per thread (-g)";
  heading += model.counts ? "; counts toward the goal" : "; not counted: " + model.reason;
  return heading;
}

std::string summary_line(const NcclCheckSummary& s) {
  return "  " + std::to_string(s.sizes) + " sizes: median |time error| " +
         fixed_or_dash(s.median_abs_time_error_pct, 1) + "%, worst ratio " +
         fixed_or_dash(s.worst_time_ratio, 2) + "x, worst |busbw error| from 64 MB " +
         (std::isfinite(s.worst_abs_busbw_error_pct)
              ? fixed_or_dash(s.worst_abs_busbw_error_pct, 1) + "%"
              : std::string("- (no such sizes)")) +
         (s.noisy_large_sizes > 0 ? " (" + std::to_string(s.noisy_large_sizes) + " noisy left out)"
                                  : std::string()) +
         "; goal met: " + (s.goal_met ? "yes" : "no");
}

void print_table(const std::vector<CheckedTable>& tables) {
  std::cout << "opsim against published nccl-tests tables (out-of-place times). Goal: from 64 "
               "MB busbw within 10%; median |time error| <= 15%; worst ratio <= 2x. A busbw "
               "error in parentheses is of a noisy size (its in-place time differs by over "
               "10%), left out of the goal\n";
  for (const CheckedTable& table : tables) {
    std::cout << "\n" << table_heading(table) << "\n";
    TextTable text({"size (B)", "ref time (us)", "opsim (us)", "time err", "ref busbw",
                    "opsim busbw", "busbw err", "opsim runs"},
                   {true, true, true, true, true, true, true, false});
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      const NcclCheckRow& row = table.rows[i];
      const RowChoice& choice = table.choices[i];
      text.add_row({fixed_or_dash(row.bytes, 0), fixed_or_dash(row.reference_time_s * 1e6, 2),
                    fixed_or_dash(row.opsim_time_s * 1e6, 2), signed_percent(row.time_error_pct),
                    fixed_or_dash(row.reference_busbw_GBps, 2),
                    fixed_or_dash(row.opsim_busbw_GBps, 2), busbw_error_text(row),
                    choice.algorithm + " " + choice.protocol});
    }
    std::cout << text.render() << summary_line(table.summary) << "\n";
  }
  const Overall overall = overall_of(tables);
  std::cout << "\nOverall: " << overall.counted_meeting_goal << " of " << overall.counted
            << " counted tables meet the goal; median |time error| over their sizes "
            << fixed_or_dash(overall.median_abs_time_error_pct, 1)
            << "%; goal met: " << (overall.goal_met ? "yes" : "no") << "\n";
}

nlohmann::json table_json(const CheckedTable& table) {
  const NcclReferenceModel& model = table.reference.model;
  nlohmann::json out = {{"file", table.reference.csv_path},
                        {"op", model.op},
                        {"topology", model.topology},
                        {"gpus", model.gpus},
                        {"algorithm", model.algorithm},
                        {"opsim_algorithm", algorithm_run(model)},
                        {"protocol", model.protocol},
                        {"counts", model.counts},
                        {"reason", model.reason},
                        {"source", model.source},
                        {"gpus_per_server", model.gpus_per_server},
                        {"gpus_per_thread", model.gpus_per_thread}};
  out["rows"] = nlohmann::json::array();
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const NcclCheckRow& row = table.rows[i];
    out["rows"].push_back(
        {{"bytes", row.bytes},
         {"reference_time_s", row.reference_time_s},
         {"opsim_time_s", row.opsim_time_s},
         {"time_error_pct", json_finite_or_null(row.time_error_pct)},
         {"reference_busbw_GBps", row.reference_busbw_GBps},
         {"opsim_busbw_GBps", json_finite_or_null(row.opsim_busbw_GBps)},
         {"busbw_error_pct", json_finite_or_null(row.busbw_error_pct)},
         {"reference_time_inplace_s", json_finite_or_null(table.reference.rows[i].time_inplace_s)},
         {"reference_noisy", row.reference_noisy},
         {"opsim_algorithm", table.choices[i].algorithm},
         {"opsim_protocol", table.choices[i].protocol}});
  }
  const NcclCheckSummary& s = table.summary;
  out["summary"] = {{"sizes", s.sizes},
                    {"median_abs_time_error_pct", json_finite_or_null(s.median_abs_time_error_pct)},
                    {"worst_time_ratio", json_finite_or_null(s.worst_time_ratio)},
                    {"worst_abs_busbw_error_pct", json_finite_or_null(s.worst_abs_busbw_error_pct)},
                    {"noisy_large_sizes", s.noisy_large_sizes},
                    {"goal_met", s.goal_met}};
  return out;
}

void print_json(const std::vector<CheckedTable>& tables) {
  nlohmann::json out;
  out["goal"] = {{"large_bytes", kGoalLargeBytes},
                 {"busbw_error_pct", kGoalBusbwErrorPct},
                 {"noisy_in_place_difference_pct", kGoalBusbwErrorPct},
                 {"median_time_error_pct", kGoalMedianTimeErrorPct},
                 {"worst_time_ratio", kGoalWorstTimeRatio}};
  out["tables"] = nlohmann::json::array();
  for (const CheckedTable& table : tables) out["tables"].push_back(table_json(table));
  const Overall overall = overall_of(tables);
  out["overall"] = {
      {"tables", tables.size()},
      {"counted", overall.counted},
      {"counted_meeting_goal", overall.counted_meeting_goal},
      {"median_abs_time_error_pct", json_finite_or_null(overall.median_abs_time_error_pct)},
      {"goal_met", overall.goal_met}};
  std::cout << out.dump(2) << "\n";
}

std::string csv_number(double value) {
  return std::isfinite(value) ? number(value) : "";
}

void print_csv(const std::vector<CheckedTable>& tables) {
  std::cout << "file,op,topology,gpus,algorithm,counts,bytes,reference_time_s,opsim_time_s,"
               "time_error_pct,reference_busbw_GBps,opsim_busbw_GBps,busbw_error_pct,"
               "reference_noisy,opsim_algorithm,opsim_protocol\n";
  for (const CheckedTable& table : tables) {
    const NcclReferenceModel& model = table.reference.model;
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      const NcclCheckRow& row = table.rows[i];
      std::cout << file_name(table.reference.csv_path) << "," << model.op << "," << model.topology
                << "," << model.gpus << "," << model.algorithm << ","
                << (model.counts ? "true" : "false") << "," << number(row.bytes) << ","
                << number(row.reference_time_s) << "," << csv_number(row.opsim_time_s) << ","
                << csv_number(row.time_error_pct) << "," << number(row.reference_busbw_GBps) << ","
                << csv_number(row.opsim_busbw_GBps) << "," << csv_number(row.busbw_error_pct) << ","
                << (row.reference_noisy ? "true" : "false") << "," << table.choices[i].algorithm
                << "," << table.choices[i].protocol << "\n";
    }
  }
}

}  // namespace

int run_nccl_check(const NcclCheckOptions& options) {
  std::vector<std::string> paths = options.paths;
  if (paths.empty()) {
    if (!std::filesystem::is_directory(kDefaultDirectory))
      throw InputError(std::string(kDefaultDirectory) +
                       ": not found here; run from the repository root or name the tables");
    paths.push_back(kDefaultDirectory);
  }
  std::vector<CheckedTable> tables;
  for (const std::string& path : nccl_reference_files(paths))
    tables.push_back(prepare(path, options.what_if));
  simulate_tables(tables, options.parallel);
  if (options.format == "json")
    print_json(tables);
  else if (options.format == "csv")
    print_csv(tables);
  else
    print_table(tables);
  return 0;
}

Command register_nccl_check_command(CLI::App& opsim) {
  auto options = std::make_shared<NcclCheckOptions>();
  CLI::App* command = opsim.add_subcommand(
      "nccl-check", "opsim against published nccl-tests tables, size by size, and the goal");
  command->add_option("tables", options->paths,
                      "nccl-tests tables (.csv with a .yaml beside each) or directories of them "
                      "(default: experiments/nccl-reference)");
  add_format_option(*command, options->format, {"table", "json", "csv"});
  add_jobs_option(*command, options->parallel);
  add_what_if_options(*command, options->what_if);
  return {command, [options] { return run_nccl_check(*options); }};
}

}  // namespace opsim
