/// \file attn_only.hpp
/// \brief An L-layer, attention-only transformer (several causal heads per layer, learned
/// positions, an optional final layer norm): forward pass over a batch, next-token cross-entropy,
/// backward pass by hand and Adam, all templated over the scalar type (float trains, double
/// checks gradients). Chapters 08 and 09 train it.
///
/// Tokens are rows. A batch of B sequences of T tokens is stacked into one N x width matrix
/// (N = B T, row b T + t = token t of sequence b), so every projection is one large product;
/// only the T x T attention of each sequence and head is done block by block.
///
/// This file is the readable version, one step of the mathematics per line. The chapters train
/// with common/fast/attn_only_fast.hpp, the same passes with blocked kernels and threads, which a
/// test holds equal to these. Saving and loading a model is in common/apparatus/model_files.hpp.
///
/// Forward (per layer l, heads h = 0 . heads - 1, causal):
///   X_0 = E[token] + P[position]                        (N x width)
///   Q = X_l Wq,  K = X_l Wk,  V = X_l Wv                  (N x heads d_k; head h = columns h d_k .)
///   A_bh = softmax(Q_bh K_bh^T / sqrt(d_k) + causal)       (T x T, per sequence b and head h)
///   H_bh = keep_lh A_bh V_bh                               (T x d_k; keep = 1 unless ablated)
///   X_{l+1} = X_l + H Wo                                   (H: N x heads d_k, Concat of the heads)
///   Y = LayerNorm(X_L) = (X_L - mean) / sqrt(var + eps) * gain + bias   (if final_norm; else Y = X_L)
///   logits = Y U                                           (N x vocab)
/// No MLP and no biases in the projections: the residual stream carries the embeddings and what
/// the heads add.
///
/// Throws: std::invalid_argument, naming the size and its allowed range, for a shape validate()
/// refuses (validate, parameter_table, parameter_count, check_shapes, zero_model, init_model,
/// convert_model); naming the group and both shapes for a model that does not match its table
/// (check_shapes); for tokens that are not B x T with 1 <= T <= context, a token outside the
/// vocabulary, a keep mask that is not layers x heads, or a score that is not finite, so that NaN or
/// inf parameters never become silent NaN weights (forward, which also passes on what a hook
/// throws); for no such head or sequence (attention_pattern); for a pass not made over `tokens`
/// (B = pass.batch sequences, B T logit rows), a target that is not a column of the logits, or
/// logits that are not finite (next_token_loss_sum, next_token_loss, next_token_losses).
/// backward() checks nothing itself: another model's pass trips Armadillo's size checks
/// (std::logic_error), never a silently wrong gradient. The others throw nothing (beyond
/// std::bad_alloc).
/// Sources: the article, "Reverse-engineer a head you trained" and "Watch real heads"; Vaswani et
/// al. 2017, §3.2.2 (multi-head attention); Ba et al. 2016 (layer normalization); Elhage et al.
/// 2021, "A Mathematical Framework for Transformer Circuits" (attention-only models); Kingma & Ba
/// 2015, Algorithm 1 (Adam); Karpathy's llm.c (one table of parameter tensors).
#pragma once

#include <armadillo>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/hooks.hpp"
#include "common/attention/random.hpp"
#include "common/attention/softmax_backward.hpp"

