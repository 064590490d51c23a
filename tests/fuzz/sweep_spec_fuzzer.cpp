// Sweep specs (`opsim sweep SPEC`, experiments/cli/sweep_spec.hpp): any text either parses
// to a spec whose values are in range or is refused with a one-line InputError naming the
// file.
#include <cmath>
#include <optional>

#include "experiments/cli/sweep_spec.hpp"
#include "tests/fuzz/fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opsim;
  std::optional<SweepSpec> spec;
  fuzz::expect_value_or_input_error("fuzz-sweep.yaml", [&] {
    spec.emplace(parse_sweep_spec(fuzz::text_of(data, size), "fuzz-sweep.yaml"));
  });
  if (!spec) return 0;
  if (spec->topologies.empty() || spec->strategies.empty() || spec->bytes.empty() ||
      spec->gpus.empty())
    fuzz::finding("accepted spec has an empty list", "");
  for (double bytes : spec->bytes)
    if (!(bytes > 0) || !std::isfinite(bytes))
      fuzz::finding("accepted spec has a size that is not positive and finite", "");
  for (int gpus : spec->gpus)
    if (gpus != 0 && gpus < 2) fuzz::finding("accepted spec has a GPU count below 2", "");
  return 0;
}
