/// \file common/gpt2/model.cpp
/// \brief GPT-2's forward pass, tokens as rows (see model.hpp).
#include "common/gpt2/model.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/attention/attention.hpp"
#include "common/attention/checks.hpp"

namespace gpt2 {

void validate(const Config& config) {
  const auto positive = [](arma::uword value, const char* what) {
    if (value == 0) throw std::invalid_argument(std::string("GPT-2 config: ") + what + " is 0");
  };
  positive(config.vocab, "vocab");
  positive(config.context, "context");
  positive(config.width, "width");
  positive(config.layers, "layers");
  positive(config.heads, "heads");
  if (config.width % config.heads != 0) {
    throw std::invalid_argument("GPT-2 config: width " + std::to_string(config.width) + " is not a multiple of " +
                                std::to_string(config.heads) + " heads");
  }
  if (!std::isfinite(config.epsilon) || config.epsilon <= 0.0) {
    throw std::invalid_argument("GPT-2 config: layer_norm_epsilon " + attn::quoted_number(config.epsilon) +
                                " is not a finite positive number");
  }
}

namespace {

/// Both tables from one list: W is Weights or const Weights.
template <class W>
auto make_table(W& w) {
  using M = std::conditional_t<std::is_const_v<W>, const arma::mat, arma::mat>;
  using P = ParameterOf<M>;
  const arma::uword V = w.config.vocab, T = w.config.context, d = w.config.width;
  std::vector<P> table{{"wte.weight", V, d, false, &w.wte}, {"wpe.weight", T, d, false, &w.wpe}};
  for (arma::uword l = 0; l < w.config.layers; ++l) {
    auto& b = w.blocks[l];
    const std::string h = "h." + std::to_string(l) + ".";
    const std::vector<P> block{{h + "ln_1.weight", 1, d, true, &b.ln_1_gain},
                               {h + "ln_1.bias", 1, d, true, &b.ln_1_bias},
                               {h + "attn.c_attn.weight", d, 3 * d, false, &b.attn_weight},
                               {h + "attn.c_attn.bias", 1, 3 * d, true, &b.attn_bias},
                               {h + "attn.c_proj.weight", d, d, false, &b.proj_weight},
                               {h + "attn.c_proj.bias", 1, d, true, &b.proj_bias},
                               {h + "ln_2.weight", 1, d, true, &b.ln_2_gain},
                               {h + "ln_2.bias", 1, d, true, &b.ln_2_bias},
                               {h + "mlp.c_fc.weight", d, 4 * d, false, &b.fc_weight},
                               {h + "mlp.c_fc.bias", 1, 4 * d, true, &b.fc_bias},
                               {h + "mlp.c_proj.weight", 4 * d, d, false, &b.fc_proj_weight},
                               {h + "mlp.c_proj.bias", 1, d, true, &b.fc_proj_bias}};
    table.insert(table.end(), block.begin(), block.end());
  }
  table.push_back({"ln_f.weight", 1, d, true, &w.ln_f_gain});
  table.push_back({"ln_f.bias", 1, d, true, &w.ln_f_bias});
  return table;
}

}  // namespace

std::vector<Parameter> parameter_table(Weights& w) {
  validate(w.config);
  w.blocks.resize(w.config.layers);
  return make_table(w);
}

std::vector<ConstParameter> parameter_table(const Weights& w) {
  validate(w.config);
  if (w.blocks.size() != w.config.layers) {
    throw std::invalid_argument("GPT-2 weights: " + std::to_string(w.blocks.size()) + " blocks, but the config has " +
                                std::to_string(w.config.layers) + " layers");
  }
  return make_table(w);
}

arma::uword parameter_count(const Config& config) {
  Weights shapes{config, {}, {}, {}, {}, {}};
  arma::uword count = 0;
  for (const Parameter& p : parameter_table(shapes)) count += p.rows * p.cols;
  return count;
}

Weights random_weights(const Config& config, attn::Random& rng) {
  Weights w{config, {}, {}, {}, {}, {}};
  for (const Parameter& p : parameter_table(w)) {
    const bool gain = p.name.ends_with("ln_1.weight") || p.name.ends_with("ln_2.weight") || p.name == "ln_f.weight";
    *p.slot = rng.normal_matrix(p.rows, p.cols, 0.02);
    if (gain) *p.slot += 1.0;
  }
  return w;
}

void check_weights(const Weights& weights) {
  for (const ConstParameter& p : parameter_table(weights)) {
    if (p.slot->n_rows != p.rows || p.slot->n_cols != p.cols) {
      throw std::invalid_argument("GPT-2 weights: " + p.name + " is " + attn::shape(*p.slot) + ", but needs " +
                                  std::to_string(p.rows) + " x " + std::to_string(p.cols));
    }
    attn::require_finite(*p.slot, "GPT-2 weights: " + p.name);
  }
}

arma::mat layer_norm(const arma::mat& X, const arma::rowvec& gain, const arma::rowvec& bias, double epsilon) {
  // X: n x d (one token per row); gain, bias: 1 x d; returns n x d
  const arma::vec mean = arma::mean(X, 1);                                 // n x 1
  const arma::mat centred = X.each_col() - mean;                           // n x d
  const arma::vec variance = arma::mean(arma::square(centred), 1);         // n x 1, population variance
  arma::mat normed = centred.each_col() / arma::sqrt(variance + epsilon);  // n x d, rows of mean 0, variance ~1
  normed.each_row() %= gain;
  normed.each_row() += bias;
  return normed;
}

arma::mat gelu(const arma::mat& X) {
  const double c = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * X % (1.0 + arma::tanh(c * (X + 0.044715 * arma::pow(X, 3))));
}

namespace {

void check_tokens(const Config& config, const std::vector<arma::uword>& tokens) {
  if (tokens.empty()) throw std::invalid_argument("GPT-2 forward: no tokens");
  if (tokens.size() > config.context) {
    throw std::invalid_argument("GPT-2 forward: " + std::to_string(tokens.size()) +
                                " tokens, more than the context of " + std::to_string(config.context));
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] >= config.vocab) {
      throw std::invalid_argument("GPT-2 forward: token " + std::to_string(tokens[i]) + " at position " +
                                  std::to_string(i) + " is outside the vocabulary 0.." +
                                  std::to_string(config.vocab - 1));
    }
  }
}

