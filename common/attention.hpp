/// \file attention.hpp
/// \brief Softmax over rows and one scaled dot-product attention head.
///
/// Source: the article, "One forward pass, no training" and "What the weight actually measures";
/// Vaswani et al. 2017, §3.2.1 (scaled dot-product attention). Tokens are rows (see attn.hpp).
#pragma once

#include <armadillo>
#include <string>

#include "common/checks.hpp"

namespace attn {

/// Row-wise, numerically stable softmax: each row has its own maximum subtracted before exp.
///
/// scores: n x m, row i the scores of receiving position i over m source positions; entries may
/// be -inf (a masked source, weight exactly 0). Returns n x m, every row non-negative summing to 1.
/// Any finite scores, however large (1e4, -1e300), give finite weights.
///
/// Throws std::invalid_argument if `scores` is empty, holds NaN or +inf, or if a row is entirely
/// -inf: such a row has no allowed source and therefore no distribution (we refuse rather than
/// return NaN). Source: the article's `softmax` helper; Vaswani et al. 2017, §3.2.1.
arma::mat softmax_rows(const arma::mat& scores);

/// Scaled scores S = Q K^T / sqrt(d_k).
///
/// Q: n_q x d_k (one query per row); K: n_kv x d_k (one key per row). Returns n_q x n_kv.
/// Throws std::invalid_argument if the widths differ or d_k is 0. Source: Vaswani et al. 2017, §3.2.1.
arma::mat scaled_scores(const arma::mat& Q, const arma::mat& K);

/// The causal mask for n positions: n x n, 0 on and below the diagonal, -inf above it
/// (position i may read sources j <= i). Added to scores before softmax, -inf becomes weight 0.
/// n = 0 gives an empty 0 x 0 mask; throws nothing (beyond std::bad_alloc).
/// Source: the article, "Causal masking: a decoder only looks left".
arma::mat causal_mask(arma::uword n);

/// Options of one head's forward pass.
struct HeadOptions {
  /// Mask future positions (-inf above the diagonal) before softmax.
  bool causal = false;
  /// Multiplies the scaled scores before softmax (the article's "Try the score scale"); finite.
  double score_multiplier = 1.0;
};

/// Everything one head computes on one input, kept for printing and for backpropagation.
struct HeadPass {
  arma::mat Q;       ///< n x d_k queries, Q = X Wq
  arma::mat K;       ///< n x d_k keys, K = X Wk
  arma::mat V;       ///< n x d_v values, V = X Wv
  arma::mat scores;  ///< n x n, multiplier * Q K^T / sqrt(d_k), with -inf where masked
  arma::mat A;       ///< n x n weights, A = softmax(scores) row by row
  arma::mat H;       ///< n x d_v mixtures, H = A V
};

/// One attention head on one sentence: Q, K, V, scores, A = softmax(scores), H = A V.
///
/// X: n x d (one token per row); Wq: d x d_k; Wk: d x d_k; Wv: d x d_v.
/// Returns the HeadPass with the shapes listed there.
/// Throws std::invalid_argument if X is empty, a shape disagrees (the message names both shapes),
/// an entry is not finite, or the multiplier is not finite.
/// Source: the article's `attention(X, Wq, Wk, Wv, causal)`; Vaswani et al. 2017, §3.2.1.
HeadPass attention(const arma::mat& X, const arma::mat& Wq, const arma::mat& Wk, const arma::mat& Wv,
                   const HeadOptions& options = {});

}  // namespace attn
