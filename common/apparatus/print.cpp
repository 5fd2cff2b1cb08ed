/// \file print.cpp
/// \brief Printing in the article's style (see print.hpp).
#include "common/apparatus/print.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <cmath>
#include <stdexcept>

namespace app {

std::string format_number(double x, int precision) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (std::abs(x) < 0.5 * std::pow(10.0, -precision)) x = 0.0;  // no "-0.00"
  return fmt::format("{:.{}f}", x, precision);
}

std::string format_upper_bound(double x, int precision) {
  if (!std::isfinite(x)) return format_number(x, precision);
  const double scale = std::pow(10.0, precision);
  double k = std::ceil(x * scale);
  if (k / scale < x) k += 1.0;  // x * scale rounded down past an integer
  return format_number(k / scale, precision);
}

std::string counted(long long n, const std::string& singular, const std::string& plural) {
  return fmt::format("{} {}", n, n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

std::string format_plain(double x) { return fmt::format("{:g}", x == 0.0 ? 0.0 : x); }

std::string format_vector(const arma::vec& v, int precision) {
  std::vector<std::string> entries;
  for (const double x : v) entries.push_back(format_number(x, precision));
  return fmt::format("[{}]", fmt::join(entries, ", "));
}

std::string format_vector(const arma::rowvec& v, int precision) { return format_vector(arma::vec(v.t()), precision); }

void print_vector(std::ostream& out, const std::string& label, const arma::rowvec& v, int precision,
                  std::size_t label_width) {
  fmt::print(out, "  {:<{}} {}\n", label + ":", label_width + 1, format_vector(v, precision));
}

void print_matrix(std::ostream& out, const std::vector<std::string>& rows, const arma::mat& M, int precision) {
  if (rows.size() != M.n_rows) {
    throw std::invalid_argument("print_matrix: " + std::to_string(rows.size()) + " labels for " +
                                std::to_string(M.n_rows) + " rows");
  }
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.size());
  for (arma::uword i = 0; i < M.n_rows; ++i) {
    fmt::print(out, "  {:<{}}  {}\n", rows[i], width, format_vector(arma::rowvec(M.row(i)), precision));
  }
}

Table::Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void Table::add(std::vector<std::string> row) {
  if (row.size() != rows_.front().size()) {
    throw std::invalid_argument("Table::add: row has " + std::to_string(row.size()) + " cells, header has " +
                                std::to_string(rows_.front().size()));
  }
  rows_.push_back(std::move(row));
}

void Table::print(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> width(rows_.front().size(), 0);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  const auto line = [&](const std::vector<std::string>& row) {
    std::vector<std::string> cells;  // the first column to the left, the numbers to the right
    for (std::size_t c = 0; c < row.size(); ++c) {
      cells.push_back(c == 0 ? fmt::format("{:<{}}", row[c], width[c]) : fmt::format("{:>{}}", row[c], width[c]));
    }
    fmt::print(out, "{}{}\n", indent, fmt::join(cells, "  "));
  };
  line(rows_.front());
  std::size_t total = 0;
  for (auto w : width) total += w;
  fmt::print(out, "{}{:-<{}}\n", indent, "", total + 2 * (width.size() - 1));
  for (std::size_t r = 1; r < rows_.size(); ++r) line(rows_[r]);
}

void print_heading(std::ostream& out, const std::string& title) {
  fmt::print(out, "\n{}\n{:=<{}}\n", title, "", title.size());
}

bool as_printed(const arma::rowvec& value, const std::vector<double>& printed, int decimals) {
  if (value.n_elem != printed.size()) return false;
  const double half_unit = 0.5 * std::pow(10.0, -decimals) + 1e-12;
  for (arma::uword k = 0; k < value.n_elem; ++k) {
    if (!(std::abs(value(k) - printed[k]) <= half_unit)) return false;
  }
  return true;
}

void print_claim(std::ostream& out, const ClaimCheck& claim) {
  if (claim.id.empty()) throw std::invalid_argument("print_claim: the claim has no ID");
  fmt::print(out, "{}{}   [{}]\n", claim.evidence, claim.holds || claim.says_verdict ? "" : " (does not hold here)",
             claim.id);
}

}  // namespace app
