/// \file chapters/08_induction/model.hpp
/// \brief Chapter 08 model: a two-layer, attention-only transformer with several heads per layer,
/// its forward pass over a batch, next-token cross-entropy, and its backward pass by hand.
///
/// Tokens are rows. A batch of B sequences of T tokens is stacked into one N x width matrix
/// (N = B T, row b T + t = token t of sequence b), so every projection is one large product;
/// only the T x T attention of each sequence and head is done block by block.
///
/// Forward (per layer l, heads h = 0 .. heads - 1, causal):
///   X_0 = E[token] + P[position]                       (N x width)
///   Q = X_l Wq,  K = X_l Wk,  V = X_l Wv                 (N x heads d_k; head h = columns h d_k ..)
///   A_bh = softmax(Q_bh K_bh^T / sqrt(d_k) + causal)      (T x T, per sequence b and head h)
///   H_bh = A_bh V_bh                                      (T x d_k)
///   X_{l+1} = X_l + H Wo                                  (H: N x heads d_k, Concat of the heads)
///   logits = X_L U                                        (N x vocab)
/// No MLP, no layer norm: the residual stream carries the embeddings and what the heads add.
///
/// Sources: the article, "Reverse-engineer a head you trained"; Vaswani et al. 2017, §3.2.2
/// (multi-head attention, Concat(head_1, ..., head_h) W^O); Elhage et al. 2021, "A Mathematical
/// Framework for Transformer Circuits" (attention-only models and induction heads).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/optim.hpp"
#include "repeats.hpp"

