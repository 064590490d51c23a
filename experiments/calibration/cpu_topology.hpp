// How many physical cores a set of CPUs sits on, from the kernel's topology files: the number
// of compute streams a calibrated profile gives its CPU (one per core, each core's SMT
// siblings the stream's BLAS threads). A fact about the machine rather than a measurement:
// two one-thread GEMMs side by side ran at 1.4 x one alone in a noisy minute on this
// project's 2-vCPU host, and a profile that rounded that to one stream simulated the
// program's dispatch thread and both memcpy streams on one core (book (a) +82 %,
// memcpy-two-streams +76 %). How fast each stream runs while all are busy is measured
// (CpuModel::all_streams_busy_speed), which covers cores a hypervisor shares in secret.
//
//   std::optional<int> cores = physical_cores(allowed_cpus());  // 2 on a 2-vCPU VM
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace opsim::calibration {

/// Distinct (package, core) pairs among `cpus`, read from `<cpu_root>/cpuN/topology/
/// physical_package_id` and `core_id`; nullopt where `cpus` is empty or any file is missing
/// or unreadable (the caller then falls back to one core per CPU).
std::optional<int> physical_cores(
    const std::vector<int>& cpus,
    const std::filesystem::path& cpu_root = "/sys/devices/system/cpu");

}  // namespace opsim::calibration