/// The embedding: row i is wte[token i] + wpe[i]. Returns n x d.
arma::mat embed(const Weights& w, const std::vector<arma::uword>& tokens) {
  arma::mat X(tokens.size(), w.config.width);
  for (arma::uword i = 0; i < tokens.size(); ++i) X.row(i) = w.wte.row(tokens[i]) + w.wpe.row(i);
  return X;
}

/// The heads of one block on one sequence's [Q | K | V] (n x 3d): fills the trace's patterns and
/// head outputs (after the hook) and returns their sum, n x d (b_O not added).
// [gpt2_attention]
arma::mat mix_heads(const Block& b, arma::uword layer, arma::uword heads, const arma::mat& qkv, const Hooks& hooks,
                    LayerTrace& trace) {
  const arma::uword n = qkv.n_rows, d = qkv.n_cols / 3, dh = d / heads;
  arma::mat out(n, d, arma::fill::zeros);
  for (arma::uword h = 0; h < heads; ++h) {
    const arma::mat Q = qkv.cols(h * dh, (h + 1) * dh - 1);                     // n x d_h
    const arma::mat K = qkv.cols(d + h * dh, d + (h + 1) * dh - 1);             // n x d_h
    const arma::mat V = qkv.cols(2 * d + h * dh, 2 * d + (h + 1) * dh - 1);     // n x d_h
    const arma::mat scores = attn::scaled_scores(Q, K) + attn::causal_mask(n);  // n x n, -inf above the diagonal
    trace.patterns.push_back(attn::softmax_rows(scores));                       // n x n: A, row i over j <= i
    const arma::mat z = trace.patterns.back() * V;                              // n x d_h: the mixtures
    arma::mat written = z * b.proj_weight.rows(h * dh, (h + 1) * dh - 1);       // n x d: z_h W_O^h
    if (hooks.head_output) hooks.head_output(layer, h, written);
    out += written;
    trace.head_outputs.push_back(std::move(written));
  }
  return out;
}
// [gpt2_attention]

/// [Q | K | V] of the normed stream `a` (rows: tokens, of one sequence or several stacked): rows x 3d.
arma::mat qkv_of(const Block& b, const arma::mat& a) {
  arma::mat qkv = a * b.attn_weight;
  qkv.each_row() += b.attn_bias;
  return qkv;
}

/// The MLP sub-block on the normed stream `m` (n x d): returns n x d.
arma::mat mlp_sublayer(const Block& b, const arma::mat& m) {
  arma::mat hidden = m * b.fc_weight;  // n x 4d
  hidden.each_row() += b.fc_bias;
  arma::mat out = gelu(hidden) * b.fc_proj_weight;  // n x d
  out.each_row() += b.fc_proj_bias;
  return out;
}