namespace ch08 {

/// Sizes of the model.
struct ModelShape {
  arma::uword vocab = 32;    ///< tokens 0 .. vocab - 1
  arma::uword context = 32;  ///< positions per sequence, T
  arma::uword width = 32;    ///< residual stream width d
  arma::uword heads = 2;     ///< heads per layer
  arma::uword d_k = 16;      ///< query/key/value width of each head
  arma::uword layers = 2;    ///< attention layers
};

/// Throws std::invalid_argument unless every size is >= 1 (vocab >= 2) and none is absurd
/// (each at most 4096, heads d_k at most 4096). Source: Elhage et al. 2021 (the two-layer attention-only
/// transformer).
void validate(const ModelShape& shape);

/// One attention layer's parameters. Head h uses columns [h d_k, (h + 1) d_k) of Wq, Wk, Wv
/// and rows [h d_k, (h + 1) d_k) of Wo.
struct Layer {
  arma::mat Wq;  ///< width x heads d_k
  arma::mat Wk;  ///< width x heads d_k
  arma::mat Wv;  ///< width x heads d_k
  arma::mat Wo;  ///< heads d_k x width: writes the concatenated head mixtures into the stream
};

/// All parameters (the same struct holds their gradients).
struct Model {
  ModelShape shape;           ///< the sizes
  arma::mat E;                ///< vocab x width token embeddings (row = a token)
  arma::mat P;                ///< context x width learned positional embeddings (row = a position)
  std::vector<Layer> layers;  ///< shape.layers attention layers
  arma::mat U;                ///< width x vocab unembedding
};

/// Every parameter zero (used for gradients), with the shapes of Model. Throws std::invalid_argument
/// for a bad shape (validate). Source: Elhage et al. 2021 (the two-layer attention-only transformer).
Model zero_model(const ModelShape& shape);

/// Random initial parameters: E and P ~ N(0, 1); Wq, Wk, Wv ~ N(0, 1 / width); Wo ~ N(0, 1 / (heads d_k));
/// U ~ N(0, 1 / width). Throws std::invalid_argument for a bad shape. Source: Elhage et al. 2021 (the
/// two-layer attention-only transformer).
Model init_model(const ModelShape& shape, Rng& rng);

/// The parameter groups in a fixed order (E, P, then Wq, Wk, Wv, Wo of each layer, then U),
/// paired with the same groups of `grad`, for attn::Adam. Names look like "L1.Wq". Both must outlive
/// the list; throws nothing (Adam checks the shapes). Source: llm.c's parameter table.
std::vector<attn::Param> param_groups(Model& value, const Model& grad);

/// What one layer computed, kept for the backward pass and for reading attention patterns.
struct LayerPass {
  arma::mat X;         ///< N x width: the stream entering the layer
  arma::mat Q;         ///< N x heads d_k queries, Q = X Wq
  arma::mat K;         ///< N x heads d_k keys, K = X Wk
  arma::mat V;         ///< N x heads d_k values, V = X Wv
  arma::cube Qb;       ///< T x d_k x (B heads): slice b heads + h is head h's queries in sequence b
  arma::cube Kb;       ///< T x d_k x (B heads): the keys, same slice order
  arma::cube Vb;       ///< T x d_k x (B heads): the values, same slice order
  arma::cube A;        ///< T x T x (B heads): the attention weights, same slice order
  arma::mat H;         ///< N x heads d_k: Concat of the head mixtures H_bh = A_bh V_bh
};

/// A forward pass over a batch (reused between calls of the same size: no reallocation).
struct ForwardPass {
  arma::uword batch = 0;         ///< B sequences
  std::vector<LayerPass> layers; ///< one per layer
  arma::mat X_out;               ///< N x width: the final stream
  arma::mat logits;              ///< N x vocab
  arma::mat S;                   ///< T x T scratch for scores
  arma::mat Hb;                  ///< T x d_k scratch
};

/// Runs the model on `tokens` (B x T, row = sequence, entries < vocab, T = context) into `pass`.
/// keep: optional layers x heads matrix multiplying each head's mixture before Wo (1 keeps a
/// head, 0 ablates it by zeroing its output); nullptr keeps every head.
/// Throws std::invalid_argument for a wrong tokens shape, a token out of range or a wrong keep shape.
/// Source: Elhage et al. 2021 (the two-layer attention-only transformer); Vaswani et al. 2017, §3.2.2.
void forward(const Model& model, const arma::umat& tokens, ForwardPass& pass, const arma::mat* keep = nullptr);

/// The attention weights of head `head` of layer `layer` on sequence b of the last forward: T x T.
/// Throws std::invalid_argument if layer, head or b is out of range. Source: the article, "Reverse-engineer
/// a head you trained".
const arma::mat& attention_pattern(const ForwardPass& pass, arma::uword layer, arma::uword head, arma::uword b,
                                   arma::uword heads);

/// Row indices of the stacked logits that predict a next token (t < T - 1), and their labels.
struct Targets {
  arma::uvec rows;    ///< B (T - 1) x 1: b T + t for t = 0 .. T - 2
  arma::uvec labels;  ///< B (T - 1) x 1: tokens(b, t + 1)
};

/// The next-token targets of a B x T batch. Throws std::invalid_argument if T < 2.
/// Source: next-token prediction (Olsson et al. 2022, §2).
Targets next_token_targets(const arma::umat& tokens);

/// Mean next-token cross-entropy over every predicted position (attn::cross_entropy) and, if
/// dlogits is not null, its gradient with respect to pass.logits (N x vocab, zero on rows that
/// predict nothing). Throws std::invalid_argument like attn::cross_entropy (a label out of range,
/// a non-finite logit). Source: the article's loss (`nn.CrossEntropyLoss`).
double next_token_loss(const ForwardPass& pass, const Targets& targets, arma::mat* dlogits);

/// Scratch and gradients of the backward pass (reused between calls of the same size).
struct BackwardPass {
  Model grad;                       ///< d loss / d every parameter
  arma::mat dX;                     ///< N x width: gradient of the stream being walked back
  arma::mat dH;                     ///< N x heads d_k: gradient of the concatenated mixtures
  arma::mat dQ;                     ///< N x heads d_k
  arma::mat dK;                     ///< N x heads d_k
  arma::mat dV;                     ///< N x heads d_k
  arma::mat dHb;                    ///< T x d_k block of one sequence and head
  arma::mat dQb;                    ///< T x d_k block
  arma::mat dKb;                    ///< T x d_k block
  arma::mat dVb;                    ///< T x d_k block
  arma::mat dA;                     ///< T x T: gradient of the weights
  arma::mat dS;                     ///< T x T: gradient of the scores
};

/// Backpropagates dlogits (N x vocab) through the pass made by forward() without ablation,
/// writing every parameter's gradient into work.grad. Each stage quotes the forward line it inverts.
/// Does not re-check shapes: the pass must come from forward() on `tokens` with this model (Armadillo
/// throws std::logic_error otherwise). Source: Goodfellow et al. 2016, §6.5; checked against central
/// differences in the ch08 tests.
void backward(const Model& model, const arma::umat& tokens, const ForwardPass& pass, const arma::mat& dlogits,
              BackwardPass& work);

/// Causal softmax of one T x T score block, written into A without allocating:
/// A[i, j] = exp(S[i, j] - m_i) / sum_{j' <= i} exp(S[i, j'] - m_i) for j <= i, 0 for j > i.
/// Equals attn::softmax_rows(S + attn::causal_mask(T)). S and A must be square and the same size.
/// Throws std::invalid_argument if a score at or below the diagonal is NaN or infinite (as
/// attn::softmax_rows refuses them), naming its row and column. Source: Vaswani et al. 2017, §3.2.3
/// (masking the decoder's future).
void causal_softmax(const arma::mat& S, arma::mat& A);

}  // namespace ch08
