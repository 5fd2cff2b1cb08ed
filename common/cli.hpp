/// \file cli.hpp
/// \brief Command lines for the chapter programs (Boost.Program_options) and their error rule.
///
/// The rule every chapter follows: bad input (unknown flag, missing or malformed value, non-finite
/// number, unknown word, wrong shape, unwritable explicit plot folder) prints one line,
/// `<program>: error: <what>`, to stderr and exits with code 2. Missing gnuplot is not an error:
/// the arithmetic prints and a one-line note says why plots were skipped.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <stdexcept>
#include <string>

#include "common/checks.hpp"
#include "common/plot.hpp"

namespace attn::cli {

/// A mistake in the command line or its values (exit code 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Exit codes of every chapter program.
enum ExitCode : int { ok = 0, failure = 1, usage = 2 };

/// What a chapter program says about itself in `--help`.
struct ProgramInfo {
  std::string name;     ///< executable name, e.g. "ch01_mixing"
  std::string summary;  ///< one line: what the chapter shows
  std::string article;  ///< the article sections it follows
  std::string examples; ///< example invocations, one per line
};

/// Adds `--help`, `--plots DIR` and `--no-plots` to a chapter's options.
void add_common_options(boost::program_options::options_description& options);

/// Parses argv against `options` into `vm` (no positional arguments allowed).
/// Returns false after printing help (the caller then exits 0).
/// Throws UsageError for unknown flags, missing or malformed values, or stray arguments.
bool parse(int argc, const char* const argv[], const boost::program_options::options_description& options,
           const ProgramInfo& info, boost::program_options::variables_map& vm);

/// The plot settings chosen by `--plots` and `--no-plots` (throws UsageError if both are given).
PlotSettings plot_settings(const boost::program_options::variables_map& vm);

/// Throws UsageError naming `flag` if `value` is NaN or infinite; returns it otherwise.
double finite(const std::string& flag, double value);

/// The largest magnitude a chapter accepts (defined with the small checks, common/checks.hpp).
using attn::kLargestInput;

/// Throws UsageError naming `flag` unless `value` is finite and |value| <= `limit`; returns it.
double bounded(const std::string& flag, double value, double limit = kLargestInput);

/// `value` as an error message quotes it: 6 significant digits, in scientific notation when very
/// large or small ("1e+308", "-1", "0.001"), never hundreds of fixed-point digits.
std::string quoted_number(double value);

/// Text safe to echo in a one-line error (defined with the small checks, common/checks.hpp).
using attn::printable;

/// Runs a chapter's body and applies the error rule: UsageError, std::invalid_argument and
/// PlotFolderError print "<program>: error: <message>" and return 2; any other std::exception
/// returns 1 with the same one-line form. Returns the body's own code otherwise.
int run(const std::string& program, const std::function<int()>& body);

}  // namespace attn::cli
