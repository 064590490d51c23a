#include "experiments/cli/cli_options.hpp"

#include <cstdio>

#include "hw_models/units.hpp"

namespace opsim {

CLI::Validator size_in_bytes() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto bytes = parse_bytes(text);
        if (!bytes || !(*bytes > 0))
          return "cannot read '" + text + "' as a size (e.g. 160MB, 1GiB, 4096)";
        char plain[64];
        std::snprintf(plain, sizeof plain, "%.17g", *bytes);
        text = plain;
        return "";
      },
      "SIZE");
}

CLI::Option* add_format_option(CLI::App& command, std::string& format,
                               const std::vector<std::string>& choices) {
  std::string list;
  for (const std::string& choice : choices) list += (list.empty() ? "" : ", ") + choice;
  return command.add_option("--format", format, list)
      ->check(CLI::IsMember(choices))
      ->capture_default_str();
}

CLI::Option* add_jobs_option(CLI::App& command, unsigned& parallel) {
  return command.add_option("--jobs,-j", parallel, "Simulations run at once")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
}

void add_what_if_options(CLI::App& command, WhatIf& what_if) {
  command.add_option("--link-bandwidth-scale", what_if.link_bandwidth_scale,
                     "Multiply every link's bandwidth (what-if)");
  command.add_option("--set", what_if.assignments,
                     "What-if edit NAME.FIELD=VALUE, e.g. gpu0-sw0.bandwidth=8GB/s (" +
                         what_if_fields_help() + ")");
}

}  // namespace opsim
