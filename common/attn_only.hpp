/// \file attn_only.hpp
/// \brief An L-layer, attention-only transformer (several causal heads per layer, learned
/// positions, an optional final layer norm): forward pass over a batch, next-token cross-entropy,
/// backward pass by hand, Adam, and save/load, all templated over the scalar type (float trains,
/// double checks gradients). Chapters 08 and 09 train it.
///
/// Tokens are rows. A batch of B sequences of T tokens is stacked into one N x width matrix
/// (N = B T, row b T + t = token t of sequence b), so every projection is one large product;
/// only the T x T attention of each sequence and head is done block by block, with BLAS working
/// on the blocks in place (no copies).
///
/// Forward (per layer l, heads h = 0 .. heads - 1, causal):
///   X_0 = E[token] + P[position]                        (N x width)
///   Q = X_l Wq,  K = X_l Wk,  V = X_l Wv                  (N x heads d_k; head h = columns h d_k ..)
///   A_bh = softmax(Q_bh K_bh^T / sqrt(d_k) + causal)       (T x T, per sequence b and head h)
///   H_bh = keep_lh A_bh V_bh                               (T x d_k; keep = 1 unless ablated)
///   X_{l+1} = X_l + H Wo                                   (H: N x heads d_k, Concat of the heads)
///   Y = LayerNorm(X_L) = (X_L - mean) / sqrt(var + eps) * gain + bias   (if final_norm; else Y = X_L)
///   logits = Y U                                           (N x vocab)
/// No MLP and no biases in the projections: the residual stream carries the embeddings and what
/// the heads add.
///
/// Sources: the article, "Reverse-engineer a head you trained" and "Watch real heads"; Vaswani et
/// al. 2017, §3.2.2 (multi-head attention); Ba et al. 2016 (layer normalization); Elhage et al.
/// 2021, "A Mathematical Framework for Transformer Circuits" (attention-only models); Kingma & Ba
/// 2015, Algorithm 1 (Adam); Karpathy's llm.c (one table of parameter tensors).
#pragma once

#include <armadillo>
#include <cstdint>
#include <string>
#include <vector>

#include "common/random.hpp"

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

/// Throws std::invalid_argument, naming the size and its allowed range, unless every size is >= 1
/// (vocab, context >= 2) and none is absurd (each at most 4096, heads d_k at most 4096).
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
/// with final_norm), then U (width x vocab). Throws std::invalid_argument for a shape validate()
/// refuses.
std::vector<ParamSpec> parameter_table(const AttnOnlyShape& shape);

/// Total number of parameters in the table (53,504 for chapter 09's default model: 97 tokens,
/// context 128, width 64, 2 layers of 4 heads of 16, final norm). Throws std::invalid_argument for a shape validate()
/// refuses.
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
/// layer count is model.layers.size()). Throws nothing (beyond std::bad_alloc).
template <class T>
std::vector<arma::Mat<T>*> parameter_ptrs(AttnOnlyModel<T>& model);
/// The same, read-only.
template <class T>
std::vector<const arma::Mat<T>*> parameter_ptrs(const AttnOnlyModel<T>& model);

/// Throws std::invalid_argument naming the group and both shapes unless every matrix has the
/// shape the table gives.
template <class T>
void check_shapes(const AttnOnlyModel<T>& model);

/// Every parameter zero, each group in its table shape (used for gradients); throws
/// std::invalid_argument for a shape validate() refuses.
template <class T>
AttnOnlyModel<T> zero_model(const AttnOnlyShape& shape);

/// Random initial parameters, drawn in double from `rng` in table order and then converted, so a
/// float and a double model from the same seed agree: E and P ~ N(0, 1); Wq, Wk, Wv ~ N(0, 1 / width);
/// Wo ~ N(0, 1 / (heads d_k)); gain = 1, bias = 0; U ~ N(0, 1 / width). Throws std::invalid_argument for a shape
/// validate() refuses.
template <class T>
AttnOnlyModel<T> init_model(const AttnOnlyShape& shape, Random& rng);

/// `model` with every parameter converted to another scalar type (same shapes; float <-> double
/// rounds to the nearest). Throws std::invalid_argument if model's shape is refused by validate().
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

  /// Q (part 0), K (part 1) or V (part 2) of every head: N x heads d_k, head h in columns h d_k ..
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

/// Runs the model on `tokens` (B x T, row = sequence, entries < vocab, T = context) into `pass`.
/// keep: optional layers x heads matrix multiplying each head's mixture before Wo (1 keeps a
/// head, 0 ablates it); nullptr keeps every head. Throws std::invalid_argument for a wrong tokens
/// shape, a token out of range, a wrong keep shape, or a score that is not finite (NaN or inf
/// parameters: no silent NaN weights).
template <class T>
void forward(const AttnOnlyModel<T>& model, const arma::umat& tokens, AttnOnlyPass<T>& pass,
             const arma::mat* keep = nullptr);

/// The attention weights of head `head` of layer `layer` on sequence b of the last forward: T x T.
/// Throws std::invalid_argument if there is no such head or sequence.
template <class T>
const arma::Mat<T>& attention_pattern(const AttnOnlyPass<T>& pass, arma::uword layer, arma::uword head, arma::uword b);

