#include "hw_models/model_presets.hpp"

namespace opsim {

std::optional<GpuModel> gpu_model_preset(std::string_view name) {
  GpuModel model;  // defaults are a V100 SXM2
  if (name == "generic" || name == "v100") return model;
  if (name == "a100") {
    model.fp32_flops_per_s = 19.5e12;
    model.fp16_flops_per_s = 312e12;  // dense tensor core
    model.memory_bytes_per_s = 1555e9;
    model.memory_bytes = 40e9;
    return model;
  }
  if (name == "h100") {
    model.fp32_flops_per_s = 66.9e12;
    model.fp16_flops_per_s = 989.4e12;  // dense tensor core, SXM5
    model.memory_bytes_per_s = 3.35e12;
    model.memory_bytes = 80e9;
    return model;
  }
  if (name == "gtx1080ti") {
    model.fp32_flops_per_s = 11.34e12;
    model.fp16_flops_per_s = 0.177e12;  // consumer Pascal runs fp16 at 1/64 rate
    model.memory_bytes_per_s = 484e9;
    model.memory_bytes = 11e9;
    model.copy_engines = 2;  // consumer parts: one engine per direction
    return model;
  }
  return std::nullopt;
}

std::vector<std::string_view> gpu_model_preset_names() {
  return {"a100", "generic", "gtx1080ti", "h100", "v100"};
}

std::optional<CpuModel> cpu_model_preset(std::string_view name) {
  CpuModel model;
  if (name == "default") return model;
  if (name == "desktop") {
    model.cores = 8;
    model.clock_hz = 3.6e9;
    model.dram.channels = 2;
    model.dram.capacity_bytes = 32e9;
    return model;
  }
  if (name == "xeon-e5-2698v4") {
    model.cores = 20;
    model.clock_hz = 2.2e9;  // base clock; AVX2 all-core turbo is not much higher
    model.simd_fp32_lanes = 8;
    model.fma_units = 2;
    model.dram.channels = 4;
    model.dram.bytes_per_s_per_channel = 19.2e9;  // DDR4-2400
    model.dram.capacity_bytes = 256e9;            // half of the DGX-1's 512 GB
    return model;
  }
  return std::nullopt;
}

std::vector<std::string_view> cpu_model_preset_names() {
  return {"default", "desktop", "xeon-e5-2698v4"};
}

}  // namespace opsim
