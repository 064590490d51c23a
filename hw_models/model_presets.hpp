// Named hardware presets for topology files: `model: v100` on a GPU, `model: default` on a
// CPU. Numbers are vendor peak figures (datasheets); the `efficiency` fields scale them to
// what real kernels reach.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "hw_models/cpu_model.hpp"
#include "hw_models/gpu_model.hpp"

namespace opsim {

/// GPU presets: "v100" (SXM2 16 GB), "a100" (SXM4 40 GB), "h100" (SXM5 80 GB),
/// "gtx1080ti", "generic" (GpuModel defaults). nullopt for an unknown name.
std::optional<GpuModel> gpu_model_preset(std::string_view name);
/// Valid GPU preset names, sorted.
std::vector<std::string_view> gpu_model_preset_names();

/// CPU presets: "default" (CpuModel defaults: 8 cores, AVX2, 2 DDR4 channels),
/// "xeon-e5-2698v4" (the DGX-1's 20-core Broadwell), "desktop" (8-core AVX2, 2 channels).
std::optional<CpuModel> cpu_model_preset(std::string_view name);
/// Valid CPU preset names, sorted.
std::vector<std::string_view> cpu_model_preset_names();

}  // namespace opsim
