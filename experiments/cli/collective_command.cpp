#include "experiments/cli/collective_command.hpp"

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
#include "experiments/collectives/collective.hpp"
#include "hw_models/units.hpp"
#include "sim/isolated_run.hpp"
#include "topologies/topology_catalog.hpp"

namespace opsim {

namespace {

constexpr std::size_t kMostSizes = 1000;
constexpr double kMostBytes = 9007199254740992.0;  // 2^53, as --bytes

double size_of(const std::string& range, const std::string& text) {
  const auto bytes = parse_bytes(text);
  if (!bytes || !std::isfinite(*bytes) || *bytes < 1)
    throw InputError("--sizes " + range + ": cannot read '" + text +
                     "' as a size of at least 1 byte (e.g. 8B, 64MB, 1GiB)");
  if (*bytes > kMostBytes)
    throw InputError("--sizes " + range + ": '" + text +
                     "' is more than 2^53 bytes (9 PB), the most opsim simulates");
  return std::floor(*bytes);
}

// One row: an algorithm at one size.
struct Row {
  std::string algorithm;  // as asked (auto, ring, ...)
  std::string built;      // the algorithm built, auto's choice
  std::string protocol;   // the protocol built
  double bytes = 0;
  double count = 0;  // as nccl-tests prints it (NcclTestsSize)
  double time_s = 0;
  double algbw = 0;  // bytes/s
  double busbw = 0;  // bytes/s
};

std::string trace_path(const CollectiveCommandOptions& options, const std::string& algorithm,
                       double bytes) {
  char name[128];
  std::snprintf(name, sizeof name, "%s-%s-%.0f.json", options.op.c_str(), algorithm.c_str(), bytes);
  return (std::filesystem::path(options.trace_dir) / name).string();
}

// In a child: one simulation, its makespan in seconds as text.
std::string simulate_one(const Machine& machine, const CollectiveCommandOptions& options,
                         const CollectiveOptions& collective, const std::string& trace) {
  return makespan_text(simulate_collective_s(machine, options.op, collective, trace));
}

std::vector<Row> run_rows(const CollectiveCommandOptions& options, const Machine& machine,
                          const std::vector<DeviceId>& gpus,
                          const std::vector<NcclTestsSize>& sizes) {
  std::vector<Row> rows;
  std::vector<std::function<std::string()>> jobs;
  for (const std::string& algorithm : options.algorithms)
    for (const NcclTestsSize& size : sizes) {
      const double bytes = size.bytes;
      CollectiveOptions collective;
      collective.bytes = bytes;
      collective.gpus = gpus;
      collective.algorithm = algorithm;
      collective.protocol = options.protocol;
      collective.gpus_per_thread = options.gpus_per_thread;
      // Every request's mistakes before any simulation starts; and what auto chooses.
      const CollectivePlan plan = choose_collective(options.op, machine, collective);
      const std::string trace =
          options.trace_dir.empty() ? "" : trace_path(options, algorithm, bytes);
      jobs.push_back([&machine, &options, collective, trace] {
        return simulate_one(machine, options, collective, trace);
      });
      rows.push_back(Row{algorithm, plan.algorithm, plan.protocol, bytes, size.count, 0, 0, 0});
    }
  if (!options.trace_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.trace_dir, error);
    if (error) throw InputError("--trace-dir " + options.trace_dir + ": " + error.message());
  }
  const auto outcomes = run_isolated_jobs(jobs, options.parallel);
  const double factor = bus_factor(options.op, gpus.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    throw_if_failed(outcomes[i], options.op + " (" + rows[i].algorithm + ") of " +
                                     format_bytes(rows[i].bytes) + " on " + options.topology +
                                     ": ");
    Row& row = rows[i];
    row.time_s = std::stod(outcomes[i].text);
    row.algbw = algbw_bytes_per_s(row.bytes, row.time_s);
    row.busbw = row.algbw * factor;
  }
  return rows;
}

void print_json(const CollectiveCommandOptions& options, const Machine& machine, std::size_t gpus,
                const std::vector<Row>& rows) {
  nlohmann::json out;
  out["op"] = options.op;
  out["topology"] = machine.name();
  out["gpus"] = gpus;
  out["dtype"] = options.dtype;
  out["results"] = nlohmann::json::array();
  for (const Row& row : rows)
    out["results"].push_back({{"algorithm", row.algorithm},
                              {"chosen_algorithm", row.built},
                              {"protocol", row.protocol},
                              {"bytes", row.bytes},
                              {"count", row.count},
                              {"time_s", row.time_s},
                              {"algbw_GBps", json_finite_or_null(row.algbw / 1e9)},
                              {"busbw_GBps", json_finite_or_null(row.busbw / 1e9)}});
  std::cout << out.dump(2) << "\n";
}

void print_csv(const CollectiveCommandOptions& options, const Machine& machine, std::size_t gpus,
               const std::vector<Row>& rows) {
  std::cout << "op,topology,gpus,algorithm,bytes,count,time_s,algbw_GBps,busbw_GBps,"
               "chosen_algorithm,protocol\n";
  for (const Row& row : rows)
    std::cout << options.op << "," << machine.name() << "," << gpus << "," << row.algorithm << ","
              << number(row.bytes) << "," << number(row.count) << "," << number(row.time_s) << ","
              << (std::isfinite(row.algbw) ? number(row.algbw / 1e9) : "") << ","
              << (std::isfinite(row.busbw) ? number(row.busbw / 1e9) : "") << "," << row.built
              << "," << row.protocol << "\n";
}

std::string factor_text(const std::string& op) {
  if (op == "allreduce") return "2(n-1)/n";
  if (op == "broadcast" || op == "reduce" || op == "sendrecv") return "1";
  return "(n-1)/n";
}

void print_table(const CollectiveCommandOptions& options, const Machine& machine, std::size_t gpus,
                 const std::vector<Row>& rows) {
  std::cout << options.op << " on " << machine.name() << " (" << gpus << " GPUs), " << options.dtype
            << " elements; algbw = size / time, busbw = algbw x " << factor_text(options.op)
            << " = " << fixed_text(bus_factor(options.op, gpus), 3) << " (nccl-tests)\n";
  for (const std::string& algorithm : options.algorithms) {
    std::cout << "\n" << algorithm << "\n";
    TextTable table({"size (B)", "count (elts)", "time (us)", "algbw (GB/s)", "busbw (GB/s)",
                     "algorithm", "protocol"},
                    {true, true, true, true, true, false, false});
    for (const Row& row : rows) {
      if (row.algorithm != algorithm) continue;
      table.add_row({fixed_text(row.bytes, 0), fixed_text(row.count, 0),
                     fixed_text(row.time_s * 1e6, 2),
                     std::isfinite(row.algbw) ? fixed_text(row.algbw / 1e9, 2) : "-",
                     std::isfinite(row.busbw) ? fixed_text(row.busbw / 1e9, 2) : "-", row.built,
                     row.protocol});
    }
    std::cout << table.render();
  }
  if (!options.trace_dir.empty())
    std::cout << "\nTraces: " << options.trace_dir
              << "/<op>-<algorithm>-<bytes>.json (Perfetto, opsim-gui)\n";
}

// The sizes nccl-tests runs for `requested` on `ranks` ranks, repeats and empty ones left
// out (`left_out` says how many are empty); none left is an input error.
std::vector<NcclTestsSize> nccl_tests_sizes(const CollectiveCommandOptions& options,
                                            const std::vector<double>& requested, std::size_t ranks,
                                            std::size_t& left_out) {
  std::vector<NcclTestsSize> sizes;
  left_out = 0;
  for (double bytes : requested) {
    const NcclTestsSize size = nccl_tests_size(options.op, bytes, ranks, options.dtype);
    if (size.bytes == 0)
      ++left_out;
    else if (sizes.empty() || sizes.back().bytes != size.bytes)
      sizes.push_back(size);
  }
  if (sizes.empty()) {
    const NcclTestsLeastSize least = nccl_tests_least_size(options.op, ranks, options.dtype);
    throw InputError("--sizes " + options.sizes + ": " + least.why + "; give sizes from " +
                     fixed_text(least.bytes, 0) + " B");
  }
  return sizes;
}

}  // namespace

