/// \file multihead.cpp
/// \brief A multi-head self-attention sublayer (see multihead.hpp).
#include "common/multihead.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace attn {

arma::uword concat_width(const MultiHeadWeights& weights) {
  arma::uword width = 0;
  for (const auto& head : weights.heads) width += head.Wv.n_cols;
  return width;
}

// [multi_head_self_attention]
MultiHeadPass multi_head_self_attention(const arma::mat& X, const MultiHeadWeights& weights,
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

MultiHeadWeights random_multi_head(arma::uword d, arma::uword h, arma::uword d_k, arma::uword d_v, Random& rng) {
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