/// Blocks `from` .. layers - 1 on the stream X (n x d) entering block `from`, filling pass.layers
/// from `from` on and pass.resid_final.
void run_blocks(const Weights& w, arma::mat X, arma::uword from, const Hooks& hooks, Pass& pass) {
  const double eps = w.config.epsilon;
  for (arma::uword l = from; l < w.config.layers; ++l) {
    const Block& b = w.blocks[l];
    LayerTrace& trace = pass.layers[l];
    if (hooks.residual) hooks.residual(l, X);
    trace.resid_pre = X;
    const arma::mat qkv = qkv_of(b, layer_norm(X, b.ln_1_gain, b.ln_1_bias, eps));  // n x 3d
    X += mix_heads(b, l, w.config.heads, qkv, hooks, trace);
    X.each_row() += b.proj_bias;  // b_O once, for the heads together
    trace.resid_mid = X;
    trace.mlp_out = mlp_sublayer(b, layer_norm(X, b.ln_2_gain, b.ln_2_bias, eps));  // n x d
    X += trace.mlp_out;
  }
  if (hooks.residual) hooks.residual(w.config.layers, X);
  pass.resid_final = std::move(X);
}

}  // namespace

// [gpt2_forward]
Pass forward(const Weights& w, const std::vector<arma::uword>& tokens, const Hooks& hooks) {
  check_tokens(w.config, tokens);
  Pass pass{tokens, std::vector<LayerTrace>(w.config.layers), {}, {}};
  run_blocks(w, embed(w, tokens), 0, hooks, pass);  // the embedding: token plus position, n x d
  pass.logits = layer_norm(pass.resid_final, w.ln_f_gain, w.ln_f_bias, w.config.epsilon) * w.wte.t();  // n x vocab
  return pass;
}
// [gpt2_forward]

Pass resume(const Weights& w, const Pass& clean, arma::uword layer, const Hooks& hooks, const arma::uvec& logit_rows) {
  const arma::uword n = clean.tokens.size();
  if (layer > w.config.layers || clean.layers.size() != w.config.layers || clean.resid_final.n_rows != n ||
      clean.resid_final.n_cols != w.config.width) {
    throw std::invalid_argument("GPT-2 resume: layer " + std::to_string(layer) + " or a pass of another shape");
  }
  if (!logit_rows.is_empty() && logit_rows.max() >= n) {
    throw std::invalid_argument("GPT-2 resume: logit row " + std::to_string(logit_rows.max()) + " outside " +
                                std::to_string(n) + " positions");
  }
  Pass pass{clean.tokens, std::vector<LayerTrace>(clean.layers.begin(), clean.layers.begin() + layer), {}, {}};
  pass.layers.resize(w.config.layers);
  run_blocks(w, layer < w.config.layers ? clean.layers[layer].resid_pre : clean.resid_final, layer, hooks, pass);
  if (logit_rows.is_empty()) return pass;                          // the caller reads the streams only
  const arma::mat final_rows = pass.resid_final.rows(logit_rows);  // k x d
  pass.logits = layer_norm(final_rows, w.ln_f_gain, w.ln_f_bias, w.config.epsilon) * w.wte.t();  // k x vocab
  return pass;
}

std::vector<arma::mat> resume_streams(const Weights& w, const Pass& clean, arma::uword layer,
                                      const std::vector<Hooks>& variants) {
  const arma::uword n = clean.tokens.size(), B = variants.size(), L = w.config.layers;
  if (layer > L || clean.layers.size() != L || clean.resid_final.n_rows != n)
    throw std::invalid_argument("GPT-2 resume_streams: layer " + std::to_string(layer) + " or a pass of another shape");
  // (B n) x d: variant b in rows b n .. b n + n - 1, so each block's weights serve every variant at once
  arma::mat X = arma::repmat(layer < L ? clean.layers[layer].resid_pre : clean.resid_final, B, 1);
  const auto residual_hooks = [&](arma::uword l) {
    for (arma::uword v = 0; v < B; ++v) {
      if (!variants[v].residual) continue;
      arma::mat Xv = X.rows(v * n, v * n + n - 1);
      variants[v].residual(l, Xv);
      X.rows(v * n, v * n + n - 1) = Xv;
    }
  };
  for (arma::uword l = layer; l < L; ++l) {
    const Block& b = w.blocks[l];
    residual_hooks(l);
    const arma::mat qkv = qkv_of(b, layer_norm(X, b.ln_1_gain, b.ln_1_bias, w.config.epsilon));  // (B n) x 3d
    for (arma::uword v = 0; v < B; ++v) {
      LayerTrace trace;  // not kept: only the final streams are returned
      X.rows(v * n, v * n + n - 1) +=
          mix_heads(b, l, w.config.heads, qkv.rows(v * n, v * n + n - 1), variants[v], trace);
    }
    X.each_row() += b.proj_bias;
    X += mlp_sublayer(b, layer_norm(X, b.ln_2_gain, b.ln_2_bias, w.config.epsilon));
  }
  residual_hooks(L);
  std::vector<arma::mat> streams;
  for (arma::uword v = 0; v < B; ++v) streams.push_back(X.rows(v * n, v * n + n - 1));
  return streams;
}

}  // namespace gpt2
