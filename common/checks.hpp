/// \file checks.hpp
/// \brief The bottom layer of common/: small checks every other part uses (shapes in messages,
/// finite entries, the largest accepted input, text safe to echo in an error).
///
/// Nothing here knows about attention, plotting or the command line; everything else may include it.
#pragma once

#include <armadillo>
#include <cstddef>
#include <string>

namespace attn {

/// "rows x cols" of a matrix, for error messages.
std::string shape(const arma::mat& M);

/// Throws std::invalid_argument naming `what` if M holds a NaN or an infinity.
void require_finite(const arma::mat& M, const std::string& what);

/// The largest magnitude a chapter accepts for a number a reader types or a parameter file holds.
/// No lesson needs more, and beyond it products of a few such numbers leave the range of a double
/// (about 1.8e308), while printed arithmetic stops being readable.
inline constexpr double kLargestInput = 1e6;

/// `text` made safe to echo in a one-line error: bytes that are not printable ASCII become '?',
/// and anything past `max_chars` is cut and marked with "...".
std::string printable(const std::string& text, std::size_t max_chars = 40);

}  // namespace attn
