/// \file claims.cpp
/// \brief Chapter 04's claims, checked on the section results (see claims.hpp).
#include "claims.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace ch04 {
namespace {

using app::format_number;
using app::format_plain;

/// "[4, 2, 0]": each entry in its shortest form.
std::string plain_vector(const arma::rowvec& v) {
  std::vector<std::string> entries;
  for (const double x : v) entries.push_back(format_plain(x));
  return fmt::format("[{}]", fmt::join(entries, ", "));
}

std::string percents(const arma::rowvec& w) {
  std::vector<std::string> entries;
  for (const double x : w) entries.push_back(format_number(100.0 * x, 1) + "%");
  return fmt::format("[{}]", fmt::join(entries, ", "));
}

bool close(double got, double expected, double tolerance) { return std::abs(got - expected) <= tolerance; }

bool all_close(const arma::rowvec& got, const std::vector<double>& expected, double tolerance) {
  if (got.n_elem != expected.size()) return false;
  for (std::size_t j = 0; j < expected.size(); ++j) {
    if (!close(got(j), expected[j], tolerance)) return false;
  }
  return true;
}

/// A ratio with 6 decimals while it is small, else in 6 significant digits (2.68812e+43), so a
/// large one never prints 40 digits.
std::string ratio_text(double x) { return x < 1e6 ? format_number(x, 6) : format_plain(x); }

/// "    raw:    a1 / a2 = 7.389056,  exp(2) = 7.389056" (scale_06).
app::ClaimCheck ratio_line(const std::string& label, const arma::rowvec& s, const arma::rowvec& a) {
  if (s.n_elem < 2) throw std::invalid_argument("scale_06: a ratio a1 / a2 needs two scores");
  const double ratio = a(0) / a(1), expected = std::exp(s(0) - s(1));
  if (!std::isfinite(ratio) || !std::isfinite(expected) || ratio == 0.0) {  // a weight underflowed to 0
    return {.id = "scale_06",
            .holds = false,
            .evidence = "    " + label + "a1 / a2 = exp(" + format_plain(s(0) - s(1)) +
                        "), beyond the range of a double: one of the two weights rounds to 0"};
  }
  return {.id = "scale_06",
          .holds = std::abs(ratio - expected) <= 1e-12 * expected,
          .evidence = "    " + label + "a1 / a2 = " + ratio_text(ratio) + ",  exp(" + format_plain(s(0) - s(1)) +
                      ") = " + ratio_text(expected)};
}

}  // namespace

app::ClaimCheck claim_dot_cosine(const DotCosineTable& t) {
  arma::rowvec dots(t.rows.size()), cosines(t.rows.size());
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    dots(i) = t.rows[i].dot;
    cosines(i) = t.rows[i].cosine;
  }
  return {.id = "scale_01",
          .holds = all_close(dots, {1, 100, 0, -1}, 1e-12) && all_close(cosines, {1, 1, 0, -1}, 1e-12),
          .evidence = "  dot products " + plain_vector(dots) + ", cosines " + plain_vector(cosines)};
}

app::ClaimCheck claim_projection(const Explorer& e) {
  const Shadow& s = e.shadow;
  return {.id = "scale_02",
          .holds = app::as_printed({s.projection}, {9.40}, 2),
          .evidence = "  signed projection  |a| cos(theta)      = " + format_number(s.projection, 2)};
}

app::ClaimCheck claim_shadow_dot(const Explorer& e) {
  const Shadow& s = e.shadow;
  return {.id = "scale_02",
          .holds = app::as_printed({s.dot}, {9.40}, 2),
          .evidence = "  dot product        projection x |b|    = " + format_number(s.dot, 2)};
}

app::ClaimCheck claim_fixed_divisor(const FixedDivisor& f) {
  return {.id = "scale_03",
          .holds = all_close(f.scaled.t(), {0.125, 1, 5, 12.5}, 1e-12),
          .evidence = "  scaled dot products " + plain_vector(f.scaled.t())};
}

app::ClaimCheck claim_scaled_variance(const std::vector<VarianceEstimate>& estimates) {
  const bool all = std::all_of(estimates.begin(), estimates.end(), within_three_standard_errors);
  return {.id = "scale_04", .holds = all && !estimates.empty(), .evidence = "  by 8 brings it back to 1."};
}

