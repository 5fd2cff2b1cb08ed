/// \file cross_attention.cpp
/// \brief Cross-attention and the offset causal mask (see cross_attention.hpp).
#include "common/cross_attention.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace attn {

// [offset_causal_mask]
arma::mat causal_mask(arma::uword n_q, arma::uword n_kv, arma::uword offset) {
  if (n_q == 0 || n_kv == 0) {
    throw std::invalid_argument("causal_mask: " + std::to_string(n_q) + " queries over " + std::to_string(n_kv) +
                                " keys (both must be at least 1)");
  }
  arma::mat mask(n_q, n_kv, arma::fill::zeros);
  for (arma::uword i = 0; i < n_q; ++i) {
    for (arma::uword j = 0; j < n_kv; ++j) {
      if (j > i + offset) mask(i, j) = -std::numeric_limits<double>::infinity();  // a future key
    }
  }
  return mask;
}
// [offset_causal_mask]

// [cross_attention]
HeadPass cross_attention(const arma::mat& Xq, const arma::mat& Xkv, const arma::mat& Wq, const arma::mat& Wk,
                         const arma::mat& Wv, const CrossOptions& options) {
  if (Xq.is_empty() || Xkv.is_empty()) {
    throw std::invalid_argument("cross-attention: Xq is " + shape(Xq) + " and Xkv is " + shape(Xkv) +
                                " (neither may be empty)");
  }
  return cross_attention(Xq, Xkv, Wq, Wk, Wv, options, HeadNames{});
}

HeadPass cross_attention(const arma::mat& Xq, const arma::mat& Xkv, const arma::mat& Wq, const arma::mat& Wk,
                         const arma::mat& Wv, const CrossOptions& options, const HeadNames& names) {
  const std::string who = names.who + ": ";
  const auto need_rows = [&](const arma::mat& X, const std::string& xname, const arma::mat& W, const char* wname) {
    if (W.n_rows != X.n_cols || W.n_cols == 0) {
      throw std::invalid_argument(who + xname + " is " + shape(X) + " but " + wname + " is " + shape(W) + " (" + wname +
                                  " needs " + std::to_string(X.n_cols) + " rows, one per input coordinate)");
    }
  };
  need_rows(Xq, names.xq, Wq, "Wq");
  need_rows(Xkv, names.xkv, Wk, "Wk");
  need_rows(Xkv, names.xkv, Wv, "Wv");
  if (Wq.n_cols != Wk.n_cols) {
    throw std::invalid_argument(who + "Wq is " + shape(Wq) + " but Wk is " + shape(Wk) +
                                " (queries and keys need the same width d_k)");
  }
  require_finite(Xq, who + names.xq);
  require_finite(Xkv, who + names.xkv);
  require_finite(Wq, who + "Wq");
  require_finite(Wk, who + "Wk");
  require_finite(Wv, who + "Wv");
  if (!std::isfinite(options.score_multiplier)) {
    throw std::invalid_argument(who + "the score multiplier must be finite");
  }
  if (options.offset && !options.causal) {
    throw std::invalid_argument(who + "an offset only applies to a causal mask");
  }
  if (options.causal && !options.offset && Xq.n_rows != Xkv.n_rows) {
    throw std::invalid_argument(who + "a causal mask over " + std::to_string(Xq.n_rows) + " queries and " +
                                std::to_string(Xkv.n_rows) + " keys needs an offset (the key position of query 0)");
  }

  HeadPass pass;
  pass.Q = Xq * Wq;                                                        // n_q x d_k
  pass.K = Xkv * Wk;                                                       // n_kv x d_k
  pass.V = Xkv * Wv;                                                       // n_kv x d_v
  pass.scores = options.score_multiplier * scaled_scores(pass.Q, pass.K);  // n_q x n_kv
  if (options.causal) pass.scores += causal_mask(Xq.n_rows, Xkv.n_rows, options.offset.value_or(0));
  pass.A = softmax_rows(pass.scores);  // n_q x n_kv, rows sum to 1
  pass.H = pass.A * pass.V;            // n_q x d_v
  return pass;
}
// [cross_attention]

}  // namespace attn
