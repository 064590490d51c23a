// Calibrated profiles (`opsim validate --profile FILE`, `opsim calibrate --against FILE`):
// a profile is a topology file that `opsim calibrate` wrote, read by load_topology_file(),
// with the measured keys on cpu0 and disk0 (memory_pass_rates, copy_stream_rates,
// copies_together_rates, core_*_speeds, disk_*_speed_*, *_beside_* ...). This harness feeds
// that reader profile-shaped inputs (its own corpus and dictionary) and checks the same
// contract as the topology harness, plus that the measured fields survive dump → parse and
// that the profile has the devices a profile must have.
#include <cmath>
#include <optional>

#include "hw_models/machine.hpp"
#include "tests/fuzz/fuzz_contract.hpp"
#include "topologies/topology_yaml.hpp"

namespace {

// The rates the simulator reads from a profile's CPU at the sizes it asks for: every accepted
// profile gives positive, finite rates (memcpy: 0 means "no limit").
void check_cpu_rates(const opsim::CpuModel& cpu) {
  for (double bytes : {0.0, 1.0, 4096.0, 1e6, 96.0 * (1 << 20), 1e9, 1e12}) {
    const double pass = cpu.memory_pass_bytes_per_s(bytes);
    const double copy = cpu.copy_stream_bytes_per_s_for(bytes);
    const double dram_use = cpu.copy_dram_use_per_byte(bytes);
    if (!(pass > 0) || !std::isfinite(pass))
      opsim::fuzz::finding("accepted profile gives a memory-pass rate that is not positive",
                           std::to_string(bytes) + " B: " + std::to_string(pass));
    if (!(copy >= 0) || !std::isfinite(copy))
      opsim::fuzz::finding("accepted profile gives a memcpy rate that is negative or not finite",
                           std::to_string(bytes) + " B: " + std::to_string(copy));
    if (!(dram_use > 0) || !std::isfinite(dram_use))
      opsim::fuzz::finding("accepted profile gives a DRAM use per byte that is not positive",
                           std::to_string(bytes) + " B: " + std::to_string(dram_use));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opsim;
  std::optional<Machine> profile;
  fuzz::expect_value_or_input_error("profile.yaml", [&] {
    profile.emplace(parse_topology_yaml(fuzz::text_of(data, size), "profile.yaml"));
  });
  if (!profile) return 0;
  for (const Device& device : profile->devices())
    if (device.kind == DeviceKind::kCpu) check_cpu_rates(device.cpu);
  const std::string dumped = dump_topology_yaml(*profile);
  try {
    const Machine again = parse_topology_yaml(dumped, "dumped.yaml");
    const std::string difference = machine_difference(*profile, again);
    if (!difference.empty())
      fuzz::finding("parse(dump(profile)) differs from the profile", difference + "\n" + dumped);
  } catch (const std::exception& e) {
    fuzz::finding("the dump of a parsed profile does not parse",
                  std::string(e.what()) + "\n" + dumped);
  }
  return 0;
}
