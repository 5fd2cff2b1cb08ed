/// \file mixing.hpp
/// \brief Chapter 01: one forward pass with identity projections, traced row by row.
///
/// Source: the article, "One forward pass, no training", "Why it mixed at all" and
/// "Try the score scale". Tokens are rows: X is n x d.
#pragma once

#include <armadillo>

#include "common/attention.hpp"

namespace ch01 {

/// The head with Wq = Wk = Wv = I (d x d): scores = multiplier * X X^T / sqrt(d), A, H = A X.
/// X: n x d. Throws std::invalid_argument like attn::attention.
attn::HeadPass identity_head(const arma::mat& X, double multiplier = 1.0);

/// One receiving row followed through the head, step by step ("Why it mixed at all").
struct RowTrace {
  arma::rowvec dots;     ///< 1 x n: x_i . x_j, the unscaled dot products
  arma::rowvec scaled;   ///< 1 x n: dots / sqrt(d)
  arma::rowvec scores;   ///< 1 x n: multiplier * scaled, what softmax receives
  arma::rowvec weights;  ///< 1 x n: softmax(scores), sums to 1
  arma::rowvec mixture;  ///< 1 x d: weights X
};

/// Traces row i of X (n x d) through the identity head. Throws std::invalid_argument if i >= n.
RowTrace trace_row(const arma::mat& X, arma::uword i, double multiplier = 1.0);

/// The plain (uniform) average of X's rows: 1 x d. The baseline attention is compared with.
arma::rowvec plain_average(const arma::mat& X);

/// Row i's weights as the score multiplier varies: multipliers.n_elem x n, row m the weights
/// under multipliers(m). X: n x d.
arma::mat multiplier_sweep(const arma::mat& X, arma::uword i, const arma::vec& multipliers);

}  // namespace ch01
