/// \file attention.hpp
/// \brief One scaled dot-product attention head: H = softmax(Q K^T / sqrt(d_k)) V.
///
/// **Tokens are rows** everywhere in this library. A sentence of n tokens in a d-wide space is the
/// matrix `X` (n x d); projections multiply on the right: `Q = X Wq` (n x d_k), `K = X Wk`
/// (n x d_k), `V = X Wv` (n x d_v). The scores `S = Q K^T / sqrt(d_k)` and the weights
/// `A = softmax(S)` are n x n, row i the distribution of receiving position i over the source
/// positions; the mixture `H = A V` is n x d_v. This is the article's notation (row vectors, NumPy's
/// `X @ Wq`) and that of Vaswani et al. 2017, §3.2.1.
///
/// The head comes first; the two pieces it uses (softmax over rows, the causal mask) and the one
/// call that checks its inputs follow it.
///
/// Throws: std::invalid_argument, with a message that names the shapes, for the inputs
/// check_head_inputs() refuses (attention, check_head_inputs); for empty scores, NaN, +inf or a row
/// entirely -inf (softmax_rows); for widths that differ or d_k = 0 (scaled_scores); for a row whose
/// allowed scores are not finite (causal_softmax). The others (causal_mask) throw nothing (beyond
/// std::bad_alloc).
/// Sources: the article, its `attention(X, Wq, Wk, Wv, causal)` and `softmax` helpers and the
/// sections "One forward pass, no training", "What the weight actually measures" and "Causal
/// masking: a decoder only looks left"; Vaswani et al. 2017, §3.2.1; the project's rule that bad
/// input fails with one clear line.
#pragma once

#include <armadillo>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "common/attention/checks.hpp"

