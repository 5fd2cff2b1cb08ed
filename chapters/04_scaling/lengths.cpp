/// \file lengths.cpp
/// \brief Chapter 04, section 7: what the lengths of a query and a key do to scaled dot-product
/// attention and to cosine attention (see sections.hpp).
#include <fmt/format.h>
#include <cmath>

#include "sections.hpp"

namespace ch04 {
namespace {

// [key_row]
/// The weight of `key` when that key alone is made c times longer: dot product and cosine.
KeyScaleRow key_row(const LengthExample& ex, arma::uword key, double c) {
  const arma::mat K = with_key_scaled(ex.K, key, c);
  const arma::rowvec s = scaled_scores(ex.q, K);
  return {.key = key,
          .c = c,
          .score = s(key),
          .weight = softmax(s)(key),
          .cosine_weight = softmax(cosine_scores(ex.q, K))(key)};
}
// [key_row]

LengthCurves length_curves(const LengthExample& ex) {
  LengthCurves c{.cs = arma::logspace(-1, 1, 121)};
  const arma::uword m = ex.K.n_rows;
  c.query_weights.set_size(c.cs.n_elem, 2 * m);
  c.key_weights.set_size(c.cs.n_elem, 4);
  for (arma::uword t = 0; t < c.cs.n_elem; ++t) {
    const arma::rowvec q = c.cs(t) * ex.q;
    c.query_weights.row(t).head(m) = softmax(scaled_scores(q, ex.K));
    c.query_weights.row(t).tail(m) = softmax(cosine_scores(q, ex.K));
    const KeyScaleRow first = key_row(ex, 0, c.cs(t)), last = key_row(ex, m - 1, c.cs(t));
    c.key_weights.row(t) = arma::rowvec{first.weight, first.cosine_weight, last.weight, last.cosine_weight};
  }
  const arma::rowvec s = scaled_scores(ex.q, ex.K);
  for (arma::uword j = 0; j < m; ++j) {
    c.keys.push_back(fmt::format("k{} (score {})", j + 1, attn::format_plain(s(j))));
  }
  return c;
}

}  // namespace

attn::ClaimCheck query_length_claim(const LengthExample& ex, const std::vector<QueryScaleRow>& rows) {
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

attn::ClaimCheck key_length_claim(const LengthExample& ex, const std::vector<KeyScaleRow>& rows) {
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

CosineComparison cosine_comparison() {
  CosineComparison r{.example = length_example()};
  const LengthExample& ex = r.example;
  r.scores = scaled_scores(ex.q, ex.K);
  r.cosines = cosine_scores(ex.q, ex.K);
  for (double c : {0.5, 1.0, 2.0, 4.0}) {
    const arma::rowvec s = scaled_scores(c * ex.q, ex.K);
    r.query_rows.push_back(
        {.c = c, .scores = s, .weights = softmax(s), .cosine_weights = softmax(cosine_scores(c * ex.q, ex.K))});
    r.query_rows.back().largest = r.query_rows.back().weights.max();
  }
  for (arma::uword key : {arma::uword{0}, ex.K.n_rows - 1}) {
    for (double c : {1.0, 2.0, 4.0}) r.key_rows.push_back(key_row(ex, key, c));
  }
  r.curves = length_curves(ex);
  r.query_claim = query_length_claim(ex, r.query_rows);
  r.key_claim = key_length_claim(ex, r.key_rows);
  return r;
}

}  // namespace ch04