std::vector<double> collective_sizes(const std::string& range, double factor) {
  if (!std::isfinite(factor) || factor <= 1)
    throw InputError("--factor: must be a number more than 1");
  const auto colon = range.find(':');
  const double min = size_of(range, range.substr(0, colon));
  const double max = colon == std::string::npos ? min : size_of(range, range.substr(colon + 1));
  if (max < min)
    throw InputError("--sizes " + range + ": the largest size is smaller than the smallest");
  std::vector<double> sizes;
  for (double size = min; size <= max; size = std::max(size + 1, std::floor(size * factor))) {
    if (sizes.size() == kMostSizes)
      throw InputError("--sizes " + range + " with --factor " + fixed_text(factor, 6) +
                       ": more than " + std::to_string(kMostSizes) +
                       " sizes; raise --factor or narrow the range");
    sizes.push_back(size);
  }
  return sizes;
}

int run_collective(const CollectiveCommandOptions& given) {
  CollectiveCommandOptions options = given;
  if (options.algorithms.empty()) options.algorithms = {"auto"};
  const std::vector<double> sizes = collective_sizes(options.sizes, options.factor);
  const Machine machine = apply_what_if(resolve_topology(options.topology), options.what_if);
  std::vector<DeviceId> gpus = machine.gpus();
  if (options.gpus_per_server != 0) try {
      gpus = first_gpus_per_server(machine, options.gpus_per_server);
    } catch (const InputError& e) {
      throw InputError(std::string("--gpus-per-server: ") + e.what());
    }
  const std::string per_server_clause =
      options.gpus_per_server == 0
          ? ""
          : " at " + std::to_string(options.gpus_per_server) + " per server";
  if (options.gpus != 0) {
    if (options.gpus < 2) throw InputError("--gpus: needs at least 2 GPUs");
    if (static_cast<std::size_t>(options.gpus) > gpus.size())
      throw InputError("--gpus " + std::to_string(options.gpus) + ": topology '" + machine.name() +
                       "' has only " + std::to_string(gpus.size()) + " GPUs" + per_server_clause);
    gpus.resize(static_cast<std::size_t>(options.gpus));
  }
  if (gpus.size() < 2)
    throw InputError("--topology " + options.topology + ": a collective needs at least 2 GPUs, '" +
                     machine.name() + "' has " + std::to_string(gpus.size()) + per_server_clause);
  std::size_t left_out = 0;
  const std::vector<Row> rows =
      run_rows(options, machine, gpus, nccl_tests_sizes(options, sizes, gpus.size(), left_out));
  if (left_out > 0)  // after every check: an error stays the one line said
    std::cerr << "note: " << nccl_tests_least_size(options.op, gpus.size(), options.dtype).why
              << "; left out: " << left_out << (left_out == 1 ? " size" : " sizes") << "\n";
  if (options.format == "json")
    print_json(options, machine, gpus.size(), rows);
  else if (options.format == "csv")
    print_csv(options, machine, gpus.size(), rows);
  else
    print_table(options, machine, gpus.size(), rows);
  return 0;
}

