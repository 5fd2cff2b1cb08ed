/// \file mixing.cpp
/// \brief Chapter 01 computations (see mixing.hpp).
#include "mixing.hpp"

#include <cmath>
#include <stdexcept>

namespace ch01 {

// [identity_head]
attn::HeadPass identity_head(const arma::mat& X, double multiplier) {
  const arma::mat I = arma::eye(X.n_cols, X.n_cols);  // d x d: leaves every vector unchanged
  return attn::attention(X, I, I, I, {.causal = false, .score_multiplier = multiplier});
}
// [identity_head]

// [trace_row]
RowTrace trace_row(const arma::mat& X, arma::uword i, double multiplier) {
  if (i >= X.n_rows) {
    throw std::invalid_argument("trace_row: row " + std::to_string(i) + " of X (" + attn::shape(X) + ")");
  }
  const attn::HeadPass pass = identity_head(X, multiplier);
  RowTrace t;
  t.dots = X.row(i) * X.t();                                 // 1 x n
  t.scaled = t.dots / std::sqrt(static_cast<double>(X.n_cols));  // 1 x n
  t.scores = pass.scores.row(i);                             // multiplier * scaled
  t.weights = pass.A.row(i);                                 // softmax(scores)
  t.mixture = pass.H.row(i);                                 // weights X: 1 x d
  return t;
}
// [trace_row]

arma::rowvec plain_average(const arma::mat& X) { return arma::mean(X, 0); }

arma::mat multiplier_sweep(const arma::mat& X, arma::uword i, const arma::vec& multipliers) {
  arma::mat weights(multipliers.n_elem, X.n_rows);
  for (arma::uword m = 0; m < multipliers.n_elem; ++m) weights.row(m) = trace_row(X, i, multipliers(m)).weights;
  return weights;
}

}  // namespace ch01
