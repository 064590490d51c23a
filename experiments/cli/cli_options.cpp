#include "experiments/cli/cli_options.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/input_error.hpp"
#include "hw_models/units.hpp"

namespace opsim {

CLI::Validator size_in_bytes() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto bytes = parse_bytes(text);
        if (!bytes || !(*bytes > 0))
          return "cannot read '" + text + "' as a size (e.g. 160MB, 1GiB, 4096)";
        if (*bytes > 9007199254740992.0)
          return "'" + text + "' is more than 2^53 bytes (9 PB), the most opsim simulates";
        char plain[64];
        std::snprintf(plain, sizeof plain, "%.17g", *bytes);
        text = plain;
        return "";
      },
      "SIZE");
}

CLI::Validator writable_file(const std::string& what) {
  return CLI::Validator(
      [what](std::string& path) -> std::string {
        try {
          check_output_path(path, what);
        } catch (const InputError& e) {
          return e.what();
        }
        return "";
      },
      "FILE");
}

CLI::Validator writable_directory(const std::string& what) {
  return CLI::Validator(
      [what](std::string& path) -> std::string {
        namespace fs = std::filesystem;
        std::error_code error;
        const std::string cannot = path + ": cannot write " + what + " here: ";
        if (fs::exists(path, error))
          return fs::is_directory(path, error) ? (::access(path.c_str(), W_OK | X_OK) == 0
                                                      ? ""
                                                      : cannot + "the directory is not writable")
                                               : cannot + "it exists and is not a directory";
        fs::path ancestor = fs::absolute(path, error).parent_path();
        while (!ancestor.empty() && !fs::exists(ancestor, error)) ancestor = ancestor.parent_path();
        if (!fs::is_directory(ancestor, error))
          return cannot + "'" + ancestor.string() + "' is not a directory";
        if (::access(ancestor.c_str(), W_OK | X_OK) != 0)
          return cannot + "'" + ancestor.string() + "' is not writable";
        return "";
      },
      "DIR");
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
