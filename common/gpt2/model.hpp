/// \file common/gpt2/model.hpp
/// \brief GPT-2, the model: learned token and position embeddings, pre-norm blocks (causal
/// multi-head attention, then an MLP with GELU, each with biases and a residual), a final norm and
/// the unembedding tied to the token embedding. The forward pass keeps what the interpretability
/// tools read: every head's attention pattern and every head's write into the residual stream.
///
/// Tokens are rows, as in common/attention: the residual stream X is n x d (row i: token i), every
/// weight multiplies on the right (`X W`, W: d_in x d_out), which is also how GPT-2's checkpoint
/// stores its Conv1D weights. A layer's c_attn weight is d x 3d: the query, key and value
/// projections side by side, and within each, head h owns columns h d_h .. (h + 1) d_h - 1
/// (d_h = d / heads). Row block h of c_proj's weight (d_h x d) is head h's output projection W_O^h.
///
/// Throws: std::invalid_argument naming the value for a size of 0, a width the heads do not divide,
/// or an epsilon that is not finite and positive (validate, and parameter_table, parameter_count,
/// random_weights, converted and check_weights, which validate the config); for weights whose
/// blocks are not config.layers (parameter_table for reading, converted, check_weights); naming the
/// parameter and both shapes, or the non-finite entry (check_weights); for an empty or too long
/// sequence or an id outside the vocabulary, naming it and its position (forward); for a layer past
/// `layers` or a `clean` of another model's shape (resume, resume_streams) or a logit row outside
/// the sequence (resume); for a score that is not finite (attn::causal_softmax), and what a hook
/// throws (forward, resume, resume_streams). The others (layer_norm, gelu, affine, unembed) throw
/// nothing (beyond std::bad_alloc): their callers check the shapes.
/// Sources: Radford et al. 2019, "Language Models are Unsupervised Multitask Learners", §2.3 (GPT-2's
/// changes to GPT: layer norm moved to each sub-block's input, a final layer norm, context 1024) and
/// Table 2 (the sizes); Radford et al. 2018 (GPT: learned positions, the tied unembedding, GELU, the
/// initial std 0.02 that GPT-2 keeps); Vaswani et al. 2017, §3.2 (attention) and §3.2.2 (multi-head
/// attention); Hendrycks & Gimpel 2016, §2 (GELU, tanh form), as in GPT-2's released model.py; Ba et
/// al. 2016, "Layer Normalization", §3; the structure of llm.c's ParameterTensors and the names of
/// Hugging Face's GPT2Model (the parameter table); Elhage et al. 2021, "A Mathematical Framework for
/// Transformer Circuits" (heads' outputs as separate writes into the residual stream).
#pragma once

#include <armadillo>
#include <functional>
#include <string>
#include <vector>

#include "common/attention/hooks.hpp"
#include "common/attention/random.hpp"