namespace attn {

/// Sizes of the model (chapter 08 uses the defaults' kind of sizes, chapter 09 a context of 128,
/// width 64 and 4 heads of 16 with the final norm).
struct AttnOnlyShape {
  arma::uword vocab = 32;    ///< tokens 0 .. vocab - 1
  arma::uword context = 32;  ///< positions per sequence, T
  arma::uword width = 32;    ///< residual stream width d
  arma::uword heads = 2;     ///< heads per layer
  arma::uword d_k = 16;      ///< query/key/value width of each head
  arma::uword layers = 2;    ///< attention layers
  bool final_norm = false;   ///< a layer norm (gain and bias) before the unembedding
};

/// Checks the sizes: every size >= 1 (vocab and context >= 2) and none absurd (each at most 4096,
/// heads d_k at most 4096).
void validate(const AttnOnlyShape& shape);

/// One row of the parameter table: a group's name and shape (after llm.c's ParameterTensors).
struct ParamSpec {
  std::string name;  ///< e.g. "E", "L1.Wq", "U"
  arma::uword rows;  ///< its rows
  arma::uword cols;  ///< its columns
};

/// The parameter table, the one list every other function walks (shape checks, counts,
/// save/load, printing, gradient checks, Adam): E (vocab x width), P (context x width), per layer
/// Wq, Wk, Wv (width x heads d_k) and Wo (heads d_k x width), then gain and bias (1 x width, only
/// with final_norm), then U (width x vocab).
std::vector<ParamSpec> parameter_table(const AttnOnlyShape& shape);

/// Total number of parameters in the table (53,504 for chapter 09's default model: 97 tokens,
/// context 128, width 64, 2 layers of 4 heads of 16, final norm).
arma::uword parameter_count(const AttnOnlyShape& shape);

/// One attention layer's parameters. Head h uses columns [h d_k, (h + 1) d_k) of Wq, Wk, Wv
/// and rows [h d_k, (h + 1) d_k) of Wo.
template <class T>
struct AttnLayer {
  arma::Mat<T> Wq;  ///< width x heads d_k
  arma::Mat<T> Wk;  ///< width x heads d_k
  arma::Mat<T> Wv;  ///< width x heads d_k
  arma::Mat<T> Wo;  ///< heads d_k x width: writes the concatenated head mixtures into the stream
};

/// All parameters (the same struct holds their gradients).
template <class T>
struct AttnOnlyModel {
  AttnOnlyShape shape;               ///< the sizes
  arma::Mat<T> E;                    ///< vocab x width token embeddings (row = a token)
  arma::Mat<T> P;                    ///< context x width learned positional embeddings
  std::vector<AttnLayer<T>> layers;  ///< shape.layers attention layers
  arma::Mat<T> gain;                 ///< 1 x width layer-norm gain (empty without final_norm)
  arma::Mat<T> bias;                 ///< 1 x width layer-norm bias (empty without final_norm)
  arma::Mat<T> U;                    ///< width x vocab unembedding
};

/// The model's matrices in parameter_table() order (pointers into `model`, one per table row; the
/// layer count is model.layers.size()).
template <class T>
std::vector<arma::Mat<T>*> parameter_ptrs(AttnOnlyModel<T>& model);
/// The same, read-only.
template <class T>
std::vector<const arma::Mat<T>*> parameter_ptrs(const AttnOnlyModel<T>& model);

/// Checks that `model` has the layers its shape says and every matrix the shape the table gives.
template <class T>
void check_shapes(const AttnOnlyModel<T>& model);

/// Every parameter zero, each group in its table shape (used for gradients).
template <class T>
AttnOnlyModel<T> zero_model(const AttnOnlyShape& shape);

/// Random initial parameters, drawn in double from `rng` in table order and then converted, so a
/// float and a double model from the same seed agree: E and P ~ N(0, 1); Wq, Wk, Wv ~ N(0, 1 / width);
/// Wo ~ N(0, 1 / (heads d_k)); gain = 1, bias = 0; U ~ N(0, 1 / width).
template <class T>
AttnOnlyModel<T> init_model(const AttnOnlyShape& shape, Random& rng);

/// `model` with every parameter converted to another scalar type (same shapes; float <-> double
/// rounds to the nearest).
template <class To, class From>
AttnOnlyModel<To> convert_model(const AttnOnlyModel<From>& model) {
  AttnOnlyModel<To> out = zero_model<To>(model.shape);
  const auto from = parameter_ptrs(model);
  const auto to = parameter_ptrs(out);
  for (std::size_t i = 0; i < from.size(); ++i) *to[i] = arma::conv_to<arma::Mat<To>>::from(*from[i]);
  return out;
}

/// What one layer computed, kept for the backward pass and for reading heads.
template <class T>
struct AttnLayerPass {
  arma::Mat<T> X;    ///< N x width: the stream entering the layer
  arma::Mat<T> QKV;  ///< N x 3 heads d_k: queries X Wq, keys X Wk and values X Wv side by side (one product)
  arma::Cube<T> A;   ///< T x T x (B heads): slice b heads + h is head h's weights in sequence b
  arma::Mat<T> H;    ///< N x heads d_k: Concat of the (kept) head mixtures keep A_bh V_bh

