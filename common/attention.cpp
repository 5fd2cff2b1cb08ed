/// \file attention.cpp
/// \brief Softmax over rows and one scaled dot-product attention head (see attention.hpp).
#include "common/attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/cross_attention.hpp"

namespace attn {

arma::mat softmax_rows(const arma::mat& scores) {
  if (scores.is_empty()) {
    throw std::invalid_argument("softmax: the scores are empty (" + shape(scores) + ")");
  }
  if (scores.has_nan()) {
    throw std::invalid_argument("softmax: the scores (" + shape(scores) + ") contain NaN");
  }
  arma::mat weights(arma::size(scores));
  for (arma::uword i = 0; i < scores.n_rows; ++i) {
    const double top = scores.row(i).max();
    if (top == std::numeric_limits<double>::infinity()) {
      throw std::invalid_argument("softmax: score row " + std::to_string(i) +
                                  " has a +inf score (a product beyond the largest double, about 1.8e308)");
    }
    if (top == -std::numeric_limits<double>::infinity()) {
      throw std::invalid_argument("softmax: score row " + std::to_string(i) +
                                  " has every score -inf (no allowed source), so it has no distribution");
    }
    // Subtracting the row's own maximum leaves every weight unchanged (softmax ignores a shared
    // constant) and keeps exp() in [0, 1]: no overflow for any finite score.
    const arma::rowvec e = arma::exp(scores.row(i) - top);
    weights.row(i) = e / arma::accu(e);
  }
  return weights;
}

arma::mat scaled_scores(const arma::mat& Q, const arma::mat& K) {
  if (Q.n_cols != K.n_cols) {
    throw std::invalid_argument("scaled_scores: Q is " + shape(Q) + " but K is " + shape(K) +
                                " (queries and keys need the same width d_k)");
  }
  if (Q.n_cols == 0) {
    throw std::invalid_argument("scaled_scores: d_k is 0 (Q is " + shape(Q) + ")");
  }
  return Q * K.t() / std::sqrt(static_cast<double>(K.n_cols));
}

arma::mat causal_mask(arma::uword n) {
  arma::mat mask(n, n, arma::fill::zeros);
  for (arma::uword i = 0; i < n; ++i) {
    for (arma::uword j = i + 1; j < n; ++j) mask(i, j) = -std::numeric_limits<double>::infinity();
  }
  return mask;
}

HeadPass attention(const arma::mat& X, const arma::mat& Wq, const arma::mat& Wk, const arma::mat& Wv,
                   const HeadOptions& options) {
  if (X.is_empty()) throw std::invalid_argument("attention: X is empty (" + shape(X) + ")");
  // Self-attention is cross-attention with the same sequence on both sides.
  return cross_attention(X, X, Wq, Wk, Wv, {.causal = options.causal, .score_multiplier = options.score_multiplier},
                         {.who = "attention", .xq = "X", .xkv = "X"});
}

}  // namespace attn
