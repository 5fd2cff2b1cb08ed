/// \file lengths.cpp
/// \brief Chapter 04, section 7: what the lengths of a query and a key do to scaled dot-product
/// attention and to cosine attention (see sections.hpp).
#include <fmt/format.h>
#include <cmath>

#include "common/apparatus/print.hpp"
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
    c.keys.push_back(fmt::format("k{} (score {})", j + 1, app::format_plain(s(j))));
  }
  return c;
}

}  // namespace

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
  return r;
}

}  // namespace ch04
