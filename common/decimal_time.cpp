#include "common/decimal_time.hpp"

namespace opsim {

std::optional<std::int64_t> decimal_us_to_ns(std::string_view t) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) negative = t[i++] == '-';
  const std::size_t int_begin = i;
  while (i < t.size() && digit(t[i])) ++i;
  const std::size_t int_end = i;
  std::size_t frac_begin = i, frac_end = i;
  if (i < t.size() && t[i] == '.') {
    frac_begin = ++i;
    while (i < t.size() && digit(t[i])) ++i;
    frac_end = i;
  }
  long exponent = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) exponent_negative = t[i++] == '-';
    if (i == t.size()) return std::nullopt;
    for (; i < t.size() && digit(t[i]); ++i)
      if (exponent < 1000000) exponent = exponent * 10 + (t[i] - '0');
    if (exponent_negative) exponent = -exponent;
  }
  if (i != t.size() || (int_end == int_begin && frac_end == frac_begin)) return std::nullopt;
  const long int_digits = static_cast<long>(int_end - int_begin);
  const long frac_digits = static_cast<long>(frac_end - frac_begin);
  const long total = int_digits + frac_digits;
  const long shift = exponent + 3 - frac_digits;  // value = digits * 10^shift ns
  const long kept = shift >= 0 ? total : total + shift;
  const auto digit_at = [&](long k) {
    return k < int_digits ? t[int_begin + k] - '0' : t[frac_begin + (k - int_digits)] - '0';
  };
  std::uint64_t ns = 0;
  const auto most = static_cast<std::uint64_t>(kMostDecimalNs);
  for (long k = 0; k < kept && k < total; ++k) {
    if (ns > most / 10) return std::nullopt;
    ns = ns * 10 + static_cast<std::uint64_t>(digit_at(k));
    if (ns >= most) return std::nullopt;
  }
  if (shift > 0) {
    for (long s = 0; s < shift && ns != 0; ++s) {
      if (ns > most / 10) return std::nullopt;
      ns *= 10;
    }
  } else if (kept >= 0 && kept < total && digit_at(kept) >= 5) {
    ++ns;
  }
  if (ns >= most) return std::nullopt;
  return negative ? -static_cast<std::int64_t>(ns) : static_cast<std::int64_t>(ns);
}

}  // namespace opsim
