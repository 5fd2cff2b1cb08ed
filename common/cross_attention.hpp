/// \file cross_attention.hpp
/// \brief Cross-attention (queries from one sequence, keys and values from another) and the causal
/// mask of a non-square query/key pair.
///
/// Source: the article, "Causal masking: a decoder only looks left" (its last paragraph names
/// cross-attention); Vaswani et al. 2017, §3.2.3 (encoder-decoder attention). Tokens are rows.
///
/// The causal rule for n_q queries over n_kv keys: query i sits at key position i + offset and may
/// read keys j <= i + offset. With n_q == n_kv and no offset the offset is 0 (ordinary causal
/// self-attention). With n_q != n_kv a causal mask needs an explicit offset: there is no single
/// obvious alignment (for a key/value cache it is n_kv - n_q, the queries being the newest
/// positions), so we refuse to guess.
#pragma once

#include <armadillo>
#include <optional>
#include <string>

#include "common/attention.hpp"

namespace attn {

/// The causal mask of n_q queries over n_kv keys, query i sitting at key position i + offset:
/// n_q x n_kv, 0 where j <= i + offset and -inf elsewhere. Every row keeps key 0, so no row is
/// entirely masked. causal_mask(n, n, 0) equals causal_mask(n).
/// Throws std::invalid_argument if n_q or n_kv is 0. Source: the article, "Causal masking".
arma::mat causal_mask(arma::uword n_q, arma::uword n_kv, arma::uword offset);

/// Options of cross_attention().
struct CrossOptions {
  /// Mask keys after each query's position (see the rule in this file's description).
  bool causal = false;
  /// Key position of query 0 for the causal mask; required when causal and n_q != n_kv.
  std::optional<arma::uword> offset{};
  /// Multiplies the scaled scores before softmax; finite.
  double score_multiplier = 1.0;
};

/// One head whose queries come from Xq and whose keys and values come from Xkv.
///
/// Xq: n_q x d_q (one receiving token per row); Xkv: n_kv x d_kv (one source token per row);
/// Wq: d_q x d_k; Wk: d_kv x d_k; Wv: d_kv x d_v. Returns a HeadPass with Q n_q x d_k,
/// K n_kv x d_k, V n_kv x d_v, scores and A n_q x n_kv (row i: query i's distribution over the
/// other sequence's positions), H n_q x d_v. Self-attention is the case Xq == Xkv.
/// Throws std::invalid_argument if a matrix is empty or not finite, a shape disagrees (the message
/// names both shapes), the multiplier is not finite, a causal mask on a non-square pair has no
/// offset, or an offset is given without the causal mask.
/// Source: Vaswani et al. 2017, §3.2.3; the article's `attention` with Q from a second sequence.
HeadPass cross_attention(const arma::mat& Xq, const arma::mat& Xkv, const arma::mat& Wq, const arma::mat& Wk,
                         const arma::mat& Wv, const CrossOptions& options = {});

/// How cross_attention()'s error messages name the caller and its two inputs. Self-attention
/// (attention.hpp) is this head with one sequence on both sides, named "attention" and "X".
struct HeadNames {
  std::string who = "cross-attention";  ///< the message prefix
  std::string xq = "Xq";                ///< the receiving sequence
  std::string xkv = "Xkv";              ///< the source sequence
};

/// cross_attention() without the emptiness check, its messages naming `names`: the one forward
/// pass every head in the library runs. Xq and Xkv must not be empty (the callers check it).
/// Shapes as in the overload above (Xq n_q x d_q, Xkv n_kv x d_kv; A n_q x n_kv). Throws
/// std::invalid_argument for the same reasons except emptiness, naming names.who and the inputs.
/// Source: Vaswani et al. 2017, §3.2.1 and §3.2.3.
HeadPass cross_attention(const arma::mat& Xq, const arma::mat& Xkv, const arma::mat& Wq, const arma::mat& Wk,
                         const arma::mat& Wv, const CrossOptions& options, const HeadNames& names);

}  // namespace attn
