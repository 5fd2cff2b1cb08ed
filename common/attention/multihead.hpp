/// \file multihead.hpp
/// \brief A multi-head self-attention sublayer: h heads, concatenation, output projection, residual.
///
/// Tokens are rows.
///
/// Throws: std::invalid_argument if there is no head, a head's shapes disagree with X (the message
/// names the head and both shapes, as attn::attention does), Wo is not (sum d_v) x d, or an entry
/// is not finite (multi_head_self_attention); if any size is 0 (random_multi_head). The others
/// (concat_width) throw nothing (beyond std::bad_alloc).
/// Sources: the article, "How many tables and vectors are there?" (the 3 tokens x 2 heads diagram
/// and the counting table); Vaswani et al. 2017, §3.2.2 (multi-head attention); LeCun et al. 1998,
/// "Efficient BackProp" (initial variance 1/fan_in).
#pragma once

#include <armadillo>
#include <vector>

#include <cmath>
#include <stdexcept>
#include <string>
#include "common/attention/attention.hpp"
#include "common/attention/random.hpp"

namespace attn {

/// One head's learned projections: Wq d x d_k, Wk d x d_k, Wv d x d_v.
struct HeadProjections {
  arma::mat Wq{};  ///< d x d_k query projection
  arma::mat Wk{};  ///< d x d_k key projection
  arma::mat Wv{};  ///< d x d_v value projection
};

/// The learned matrices of one self-attention sublayer: 3h projections and one output projection.
struct MultiHeadWeights {
  std::vector<HeadProjections> heads{};  ///< h heads, each with its own Wq, Wk, Wv
  arma::mat Wo{};                        ///< (h d_v) x d output projection (rows: sum of the heads' d_v)
};

/// Everything one sublayer computes on one input.
struct MultiHeadPass {
  std::vector<HeadPass> heads{};  ///< per head: Q, K, V, scores, A (n x n), H (n x d_v)
  arma::mat concat{};             ///< n x (h d_v): row i holds every head's mixture for token i, head 1 first
  arma::mat delta{};              ///< n x d attention update, Delta = Concat Wo
  arma::mat Y{};                  ///< n x d residual result, Y = X + Delta
};

/// Total width of the concatenated head mixtures, the sum of the heads' d_v (h d_v when they share d_v):
/// the number of columns of Concat (n x sum d_v) and of rows of Wo. 0 for no heads.
arma::uword concat_width(const MultiHeadWeights& weights);

/// Runs one multi-head self-attention sublayer on X.
///
/// X: n x d (one token per row). Every head reads the same X with its own projections
/// (head.Wq, head.Wk: d x d_k; head.Wv: d x d_v); the mixtures H(1.h) are joined side by side into
/// Concat (n x sum d_v), projected by Wo ((sum d_v) x d) into Delta (n x d), and added to X: Y = X + Delta.
MultiHeadPass multi_head_self_attention(const arma::mat& X, const MultiHeadWeights& weights,
                                        const HeadOptions& options = {});

/// A random sublayer for experiments: h heads of Wq, Wk d x d_k and Wv d x d_v, and Wo (h d_v) x d,
/// entries drawn from N(0, 1/d) (Wo: N(0, 1/(h d_v))) from `rng`, head by head (Wq, Wk, Wv), then Wo.
/// The variance 1/fan_in keeps X W near unit scale.
MultiHeadWeights random_multi_head(arma::uword d, arma::uword h, arma::uword d_k, arma::uword d_v, Random& rng);

// ---- definitions ---------------------------------------------------------------------------------

inline arma::uword concat_width(const MultiHeadWeights& weights) {
  arma::uword width = 0;
  for (const auto& head : weights.heads) width += head.Wv.n_cols;
  return width;
}

// [multi_head_self_attention]
inline MultiHeadPass multi_head_self_attention(const arma::mat& X, const MultiHeadWeights& weights,
                                               const HeadOptions& options) {
  // X: n x d; head h: Wq, Wk d x d_k, Wv d x d_v; Wo: (sum of d_v) x d; returns Y: n x d
  if (weights.heads.empty()) throw std::invalid_argument("multi_head_self_attention: no heads (h = 0)");
  MultiHeadPass pass;
  for (std::size_t h = 0; h < weights.heads.size(); ++h) {
    const HeadProjections& head = weights.heads[h];
    try {
      pass.heads.push_back(attention(X, head.Wq, head.Wk, head.Wv, options));  // same X for every head
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("multi_head_self_attention: head " + std::to_string(h + 1) + ": " + e.what());
    }
  }
  pass.concat.set_size(X.n_rows, 0);
  for (const HeadPass& head : pass.heads) pass.concat = arma::join_rows(pass.concat, head.H);  // n x (h d_v)
  if (weights.Wo.n_rows != pass.concat.n_cols || weights.Wo.n_cols != X.n_cols) {
    throw std::invalid_argument("multi_head_self_attention: Concat is " + shape(pass.concat) + " and X is " + shape(X) +
                                " but Wo is " + shape(weights.Wo) + " (Wo needs " + std::to_string(pass.concat.n_cols) +
                                " x " + std::to_string(X.n_cols) + ")");
  }
  require_finite(weights.Wo, "multi_head_self_attention: Wo");
  pass.delta = pass.concat * weights.Wo;  // n x d: the attention update
  pass.Y = X + pass.delta;                // residual addition
  return pass;
}
// [multi_head_self_attention]

inline MultiHeadWeights random_multi_head(arma::uword d, arma::uword h, arma::uword d_k, arma::uword d_v, Random& rng) {
  if (d == 0 || h == 0 || d_k == 0 || d_v == 0) {
    throw std::invalid_argument("random_multi_head: d, h, d_k and d_v must be positive (got " + std::to_string(d) +
                                ", " + std::to_string(h) + ", " + std::to_string(d_k) + ", " + std::to_string(d_v) +
                                ")");
  }
  const double s = 1.0 / std::sqrt(static_cast<double>(d));
  MultiHeadWeights w;
  for (arma::uword i = 0; i < h; ++i) {
    arma::mat Wq = rng.normal_matrix(d, d_k, s), Wk = rng.normal_matrix(d, d_k, s);
    w.heads.push_back({Wq, Wk, rng.normal_matrix(d, d_v, s)});  // drawn in the order Wq, Wk, Wv
  }
  w.Wo = rng.normal_matrix(h * d_v, d, 1.0 / std::sqrt(static_cast<double>(h * d_v)));
  return w;
}

}  // namespace attn
