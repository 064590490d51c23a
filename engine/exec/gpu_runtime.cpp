// gpu_runtime(): finds the NVIDIA driver, then loads the CUDA plug-in beside it. Both are
// looked for only once per process.
#include "engine/exec/gpu_runtime.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>

namespace opsim {

namespace {

#ifdef OPSIM_CUDA_PLUGIN
// The plug-in next to the running program's lib/ folder, else where this build put it.
std::vector<std::string> plugin_candidates() {
  std::vector<std::string> paths;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    paths.push_back((exe.parent_path().parent_path() / "lib" / OPSIM_CUDA_PLUGIN_NAME).string());
  paths.push_back(OPSIM_CUDA_PLUGIN);
  return paths;
}

std::pair<std::shared_ptr<GpuRuntime>, std::string> open_cuda() {
  // No driver, no GPU: say so without loading CUDA's libraries (cuBLAS alone maps ~0.5 GB).
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) == nullptr)
    return {nullptr,
            std::string("no usable GPU: no NVIDIA driver on this host (") + dlerror() + ")"};
  std::string tried;
  for (const std::string& path : plugin_candidates()) {
    void* plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (plugin == nullptr) {
      tried += (tried.empty() ? "" : "; ") + std::string(dlerror());
      continue;
    }
    using Open = GpuRuntime* (*)(std::string*);
    auto open = reinterpret_cast<Open>(dlsym(plugin, "opsim_open_cuda_runtime"));
    if (open == nullptr)
      return {nullptr, "no usable GPU: " + path + " is not opsim's CUDA plug-in"};
    std::string why;
    std::shared_ptr<GpuRuntime> runtime(open(&why));
    return {runtime, why};
  }
  return {nullptr, "no usable GPU: cannot load the CUDA plug-in (" + tried + ")"};
}
#else
std::pair<std::shared_ptr<GpuRuntime>, std::string> open_cuda() {
  return {nullptr,
          "no usable GPU: this build of opsim has no CUDA backend (configured without the CUDA "
          "toolkit)"};
}
#endif

}  // namespace

std::shared_ptr<GpuRuntime> gpu_runtime(std::string* why) {
  static const auto opened = open_cuda();  // the runtime lives as long as the process
  if (why != nullptr) *why = opened.second;
  return opened.first;
}

}  // namespace opsim
