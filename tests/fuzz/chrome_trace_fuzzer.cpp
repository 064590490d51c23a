// Chrome / PyTorch trace reader (engine/chrome_trace_reader.hpp): any text either reads into
// a Trace or is refused with a one-line InputError naming the file. Both the fast path
// (compact files opsim wrote) and the checked parser are reached from the same input.
#include "engine/chrome_trace_reader.hpp"
#include "tests/fuzz/fuzz_contract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opsim;
  const std::string_view text = fuzz::text_of(data, size);
  (void)chrome_trace_reads_fast(text);
  fuzz::expect_value_or_input_error("fuzz-trace.json",
                                    [&] { (void)parse_chrome_trace(text, "fuzz-trace.json"); });
  return 0;
}