  /// Q (part 0), K (part 1) or V (part 2) of every head: N x heads d_k, head h in columns h d_k .
  arma::Mat<T> part(arma::uword k) const {
    const arma::uword hd = QKV.n_cols / 3;
    return QKV.cols(k * hd, (k + 1) * hd - 1);
  }
};

/// A forward pass over a batch (reused between calls of the same size: no reallocation).
template <class T>
struct AttnOnlyPass {
  arma::uword batch = 0;                 ///< B sequences
  std::vector<AttnLayerPass<T>> layers;  ///< one per layer
  arma::Mat<T> X_out;                    ///< N x width: the final stream X_L
  arma::Mat<T> Xhat;                     ///< N x width: (X_L - mean) / std (final_norm only)
  arma::Col<T> inv_std;                  ///< N: 1 / sqrt(var + eps) per row (final_norm only)
  arma::Mat<T> Y;                        ///< N x width: what the unembedding reads
  arma::Mat<T> logits;                   ///< N x vocab
  arma::Mat<T> S;                        ///< T x T scratch for scores
  arma::Mat<T> keep;                     ///< layers x heads multipliers used (1 = kept)
};

/// Runs the model on `tokens` (B x T, row = sequence, entries < vocab, 1 <= T <= context; training
/// reads T = context) into `pass`. keep: optional layers x heads matrix multiplying each head's
/// mixture before Wo (1 keeps a head, 0 ablates it); nullptr keeps every head. `hooks` (hooks.hpp)
/// see and may change each head's write and the stream entering each layer; with a head_output
/// hook each head's write, H_h Wo^h, is made apart and the writes are summed.
template <class T>
void forward(const AttnOnlyModel<T>& model, const arma::umat& tokens, AttnOnlyPass<T>& pass,
             const arma::mat* keep = nullptr, const BasicHooks<T>& hooks = {});

/// The attention weights of head `head` of layer `layer` on sequence b of the last forward: T x T.
template <class T>
const arma::Mat<T>& attention_pattern(const AttnOnlyPass<T>& pass, arma::uword layer, arma::uword head, arma::uword b);

/// Sum of next-token cross-entropies (nats) over every position t < T - 1 of every sequence
/// (label tokens(b, t + 1)), accumulated in double. If dlogits is not null it receives
/// grad_scale times the gradient of that sum with respect to pass.logits (N x vocab, zero on the
/// rows of the last positions, which predict nothing). Pass grad_scale = 1 / (number of targets
/// of the whole batch) to get the gradient of the mean.
template <class T>
double next_token_loss_sum(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits,
                           double grad_scale);

/// Mean next-token loss (nats per target, B (T - 1) targets) of the last forward pass and, if
/// dlogits is not null, its gradient (N x vocab).
template <class T>
double next_token_loss(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits);

/// Per-target losses in nats: a B x (T - 1) matrix, entry (b, t) = -log p(tokens(b, t + 1) | tokens(b, 0.t)).
template <class T>
arma::mat next_token_losses(const AttnOnlyPass<T>& pass, const arma::umat& tokens);

/// Scratch and gradients of the backward pass (reused between calls of the same size).
template <class T>
struct AttnOnlyBackward {
  AttnOnlyModel<T> grad;  ///< d loss / d every parameter
  arma::Mat<T> dX;        ///< N x width: gradient of the stream being walked back
  arma::Mat<T> dH;        ///< N x heads d_k: gradient of the concatenated mixtures
  arma::Mat<T> dQKV;      ///< N x 3 heads d_k: gradients of Q, K and V side by side
  arma::Mat<T> dA;        ///< T x T: gradient of one block's weights
  arma::Mat<T> dS;        ///< T x T: gradient of one block's scores
};

/// Backpropagates dlogits (N x vocab) through the pass made by forward() (with the same keep),
/// writing every parameter's gradient into work.grad (each group in its table shape; work's
/// scratch is resized on first use). Each stage quotes the forward line it inverts (the softmax
/// step is the row-wise softmax backward of common/attention/softmax_backward.hpp). The shapes are those of
/// the pass, which must come from forward() with this model.
template <class T>
void backward(const AttnOnlyModel<T>& model, const arma::umat& tokens, const AttnOnlyPass<T>& pass,
              const arma::Mat<T>& dlogits, AttnOnlyBackward<T>& work);

// ---- definitions ---------------------------------------------------------------------------------

namespace detail {

/// The largest size validate() accepts for any dimension.
inline constexpr arma::uword kMaxSize = 4096;
/// The final layer norm's epsilon under the square root (Ba et al. 2016).
inline constexpr double kNormEps = 1e-5;

/// "r x c", for messages.
inline std::string dims(arma::uword r, arma::uword c) { return std::to_string(r) + " x " + std::to_string(c); }

/// The parameter matrices of a model (const or not) in parameter_table() order.
template <class M>
auto ptrs_of(M& m) {
  using P = decltype(&m.E);
  std::vector<P> out{&m.E, &m.P};
  for (auto& layer : m.layers) {
    for (P p : {&layer.Wq, &layer.Wk, &layer.Wv, &layer.Wo}) out.push_back(p);
  }
  if (m.shape.final_norm) out.push_back(&m.gain), out.push_back(&m.bias);
  out.push_back(&m.U);
  return out;
}

/// Refuses a tokens matrix that is not B x T (1 <= T <= context) or holds a token outside the vocabulary.
template <class T>
void check_tokens(const AttnOnlyModel<T>& model, const arma::umat& tokens) {
  if (tokens.n_rows == 0 || tokens.n_cols == 0 || tokens.n_cols > model.shape.context) {
    throw std::invalid_argument("forward: tokens are " + dims(tokens.n_rows, tokens.n_cols) +
                                " but the model reads sequences of 1 to " + std::to_string(model.shape.context) +
                                " tokens");
  }
  if (tokens.max() >= model.shape.vocab) {
    throw std::invalid_argument("forward: token " + std::to_string(tokens.max()) + " is outside the vocabulary of " +
                                std::to_string(model.shape.vocab));
  }
}

/// The checks of forward(), then the pass sized for B sequences with its head mask.
template <class T>
void start_pass(const AttnOnlyModel<T>& model, const arma::umat& tokens, const arma::mat* keep, AttnOnlyPass<T>& pass) {
  check_tokens(model, tokens);
  const AttnOnlyShape& s = model.shape;
  if (keep != nullptr && (keep->n_rows != s.layers || keep->n_cols != s.heads)) {
    throw std::invalid_argument("forward: the head mask is " + dims(keep->n_rows, keep->n_cols) + ", expected " +
                                dims(s.layers, s.heads));
  }
  pass.batch = tokens.n_rows;
  pass.layers.resize(s.layers);
  pass.keep =
      keep != nullptr ? arma::conv_to<arma::Mat<T>>::from(*keep) : arma::Mat<T>(s.layers, s.heads, arma::fill::ones);
}

/// Refuses logits that are not finite: a NaN or infinite parameter outside the attention scores
/// (the unembedding, a value or output projection, the final norm), or logits beyond a float.
template <class T>
void require_finite_logits(const arma::Mat<T>& logits) {
  if (!logits.is_finite()) {
    throw std::invalid_argument("next_token_loss: the logits (" + dims(logits.n_rows, logits.n_cols) +
                                ") hold a NaN or an infinity (a parameter is not finite or overflows)");
  }
}

/// The checks every next-token loss makes before reading the logits: the pass was made over
/// `tokens` (B = pass.batch sequences, B T logit rows), every target token is a column of the
/// logits, and the logits are finite.
template <class T>
void require_pass_over(const AttnOnlyPass<T>& pass, const arma::umat& tokens) {
  if (tokens.n_rows != pass.batch || pass.logits.n_rows != tokens.n_elem) {
    throw std::invalid_argument("next_token_loss: the pass (" + std::to_string(pass.batch) + " sequences, " +
                                dims(pass.logits.n_rows, pass.logits.n_cols) + " logits) is not over these tokens (" +
                                dims(tokens.n_rows, tokens.n_cols) + ")");
  }
  if (!tokens.is_empty() && tokens.max() >= pass.logits.n_cols) {
    throw std::invalid_argument("next_token_loss: token " + std::to_string(tokens.max()) +
                                " is outside the vocabulary of the logits (" + std::to_string(pass.logits.n_cols) +
                                ")");
  }
  require_finite_logits(pass.logits);
}

}  // namespace detail

inline void validate(const AttnOnlyShape& s) {
  const auto check = [](arma::uword value, arma::uword least, const char* what) {
    if (value < least || value > detail::kMaxSize) {
      throw std::invalid_argument(std::string(what) + " must be in [" + std::to_string(least) + ", " +
                                  std::to_string(detail::kMaxSize) + "], got " + std::to_string(value));
    }
  };
  check(s.vocab, 2, "the vocabulary");
  check(s.context, 2, "the context");
  check(s.width, 1, "the width");
  check(s.heads, 1, "the number of heads");
  check(s.d_k, 1, "d_k");
  check(s.layers, 1, "the number of layers");
  check(s.heads * s.d_k, 1, "heads x d_k");
}

// [parameter_table]
inline std::vector<ParamSpec> parameter_table(const AttnOnlyShape& s) {
  validate(s);
  const arma::uword hd = s.heads * s.d_k;
  std::vector<ParamSpec> table{{"E", s.vocab, s.width}, {"P", s.context, s.width}};
  for (arma::uword l = 0; l < s.layers; ++l) {
    std::string layer = "L";
    layer += std::to_string(l + 1);
    layer += '.';
    table.push_back({layer + "Wq", s.width, hd});
    table.push_back({layer + "Wk", s.width, hd});
    table.push_back({layer + "Wv", s.width, hd});
    table.push_back({layer + "Wo", hd, s.width});
  }
  if (s.final_norm) {
    table.push_back({"gain", 1, s.width});
    table.push_back({"bias", 1, s.width});
  }
  table.push_back({"U", s.width, s.vocab});
  return table;
}
// [parameter_table]

inline arma::uword parameter_count(const AttnOnlyShape& shape) {
  arma::uword n = 0;
  for (const ParamSpec& p : parameter_table(shape)) n += p.rows * p.cols;
  return n;
}

template <class T>
std::vector<arma::Mat<T>*> parameter_ptrs(AttnOnlyModel<T>& model) {
  return detail::ptrs_of(model);
}

template <class T>
std::vector<const arma::Mat<T>*> parameter_ptrs(const AttnOnlyModel<T>& model) {
  return detail::ptrs_of(model);
}

template <class T>
void check_shapes(const AttnOnlyModel<T>& model) {
  if (model.layers.size() != model.shape.layers) {
    throw std::invalid_argument("the model has " + std::to_string(model.layers.size()) + " layers, its shape says " +
                                std::to_string(model.shape.layers));
  }
  const std::vector<ParamSpec> table = parameter_table(model.shape);
  const auto ptrs = parameter_ptrs(model);
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (ptrs[i]->n_rows != table[i].rows || ptrs[i]->n_cols != table[i].cols) {
      throw std::invalid_argument(table[i].name + " is " + detail::dims(ptrs[i]->n_rows, ptrs[i]->n_cols) +
                                  ", expected " + detail::dims(table[i].rows, table[i].cols));
    }
  }
}

