/// \file checks.hpp
/// \brief The bottom layer of common/: small checks every other part uses (shapes in messages,
/// finite entries, the largest accepted input, values quoted safely in an error).
///
/// Nothing here knows about attention, plotting or the command line; everything else may include it.
///
/// Throws: std::invalid_argument naming the matrix for a NaN or an infinity (require_finite); the
/// others throw nothing (beyond std::bad_alloc).
/// Source: the project's rule that bad input fails with one clear line.
#pragma once

#include <armadillo>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <system_error>

namespace attn {

/// "rows x cols" of a matrix (any shape, empty included), for error messages.
template <class T>
std::string shape(const arma::Mat<T>& M);

/// Checks that every entry of M (any shape) is finite; `what` names M in the message.
void require_finite(const arma::mat& M, const std::string& what);

/// The largest magnitude a chapter accepts for a number a reader types or a parameter file holds.
/// No lesson needs more, and beyond it products of a few such numbers leave the range of a double
/// (about 1.8e308), while printed arithmetic stops being readable.
inline constexpr double kLargestInput = 1e6;

/// The longest piece of a user's value an error message echoes.
inline constexpr std::size_t kQuoteChars = 60;

/// `text` made safe to echo in a one-line error: printable ASCII is kept; ESC, newline, tab,
/// carriage return and backslash become `\e`, `\n`, `\t`, `\r`, `\\`; every other byte (control
/// bytes, bytes >= 0x80) becomes `\xHH`. The result is cut after `max_chars` characters and
/// marked with ".." and the full length in bytes.
std::string printable(const std::string& text, std::size_t max_chars = kQuoteChars);

/// printable(text) between single quotes: how every message quotes a value, path or word.
std::string quoted(const std::string& text);

/// `value` in its shortest form that reads back exactly ("1000.0000001", "1e+308", "-0.0001").
std::string quoted_number(double value);

// ---- definitions ---------------------------------------------------------------------------------

template <class T>
std::string shape(const arma::Mat<T>& M) {
  return std::to_string(M.n_rows) + " x " + std::to_string(M.n_cols);
}

inline void require_finite(const arma::mat& M, const std::string& what) {
  if (!M.is_finite()) {
    throw std::invalid_argument(what + " (" + shape(M) + ") has a non-finite entry (NaN or inf)");
  }
}

inline std::string printable(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (out.size() >= max_chars) {
      return out + "... (" + std::to_string(text.size()) + " bytes)";
    }
    const auto c = static_cast<unsigned char>(text[k]);
    switch (c) {
      case 0x1b:
        out += "\\e";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += static_cast<char>(c);
        } else {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          out += hex;
        }
    }
  }
  return out;
}

inline std::string quoted(const std::string& text) {
  std::string out(1, '\'');
  out.append(printable(text)).push_back('\'');
  return out;
}

inline std::string quoted_number(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "?";
  return std::string(buffer, end);
}

}  // namespace attn
