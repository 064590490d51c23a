// What every parser harness checks: the parser returns a value or throws opsim::InputError
// whose message is one line naming the source it was given. Anything else (another exception
// type, a multi-line message, a message without the source name) aborts, which libFuzzer and
// the corpus replay report as a finding; crashes, sanitizer reports and hangs are findings
// by themselves.
//
//   extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
//     opsim::fuzz::expect_value_or_input_error("fuzz.yaml", [&] {
//       (void)opsim::parse_topology_yaml(opsim::fuzz::text_of(data, size), "fuzz.yaml");
//     });
//     return 0;
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "common/input_error.hpp"

namespace opsim::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Prints `what` and `detail` to stderr and aborts: a finding.
[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "opsim fuzz finding: %s\n---\n%s\n---\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

/// Checks an InputError's message against the contract.
inline void check_input_error(const InputError& error, std::string_view source_name) {
  const std::string_view message = error.what();
  if (message.find('\n') != std::string_view::npos)
    finding("InputError message spans more than one line", std::string(message));
  if (message.find(source_name) == std::string_view::npos)
    finding("InputError message does not name the source", std::string(message));
}

/// Runs `parse`; returns true when it returned, false when it threw a well-formed InputError.
template <class Parse>
bool expect_value_or_input_error(std::string_view source_name, Parse&& parse) {
  try {
    parse();
    return true;
  } catch (const InputError& e) {
    check_input_error(e, source_name);
    return false;
  } catch (const std::exception& e) {
    finding("exception other than InputError", std::string(typeid(e).name()) + ": " + e.what());
  } catch (...) {
    finding("exception other than InputError", "not a std::exception");
  }
}

}  // namespace opsim::fuzz