Command register_collective_command(CLI::App& opsim) {
  auto options = std::make_shared<CollectiveCommandOptions>();
  CLI::App* command = opsim.add_subcommand(
      "collective", "The nccl-tests table (time, algbw, busbw by size) of one collective");
  std::vector<std::string> ops;
  for (std::string_view name : collective_names()) ops.emplace_back(name);
  std::vector<std::string> algorithms;
  std::string algorithm_list;
  for (std::string_view name : collective_algorithms()) {
    algorithms.emplace_back(name);
    algorithm_list += (algorithm_list.empty() ? "" : ",") + std::string(name);
  }
  command
      ->add_option("--op", options->op,
                   "allreduce, reduce_scatter, all_gather, broadcast, reduce, all_to_all or "
                   "sendrecv")
      ->check(CLI::IsMember(ops))
      ->capture_default_str();
  command
      ->add_option("--topology", options->topology, "Preset, family (nvlink-ring:8) or YAML file")
      ->capture_default_str();
  command->add_option("--gpus", options->gpus, "Use the first N GPUs (default: all)")
      ->check(CLI::Range(2, 1 << 20));
  command
      ->add_option("--gpus-per-server", options->gpus_per_server,
                   "Use the first G GPUs of every server, as a job of G ranks per node "
                   "(default: all); --gpus then takes the first N of those")
      ->check(CLI::Range(1, 1 << 20));
  command
      ->add_option("--sizes", options->sizes,
                   "MIN:MAX bytes per rank as nccl-tests' -b/-e (8B:8GB, 1KiB:1GiB) or one size")
      ->capture_default_str();
  command->add_option("--factor", options->factor, "Each size is the one before times this (> 1)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              std::size_t end = 0;
              const double value = std::stod(text, &end);
              if (end == text.size() && std::isfinite(value) && value > 1) return "";
            } catch (const std::exception&) {
            }
            return "must be a number more than 1, not '" + text + "'";
          },
          "FACTOR"))
      ->capture_default_str();
  command
      ->add_option("--algorithm", options->algorithms,
                   "Comma-separated algorithms, one table each (default: auto, NCCL's tuner "
                   "by size). They exist: " +
                       algorithm_list +
                       " (ring: all but all_to_all and sendrecv; tree, nvls_tree, "
                       "hierarchical: allreduce; nvls: allreduce, reduce_scatter, all_gather; "
                       "direct: all_to_all, sendrecv)")
      ->delimiter(',')
      ->check(CLI::IsMember(algorithms));
  command
      ->add_option("--protocol", options->protocol,
                   "NCCL protocol: LL, LL128, Simple, auto (NCCL's tuner, by size), a list "
                   "the tuner chooses from as NCCL_PROTO does (LL,Simple: NCCL before 2.5 "
                   "had no LL128), or wire (the links alone, no protocol cost)")
      ->check(
          CLI::Validator([](std::string& text) { return protocol_choice_error(text); }, "PROTOCOL"))
      ->capture_default_str();
  command
      ->add_option("--gpus-per-thread", options->gpus_per_thread,
                   "nccl-tests' -g: GPUs one host thread drives; it launches their kernels in "
                   "turn, so an iteration takes at least that many kernel launches")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  std::vector<std::string> dtypes;
  for (std::string_view name : nccl_tests_dtypes()) dtypes.emplace_back(name);
  command
      ->add_option("--dtype", options->dtype,
                   "nccl-tests' -d: each size runs in whole elements of this type (and, for "
                   "reduce_scatter, all_gather and all_to_all, whole 16-byte units a rank); "
                   "the count column counts them. Times do not depend on it")
      ->check(CLI::IsMember(dtypes))
      ->capture_default_str();
  add_format_option(*command, options->format, {"table", "json", "csv"});
  command
      ->add_option("--trace-dir", options->trace_dir,
                   "Write <op>-<algorithm>-<bytes>.json Chrome traces here")
      ->check(writable_directory("traces"));
  add_jobs_option(*command, options->parallel);
  add_what_if_options(*command, options->what_if);
  return {command, [options] { return run_collective(*options); }};
}

}  // namespace opsim
