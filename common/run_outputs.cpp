#include "common/run_outputs.hpp"

#include <system_error>

#include "common/input_error.hpp"
#include "common/temporary_files.hpp"

namespace opsim {

namespace fs = std::filesystem;

void RunOutputs::prepare() {
  if (directory_.empty() || prepared_) return;
  // The directories missing now, deepest first: those are this run's to remove on failure.
  std::error_code ec;
  for (fs::path p = directory_; !p.empty() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path()) {
    created_.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(directory_, ec);
  if (ec) {
    created_.clear();
    throw InputError("--trace-dir " + directory_.string() + ": " + ec.message());
  }
  prepared_ = true;
}

void RunOutputs::wrote(const fs::path& file) {
  if (directory_.empty() || kept_) return;
  std::error_code ec;
  // Only a regular file is this run's own; a symlink's target or a stream stays.
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return;
  for (const Written& w : written_)
    if (w.path == file) return;  // written again (validate --rounds)
  written_.push_back({file, remember_temporary(file.string())});
}

void RunOutputs::keep() {
  forget_all();
  kept_ = true;
}

void RunOutputs::forget_all() {
  for (const Written& w : written_) forget_temporary(w.slot);
}

RunOutputs::~RunOutputs() {
  if (kept_) return;
  forget_all();
  std::error_code ec;
  for (const Written& w : written_)
    if (fs::is_regular_file(fs::symlink_status(w.path, ec))) fs::remove(w.path, ec);
  // fs::remove leaves a directory that is not empty (ec set): what others wrote stays.
  for (const fs::path& dir : created_) fs::remove(dir, ec);
}

}  // namespace opsim
