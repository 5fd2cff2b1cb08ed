/// \file cli.hpp
/// \brief Command lines for the chapter programs (Boost.Program_options): one number rule, flag
/// readers, one way to quote values in errors, and the exit-code rule.
///
/// Exit codes (every chapter):
/// - 0: success;
/// - 2: a usage error: an unknown flag, a missing or malformed value, a number out of range, an
///   unknown word, a wrong shape, an unusable input file, an explicit output (--plots, --save,
///   --loss-log) that cannot be written, found before any work is done. One line on stderr,
///   `<program>: error: <what>`, nothing on stdout;
/// - 1: a runtime failure: a write failed (disk full), gnuplot failed or timed out, training
///   diverged, standard output could not be written. Also one line per failure.
///
/// Missing gnuplot is not an error: the arithmetic prints and a one-line note says why plots were
/// skipped.
///
/// **The number rule** (parse_number), for every numeric flag and every parameter file entry:
/// an optional sign (`+` or `-`), decimal digits with at most one `.`, an optional exponent
/// (`e`/`E`, optional sign, digits); nothing before or after. Refused, each with its own reason:
/// hexadecimal (`0x1p3`: write it in decimal), `inf`/`nan` (not finite), magnitudes beyond the
/// largest double (`1e309`: out of range) and non-zero values so small they would round to 0
/// (`1e-400`: out of range). Subnormal values (`4.9e-324`) are accepted: they are exact doubles.
/// Whole-number flags take the same form without `.` or exponent, and must fit their type.
///
/// Throws: UsageError (exit code 2), naming the flag and quoting the value as typed, for what a
/// reader refuses: a value that breaks the number rule (real_value); an empty list or entry (list);
/// an empty or too long sentence, or a word outside the vocabulary, which the message lists
/// (sentence); an unknown flag, a missing or malformed value, a stray argument (parse); --plots
/// with --no-plots, an empty folder or one starting with '-', or ATTN_GNUPLOT_TIMEOUT outside 0.1 to
/// 3600 s (plot_settings); a value outside what finite, bounded, real, positive_real, integer, seed,
/// choice and path accept; a value a Chapter's `read` refuses. Boost's duplicate_option_error for
/// options that already hold a common flag (add_common_options, a programming error). run() and
/// chapter_main() throw nothing derived from std::exception: each becomes an error line and an exit
/// code. The others throw nothing (beyond std::bad_alloc).
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/apparatus/numbers.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/checks.hpp"
#include "common/attention/toy.hpp"

