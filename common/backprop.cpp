/// \file backprop.cpp
/// \brief The one-head classifier's forward pass and hand-written backward pass (see backprop.hpp).
#include "common/backprop.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/attention.hpp"
#include "common/loss.hpp"
#include "common/random.hpp"

namespace attn {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace

arma::uword OneHeadSizes::operator[](Dim dim) const {
  switch (dim) {
    case Dim::vocab:
      return vocab;
    case Dim::d:
      return d;
    case Dim::d_k:
      return d_k;
    case Dim::d_v:
      return d_v;
    case Dim::classes:
      return classes;
    case Dim::one:
      return 1;
  }
  return 0;
}

OneHeadSizes sizes_of(const OneHeadModel& m) {
  return {.vocab = m.E.n_rows, .d = m.E.n_cols, .d_k = m.Wq.n_cols, .d_v = m.Wv.n_cols, .classes = m.Wc.n_cols};
}

void check_model(const OneHeadModel& m) {
  for (const auto& group : kOneHeadGroups) require(!(m.*group.value).is_empty(), "one-head model: empty parameter");
  const OneHeadSizes sizes = sizes_of(m);
  const char* names[] = {"vocab", "d", "d_k", "d_v", "C", "1"};
  for (const auto& group : kOneHeadGroups) {
    const arma::mat& M = m.*group.value;
    const arma::uword rows = sizes[group.rows], cols = sizes[group.cols];
    require(M.n_rows == rows && M.n_cols == cols,
            std::string("one-head model: ") + group.name + " is " + shape(M) + " but must be " + std::to_string(rows) +
                " x " + std::to_string(cols) + " (" + names[static_cast<int>(group.rows)] + " x " +
                names[static_cast<int>(group.cols)] + ", the sizes read from E, Wq, Wv and Wc)");
  }
  for (const auto& group : kOneHeadGroups) require_finite(m.*group.value, std::string("one-head model: ") + group.name);
}

arma::uword parameter_count(const OneHeadModel& m) {
  arma::uword count = 0;
  for (const auto& group : kOneHeadGroups) count += (m.*group.value).n_elem;
  return count;
}

OneHeadModel init_like_pytorch(arma::uword vocab, arma::uword d, arma::uword d_k, arma::uword d_v, arma::uword classes,
                               std::uint64_t seed) {
  require(vocab > 0 && d > 0 && d_k > 0 && d_v > 0 && classes > 0, "init_like_pytorch: every size must be > 0");
  const OneHeadSizes sizes{.vocab = vocab, .d = d, .d_k = d_k, .d_v = d_v, .classes = classes};
  Random rng(seed);
  OneHeadModel m;
  for (const auto& group : kOneHeadGroups) {  // in table order: the draws follow E, Wq, Wk, Wv, Wc, bc
    const arma::uword rows = sizes[group.rows], cols = sizes[group.cols];
    if (group.init == Init::normal) {
      m.*group.value = rng.normal_matrix(rows, cols);  // nn.Embedding: N(0, 1)
    } else {                                           // nn.Linear: weight and bias share the bound
      const double bound = 1.0 / std::sqrt(static_cast<double>(sizes[group.fan_in]));
      m.*group.value = rng.uniform_matrix(rows, cols, -bound, bound);
    }
  }
  return m;
}

// [forward]
void one_head_forward(const OneHeadModel& m, const arma::uvec& ids, arma::uword label, OneHeadPass& p) {
  // Messages are built only on failure: this runs once per optimizer step.
  if (ids.is_empty()) throw std::invalid_argument("one_head_forward: empty sentence");
  if (ids.max() >= m.E.n_rows) {
    throw std::invalid_argument("one_head_forward: token id " + std::to_string(ids.max()) + " is outside the " +
                                std::to_string(m.E.n_rows) + "-word vocabulary");
  }
  if (label >= m.Wc.n_cols) {
    throw std::invalid_argument("one_head_forward: label " + std::to_string(label) + " is not one of " +
                                std::to_string(m.Wc.n_cols) + " classes");
  }
  p.ids = ids;
  p.label = label;
  p.X = m.E.rows(ids);  // X = E[ids]
  // The library's one head: Q = X Wq, K = X Wk, V = X Wv, S = Q K^T / sqrt(d_k), A = softmax(S), H = A V
  HeadPass head = attention(p.X, m.Wq, m.Wk, m.Wv);
  p.Q = std::move(head.Q);
  p.K = std::move(head.K);
  p.V = std::move(head.V);
  p.S = std::move(head.scores);
  p.A = std::move(head.A);
  p.H = std::move(head.H);
  p.logits = p.H.row(p.H.n_rows - 1) * m.Wc + m.bc;  // logits = h Wc + bc
  p.probs = softmax_rows(p.logits);
  p.loss = cross_entropy(p.logits, arma::uvec{label}).loss;  // loss = -log softmax(logits)[y]
}
// [forward]

OneHeadPass one_head_forward(const OneHeadModel& model, const arma::uvec& ids, arma::uword label) {
  OneHeadPass pass;
  one_head_forward(model, ids, label, pass);
  return pass;
}

// [backward]
void one_head_backward(const OneHeadModel& m, const OneHeadPass& p, OneHeadGrads& g) {
  const arma::uword last = p.X.n_rows - 1;
  const double inv_sqrt_dk = 1.0 / std::sqrt(static_cast<double>(m.Wq.n_cols));

  // forward: loss = -log softmax(logits)[y]   =>   dlogits = softmax(logits) - onehot(y)   (common/loss.hpp)
  g.dlogits = cross_entropy(p.logits, arma::uvec{p.label}).dlogits;

  // forward: logits = h Wc + bc, h = H[n-1]   =>   dWc = h^T dlogits,  dbc = dlogits,  dh = dlogits Wc^T
  g.Wc = p.H.row(last).t() * g.dlogits;
  g.bc = g.dlogits;
  g.dH.zeros(p.H.n_rows, p.H.n_cols);  // rows other than the last do not reach the classifier
  g.dH.row(last) = g.dlogits * m.Wc.t();

  // forward: H = A V   =>   dA = dH V^T,  dV = A^T dH
  g.dA = g.dH * p.V.t();
  g.dV = p.A.t() * g.dH;

  // forward: A = softmax(S) row by row   =>   dS_i = a_i .* (dA_i - dA_i . a_i)   (full Jacobian,
  // common/softmax_backward.hpp)
  softmax_rows_backward(p.A, g.dA, g.dS);

  // forward: S = Q K^T / sqrt(d_k)   =>   dQ = dS K / sqrt(d_k),  dK = dS^T Q / sqrt(d_k)
  g.dQ = g.dS * p.K * inv_sqrt_dk;
  g.dK = g.dS.t() * p.Q * inv_sqrt_dk;

  // forward: Q = X Wq, K = X Wk, V = X Wv   =>   dWq = X^T dQ,  dWk = X^T dK,  dWv = X^T dV,
  //                                               dX = dQ Wq^T + dK Wk^T + dV Wv^T   (X feeds all three)
  g.Wq = p.X.t() * g.dQ;
  g.Wk = p.X.t() * g.dK;
  g.Wv = p.X.t() * g.dV;
  g.dX = g.dQ * m.Wq.t() + g.dK * m.Wk.t() + g.dV * m.Wv.t();

  // forward: X = E[ids]   =>   dE[r] = sum of dX[i] over the positions i holding token r:
  // a repeated word accumulates, a word absent from the sentence gets exactly zero.
  g.E.zeros(m.E.n_rows, m.E.n_cols);
  for (arma::uword i = 0; i < p.ids.n_elem; ++i) g.E.row(p.ids(i)) += g.dX.row(i);
}
// [backward]

OneHeadGrads one_head_backward(const OneHeadModel& model, const OneHeadPass& pass) {
  OneHeadGrads grads;
  one_head_backward(model, pass, grads);
  return grads;
}

std::vector<Param> parameter_groups(OneHeadModel& m, const OneHeadGrads& g) {
  std::vector<Param> params;
  for (const auto& group : kOneHeadGroups) params.push_back({group.name, &(m.*group.value), &(g.*group.grad)});
  return params;
}

}  // namespace attn
