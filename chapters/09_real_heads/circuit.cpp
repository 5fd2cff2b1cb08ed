/// \file chapters/09_real_heads/circuit.cpp
/// \brief The induction circuit (see circuit.hpp).
#include "circuit.hpp"

#include <cmath>
#include <tuple>

#include "common/attention/random.hpp"

namespace ch09 {

namespace {

/// ||A B||_F / (||A||_F ||B||_F): how much of B's output A reads (Elhage et al. 2021, §4).
double composition(const arma::mat& A, const arma::mat& B) {
  return arma::norm(A * B, "fro") / (arma::norm(A, "fro") * arma::norm(B, "fro"));
}

/// Share of rows of a square matrix whose largest entry is on the diagonal.
double diagonal_share(const arma::mat& M) {
  double wins = 0;
  for (arma::uword i = 0; i < M.n_rows; ++i) wins += M.row(i).index_max() == i ? 1.0 : 0.0;
  return wins / static_cast<double>(M.n_rows);
}

}  // namespace

namespace {

/// W_QK = W_Q^h W_K^h^T and W_OV = W_V^h W_O^h of one head (width x width, rows-as-tokens).
std::pair<arma::mat, arma::mat> qk_ov(const Model& model, arma::uword l, arma::uword h) {
  const arma::span c = head_span(h, model.shape.d_k);
  const attn::AttnLayer<Real>& L = model.layers[l];
  return {to_double(L.Wq).cols(c) * to_double(L.Wk).cols(c).t(), to_double(L.Wv).cols(c) * to_double(L.Wo).rows(c)};
}

/// The K-composition of random matrices of the model's shapes (what composition scores mean by chance).
double random_k_composition(const attn::AttnOnlyShape& s) {
  attn::Random rng(7);
  double sum = 0.0;
  for (int r = 0; r < 20; ++r) {
    const arma::mat qk = rng.normal_matrix(s.width, s.d_k) * rng.normal_matrix(s.width, s.d_k).t();
    const arma::mat ov = rng.normal_matrix(s.width, s.d_k) * rng.normal_matrix(s.d_k, s.width);
    sum += composition(qk, ov.t());
  }
  return sum / 20.0;
}

/// Random-repeat losses (first copy, repeat) over the probes, with `patch_of(b)` applied to window b.
template <class PatchOf>
std::pair<double, double> repeat_losses(const Model& model, const Probes& probes, PatchOf patch_of) {
  double first = 0, repeat = 0, n_all = 0;
  for (arma::uword b = 0; b < probes.random.tokens.n_rows; ++b) {
    const arma::urowvec tokens = probes.random.tokens.row(b);
    const arma::rowvec loss = trace_losses(trace(model, tokens, patch_of(b)), tokens);
    const arma::uword s = probes.random.blocks[b].start, n = probes.random.blocks[b].length;
    for (arma::uword j = 1; j < n; ++j) first += loss(s + j - 1), repeat += loss(s + n + j - 1), n_all += 1;
  }
  return {first / n_all, repeat / n_all};
}

}  // namespace

// [circuit]
CircuitSection circuit(const Model& model, const Vocabulary& vocab, const Probes& probes, const Roles& roles,
                       arma::uword induction) {
  const attn::AttnOnlyShape& s = model.shape;
  const arma::uword L = s.layers, ind = induction;
  const arma::uword prev = roles.previous_token.row(0).index_max();
  CircuitSection c;
  c.induction = head_name(L - 1, ind);
  c.previous = head_name(0, prev);
  c.previous_head = prev;
  const auto [qk2, ov2] = qk_ov(model, L - 1, ind);
  c.k_composition.set_size(s.heads), c.q_composition.set_size(s.heads), c.v_composition.set_size(s.heads);
  for (arma::uword h = 0; h < s.heads; ++h) {
    const arma::mat ov1 = qk_ov(model, 0, h).second;
    c.k_composition(h) = composition(qk2, ov1.t());  // keys read what h wrote: x_q W_QK (x' W_OV)^T
    c.q_composition(h) = composition(ov1, qk2);      // queries read it: (x' W_OV) W_QK x_k^T
    c.v_composition(h) = composition(ov1, ov2);      // values read it: x' W_OV W_OV'
  }
  c.random_baseline = random_k_composition(s);
  // The circuits on the 26 lowercase letters: rows are queries (QK) or sources (OV).
  arma::mat E(26, s.width);
  for (arma::uword i = 0; i < 26; ++i) E.row(i) = to_double(model.E).row(vocab.token(static_cast<char>('a' + i)));
  arma::uvec letters(26);
  for (arma::uword i = 0; i < 26; ++i) letters(i) = vocab.token(static_cast<char>('a' + i));
  const arma::mat ov_prev = qk_ov(model, 0, prev).second;
  c.qk_diagonal = diagonal_share(E * qk2 * (E * ov_prev).t());  // query a, key after a b: wins when b = a
  arma::mat gain_u = to_double(model.U);
  if (s.final_norm) gain_u.each_col() %= to_double(model.gain).t();
  c.ov_diagonal = diagonal_share(E * ov2 * gain_u.cols(letters));  // source a raises a: copying
  // The patch: the previous-token head's output taken from the same window shuffled.
  attn::Random rng(11);
  std::tie(c.first, c.clean_repeat) = repeat_losses(model, probes, [](arma::uword) { return attn::Hooks{}; });
  c.patched_repeat = repeat_losses(model, probes, [&](arma::uword b) {
                       arma::urowvec shuffled = probes.random.tokens.row(b);
                       for (arma::uword i = shuffled.n_elem - 1; i > 0; --i)
                         std::swap(shuffled(i), shuffled(rng.below(i + 1)));
                       return attn::replacing_head(prev / s.heads, prev % s.heads,
                                                   trace(model, shuffled).writes[prev]);
                     }).second;
  return c;
}
// [circuit]


}  // namespace ch09
