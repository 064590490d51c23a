// Options that several subcommands share, with CLI11 doing the checking, so every mistake
// in them is a one-line "--flag: what is wrong" before any work starts.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "experiments/cli/what_if.hpp"

namespace opsim {

/// Accepts a size such as 160MB, 1GiB or 4096 (bytes), from 1 to 2^53, and hands it on as
/// plain bytes.
CLI::Validator size_in_bytes();

/// An output file that can be written, checked before any work (common/atomic_file.hpp's
/// check_output_path: its directory exists and is writable; not a directory or block device).
CLI::Validator writable_file(const std::string& what);

/// An output directory that exists or can be created: the path (if it exists) is a
/// directory, and its nearest existing ancestor is a writable directory.
CLI::Validator writable_directory(const std::string& what);

/// --format, one of `choices` (the first is the default the options struct holds).
CLI::Option* add_format_option(CLI::App& command, std::string& format,
                               const std::vector<std::string>& choices);

/// --jobs/-j: simulations run at once, 1 to 256.
CLI::Option* add_jobs_option(CLI::App& command, unsigned& parallel);

/// --link-bandwidth-scale and --set NAME.FIELD=VALUE (what_if.hpp checks their values).
void add_what_if_options(CLI::App& command, WhatIf& what_if);

}  // namespace opsim
