/// \file compat.hpp
/// \brief Forced into every WebAssembly compile (em++ -include): what emscripten 3.1.6's libc++
/// lacks that the lesson code uses.
///
/// That libc++ has std::to_chars for integers only; attn::quoted_number (common/attention/checks.hpp)
/// writes a double with it. fmt's "{}" is the same shortest round-trip text.
#pragma once

#include <fmt/format.h>
#include <charconv>
#include <system_error>

namespace std {
inline to_chars_result to_chars(char* first, char* last, double value) {
  const auto out = fmt::format_to_n(first, static_cast<size_t>(last - first), "{}", value);
  if (out.size > static_cast<size_t>(last - first)) return {last, errc::value_too_large};
  return {out.out, errc()};
}
}  // namespace std