template <class T>
AttnOnlyModel<T> zero_model(const AttnOnlyShape& shape) {
  AttnOnlyModel<T> m;
  m.shape = shape;
  m.layers.resize(shape.layers);
  const std::vector<ParamSpec> table = parameter_table(shape);
  const auto ptrs = parameter_ptrs(m);
  for (std::size_t i = 0; i < table.size(); ++i) ptrs[i]->zeros(table[i].rows, table[i].cols);
  return m;
}

template <class T>
AttnOnlyModel<T> init_model(const AttnOnlyShape& shape, Random& rng) {
  AttnOnlyModel<T> m = zero_model<T>(shape);
  const double in = 1.0 / std::sqrt(static_cast<double>(shape.width));
  const double out = 1.0 / std::sqrt(static_cast<double>(shape.heads * shape.d_k));
  const std::vector<ParamSpec> table = parameter_table(shape);
  const auto ptrs = parameter_ptrs(m);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::string& name = table[i].name;
    if (name == "gain") {
      ptrs[i]->ones();
      continue;
    }
    if (name == "bias") continue;  // zero
    const bool embedding = name == "E" || name == "P";
    const bool output = name.size() > 2 && name.compare(name.size() - 2, 2, "Wo") == 0;
    const double std = embedding ? 1.0 : output ? out : in;
    *ptrs[i] =
        arma::conv_to<arma::Mat<T>>::from(rng.normal_matrix(table[i].rows, table[i].cols, std, UnitMap::k_plus_one));
  }
  return m;
}

