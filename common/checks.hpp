/// \file checks.hpp
/// \brief The bottom layer of common/: small checks every other part uses (shapes in messages,
/// finite entries, the largest accepted input, values quoted safely in an error).
///
/// Nothing here knows about attention, plotting or the command line; everything else may include it.
#pragma once

#include <armadillo>
#include <cstddef>
#include <string>

namespace attn {

/// "rows x cols" of a matrix (any shape, empty included), for error messages. Throws nothing.
std::string shape(const arma::mat& M);

/// Checks every entry of M (any shape). Throws std::invalid_argument naming `what` if M holds a
/// NaN or an infinity. Source: the project rule that bad input fails with one clear line.
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
/// marked with "..." and the full length in bytes. Throws nothing (beyond std::bad_alloc).
std::string printable(const std::string& text, std::size_t max_chars = kQuoteChars);

/// printable(text) between single quotes: how every message quotes a value, path or word.
/// Throws nothing (beyond std::bad_alloc).
std::string quoted(const std::string& text);

/// `value` in its shortest form that reads back exactly ("1000.0000001", "1e+308", "-0.0001").
/// Throws nothing (beyond std::bad_alloc).
std::string quoted_number(double value);

}  // namespace attn
