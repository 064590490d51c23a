// Workload JSON (engine/workload_file.hpp): any text either parses and builds into an op
// graph on the machines below, or is refused with a one-line InputError naming the file.
#include <optional>

#include "engine/workload_file.hpp"
#include "tests/fuzz/fuzz_contract.hpp"
#include "topologies/topology_yaml.hpp"

namespace {

// Device names the seed workloads use: cpu0, gpu0..1, disk0 (calibrated profiles), nvme0.
constexpr const char* kMachineYaml = R"(
name: fuzz-machine
devices:
  - {name: cpu0, kind: cpu, model: desktop}
  - {name: gpu0, kind: gpu, model: gtx1080ti}
  - {name: gpu1, kind: gpu, model: gtx1080ti}
  - {name: disk0, kind: disk, type: ssd}
  - {name: nvme0, kind: disk, type: nvme, generation: 3, lanes: 4}
links:
  - {between: [gpu0, cpu0], type: pcie, generation: 3, lanes: 16}
  - {between: [gpu1, cpu0], type: pcie, generation: 3, lanes: 16}
  - {between: [gpu0, gpu1], type: nvlink}
  - {between: [disk0, cpu0], type: sata, bandwidth: 600MB/s}
  - {between: [nvme0, cpu0], type: pcie, generation: 3, lanes: 4}
)";

const opsim::Machine& machine() {
  static const opsim::Machine m = opsim::parse_topology_yaml(kMachineYaml, "fuzz-machine.yaml");
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opsim;
  std::optional<WorkloadFile> workload;
  fuzz::expect_value_or_input_error("fuzz.json", [&] {
    workload.emplace(parse_workload_json(fuzz::text_of(data, size), "fuzz.json"));
  });
  if (!workload) return 0;
  fuzz::expect_value_or_input_error("fuzz.json",
                                    [&] { (void)build_workload_graph(*workload, machine()); });
  return 0;
}
