/// \file print.hpp
/// \brief Printing in the article's style: rounded, labelled, aligned vectors and tables.
///
/// Throws: std::invalid_argument if the row labels do not match M's rows (print_matrix), a row's
/// width differs from the header's (Table::add), or a claim's ID is empty (print_claim). The others
/// throw nothing (beyond std::bad_alloc); a stream's errors are its own state.
/// Source: the claims ledger, docs/claims.md (ClaimCheck, print_claim).
#pragma once

#include <armadillo>
#include <ostream>
#include <string>
#include <vector>

/// \namespace app
/// \brief The apparatus that serves the lesson (flags, printing, plots, files, processes, faults):
/// a namespace apart from the mathematics in `attn`, so every call site shows which it is.
namespace app {

/// One number with `precision` digits after the point; values that round to zero print without
/// a minus sign ("0.00", never "-0.00"). Non-finite values print as "nan", "inf" or "-inf".
std::string format_number(double x, int precision);

/// A bound printed so that it is never smaller than the value it bounds: `x` (>= 0) rounded up to
/// `precision` digits after the point, 0.00905 -> "0.0091" (precision 4) or "0.010" (precision 3).
/// Non-finite values print as format_number does.
std::string format_upper_bound(double x, int precision);

/// The shortest decimal form of `x` at 6 significant digits, as a stream prints it: 0.125, 1, 12.5,
/// 1e+06; zero prints as "0" (never "-0").
std::string format_plain(double x);

/// A count with its noun, singular for exactly one: counted(1, "update") is "1 update",
/// counted(20, "update") "20 updates", counted(2, "matrix", "matrices") "2 matrices" (`plural`
/// empty: `singular` plus "s").
std::string counted(long long n, const std::string& singular, const std::string& plural = "");

/// A vector the way the article prints it: "[0.26, 0.31, 0.43]". v: any length (n x 1 here,
/// 1 x n in the overload).
std::string format_vector(const arma::vec& v, int precision);
/// Row-vector overload of format_vector: v is 1 x n; the same output.
std::string format_vector(const arma::rowvec& v, int precision);

/// Prints "  label: [.]" with labels padded to `label_width` so that vectors line up.
/// v: 1 x n, any n.
void print_vector(std::ostream& out, const std::string& label, const arma::rowvec& v, int precision,
                  std::size_t label_width = 0);

/// Prints a matrix one labelled row per line ("  the   [0.26, 0.31, 0.43]").
/// M: rows.size() x any (row i labelled rows[i]).
void print_matrix(std::ostream& out, const std::vector<std::string>& rows, const arma::mat& M, int precision);

/// A plain-text table with a header row; the first column is left-aligned, the others right-aligned.
class Table {
 public:
  /// header: the column titles; every row added must have as many cells.
  explicit Table(std::vector<std::string> header);
  /// Adds a row, as many cells as the header.
  void add(std::vector<std::string> row);
  /// Prints the header, a rule, then the rows, each line starting with `indent`.
  void print(std::ostream& out, const std::string& indent = "  ") const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

/// A section heading: a blank line, the title, and a rule under it.
void print_heading(std::ostream& out, const std::string& title);

/// One checkable statement of docs/claims.md as a lesson function measured it: its ID, whether
/// it holds on the numbers measured, and the printed line(s) that show those numbers. Lesson code
/// returns it (e.g. `ClaimCheck claim_scaled_variance(..)`); the program prints it with print_claim
/// and the test asserts `holds` and the numbers of the same function, so no predicate is written twice.
struct ClaimCheck {
  std::string id;             ///< the ledger's ID, e.g. "scale_04"
  bool holds = false;         ///< whether the statement holds on these numbers
  std::string evidence;       ///< what is printed before the tag, without the trailing newline
  bool says_verdict = false;  ///< the evidence itself says whether it holds (e.g. "...: holds)")
};

/// Whether `value` matches numbers the article printed at `decimals` decimals: same length, and each
/// entry within half a unit of the last printed digit of its printed number (and 1e-12 for rounding).
bool as_printed(const arma::rowvec& value, const std::vector<double>& printed, int decimals);

/// Prints `claim.evidence`, three spaces and the tag "[id]", then a newline; when the claim does not
/// hold (a reader's own flags can make it fail) and the evidence does not say so itself,
/// "(does not hold here)" goes before the tag.
void print_claim(std::ostream& out, const ClaimCheck& claim);

}  // namespace app