namespace attn {

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

/// How check_head_inputs() names the caller and its two inputs in a message.
struct HeadNames {
  std::string who = "attention";  ///< the message prefix
  std::string xq = "X";           ///< the receiving sequence
  std::string xkv = "X";          ///< the source sequence (the same name: self-attention)
};

arma::mat softmax_rows(const arma::mat& scores);
arma::mat causal_mask(arma::uword n);
void check_head_inputs(const arma::mat& Xq, const arma::mat& Xkv, const arma::mat& Wq, const arma::mat& Wk,
                       const arma::mat& Wv, double score_multiplier, const HeadNames& names = {});

/// One attention head on one sentence: Q, K, V, scores, A = softmax(scores), H = A V.
///
/// X: n x d (one token per row); Wq: d x d_k; Wk: d x d_k; Wv: d x d_v. Returns the HeadPass with
/// the shapes listed there.
// [attention]
inline HeadPass attention(const arma::mat& X, const arma::mat& Wq, const arma::mat& Wk, const arma::mat& Wv,
                          const HeadOptions& options = {}) {
  check_head_inputs(X, X, Wq, Wk, Wv, options.score_multiplier);
  const double d_k = static_cast<double>(Wq.n_cols);
  HeadPass pass;
  pass.Q = X * Wq;  // n x d_k: what each position asks for
  pass.K = X * Wk;  // n x d_k: what each position can be matched on
  pass.V = X * Wv;  // n x d_v: what each position hands over
  pass.scores = options.score_multiplier * (pass.Q * pass.K.t() / std::sqrt(d_k));  // n x n
  if (options.causal) pass.scores += causal_mask(X.n_rows);                         // -inf above the diagonal
  pass.A = softmax_rows(pass.scores);  // n x n, row i: how position i shares its attention
  pass.H = pass.A * pass.V;            // n x d_v, row i: the mixture position i receives
  return pass;
}
// [attention]

/// Row-wise, numerically stable softmax: each row has its own maximum subtracted before exp.
///
/// scores: n x m, row i the scores of receiving position i over m source positions; entries may
/// be -inf (a masked source, weight exactly 0). Returns n x m, every row non-negative summing to 1.
/// Any finite scores, however large (1e4, -1e300), give finite weights. A row entirely -inf has no
/// allowed source and therefore no distribution.
// [softmax_rows]
inline arma::mat softmax_rows(const arma::mat& scores) {
  if (scores.is_empty()) throw std::invalid_argument("softmax: the scores are empty (" + shape(scores) + ")");
  if (scores.has_nan()) throw std::invalid_argument("softmax: the scores (" + shape(scores) + ") contain NaN");
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
// [softmax_rows]

/// Scaled scores S = Q K^T / sqrt(d_k), the scores line of attention() on its own.
///
/// Q: n_q x d_k (one query per row); K: n_kv x d_k (one key per row). Returns n_q x n_kv.
inline arma::mat scaled_scores(const arma::mat& Q, const arma::mat& K) {
  if (Q.n_cols != K.n_cols) {
    throw std::invalid_argument("scaled_scores: Q is " + shape(Q) + " but K is " + shape(K) +
                                " (queries and keys need the same width d_k)");
  }
  if (Q.n_cols == 0) throw std::invalid_argument("scaled_scores: d_k is 0 (Q is " + shape(Q) + ")");
  return Q * K.t() / std::sqrt(static_cast<double>(K.n_cols));
}

/// The causal mask for n positions: n x n, 0 on and below the diagonal, -inf above it
/// (position i may read sources j <= i). Added to scores before softmax, -inf becomes weight 0.
/// n = 0 gives an empty 0 x 0 mask.
inline arma::mat causal_mask(arma::uword n) {
  arma::mat mask(n, n, arma::fill::zeros);
  for (arma::uword i = 0; i < n; ++i) {
    for (arma::uword j = i + 1; j < n; ++j) mask(i, j) = -std::numeric_limits<double>::infinity();
  }
  return mask;
}

/// A = softmax(S + causal mask) by rows, in any precision (the models' passes run float): S is
/// n x n scores, row i over sources j <= i; returns n x n with weight 0 beyond the diagonal.
template <class T>
arma::Mat<T> causal_softmax(const arma::Mat<T>& S) {
  arma::Mat<T> A(arma::size(S), arma::fill::zeros);
  for (arma::uword i = 0; i < S.n_rows; ++i) {
    const arma::Row<T> seen = S(i, arma::span(0, i));  // sources 0 .. i
    const arma::Row<T> e = arma::exp(seen - seen.max());
    const T sum = arma::accu(e);
    if (!std::isfinite(sum)) {
      throw std::invalid_argument("causal softmax: a score in row " + std::to_string(i) +
                                  " is not finite (NaN or inf)");
    }
    A(i, arma::span(0, i)) = e / sum;
  }
  return A;
}

/// The checks of one head's inputs, so the head's own lines stay the formula: queries from Xq
/// (n_q x d_q), keys and values from Xkv (n_kv x d_kv); Wq: d_q x d_k, Wk: d_kv x d_k,
/// Wv: d_kv x d_v. Self-attention passes X twice. Refuses an empty input, a projection whose rows
/// do not match its input's width or that has no columns, Wq and Wk of different widths, any
/// non-finite entry and a non-finite multiplier; each message starts with names.who and names
/// both shapes.
inline void check_head_inputs(const arma::mat& Xq, const arma::mat& Xkv, const arma::mat& Wq, const arma::mat& Wk,
                              const arma::mat& Wv, double score_multiplier, const HeadNames& names) {
  const std::string &xq = names.xq, &xkv = names.xkv, prefix = names.who + ": ";
  if (xq == xkv && Xq.is_empty()) throw std::invalid_argument(prefix + xq + " is empty (" + shape(Xq) + ")");
  if (Xq.is_empty() || Xkv.is_empty()) {
    throw std::invalid_argument(prefix + "Xq is " + shape(Xq) + " and Xkv is " + shape(Xkv) +
                                " (neither may be empty)");
  }
  const auto need_rows = [&](const arma::mat& X, const std::string& xname, const arma::mat& W, const char* wname) {
    if (W.n_rows != X.n_cols || W.n_cols == 0) {
      throw std::invalid_argument(prefix + xname + " is " + shape(X) + " but " + wname + " is " + shape(W) + " (" +
                                  wname + " needs " + std::to_string(X.n_cols) + " rows, one per input coordinate)");
    }
  };
  need_rows(Xq, xq, Wq, "Wq");
  need_rows(Xkv, xkv, Wk, "Wk");
  need_rows(Xkv, xkv, Wv, "Wv");
  if (Wq.n_cols != Wk.n_cols) {
    throw std::invalid_argument(prefix + "Wq is " + shape(Wq) + " but Wk is " + shape(Wk) +
                                " (queries and keys need the same width d_k)");
  }
  require_finite(Xq, prefix + xq);
  require_finite(Xkv, prefix + xkv);
  require_finite(Wq, prefix + "Wq");
  require_finite(Wk, prefix + "Wk");
  require_finite(Wv, prefix + "Wv");
  if (!std::isfinite(score_multiplier)) throw std::invalid_argument(prefix + "the score multiplier must be finite");
}

}  // namespace attn