/// Sum of next-token cross-entropies (nats) over every position t < T - 1 of every sequence
/// (label tokens(b, t + 1)), accumulated in double. If dlogits is not null it receives
/// grad_scale times the gradient of that sum with respect to pass.logits (N x vocab, zero on the
/// rows of the last positions, which predict nothing). Pass grad_scale = 1 / (number of targets
/// of the whole batch) to get the gradient of the mean. Throws std::invalid_argument if the pass
/// was not made over `tokens` (its logits do not have B T rows).
template <class T>
double next_token_loss_sum(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits,
                           double grad_scale);

/// Mean next-token loss (nats per target, B (T - 1) targets) of the last forward pass and, if
/// dlogits is not null, its gradient (N x vocab). Throws std::invalid_argument, as
/// next_token_loss_sum() does, when the pass was not made over `tokens`.
template <class T>
double next_token_loss(const AttnOnlyPass<T>& pass, const arma::umat& tokens, arma::Mat<T>* dlogits);

/// Per-target losses in nats: a B x (T - 1) matrix, entry (b, t) = -log p(tokens(b, t + 1) | tokens(b, 0..t)).
/// Throws std::invalid_argument if the pass was not made over `tokens`.
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
/// step is the row-wise softmax backward of common/softmax_backward.hpp). The shapes are those of
/// the pass: calling it with another model's pass is a precondition violation, checked by
/// Armadillo's size checks (std::logic_error), not silently wrong.
template <class T>
void backward(const AttnOnlyModel<T>& model, const arma::umat& tokens, const AttnOnlyPass<T>& pass,
              const arma::Mat<T>& dlogits, AttnOnlyBackward<T>& work);

/// Adam (Kingma & Ba 2015, Algorithm 1; beta1 0.9, beta2 0.999, eps 1e-8) over the parameter
/// table of one model, in its own scalar type. The same update as attn::Adam of optim.hpp, which
/// works on lists of double matrices.
template <class T>
class AttnOnlyAdam {
 public:
  /// lr: finite and > 0 (throws std::invalid_argument otherwise).
  explicit AttnOnlyAdam(double lr);
  /// One step: model <- model - lr m_hat / (sqrt(v_hat) + eps), from the gradient `grad`.
  /// Throws std::invalid_argument if the two shapes differ or change between calls.
  void step(AttnOnlyModel<T>& model, const AttnOnlyModel<T>& grad);
  /// Steps taken.
  long steps() const { return t_; }

 private:
  double lr_;
  long t_ = 0;
  std::vector<arma::Mat<T>> m_, v_;
};

/// One training step split over threads: the batch is cut into shards of 4 whole sequences (the
/// same shards whatever the number of threads, so results do not depend on it), each free thread takes the next shard
/// and runs forward, loss and backward on it (sequences never interact in this model), the shards' gradients are
/// summed, and Adam takes one step. Threads: std::thread::hardware_concurrency() unless given; BLAS is set to one
/// thread (see use_one_blas_thread()).
template <class T>
class AttnOnlyTrainer {
 public:
  /// lr: Adam's learning rate (finite, > 0; std::invalid_argument otherwise). threads: 0 means
  /// one per core.
  AttnOnlyTrainer(double lr, unsigned threads = 0);
  /// Runs one step on `tokens` (B x T) and returns the batch's mean next-token loss before the update.
  /// An exception in a thread (e.g. forward() refusing a non-finite score) is rethrown here, and
  /// the model is then left unchanged. Also throws std::invalid_argument for a tokens shape or
  /// token that forward() refuses, checked before any thread starts.
  double step(AttnOnlyModel<T>& model, const arma::umat& tokens);
  /// Threads used.
  unsigned threads() const { return threads_; }

 private:
  struct Shard {
    arma::umat tokens;
    AttnOnlyPass<T> pass;
    AttnOnlyBackward<T> work;
    arma::Mat<T> dlogits;
    double loss_sum = 0.0;
  };
  unsigned threads_;
  AttnOnlyAdam<T> adam_;
  std::vector<Shard> shards_;
  AttnOnlyModel<T> total_;
};

/// Sets BLAS to one thread when it is OpenBLAS (looked up at run time, so other BLAS libraries
/// work too) and keeps freed memory in the heap. The trainer's threads each run whole sequences,
/// so BLAS threads would only compete with them for the cores. Throws nothing.
void use_one_blas_thread();

/// Writes the model as text (a header with the shape, then each table group: name, rows, cols and
/// values with 9 significant digits, enough to read a float back exactly) to `path`, whole or not
/// at all (attn::write_file_atomically). Throws attn::IoError (a std::runtime_error) if it cannot be written.
template <class T>
void save_model(const AttnOnlyModel<T>& model, const std::string& path);

/// Reads a model written by save_model(). Throws std::runtime_error naming the file for a missing
/// file, a wrong header, a group out of order or of the wrong shape, an entry that is not a finite
/// number by the number rule (common/numbers.hpp) or lies beyond +-1e6, or a truncated file.
template <class T>
AttnOnlyModel<T> load_model(const std::string& path);

}  // namespace attn