// [forward]
template <class T>
void forward(const AttnOnlyModel<T>& model, const arma::umat& tokens, AttnOnlyPass<T>& pass, const arma::mat* keep,
             const BasicHooks<T>& hooks) {
  detail::start_pass(model, tokens, keep, pass);  // checks tokens and keep; pass.keep is layers x heads
  const AttnOnlyShape& s = model.shape;
  const arma::uword B = tokens.n_rows, T_ = tokens.n_cols, dk = s.d_k, hd = s.heads * dk;
  const arma::uvec ids = arma::vectorise(arma::umat(tokens.t()));  // N: token of row b T + t
  // N x width: X_0 = E[token] + P[position]
  arma::Mat<T> X = model.E.rows(ids) + arma::repmat(model.P.head_rows(T_), B, 1);
  for (arma::uword l = 0; l < s.layers; ++l) {
    const AttnLayer<T>& layer = model.layers[l];
    AttnLayerPass<T>& lp = pass.layers[l];
    if (hooks.residual) hooks.residual(l, X);
    lp.X = X;                                                    // N x width
    lp.QKV = X * arma::join_rows(layer.Wq, layer.Wk, layer.Wv);  // N x 3 hd: [Q K V] = X [Wq Wk Wv]
    lp.A.set_size(T_, T_, B * s.heads);
    lp.H.set_size(X.n_rows, hd);
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword h = 0; h < s.heads; ++h) {
        const arma::span seq(b * T_, b * T_ + T_ - 1), head(h * dk, h * dk + dk - 1);
        const arma::span q = head, k(hd + h * dk, hd + h * dk + dk - 1), v(2 * hd + h * dk, 2 * hd + h * dk + dk - 1);
        const arma::Mat<T> S = lp.QKV(seq, q) * lp.QKV(seq, k).t() / std::sqrt(static_cast<T>(dk));  // T x T
        lp.A.slice(b * s.heads + h) = causal_softmax(S);  // T x T: A = softmax(S + causal)
        lp.H(seq, head) = pass.keep(l, h) * lp.A.slice(b * s.heads + h) * lp.QKV(seq, v);  // T x d_k: keep A V
      }
    }
    if (!hooks.head_output) {
      X += lp.H * layer.Wo;  // X_{l+1} = X_l + Concat(heads) Wo
      continue;
    }
    arma::Mat<T> update(arma::size(X), arma::fill::zeros);  // the same sum, head by head: H_h Wo^h
    for (arma::uword h = 0; h < s.heads; ++h) {
      arma::Mat<T> write = lp.H.cols(h * dk, h * dk + dk - 1) * layer.Wo.rows(h * dk, h * dk + dk - 1);  // N x width
      hooks.head_output(l, h, write);
      update += write;
    }
    X += update;
  }
  if (hooks.residual) hooks.residual(s.layers, X);
  pass.X_out = std::move(X);
  if (s.final_norm) {
    // Y = (X_L - mean) / sqrt(var + eps) * gain + bias, row by row
    const arma::Col<T> mean = arma::mean(pass.X_out, 1);
    pass.Xhat = pass.X_out.each_col() - mean;                         // N x width
    const arma::Col<T> var = arma::mean(arma::square(pass.Xhat), 1);  // N
    pass.inv_std = T(1) / arma::sqrt(var + static_cast<T>(detail::kNormEps));
    pass.Xhat.each_col() %= pass.inv_std;
    pass.Y = pass.Xhat;
    pass.Y.each_row() %= model.gain;
    pass.Y.each_row() += model.bias;
    pass.logits = pass.Y * model.U;  // N x vocab
  } else {
    pass.logits = pass.X_out * model.U;  // N x vocab
  }
}
// [forward]

