/// \file cross_attention.hpp
/// \brief Cross-attention (queries from one sequence, keys and values from another) and the causal
/// mask of a non-square query/key pair.
///
/// Tokens are rows. The causal rule for n_q queries over n_kv keys: query i sits at key position
/// i + offset and may read keys j <= i + offset. With n_q == n_kv and no offset the offset is 0
/// (ordinary causal self-attention). With n_q != n_kv a causal mask needs an explicit offset: there
/// is no single obvious alignment (for a key/value cache it is n_kv - n_q, the queries being the
/// newest positions), so we refuse to guess.
///
/// Throws: std::invalid_argument if n_q or n_kv is 0 (causal_mask); for the inputs
/// check_head_inputs() refuses (the message names both shapes), a causal mask on a non-square pair
/// without an offset, or an offset without the causal mask (cross_attention). Nothing else is
/// thrown (beyond std::bad_alloc).
/// Sources: the article, "Causal masking: a decoder only looks left" (its last paragraph names
/// cross-attention), and its `attention`, here with Q from a second sequence; Vaswani et al. 2017,
/// §3.2.3 (encoder-decoder attention).
#pragma once

#include <armadillo>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/attention/attention.hpp"

namespace attn {

/// The causal mask of n_q queries over n_kv keys, query i sitting at key position i + offset:
/// n_q x n_kv, 0 where j <= i + offset and -inf elsewhere. Every row keeps key 0, so no row is
/// entirely masked. causal_mask(n, n, 0) equals causal_mask(n).
// [offset_causal_mask]
inline arma::mat causal_mask(arma::uword n_q, arma::uword n_kv, arma::uword offset) {
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

/// Options of cross_attention().
struct CrossOptions {
  /// Mask keys after each query's position (see the rule in this file's description).
  bool causal = false;
  /// Key position of query 0 for the causal mask; required when causal and n_q != n_kv.
  std::optional<arma::uword> offset{};
  /// Multiplies the scaled scores before softmax; finite.
  double score_multiplier = 1.0;
};

/// One head whose queries come from Xq and whose keys and values come from Xkv: attention()'s
/// lines with the two sequences apart, from the same pieces (check_head_inputs, softmax_rows).
///
/// Xq: n_q x d_q (one receiving token per row); Xkv: n_kv x d_kv (one source token per row);
/// Wq: d_q x d_k; Wk: d_kv x d_k; Wv: d_kv x d_v. Returns a HeadPass with Q n_q x d_k,
/// K n_kv x d_k, V n_kv x d_v, scores and A n_q x n_kv (row i: query i's distribution over the
/// other sequence's positions), H n_q x d_v. Self-attention is the case Xq == Xkv.
// [cross_attention]
inline HeadPass cross_attention(const arma::mat& Xq, const arma::mat& Xkv, const arma::mat& Wq, const arma::mat& Wk,
                                const arma::mat& Wv, const CrossOptions& options = {}) {
  check_head_inputs(Xq, Xkv, Wq, Wk, Wv, options.score_multiplier, {"cross-attention", "Xq", "Xkv"});
  if (options.offset && !options.causal) {
    throw std::invalid_argument("cross-attention: an offset only applies to a causal mask");
  }
  if (options.causal && !options.offset && Xq.n_rows != Xkv.n_rows) {
    throw std::invalid_argument("cross-attention: a causal mask over " + std::to_string(Xq.n_rows) + " queries and " +
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
