/// \file backprop.hpp
/// \brief The one-head classifier of "Make it learn": forward pass, and its backward pass written by hand.
///
/// The model reads a sentence of token ids, looks up their rows of an embedding table, runs one
/// attention head over them and classifies the mixture received at the last position:
///
///     X = E[ids]                         n x d     (the lookup)
///     Q = X Wq,  K = X Wk,  V = X Wv     n x d_k, n x d_k, n x d_v
///     S = Q K^T / sqrt(d_k)              n x n
///     A = softmax(S) row by row          n x n
///     H = A V                            n x d_v
///     logits = h Wc + bc,  h = H[n-1]    1 x C
///     loss = -log softmax(logits)[y]     (cross-entropy, common/attention/loss.hpp)
///
/// The backward pass differentiates these lines in reverse order; each stage of one_head_backward() below quotes
/// the forward line it differentiates. Tokens are rows and vectors are row vectors (see attention.hpp).
///
/// Throws: std::invalid_argument for an empty group, the first group that does not fit (naming
/// both shapes) or a group holding a non-finite entry (check_model); if a size is 0
/// (init_like_pytorch); if ids is empty, an id is >= vocab or label >= C, and as attn::attention for
/// projections that do not fit X or a non-finite entry (one_head_forward; check_model catches both
/// first); for a label out of range, checked again by cross_entropy (one_head_backward). The others
/// throw nothing (beyond std::bad_alloc).
/// Sources: the article, "Make it learn" (its PyTorch OneHeadSense: the forward pass and the shapes
/// of its groups) and "Follow one sentence through training" (its gradient stage); Vaswani et al.
/// 2017, §3.2.1; Goodfellow et al. 2016, §6.5 (back-propagation); PyTorch's nn.Embedding and
/// nn.Linear reset_parameters (the article's script builds its model from these); Karpathy's llm.c
/// (one table of parameter groups drives the checks, the count, the initialization and every update).
#pragma once

#include <armadillo>
#include <cstdint>
#include <vector>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include "common/attention/attention.hpp"
#include "common/attention/loss.hpp"
#include "common/attention/optim.hpp"
#include "common/attention/random.hpp"
#include "common/attention/softmax_backward.hpp"  // softmax_rows_backward, the one every backward pass uses

