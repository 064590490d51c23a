// The parameter tables of the hardware models, one per model (defined in
// cpu_parameters.cpp, dram_parameters.cpp, gpu_parameters.cpp, disk_parameters.cpp,
// link_parameters.cpp, collective_parameters.cpp), in the order a topology file writes them.
#pragma once

#include <span>

#include "hw_models/collective_model.hpp"
#include "hw_models/disk_model.hpp"
#include "hw_models/link_model.hpp"
#include "hw_models/parameter_table.hpp"

namespace opsim {

using CpuParameter = ParameterRow<CpuModel>;
using DramParameter = ParameterRow<DramModel>;
using GpuParameter = ParameterRow<GpuModel>;
using DiskParameter = ParameterRow<DiskModel>;
using LinkParameter = ParameterRow<LinkModel>;
using CollectiveParameter = ParameterRow<CollectiveModel>;

/// A CPU's own parameters; its DRAM's are dram_parameters(), under the key "dram".
std::span<const CpuParameter> cpu_parameters();
std::span<const DramParameter> dram_parameters();
std::span<const GpuParameter> gpu_parameters();
/// A disk's parameters beyond its type's factory (DiskModel::hdd, nvme).
std::span<const DiskParameter> disk_parameters();
/// A link's parameters beyond its type's factory (LinkModel::pcie, nvlink, ethernet).
std::span<const LinkParameter> link_parameters();
/// A machine's collective model (its topology file's `collectives:` map).
std::span<const CollectiveParameter> collective_parameters();

}  // namespace opsim