template <class T>
const arma::Mat<T>& attention_pattern(const AttnOnlyPass<T>& pass, arma::uword layer, arma::uword head, arma::uword b) {
  const arma::uword heads = pass.keep.n_cols;
  if (layer >= pass.layers.size() || head >= heads || b >= pass.batch) {
    throw std::invalid_argument("attention_pattern: no layer " + std::to_string(layer) + ", head " +
                                std::to_string(head) + ", sequence " + std::to_string(b) + " in this pass");
  }
  return pass.layers[layer].A.slice(b * heads + head);
}

template <class T>
double next_token_loss_sum(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits,
                           double grad_scale) {
  const arma::uword B = tokens.n_rows, T_ = tokens.n_cols;
  detail::require_pass_over(pass, tokens);
  const arma::Col<T> top = arma::max(pass.logits, 1);        // N: each row's largest logit
  arma::Mat<T> p = arma::exp(pass.logits.each_col() - top);  // N x vocab, unnormalized softmax
  const arma::Col<T> sum = arma::sum(p, 1);                  // N
  double total = 0.0;
  for (arma::uword b = 0; b < B; ++b) {
    for (arma::uword t = 0; t + 1 < T_; ++t) {
      const arma::uword r = b * T_ + t;
      // -log softmax(z)[label] = log sum exp(z - m) - (z_label - m)
      total += std::log(static_cast<double>(sum[r])) - static_cast<double>(pass.logits(r, tokens(b, t + 1)) - top[r]);
    }
  }
  if (dlogits != nullptr) {
    // d/dz of -log softmax(z)[label] = softmax(z) - onehot(label); the last positions predict nothing
    p.each_col() /= sum;
    for (arma::uword b = 0; b < B; ++b) {
      p.row(b * T_ + T_ - 1).zeros();
      for (arma::uword t = 0; t + 1 < T_; ++t) p(b * T_ + t, tokens(b, t + 1)) -= T(1);
    }
    *dlogits = static_cast<T>(grad_scale) * p;
  }
  return total;
}

