// Sweep specs (`opsim sweep SPEC`, experiments/cli/sweep_spec.hpp): any text either parses
// to a spec whose axes are non-empty and whose values are in range, or is refused with a
// one-line InputError naming the file.
#include <cmath>
#include <cstdlib>
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
  for (const SweepAxis& axis : spec->axes) {
    if (axis.values.empty()) fuzz::finding("accepted spec has an empty axis", "");
    for (const std::string& value : axis.values) {
      const double number = std::strtod(value.c_str(), nullptr);
      if (axis.column == "bytes" && (!(number >= 1) || !std::isfinite(number)))
        fuzz::finding("accepted spec has a size that is not positive and finite", "");
      if (axis.column == "gpus" && number < 2)
        fuzz::finding("accepted spec has a GPU count below 2", "");
    }
  }
  for (const auto& group : spec->zip_groups)
    for (std::size_t member : group)
      if (spec->axes[member].values.size() != spec->axes[group.front()].values.size())
        fuzz::finding("accepted spec zips axes of unequal length", "");
  return 0;
}
