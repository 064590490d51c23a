#include "experiments/cli/calibrate_command.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "experiments/calibration/calibration.hpp"
#include "experiments/calibration/profile_changes.hpp"
#include "experiments/cli/cli_options.hpp"
#include "experiments/cli/progress_bar.hpp"
#include "experiments/cli/text_table.hpp"
#include "hw_models/units.hpp"
#include "topologies/topology_yaml.hpp"

namespace opsim {
namespace {

std::string format_value(double value, const std::string& unit) {
  char buf[64];
  if (unit == "flop/s") {
    std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", value / 1e9);
    return buf;
  }
  if (unit == "bytes/s") return format_bytes_per_s(value);
  if (unit == "s") return format_seconds(value);
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

std::string format_value(const calibration::Measurement& m) {
  return format_value(m.value, m.unit);
}

std::string format_change(double change) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", change * 100);
  return buf;
}

calibration::CalibrationReport calibrate_report(bool quick, int repeats,
                                                const std::string& scratch_dir,
                                                calibration::Statistic statistic,
                                                const Machine* base = nullptr,
                                                std::vector<std::string> only = {}) {
  calibration::CalibrationOptions options;
  options.base = base;
  options.only = std::move(only);
  options.quick = quick;
  options.repeats = repeats;
  options.scratch_dir = scratch_dir;
  options.statistic = statistic;
  std::unique_ptr<ProgressBar> bar;
  options.on_progress = [&](std::size_t done, std::size_t total) {
    if (!bar) bar = std::make_unique<ProgressBar>(total, "measurements");
    bar->advance();
    if (done == total) bar->finish();
  };
  try {
    return calibration::calibrate(options);
  } catch (const std::runtime_error& e) {
    throw InputError(std::string("calibrate: ") + e.what());
  }
}

}  // namespace

Machine calibrate_with_progress(bool quick, int repeats, const std::string& scratch_dir,
                                calibration::Statistic statistic) {
  return calibrate_report(quick, repeats, scratch_dir, statistic).machine;
}

Machine calibrate_groups(const Machine& base, const std::vector<std::string>& groups,
                         const std::string& scratch_dir, calibration::Statistic statistic) {
  if (groups.empty()) return base;
  return calibrate_report(false, 0, scratch_dir, statistic, &base, groups).machine;
}

calibration::Statistic statistic_option(const std::string& text) {
  const auto statistic = calibration::parse_statistic(text);
  if (!statistic) throw InputError("--statistic: '" + text + "' is not one of median, best");
  return *statistic;
}

int run_calibrate_command(const CalibrateCommandOptions& options) {
  if (options.format != "table" && options.format != "json")
    throw InputError("--format: '" + options.format + "' is not one of table, json");
  if (options.repeats < 0) throw InputError("--repeats: must be at least 1");
  // The default --out is not seen by its validator: check it before minutes of measuring.
  if (!options.out_path.empty()) check_output_path(options.out_path, "the profile");
  // The previous profile is read first: a bad file is an error before minutes of measuring.
  std::optional<Machine> previous;
  if (!options.against.empty()) {
    previous = load_topology_file(options.against);
    try {
      (void)calibration::profile_inputs(*previous);
    } catch (const std::invalid_argument& e) {
      throw InputError(options.against + ": --against needs a calibrated profile (" + e.what() +
                       ")");
    }
  }
  const calibration::CalibrationReport report = calibrate_report(
      options.quick, options.repeats, options.scratch_dir, statistic_option(options.statistic));
  if (!options.out_path.empty()) save_topology_file(report.machine, options.out_path);
  std::vector<calibration::ParameterChange> changes;
  std::vector<std::string> differ;
  if (previous) {
    changes = calibration::profile_changes(*previous, report.machine);
    for (const auto& c : changes)
      if (c.differs()) differ.push_back(c.name);
  }

  std::vector<std::string> noisy;
  for (const auto& m : report.measurements)
    if (m.noisy()) noisy.push_back(m.name);
  if (options.format == "json") {
    nlohmann::json out = {{"machine", report.machine.name()},
                          {"profile", options.out_path},
                          {"elapsed_s", report.elapsed_s},
                          {"gpu", report.gpu_note},
                          {"noisy", noisy}};
    out["measurements"] = nlohmann::json::array();
    for (const auto& m : report.measurements)
      out["measurements"].push_back({{"name", m.name},
                                     {"unit", m.unit},
                                     {"value", m.value},
                                     {"spread", m.spread},
                                     {"noisy", m.noisy()},
                                     {"samples", m.samples}});
    if (!report.disk_note.empty()) out["disk_note"] = report.disk_note;
    if (previous) {
      nlohmann::json parameters = nlohmann::json::array();
      for (const auto& c : changes)
        parameters.push_back({{"name", c.name},
                              {"unit", c.unit},
                              {"previous", c.previous},
                              {"now", c.now},
                              {"change", c.change()},
                              {"differs", c.differs()}});
      out["against"] = {
          {"profile", options.against}, {"parameters", parameters}, {"differ", differ}};
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "Calibrated " << report.machine.name() << " in " << format_seconds(report.elapsed_s)
            << " (median of " << report.measurements.front().samples.size() << " runs each)\n\n";
  TextTable table({"measurement", "median", "spread", ""}, {false, true, true, false});
  for (const auto& m : report.measurements) {
    char spread[32];
    std::snprintf(spread, sizeof spread, "%.1f%%", m.spread * 100);
    table.add_row({m.name, format_value(m), spread, m.noisy() ? "noisy (>5%)" : ""});
  }
  std::cout << table.render() << "\n";
  if (!noisy.empty()) {
    std::cout << "Noisy parameters (spread above 5%): ";
    for (std::size_t i = 0; i < noisy.size(); ++i) std::cout << (i ? ", " : "") << noisy[i];
    std::cout << "\n";
  }
  if (previous) {
    std::cout << "\nAgainst " << options.against << ":\n";
    TextTable against({"parameter", "previous", "now", "change", ""},
                      {false, true, true, true, false});
    for (const auto& c : changes)
      against.add_row({c.name, format_value(c.previous, c.unit), format_value(c.now, c.unit),
                       format_change(c.change()), c.differs() ? "differs (>5%)" : ""});
    std::cout << against.render() << "\n";
    if (differ.empty()) {
      std::cout << "All " << changes.size() << " parameters within 5% of " << options.against
                << "\n";
    } else {
      std::cout << "Differ by more than 5% from " << options.against << ": ";
      for (std::size_t i = 0; i < differ.size(); ++i) std::cout << (i ? ", " : "") << differ[i];
      std::cout << "\n";
    }
  }
  std::cout << report.gpu_note << "\n";
  if (!report.disk_note.empty()) std::cout << "disk: " << report.disk_note << "\n";
  if (!options.out_path.empty()) std::cout << "Profile: " << options.out_path << "\n";
  return 0;
}

Command register_calibrate_command(CLI::App& opsim) {
  auto options = std::make_shared<CalibrateCommandOptions>();
  CLI::App* calibrate = opsim.add_subcommand(
      "calibrate", "Measure this machine (GEMM, memcpy, DRAM, disk, dispatch) into a profile YAML");
  calibrate->add_option("--out,-o", options->out_path, "Profile file (written atomically)")
      ->check(writable_file("the profile"))
      ->capture_default_str();
  calibrate->add_flag("--quick", options->quick, "Small sizes, 3 repeats: about 10 s");
  calibrate
      ->add_option("--repeats", options->repeats,
                   "Runs per measurement, 1 to 1000 (default 5; 3 with --quick)")
      ->check(CLI::Range(1, 1000));
  add_format_option(*calibrate, options->format, {"table", "json"});
  calibrate
      ->add_option("--statistic", options->statistic,
                   "median, or best (highest rate / shortest time) of the repeats")
      ->check(CLI::IsMember({"median", "best"}))
      ->capture_default_str();
  calibrate->add_option("--against", options->against,
                        "A previous profile: name the parameters more than 5% apart");
  calibrate->add_option("--scratch-dir", options->scratch_dir,
                        "Directory for the disk scratch file (default: temp directory)");
  return {calibrate, [options] { return run_calibrate_command(*options); }};
}

}  // namespace opsim