namespace app::cli {

/// A mistake in the command line or its values (exit code 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Exit codes of every chapter program.
enum ExitCode : int { ok = 0, failure = 1, usage = 2 };

/// What a chapter program says about itself in `--help`.
struct ProgramInfo {
  std::string name;      ///< executable name, e.g. "ch01_mixing"
  std::string summary;   ///< one line: what the chapter shows
  std::string article;   ///< the article sections it follows
  std::string examples;  ///< example invocations, one per line
};

// ---- quoting values in messages -----------------------------------------------------------------
// Defined with the small checks (common/attention/checks.hpp), where every layer can use them.

using attn::kQuoteChars;
using attn::printable;
using attn::quoted;
using attn::quoted_number;

// ---- the number rule ----------------------------------------------------------------------------

// Defined below the command line (common/apparatus/numbers.hpp), where parameter files and lessons use it too.
using app::parse_integer;
using app::parse_number;
using app::Parsed;

/// parse_number() for a flag's value; a refusal reads "<flag> 'TEXT' <problem>".
double real_value(const std::string& flag, const std::string& text);

using app::split_list;

/// The items of a comma-separated flag value by the list rule (split_list: blanks around commas
/// ignored, no empty item); a refusal reads "<flag> 'TEXT' has an empty entry (..)" or ".. is empty".
std::vector<std::string> list(const std::string& flag, const std::string& text);

/// The words of the sentence flag `name` (or of `fallback` when it is not given), split by
/// attn::split_sentence and each looked up in `table`; a refusal reads "--NAME: <why>".
std::vector<std::string> sentence(const boost::program_options::variables_map& vm, const std::string& name,
                                  const std::string& fallback, const attn::EmbeddingTable& table);

// ---- the command line ---------------------------------------------------------------------------

/// Adds `--help`, `--plots DIR` and `--no-plots` to a chapter's options.
void add_common_options(boost::program_options::options_description& options);

/// Parses argv against `options` into `vm` (no positional arguments allowed).
/// Every value of a numeric option (declared as `po::value<double>`, `<int>`, `<long long>`,
/// `<unsigned>`, ..) is read by the number rule first, and its text as typed is kept for messages (typed_text).
/// Returns false after printing help (the caller then exits 0).
bool parse(int argc, const char* const argv[], const boost::program_options::options_description& options,
           const ProgramInfo& info, boost::program_options::variables_map& vm);

/// The text a numeric flag's value was typed as ("1000.0000001"), if it was given on the
/// command line; `flag` with or without its leading "--".
std::optional<std::string> typed_text(const std::string& flag);

/// `value` as a message quotes it: the typed text of `flag` if given, else quoted_number(value).
std::string as_typed(const std::string& flag, double value);

/// The plot settings chosen by `--plots` or `--no-plots`. A folder starting with '-' is taken for a
/// flag that slipped into the value's place (write ./-name for such a folder). The time limit comes
/// from ATTN_GNUPLOT_TIMEOUT (seconds, 0.1 to 3600) or PlotSettings::kDefaultGnuplotTimeout.
PlotSettings plot_settings(const boost::program_options::variables_map& vm);

// ---- flag readers (for a chapter's Flags struct) -------------------------------------------------

/// `value`, checked to be neither NaN nor infinite.
double finite(const std::string& flag, double value);

/// The largest magnitude a chapter accepts (defined with the small checks, common/attention/checks.hpp).
using attn::kLargestInput;

/// `value`, checked to be finite with |value| <= `limit`.
double bounded(const std::string& flag, double value, double limit = kLargestInput);

/// The real flag `name` (declared po::value<double>) checked to lie in [lo, hi]; the error quotes
/// the value as typed: "--scale must be between -1000 and 1000 (got '1000.0000001')".
double real(const boost::program_options::variables_map& vm, const std::string& name, double lo, double hi);

/// The real flag `name` (declared po::value<double>) checked to lie in (0, hi], the rule for a
/// learning rate: "--lr must be in (0, 1], got '100'" (the value quoted as typed).
double positive_real(const boost::program_options::variables_map& vm, const std::string& name, double hi);
/// The whole-number flag `name` (declared `po::value<int>` or `po::value<long long>`) checked to lie in [lo, hi].
long long integer(const boost::program_options::variables_map& vm, const std::string& name, long long lo, long long hi);

/// A seed flag (declared po::value<long long>): 0 to `max` (default 2^32 - 1), checked as integer()
/// checks.
std::uint64_t seed(const boost::program_options::variables_map& vm, const std::string& name = "seed",
                   std::uint64_t max = 4294967295ULL);

/// The string flag `name` checked to be one of `allowed` (a refusal lists them).
std::string choice(const boost::program_options::variables_map& vm, const std::string& name,
                   const std::vector<std::string>& allowed);

/// The path flag `name`, if given: non-empty, not starting with '-' (a flag in the value's place).
std::optional<std::filesystem::path> path(const boost::program_options::variables_map& vm, const std::string& name);

/// The names of the flags typed on the command line (not those holding only their default), so a
/// program can tell a mode's flags apart from defaults.
std::set<std::string> typed(const boost::program_options::variables_map& vm);

// ---- running a chapter ----------------------------------------------------------------------------

/// Runs a chapter's body and applies the exit-code rule: UsageError, std::invalid_argument and
/// PlotFolderError print "<program>: error: <message>" and return 2; std::bad_alloc returns 1 with
/// "out of memory (..)"; any other std::exception returns 1 with the same one-line form. Closed
/// standard descriptors are given /dev/null first (reserve_standard_descriptors); a closed
/// standard output returns 1 at once, before any work. Standard output is flushed and checked before returning:
/// a write that failed (`>/dev/full`, a closed stdout) returns 1 with the system's reason. A body
/// returning 0 after a reported runtime failure (app::report_failure: a plot not drawn) returns 1.
/// Every message is made one line (control bytes escaped, at most about 300 characters).
/// `args` (main's argv, if given) lets the program run itself again without /proc
/// (exec_without_blas_thread_pool).
int run(const std::string& program, const std::function<int()>& body, const std::vector<std::string>& args = {});

/// The three parts of every chapter program, for chapter_main(): what `--help` says, the
/// chapter's own flags, how their values become one Flags struct, and the lesson's body.
template <class Flags>
struct Chapter {
  ProgramInfo info;  ///< the `--help` text
  /// Adds the chapter's own flags (add_common_options() has already added --help, --plots, --no-plots).
  std::function<void(boost::program_options::options_description&)> declare;
  /// The parsed values as one struct; a value out of range or flags that conflict are refused.
  std::function<Flags(const boost::program_options::variables_map&)> read;
  /// The lesson: compute each section once, print it, draw it; returns the exit code.
  std::function<int(const Flags&)> body;
};

/// The main every chapter program shares: parse argv against the common and the chapter's flags,
/// print `--help` (exit 0) or read the flags and run the body, all under run()'s exit-code rule.
template <class Flags>
int chapter_main(int argc, const char* const argv[], const Chapter<Flags>& chapter) {
  return run(
      chapter.info.name,
      [&] {
        boost::program_options::options_description options("Options");
        add_common_options(options);
        chapter.declare(options);
        boost::program_options::variables_map vm;
        if (!parse(argc, argv, options, chapter.info, vm)) return static_cast<int>(ok);
        return chapter.body(chapter.read(vm));
      },
      std::vector<std::string>(argv, argv + argc));
}

}  // namespace app::cli