namespace attn {

/// The trainable parameter groups of the one-head classifier (row-vector convention).
struct OneHeadModel {
  arma::mat E;   ///< vocabulary x d: row r is the embedding of token id r
  arma::mat Wq;  ///< d x d_k query projection (no bias)
  arma::mat Wk;  ///< d x d_k key projection (no bias)
  arma::mat Wv;  ///< d x d_v value projection (no bias)
  arma::mat Wc;  ///< d_v x C classifier weights: logits = h Wc + bc
  arma::mat bc;  ///< 1 x C classifier bias
};

/// The sizes the groups' shapes are written in.
enum class Dim { vocab, d, d_k, d_v, classes, one };

/// The five sizes of a one-head model (one = 1 needs no field).
struct OneHeadSizes {
  arma::uword vocab = 0;    ///< vocabulary size (rows of E)
  arma::uword d = 0;        ///< embedding width
  arma::uword d_k = 0;      ///< query/key width
  arma::uword d_v = 0;      ///< value width
  arma::uword classes = 0;  ///< C, the number of classes
  /// The size `dim` stands for (Dim::one is 1).
  arma::uword operator[](Dim dim) const;
};

/// The sizes a model's groups imply: vocab and d from E, d_k from Wq, d_v from Wv, C from Wc.
/// Reads the shapes without checking them (check_model does).
OneHeadSizes sizes_of(const OneHeadModel& model);

/// Checks that the six parameter groups fit together (the table kOneHeadGroups): E vocab x d, Wq and
/// Wk d x d_k, Wv d x d_v, Wc d_v x C, bc 1 x C, every size > 0, every entry finite.
void check_model(const OneHeadModel& model);

/// Number of trainable scalars: vocab d + 2 d d_k + d d_v + d_v C + C. The article's model
/// (vocab 4, d = d_k = d_v = 8, C = 2) has 4x8 + 3x8x8 + (8x2 + 2) = 242 (claim train_01).
/// Counts the groups as they are.
arma::uword parameter_count(const OneHeadModel& model);

/// A model initialized the way PyTorch initializes nn.Embedding and nn.Linear: every embedding
/// entry N(0, 1); every linear weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in the
/// layer's input width (d for Wq, Wk, Wv; d_v for Wc and bc). The random stream is attn::Random
/// (common/attention/random.hpp) seeded with `seed`: uniforms from 53 bits and normals by Box-Muller, so the numbers
/// are the same with every standard library (but not PyTorch's own numbers).
/// Returns E vocab x d, Wq and Wk d x d_k, Wv d x d_v, Wc d_v x classes, bc 1 x classes.
OneHeadModel init_like_pytorch(arma::uword vocab, arma::uword d, arma::uword d_k, arma::uword d_v, arma::uword classes,
                               std::uint64_t seed);

/// Everything the forward pass computes on one example, kept for the backward pass and for printing.
/// Q, K, V, S, A and H are the library's one head (attn::attention, common/attention/attention.hpp), moved in.
struct OneHeadPass {
  arma::uvec ids;         ///< n token ids
  arma::mat X;            ///< n x d, X = E[ids]
  arma::mat Q;            ///< n x d_k, Q = X Wq
  arma::mat K;            ///< n x d_k, K = X Wk
  arma::mat V;            ///< n x d_v, V = X Wv
  arma::mat S;            ///< n x n, S = Q K^T / sqrt(d_k)
  arma::mat A;            ///< n x n, A = softmax(S) row by row
  arma::mat H;            ///< n x d_v, H = A V
  arma::mat logits;       ///< 1 x C, logits = H[n-1] Wc + bc
  arma::mat probs;        ///< 1 x C, softmax(logits)
  arma::uword label = 0;  ///< the target class y
  double loss = 0.0;      ///< -log probs[y]
};

/// Runs the forward pass on token ids `ids` with target class `label`, writing into `pass`.
/// ids: n token ids (n >= 1), one per position; label: the target class in [0, C). Fills every
/// field of `pass` (shapes listed on OneHeadPass; A is n x n, logits 1 x C).
void one_head_forward(const OneHeadModel& model, const arma::uvec& ids, arma::uword label, OneHeadPass& pass);

/// The forward pass, returned by value (for printing and tests): the same shapes and errors as the
/// overload that fills a pass.
OneHeadPass one_head_forward(const OneHeadModel& model, const arma::uvec& ids, arma::uword label);

/// Gradients of the loss for every parameter group (same shapes as OneHeadModel), and the
/// intermediate gradients of every activation, which the walkthrough prints.
struct OneHeadGrads {
  arma::mat E;        ///< vocab x d: dL/dE; rows of ids absent from the sentence are exactly 0
  arma::mat Wq;       ///< d x d_k: dL/dWq
  arma::mat Wk;       ///< d x d_k: dL/dWk
  arma::mat Wv;       ///< d x d_v: dL/dWv
  arma::mat Wc;       ///< d_v x C: dL/dWc
  arma::mat bc;       ///< 1 x C: dL/dbc
  arma::mat dlogits;  ///< 1 x C: dL/dlogits = probs - onehot(y)
  arma::mat dH;       ///< n x d_v: only the last row is non-zero (the classifier reads only it)
  arma::mat dA;       ///< n x n
  arma::mat dS;       ///< n x n
  arma::mat dQ;       ///< n x d_k
  arma::mat dK;       ///< n x d_k
  arma::mat dV;       ///< n x d_v
  arma::mat dX;       ///< n x d
};

/// The hand-written backward pass of one example: fills `grads` from a pass computed by
/// one_head_forward with the same model. Reusing `grads` across calls reuses its memory.
///
/// Shapes: model as in check_model; pass as one_head_forward left it (X n x d, A n x n, H n x d_v,
/// logits 1 x C). Fills the parameter gradients with the shapes of their groups (E vocab x d, Wq and
/// Wk d x d_k, Wv d x d_v, Wc d_v x C, bc 1 x C) and the activation gradients dlogits 1 x C,
/// dH n x d_v, dA and dS n x n, dQ and dK n x d_k, dV n x d_v, dX n x d. Each stage differentiates one
/// forward line, in reverse order (each quoted at its stage below): the loss, the classifier, H = A V, the
/// row softmax (full Jacobian), S = Q K^T / sqrt(d_k), the three projections, the lookup.
/// It does not re-check the shapes, so the pass must come from one_head_forward with this model.
/// Checked against central differences in tests/test_ch05_training.cpp (train_05).
void one_head_backward(const OneHeadModel& model, const OneHeadPass& pass, OneHeadGrads& grads);

/// The backward pass, returned by value: the same shapes and errors as the overload that fills
/// `grads`.
OneHeadGrads one_head_backward(const OneHeadModel& model, const OneHeadPass& pass);

/// How a group starts in init_like_pytorch: nn.Embedding's N(0, 1), or nn.Linear's
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
enum class Init { normal, linear };

/// One parameter group of the one-head classifier: the row of the table that drives the shape
/// check, the count, the initialization, saving and loading, printing and the gradient checks
/// (after llm.c's ParameterTensors, param_sizes[] and ptrs[]).
struct ParameterGroup {
  const char* name;                ///< "E", "Wq", ...: its printed name and file stem
  const char* label;               ///< how the model table prints it, e.g. "E (embedding)"
  Dim rows;                        ///< its rows, as a size of the model
  Dim cols;                        ///< its columns
  Init init;                       ///< how init_like_pytorch draws it
  Dim fan_in;                      ///< the input width of its layer (for Init::linear)
  arma::mat OneHeadModel::*value;  ///< where it lives in a model (rows x cols)
  arma::mat OneHeadGrads::*grad;   ///< where its gradient lives (rows x cols, as the value)
};

/// The six groups in order: E, Wq, Wk, Wv, Wc, bc.
inline constexpr ParameterGroup kOneHeadGroups[] = {
    // clang-format off
    {"E", "E (embedding)", Dim::vocab, Dim::d, Init::normal, Dim::d, &OneHeadModel::E, &OneHeadGrads::E},
    {"Wq", "Wq", Dim::d, Dim::d_k, Init::linear, Dim::d, &OneHeadModel::Wq, &OneHeadGrads::Wq},
    {"Wk", "Wk", Dim::d, Dim::d_k, Init::linear, Dim::d, &OneHeadModel::Wk, &OneHeadGrads::Wk},
    {"Wv", "Wv", Dim::d, Dim::d_v, Init::linear, Dim::d, &OneHeadModel::Wv, &OneHeadGrads::Wv},
    {"Wc", "Wc", Dim::d_v, Dim::classes, Init::linear, Dim::d_v, &OneHeadModel::Wc, &OneHeadGrads::Wc},
    {"bc", "bc", Dim::one, Dim::classes, Init::linear, Dim::d_v, &OneHeadModel::bc, &OneHeadGrads::bc},
};
// clang-format on

/// The six groups paired with their gradients, in the table's order, for Sgd and Adam.
/// Each Param points into `model` and `grads` (same shapes, as check_model lists them), so both must
/// outlive the returned list. The optimizers check the shapes.
std::vector<Param> parameter_groups(OneHeadModel& model, const OneHeadGrads& grads);

// ---- definitions ---------------------------------------------------------------------------------

namespace detail {

/// Throws std::invalid_argument(message) unless ok.
inline void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

}  // namespace detail

inline arma::uword OneHeadSizes::operator[](Dim dim) const {
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

inline OneHeadSizes sizes_of(const OneHeadModel& m) {
  return {.vocab = m.E.n_rows, .d = m.E.n_cols, .d_k = m.Wq.n_cols, .d_v = m.Wv.n_cols, .classes = m.Wc.n_cols};
}

inline void check_model(const OneHeadModel& m) {
  for (const auto& group : kOneHeadGroups)
    detail::require(!(m.*group.value).is_empty(), "one-head model: empty parameter");
  const OneHeadSizes sizes = sizes_of(m);
  const char* names[] = {"vocab", "d", "d_k", "d_v", "C", "1"};
  for (const auto& group : kOneHeadGroups) {
    const arma::mat& M = m.*group.value;
    const arma::uword rows = sizes[group.rows], cols = sizes[group.cols];
    detail::require(M.n_rows == rows && M.n_cols == cols,
                    std::string("one-head model: ") + group.name + " is " + shape(M) + " but must be " +
                        std::to_string(rows) + " x " + std::to_string(cols) + " (" +
                        names[static_cast<int>(group.rows)] + " x " + names[static_cast<int>(group.cols)] +
                        ", the sizes read from E, Wq, Wv and Wc)");
  }
  for (const auto& group : kOneHeadGroups) require_finite(m.*group.value, std::string("one-head model: ") + group.name);
}

inline arma::uword parameter_count(const OneHeadModel& m) {
  arma::uword count = 0;
  for (const auto& group : kOneHeadGroups) count += (m.*group.value).n_elem;
  return count;
}

inline OneHeadModel init_like_pytorch(arma::uword vocab, arma::uword d, arma::uword d_k, arma::uword d_v,
                                      arma::uword classes, std::uint64_t seed) {
  detail::require(vocab > 0 && d > 0 && d_k > 0 && d_v > 0 && classes > 0, "init_like_pytorch: every size must be > 0");
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
inline void one_head_forward(const OneHeadModel& m, const arma::uvec& ids, arma::uword label, OneHeadPass& p) {
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

inline OneHeadPass one_head_forward(const OneHeadModel& model, const arma::uvec& ids, arma::uword label) {
  OneHeadPass pass;
  one_head_forward(model, ids, label, pass);
  return pass;
}

// [backward]
inline void one_head_backward(const OneHeadModel& m, const OneHeadPass& p, OneHeadGrads& g) {
  const arma::uword last = p.X.n_rows - 1;
  const double inv_sqrt_dk = 1.0 / std::sqrt(static_cast<double>(m.Wq.n_cols));

  // forward: loss = -log softmax(logits)[y]   =>   dlogits = softmax(logits) - onehot(y)   (common/attention/loss.hpp)
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
  // common/attention/softmax_backward.hpp)
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

inline OneHeadGrads one_head_backward(const OneHeadModel& model, const OneHeadPass& pass) {
  OneHeadGrads grads;
  one_head_backward(model, pass, grads);
  return grads;
}

inline std::vector<Param> parameter_groups(OneHeadModel& m, const OneHeadGrads& g) {
  std::vector<Param> params;
  for (const auto& group : kOneHeadGroups) params.push_back({group.name, &(m.*group.value), &(g.*group.grad)});
  return params;
}

}  // namespace attn