template <class T>
double next_token_loss(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits) {
  const double count = static_cast<double>(tokens.n_rows * (tokens.n_cols - 1));
  return next_token_loss_sum(pass, tokens, dlogits, 1.0 / count) / count;
}

template <class T>
arma::mat next_token_losses(const AttnOnlyPass<T>& pass, const arma::umat& tokens) {
  const arma::uword B = tokens.n_rows, T_ = tokens.n_cols;
  detail::require_pass_over(pass, tokens);
  arma::mat out(B, T_ - 1);
  for (arma::uword b = 0; b < B; ++b) {
    for (arma::uword t = 0; t + 1 < T_; ++t) {
      const arma::vec z = arma::conv_to<arma::vec>::from(pass.logits.row(b * T_ + t).t());
      const double m = z.max();
      out(b, t) = m + std::log(arma::accu(arma::exp(z - m))) - z(tokens(b, t + 1));
    }
  }
  return out;
}

/// The backward pass from the logits to the last stream X_L (through the final norm when the
/// model has one): fills w.grad.U (and gain, bias) and w.dX (N x width). Shared by both backward passes.
template <class T>
void unembedding_backward(const AttnOnlyModel<T>& model, const AttnOnlyPass<T>& pass, const arma::Mat<T>& dlogits,
                          AttnOnlyBackward<T>& w) {
  if (model.shape.final_norm) {
    // forward: logits = Y U   =>   dU = Y^T dlogits,  dY = dlogits U^T
    w.grad.U = pass.Y.t() * dlogits;
    const arma::Mat<T> dY = dlogits * model.U.t();
    // forward: Y = Xhat gain + bias   =>   dgain = sum_rows dY % Xhat,  dbias = sum_rows dY,  dXhat = dY gain
    w.grad.gain = arma::sum(dY % pass.Xhat, 0);
    w.grad.bias = arma::sum(dY, 0);
    arma::Mat<T> dXhat = dY.each_row() % model.gain;
    // forward: Xhat = (X - mean) inv_std   =>   dX = inv_std (dXhat - mean(dXhat) - Xhat mean(dXhat % Xhat))
    const arma::Col<T> m1 = arma::mean(dXhat, 1), m2 = arma::mean(dXhat % pass.Xhat, 1);
    w.dX = (dXhat.each_col() - m1) - pass.Xhat.each_col() % m2;
    w.dX.each_col() %= pass.inv_std;
  } else {
    // forward: logits = X_L U   =>   dU = X_L^T dlogits,  dX_L = dlogits U^T
    w.grad.U = pass.X_out.t() * dlogits;
    w.dX = dlogits * model.U.t();
  }
}