app::ClaimCheck claim_raw_weights(const SoftmaxScaling& r) {
  return {.id = "scale_05",
          .holds = app::as_printed(r.a_raw, {0.867, 0.117, 0.016}, 3),
          .evidence = "  raw    " + plain_vector(r.raw) + " -> " + percents(r.a_raw)};
}

app::ClaimCheck claim_scaled_weights(const SoftmaxScaling& r) {
  return {.id = "scale_05",
          .holds = app::as_printed(r.a_scaled, {0.665, 0.245, 0.090}, 3),
          .evidence = "  scaled " + plain_vector(r.scaled) + " -> " + percents(r.a_scaled)};
}

app::ClaimCheck claim_raw_ratio(const SoftmaxScaling& r) { return ratio_line("raw:    ", r.raw, r.a_raw); }

app::ClaimCheck claim_scaled_ratio(const SoftmaxScaling& r) { return ratio_line("scaled: ", r.scaled, r.a_scaled); }

app::ClaimCheck claim_shift(const SoftmaxScaling& r) {
  double worst = 0.0;
  for (double shift : {-50.0, 3.0, 1000.0}) worst = std::max(worst, arma::abs(softmax(r.raw + shift) - r.a_raw).max());
  return {.id = "scale_06",
          .holds = worst < 1e-12,
          .evidence = "  Adding -50, 3 or 1000 to every score: the largest change in any weight is " +
                      (worst < 1e-12 ? std::string("below 1e-12") : format_number(worst, 15))};
}

app::ClaimCheck claim_jacobian_falls(const LearningSignal& r) {
  const arma::rowvec& scores = r.scores;
  const arma::vec& norms = r.norms;
  if (scores.max() == scores.min()) {
    return {.id = "scale_07",
            .holds = false,
            .evidence = "  Equal scores stay equal for every c: the weights stay uniform and |J| stays " +
                        small_number(norms(0)) + "."};
  }
  if (arma::accu(scores == scores.max()) > 1) {
    return {.id = "scale_07",
            .holds = false,
            .evidence = "  The top scores are tied, so the weights never near one-hot: |J| goes from " +
                        small_number(norms(0)) + " to " + small_number(norms.back()) + "."};
  }
  const bool falls = arma::all(arma::diff(norms) < 0.0);
  return {.id = "scale_07",
          .holds = falls,
          .evidence = std::string("  As c grows the weights near one-hot and |J| ") +
                      (falls ? "falls" : "does not fall at every step") + ": from " + small_number(norms(0)) + " to " +
                      small_number(norms.back()) + "."};
}

app::ClaimCheck claim_query_length(const LengthExample& ex, const std::vector<QueryScaleRow>& rows) {
  const arma::rowvec base = scaled_scores(ex.q, ex.K), base_cosine = softmax(cosine_scores(ex.q, ex.K));
  bool holds = rows.size() >= 2;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    holds = holds && arma::abs(rows[r].scores - rows[r].c * base).max() <= 1e-12 * (1.0 + rows[r].c);
    holds = holds && arma::abs(rows[r].cosine_weights - base_cosine).max() <= 1e-12;
    if (r > 0) holds = holds && rows[r].c > rows[r - 1].c && rows[r].largest > rows[r - 1].largest;
  }
  return {.id = "scale_08",
          .holds = holds,
          .evidence =
              "  Each score row is c times the row at c = 1 and the largest weight rises with c;\n"
              "  the cosine weights are the same in every row."};
}

app::ClaimCheck claim_key_length(const LengthExample& ex, const std::vector<KeyScaleRow>& rows) {
  const arma::rowvec base = scaled_scores(ex.q, ex.K);
  bool holds = true, positive = false, negative = false;  // both signs must be shown
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const KeyScaleRow &prev = rows[r - 1], &row = rows[r];
    if (row.key != prev.key) continue;
    const double s = base(row.key);
    holds = holds && row.c > prev.c && std::abs(row.score - row.c * s) <= 1e-12 * (1.0 + row.c * std::abs(s));
    holds = holds && std::abs(row.cosine_weight - prev.cosine_weight) <= 1e-12;
    if (s > 0) holds = holds && row.weight > prev.weight;
    if (s < 0) holds = holds && row.weight < prev.weight;
    positive = positive || s > 0;
    negative = negative || s < 0;
  }
  return {.id = "scale_09",
          .holds = holds && positive && negative,
          .evidence =
              "  k1 scores above 0, so a longer k1 takes more weight; k3 scores below 0, so a longer\n"
              "  k3 takes less. Under cosine scores neither moves."};
}

}  // namespace ch04