namespace gpt2 {

/// GPT-2's sizes.
struct Config {
  arma::uword vocab = 50257;   ///< tokens (rows of the embedding table)
  arma::uword context = 1024;  ///< longest sequence (rows of the position table)
  arma::uword width = 768;     ///< d, the residual stream's width
  arma::uword layers = 12;     ///< blocks
  arma::uword heads = 12;      ///< heads per block; d_h = width / heads
  double epsilon = 1e-5;       ///< layer norm's variance floor
};

/// GPT-2 small's sizes (124M parameters): the defaults above.
inline constexpr Config kSmall{};

/// Refuses a size of 0, a width the heads do not divide, or an epsilon that is not finite and
/// positive.
void validate(const Config& config);

/// One block's weights (the names are the checkpoint's, after "h.<layer>."), in T: float for the
/// tools (the checkpoint's own precision), double for the checks that need it.
template <class T>
struct BasicBlock {
  arma::Row<T> ln_1_gain;       ///< 1 x d: the attention sub-block's input norm, gain
  arma::Row<T> ln_1_bias;       ///< 1 x d: the attention sub-block's input norm, bias
  arma::Mat<T> attn_weight;     ///< d x 3d: [W_Q | W_K | W_V], each d x d, heads as column blocks
  arma::Row<T> attn_bias;       ///< 1 x 3d: [b_Q | b_K | b_V]
  arma::Mat<T> proj_weight;     ///< d x d: W_O, head h's rows h d_h .. (h + 1) d_h - 1
  arma::Row<T> proj_bias;       ///< 1 x d: b_O, added once, not per head
  arma::Row<T> ln_2_gain;       ///< 1 x d: the MLP sub-block's input norm, gain
  arma::Row<T> ln_2_bias;       ///< 1 x d: the MLP sub-block's input norm, bias
  arma::Mat<T> fc_weight;       ///< d x 4d: the MLP's first layer
  arma::Row<T> fc_bias;         ///< 1 x 4d
  arma::Mat<T> fc_proj_weight;  ///< 4d x d: the MLP's second layer
  arma::Row<T> fc_proj_bias;    ///< 1 x d
};

using Block = BasicBlock<float>;  ///< a block of the tools' model

/// Every weight of a GPT-2 model, in T.
template <class T>
struct BasicWeights {
  Config config;                      ///< the sizes every matrix below has
  arma::Mat<T> wte;                   ///< vocab x d: row t is token t's embedding, and its unembedding
  arma::Mat<T> wpe;                   ///< context x d: row i is position i's embedding
  std::vector<BasicBlock<T>> blocks;  ///< `layers` blocks, first to last
  arma::Row<T> ln_f_gain;             ///< 1 x d: the final norm, gain
  arma::Row<T> ln_f_bias;             ///< 1 x d: the final norm, bias
};
using Weights = BasicWeights<float>;  ///< what the tools run: float32, as the checkpoint stores it

/// One parameter of the table every loader, counter and checker goes through; M is arma::Mat<T>
/// for filling a model, const arma::Mat<T> for reading one.
template <class M>
struct ParameterOf {
  std::string name;  ///< the checkpoint's name, e.g. "h.0.attn.c_attn.weight"
  arma::uword rows;  ///< rows it must have (1 for a vector)
  arma::uword cols;  ///< columns it must have
  bool vector;       ///< stored as a 1-D tensor of `cols` entries (gains and biases)
  M* slot;           ///< where it lives in the Weights (a row vector for a vector)
};
template <class T>
using Parameter = ParameterOf<arma::Mat<T>>;  ///< a slot to fill
template <class T>
using ConstParameter = ParameterOf<const arma::Mat<T>>;  ///< a slot to read

/// The parameter table of `weights`, in the checkpoint's order of mention: wte, wpe, each block's
/// ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj (weight, bias), then ln_f.
/// Sizes come from weights.config; weights.blocks is resized to config.layers. The slots point
/// into `weights`, which must outlive the table.
template <class T>
std::vector<Parameter<T>> parameter_table(BasicWeights<T>& weights);

/// The same table for reading; weights.blocks must hold config.layers blocks.
template <class T>
std::vector<ConstParameter<T>> parameter_table(const BasicWeights<T>& weights);

/// Number of parameters of a model of these sizes (GPT-2 small: 124,439,808).
arma::uword parameter_count(const Config& config);

/// A model of `config`'s sizes with random weights for timing and tests: matrices N(0, 0.02^2),
/// biases N(0, 0.02^2), gains 1 + N(0, 0.02^2), drawn from `rng` in the table's order.
template <class T = float>
BasicWeights<T> random_weights(const Config& config, attn::Random& rng);

/// `weights` in another precision (every entry converted; float to double is exact).
template <class To, class From>
BasicWeights<To> converted(const BasicWeights<From>& weights);

/// Checks every weight's shape against weights.config and its entries for NaN or inf.
template <class T>
void check_weights(const BasicWeights<T>& weights);

/// What one block computed on one sequence of n tokens.
template <class T>
struct BasicLayerTrace {
  arma::Mat<T> resid_pre;                  ///< n x d: the residual stream entering the block
  std::vector<arma::Mat<T>> patterns;      ///< per head, n x n: A = softmax(Q K^T / sqrt(d_h) + mask)
  std::vector<arma::Mat<T>> head_outputs;  ///< per head, n x d: z_h W_O^h, what head h adds (b_O apart)
  arma::Mat<T> resid_mid;                  ///< n x d: after the attention sub-block
  arma::Mat<T> mlp_out;                    ///< n x d: what the MLP adds
};

/// A forward pass: the logits and what every block computed.
template <class T>
struct BasicPass {
  std::vector<arma::uword> tokens;         ///< the n input ids
  std::vector<BasicLayerTrace<T>> layers;  ///< one per block
  arma::Mat<T> resid_final;                ///< n x d: the residual stream after the last block
  arma::Mat<T> logits;                     ///< n x vocab: row i scores the token after position i
                                           ///< (resume(): only the rows it was asked for, in that order)
};
using LayerTrace = BasicLayerTrace<float>;  ///< a block of the tools' passes
using Pass = BasicPass<float>;              ///< the tools' passes

/// Interventions a pass applies as it goes: head_output sees each head's n x d write z_h W_O^h
/// (b_O apart) before it joins the stream; residual sees the n x d stream entering block `layer`
/// (layer = layers: the stream entering the final norm). The attention-only model takes the same.
using Hooks = attn::BasicHooks<float>;

/// Layer norm of every row: (x - mean) / sqrt(var + epsilon) * gain + bias, var the population
/// variance of the row. X: n x d; gain, bias: 1 x d; returns n x d (the caller checks the shapes).
template <class T>
arma::Mat<T> layer_norm(const arma::Mat<T>& X, const arma::Row<T>& gain, const arma::Row<T>& bias, double epsilon);

/// GELU in GPT-2's tanh form, entry by entry: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
/// computed as x / (1 + e^(-2u)) with u the tanh's argument (the same function: one exp is
/// cheaper than a tanh). Any shape.
template <class T>
arma::Mat<T> gelu(const arma::Mat<T>& X);

/// What affine() applies to its result.
enum class Activation { none, gelu };

/// act(X W + b): X rows x k (tokens as rows), W k x m (a weight matrix), b 1 x m. W's columns are
/// cut into one block per core, each block's product, bias and activation computed at once on a
/// thread of its own (the BLAS runs one thread in these programs); the numbers are those of
/// act(X * W + b) computed whole. Returns rows x m.
template <class T>
arma::Mat<T> affine(const arma::Mat<T>& X, const arma::Mat<T>& W, const arma::Row<T>& b,
                    Activation act = Activation::none);

/// X wte^T, the tied unembedding (X: rows x d, final-normed streams; wte: vocab x d): the vocabulary
/// cut into one block of tokens per core, multiplied at once. Returns rows x vocab.
template <class T>
arma::Mat<T> unembed(const BasicWeights<T>& weights, const arma::Mat<T>& X);

/// Runs GPT-2 on `tokens` (1 to context ids, each below vocab), applying `hooks`.
/// Returns the logits (n x vocab) and every block's trace.
template <class T>
BasicPass<T> forward(const BasicWeights<T>& weights, const std::vector<arma::uword>& tokens,
                     const attn::BasicHooks<T>& hooks = {});

/// The pass `clean` again from block `layer` on (0 .. layers; `layers` resumes at the final norm),
/// applying `hooks`: blocks before `layer` are copied from `clean`, which the hooks cannot have
/// changed, so only the blocks an intervention reaches are computed. The logits are those of the
/// positions in `logit_rows` (k x vocab, in that order; none, 0 x 0, when it is empty): the
/// unembedding is most of a short pass's work.
template <class T>
BasicPass<T> resume(const BasicWeights<T>& weights, const BasicPass<T>& clean, arma::uword layer,
                    const attn::BasicHooks<T>& hooks, const arma::uvec& logit_rows);

/// resume() once for each of `variants` (B sets of hooks), run together: the variants' streams are
/// stacked, (B n) x d, so each block's weights are read once for all of them (a pass over a short
/// sequence spends its time reading weights, not multiplying). Returns each variant's final
/// stream, n x d, the stream the final norm reads (the residual hook at `layers` applied); keeps
/// nothing else of the passes.
template <class T>
std::vector<arma::Mat<T>> resume_streams(const BasicWeights<T>& weights, const BasicPass<T>& clean, arma::uword layer,
                                         const std::vector<attn::BasicHooks<T>>& variants);

}  // namespace gpt2
