#include "engine/frontend/host_machine.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "engine/exec/gpu_runtime.hpp"

namespace opsim::frontend {

Machine host_machine(const HostMachineOptions& options) {
  Machine m("host");
  m.set_description("this host, as the real executor runs it");
  CpuModel cpu;
  cpu.cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cpu.compute_streams = std::max(1, options.cpu_compute_streams);
  const DeviceId cpu0 = m.add_cpu("cpu0", cpu);
  const DeviceId disk0 = m.add_disk("disk0", DiskModel{});
  m.add_link("sata0", cpu0, disk0, LinkModel{});
  int gpus = options.gpus;
  if (gpus < 0) {
    const std::shared_ptr<GpuRuntime> runtime = gpu_runtime();
    gpus = runtime ? runtime->device_count() : 0;
  }
  if (gpus > 0) {
    const DeviceId sw = m.add_switch("pcie_sw0");
    m.add_link("pcie_cpu0", cpu0, sw, LinkModel::pcie(3, 16));
    for (int i = 0; i < gpus; ++i) {
      const DeviceId g = m.add_gpu("gpu" + std::to_string(i), GpuModel{});
      m.add_link("pcie_gpu" + std::to_string(i), g, sw, LinkModel::pcie(3, 16));
    }
  }
  m.seal();
  return m;
}

}  // namespace opsim::frontend
