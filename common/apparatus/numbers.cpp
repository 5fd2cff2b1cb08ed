/// \file numbers.cpp
/// \brief The one number rule (see numbers.hpp).
#include "common/apparatus/numbers.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <system_error>

namespace app {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The syntax of the number rule: sign, digits with at most one point, exponent. Returns a reason
/// if `text` does not follow it.
std::string syntax_problem(std::string_view text, bool whole) {
  std::size_t i = 0;
  if (text.empty()) return "is empty, not a number";
  if (text[i] == '+' || text[i] == '-') ++i;
  const std::string_view body = text.substr(i);
  std::string lower;
  for (char c : body) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "inf" || lower == "infinity" || lower == "nan") return "is not a finite number";
  if (lower.rfind("0x", 0) == 0) return "is hexadecimal; write numbers in decimal";
  std::size_t digits = 0, points = 0;
  for (; i < text.size() && (is_digit(text[i]) || text[i] == '.'); ++i) {
    if (text[i] == '.')
      ++points;
    else
      ++digits;
  }
  if (digits == 0 || points > 1) return "is not a number";
  if (whole && points > 0) return "is not a whole number";
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    if (whole) return "is not a whole number (no exponent)";
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) ++exp_digits;
    if (exp_digits == 0) return "is not a number";
  }
  if (i != text.size()) return "is not a number";
  return {};
}

}  // namespace

Parsed<double> parse_number(std::string_view text) {
  if (std::string why = syntax_problem(text, false); !why.empty()) return {std::nullopt, why};
  // The syntax is plain decimal now, so strtod (C locale) reads exactly what from_chars would, and
  // tells overflow (HUGE_VAL) from underflow (0 or a subnormal) through ERANGE.
  const std::string copy(text);
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return {std::nullopt, "is not a number"};
  if (errno == ERANGE) {
    if (std::isinf(x)) return {std::nullopt, "is out of range (beyond the largest double, about 1.8e308)"};
    if (x == 0.0) {
      bool nonzero = false;
      for (char c : copy) {
        if (c == 'e' || c == 'E') break;
        nonzero = nonzero || (c >= '1' && c <= '9');
      }
      if (nonzero) return {std::nullopt, "is out of range (too close to 0: it would round to 0)"};
    }
    // a subnormal: an exact double, accepted
  }
  return {x, {}};
}

Parsed<long long> parse_integer(std::string_view text, long long lo, long long hi) {
  if (std::string why = syntax_problem(text, true); !why.empty()) {
    // "4.0" or "1e3" names a whole number in a form this rule does not take: say which to write.
    const Parsed<double> real = parse_number(text);
    if (real.value && std::abs(*real.value) < 1e15 && std::trunc(*real.value) == *real.value) {
      char whole[32];
      std::snprintf(whole, sizeof whole, "%.0f", *real.value == 0 ? 0.0 : *real.value);
      return {std::nullopt,
              std::string("is a whole number written as a real one; write it with digits only (") + whole + ")"};
    }
    return {std::nullopt, why};
  }
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  // Beyond what the type holds, the bounds given are only the type's, not the flag's: say less.
  if (ec == std::errc::result_out_of_range) return {std::nullopt, "is out of range"};
  if (ec == std::errc() && (v < lo || v > hi)) {
    return {std::nullopt, "is out of range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")"};
  }
  if (ec != std::errc() || end != digits.data() + digits.size()) return {std::nullopt, "is not a whole number"};
  return {v, {}};
}

Parsed<std::vector<std::string>> split_list(std::string_view text) {
  std::vector<std::string> items;
  for (std::size_t at = 0;;) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::string_view item = text.substr(at, comma - at);
    const std::size_t first = item.find_first_not_of(" \t");
    item = first == std::string_view::npos ? std::string_view() : item.substr(first);
    item = item.substr(0, item.find_last_not_of(" \t") + 1);
    items.emplace_back(item);
    if (comma == text.size()) break;
    at = comma + 1;
  }
  if (items.size() == 1 && items.front().empty()) return {std::nullopt, "is empty"};
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (items[k].empty()) {
      return {std::nullopt, "has an empty entry (entry " + std::to_string(k + 1) + " of " +
                                std::to_string(items.size()) + "; separate entries by single commas)"};
    }
  }
  return {items, {}};
}

}  // namespace app
