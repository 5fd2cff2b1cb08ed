/// \file numbers.hpp
/// \brief The one number rule: how every numeric flag and every parameter-file entry is read.
///
/// An optional sign (`+` or `-`), decimal digits with at most one `.`, an optional exponent
/// (`e`/`E`, optional sign, digits); nothing before or after. Refused, each with its own reason:
/// hexadecimal (`0x1p3`: write it in decimal), `inf`/`nan` (not finite), magnitudes beyond the
/// largest double (`1e309`: out of range) and non-zero values so small they would round to 0
/// (`1e-400`: out of range). Subnormal values (`4.9e-324`) are accepted: they are exact doubles.
/// Whole numbers take the same form without `.` or exponent, and must fit their range.
///
/// A layer above the small checks and below the command line: lessons read files with it, the
/// command line reads flags with it (common/apparatus/cli.hpp).
///
/// Nothing here throws (beyond std::bad_alloc): a text a rule refuses comes back as Parsed::problem.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace app {

/// What parse_number() or parse_integer() made of a text: the value, or why it is not one.
template <typename T>
struct Parsed {
  std::optional<T> value;  ///< set when the text follows the rule
  std::string problem;     ///< otherwise: "is not a number", "is out of range (...)", ...
};

/// Reads a real number by the number rule above.
Parsed<double> parse_number(std::string_view text);

/// Reads a whole number by the number rule, within [lo, hi] (the range of its type). A refusal
/// (not whole, out of range) names [lo, hi] ("is out of range (0 to 100)"), except for a number
/// beyond what a long long holds ("is out of range"), whose bounds would be the type's rather than
/// the flag's.
Parsed<long long> parse_integer(std::string_view text, long long lo, long long hi);

/// **The list rule**, for every comma-separated value (ch02's --view and the rows of --wq, ch04's
/// --scores): items separated by commas, with spaces and tabs around each item ignored ("35, 28"
/// reads as "35,28"), and no empty item: a leading, doubled or trailing comma (",1", "1,,2",
/// "1,2,") is refused, as is a blank text. Returns the items without their surrounding blanks.
/// A refusal reads "has an empty entry (entry 3 of 3; ...)".
Parsed<std::vector<std::string>> split_list(std::string_view text);

}  // namespace app
