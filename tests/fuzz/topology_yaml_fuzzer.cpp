// Topology YAML (topologies/topology_yaml.hpp): any text either parses to a machine or is
// refused with a one-line InputError naming the file; a machine that parses survives
// dump → parse unchanged.
#include <optional>

#include "hw_models/machine.hpp"
#include "tests/fuzz/fuzz_contract.hpp"
#include "topologies/topology_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opsim;
  std::optional<Machine> machine;
  fuzz::expect_value_or_input_error("fuzz.yaml", [&] {
    machine.emplace(parse_topology_yaml(fuzz::text_of(data, size), "fuzz.yaml"));
  });
  if (!machine) return 0;
  const std::string dumped = dump_topology_yaml(*machine);
  Machine again = [&] {
    try {
      return parse_topology_yaml(dumped, "dumped.yaml");
    } catch (const std::exception& e) {
      fuzz::finding("the dump of a parsed machine does not parse",
                    std::string(e.what()) + "\n" + dumped);
    }
  }();
  const std::string difference = machine_difference(*machine, again);
  if (!difference.empty())
    fuzz::finding("parse(dump(m)) differs from m", difference + "\n" + dumped);
  return 0;
}