// [backward]
// long function: the backward pass, one page of the mathematics
template <class T>
void backward(const AttnOnlyModel<T>& model, const arma::umat& tokens, const AttnOnlyPass<T>& pass,
              const arma::Mat<T>& dlogits, AttnOnlyBackward<T>& w) {
  const AttnOnlyShape& s = model.shape;
  const arma::uword B = pass.batch, T_ = tokens.n_cols, dk = s.d_k, hd = s.heads * dk;
  const T scale = T(1) / std::sqrt(static_cast<T>(dk));
  w.grad = zero_model<T>(s);
  unembedding_backward(model, pass, dlogits, w);  // w.dX: N x width, the gradient of X_L
  for (arma::uword l = s.layers; l-- > 0;) {
    const AttnLayer<T>& layer = model.layers[l];
    const AttnLayerPass<T>& lp = pass.layers[l];
    AttnLayer<T>& g = w.grad.layers[l];
    // forward: X_{l+1} = X_l + H Wo   =>   dWo = H^T dX_{l+1},  dH = dX_{l+1} Wo^T,  dX_l = dX_{l+1} + ...
    g.Wo = lp.H.t() * w.dX;
    w.dH = w.dX * layer.Wo.t();
    w.dQKV.zeros(lp.QKV.n_rows, 3 * hd);
    for (arma::uword b = 0; b < B; ++b) {
      for (arma::uword h = 0; h < s.heads; ++h) {
        const arma::span seq(b * T_, b * T_ + T_ - 1), head(h * dk, h * dk + dk - 1);
        const arma::span q = head, k(hd + h * dk, hd + h * dk + dk - 1), v(2 * hd + h * dk, 2 * hd + h * dk + dk - 1);
        const arma::Mat<T>& A = lp.A.slice(b * s.heads + h);
        const T keep = pass.keep(l, h);
        // forward: H = keep A V   =>   dA = keep dH V^T,  dV = keep A^T dH
        w.dA = keep * w.dH(seq, head) * lp.QKV(seq, v).t();
        w.dQKV(seq, v) = keep * A.t() * w.dH(seq, head);
        // forward: A = softmax(S + causal) by rows   =>   dS_ij = A_ij (dA_ij - sum_m dA_im A_im)
        softmax_rows_backward(A, w.dA, w.dS, true);
        // forward: S = Q K^T / sqrt(d_k)   =>   dQ = dS K / sqrt(d_k),  dK = dS^T Q / sqrt(d_k)
        w.dQKV(seq, q) = scale * w.dS * lp.QKV(seq, k);
        w.dQKV(seq, k) = scale * w.dS.t() * lp.QKV(seq, q);
      }
    }
    // forward: [Q K V] = X [Wq Wk Wv]   =>   [dWq dWk dWv] = X^T [dQ dK dV],
    //                                        dX_l = dX_{l+1} + [dQ dK dV] [Wq Wk Wv]^T
    const arma::Mat<T> dW = lp.X.t() * w.dQKV;
    g.Wq = dW.cols(0, hd - 1);
    g.Wk = dW.cols(hd, 2 * hd - 1);
    g.Wv = dW.cols(2 * hd, 3 * hd - 1);
    w.dX += w.dQKV * arma::join_rows(layer.Wq, layer.Wk, layer.Wv).t();
  }
  // forward: X_0 = E[token] + P[position]   =>   each row of dX_0 adds into its token's row of dE
  //                                              and its position's row of dP
  for (arma::uword b = 0; b < B; ++b) {
    for (arma::uword t = 0; t < T_; ++t) {
      w.grad.E.row(tokens(b, t)) += w.dX.row(b * T_ + t);
      w.grad.P.row(t) += w.dX.row(b * T_ + t);
    }
  }
}
// [backward]

}  // namespace attn
