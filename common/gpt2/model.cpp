/// \file common/gpt2/model.cpp
/// \brief GPT-2's forward pass, tokens as rows (see model.hpp).
#include "common/gpt2/model.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <numbers>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
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

/// Both tables from one list: W is BasicWeights<T> or const BasicWeights<T>.
template <class W>
auto make_table(W& w) {
  using Plain = std::remove_const_t<W>;
  using Matrix = decltype(Plain::wte);
  using M = std::conditional_t<std::is_const_v<W>, const Matrix, Matrix>;
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

template <class T>
std::vector<Parameter<T>> parameter_table(BasicWeights<T>& w) {
  validate(w.config);
  w.blocks.resize(w.config.layers);
  return make_table(w);
}

template <class T>
std::vector<ConstParameter<T>> parameter_table(const BasicWeights<T>& w) {
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
  for (const Parameter<float>& p : parameter_table(shapes)) count += p.rows * p.cols;
  return count;
}

template <class T>
BasicWeights<T> random_weights(const Config& config, attn::Random& rng) {
  BasicWeights<T> w{config, {}, {}, {}, {}, {}};
  for (const Parameter<T>& p : parameter_table(w)) {
    const bool gain = p.name.ends_with("ln_1.weight") || p.name.ends_with("ln_2.weight") || p.name == "ln_f.weight";
    *p.slot = arma::conv_to<arma::Mat<T>>::from(rng.normal_matrix(p.rows, p.cols, 0.02));
    if (gain) *p.slot += T(1);
  }
  return w;
}

template <class To, class From>
BasicWeights<To> converted(const BasicWeights<From>& weights) {
  BasicWeights<To> out{weights.config, {}, {}, {}, {}, {}};
  const std::vector<ConstParameter<From>> from = parameter_table(weights);
  const std::vector<Parameter<To>> to = parameter_table(out);
  for (std::size_t k = 0; k < from.size(); ++k) *to[k].slot = arma::conv_to<arma::Mat<To>>::from(*from[k].slot);
  return out;
}

template <class T>
void check_weights(const BasicWeights<T>& weights) {
  for (const ConstParameter<T>& p : parameter_table(weights)) {
    if (p.slot->n_rows != p.rows || p.slot->n_cols != p.cols) {
      throw std::invalid_argument("GPT-2 weights: " + p.name + " is " + attn::shape(*p.slot) + ", but needs " +
                                  std::to_string(p.rows) + " x " + std::to_string(p.cols));
    }
    if (!p.slot->is_finite())
      throw std::invalid_argument("GPT-2 weights: " + p.name + " (" + attn::shape(*p.slot) +
                                  ") has a non-finite entry (NaN or inf)");
  }
}

template <class T>
arma::Mat<T> layer_norm(const arma::Mat<T>& X, const arma::Row<T>& gain, const arma::Row<T>& bias, double epsilon) {
  // X: n x d (one token per row); gain, bias: 1 x d; returns n x d. The statistics are taken in
  // double: a float mean of d large, nearly equal entries misses them by more than their spread.
  const arma::mat Xd = arma::conv_to<arma::mat>::from(X);
  const arma::vec mean = arma::mean(Xd, 1);                         // n x 1
  const arma::mat centred = Xd.each_col() - mean;                   // n x d
  const arma::vec variance = arma::mean(arma::square(centred), 1);  // n x 1, population variance
  arma::Mat<T> normed = arma::conv_to<arma::Mat<T>>::from(
      centred.each_col() / arma::sqrt(variance + epsilon));  // rows of mean 0, variance ~1
  normed.each_row() %= gain;
  normed.each_row() += bias;
  return normed;
}

template <class T>
arma::Mat<T> gelu(const arma::Mat<T>& X) {
  const T c = std::sqrt(T(2) / std::numbers::pi_v<T>);
  const arma::Mat<T> u = c * (X + T(0.044715) * (X % X % X));  // the tanh form's argument
  return X / (T(1) + arma::exp(T(-2) * u));  // 0.5 x (1 + tanh u), as 0.5 (1 + tanh u) = 1 / (1 + e^(-2u))
}

namespace {

/// The parts a product is cut into: one per core, none below about a million multiply-adds (a
/// thread's start would cost more than it saves).
arma::uword parts_for(arma::uword rows, arma::uword inner, arma::uword cols) {
  static const arma::uword cores = std::max(1u, std::thread::hardware_concurrency());
  return rows * inner * cols < (arma::uword{1} << 20) ? 1 : cores;
}

/// Runs part(0) .. part(count - 1) at once, part 0 on this thread; an exception in any is rethrown.
/// Parts no thread can be started for (a limit on processes) run on this thread after part 0.
void in_parallel(arma::uword count, const std::function<void(arma::uword)>& part) {
  std::vector<std::future<void>> others;
  arma::uword started = 1;
  try {
    for (; started < count; ++started) others.push_back(std::async(std::launch::async, part, started));
  } catch (const std::system_error&) {  // no thread to be had: the rest run here
  }
  part(0);
  for (arma::uword k = started; k < count; ++k) part(k);
  for (std::future<void>& other : others) other.get();
}

}  // namespace

template <class T>
arma::Mat<T> affine(const arma::Mat<T>& X, const arma::Mat<T>& W, const arma::Row<T>& b, Activation act) {
  arma::Mat<T> out(X.n_rows, W.n_cols);
  const arma::uword parts = std::min(parts_for(X.n_rows, X.n_cols, W.n_cols), W.n_cols);
  in_parallel(parts, [&](arma::uword k) {
    const arma::uword first = W.n_cols * k / parts, count = W.n_cols * (k + 1) / parts - first;
    // columns first .. first + count - 1 of W and of the result, used in place: a column-major
    // matrix holds a block of whole columns contiguously
    const arma::Mat<T> W_block(const_cast<T*>(W.colptr(first)), W.n_rows, count, false, true);
    arma::Mat<T> block(out.colptr(first), out.n_rows, count, false, true);
    block = X * W_block;  // rows x count
    block.each_row() += b.cols(first, first + count - 1);
    if (act == Activation::gelu) block = gelu(block);
  });
  return out;
}

template <class T>
arma::Mat<T> unembed(const BasicWeights<T>& w, const arma::Mat<T>& X) {
  const arma::uword n = X.n_rows, d = X.n_cols, V = w.wte.n_rows;
  arma::Mat<T> logits(n, V);
  if (n == 0 || V == 0) return logits;  // nothing to multiply (and BLAS refuses a leading dimension of 0)
  const arma::uword parts = std::min(parts_for(n, d, V), V);
  in_parallel(parts, [&](arma::uword k) {
    const arma::uword first = V * k / parts, count = V * (k + 1) / parts - first;
    // logits[:, first .. first + count) = X wte[first .. first + count, :]^T. Those rows of wte
    // are a count x d block whose columns lie V apart, which BLAS reads in place (ldb = V).
    const int rows = static_cast<int>(n), cols = static_cast<int>(count), inner = static_cast<int>(d);
    const int ldb = static_cast<int>(V);
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, rows, cols, inner, 1.0f, X.memptr(), rows,
                  w.wte.memptr() + first, ldb, 0.0f, logits.colptr(first), rows);
    } else {
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, rows, cols, inner, 1.0, X.memptr(), rows,
                  w.wte.memptr() + first, ldb, 0.0, logits.colptr(first), rows);
    }
  });
  return logits;
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
template <class T>
arma::Mat<T> embed(const BasicWeights<T>& w, const std::vector<arma::uword>& tokens) {
  arma::Mat<T> X(tokens.size(), w.config.width);
  for (arma::uword i = 0; i < tokens.size(); ++i) X.row(i) = w.wte.row(tokens[i]) + w.wpe.row(i);
  return X;
}

/// The heads of one block on one sequence's [Q | K | V] (n x 3d): fills the trace's patterns and
/// head outputs (after the hook) and returns their sum, n x d (b_O not added). The heads run at
/// once, cut between the cores; the hooks then see their writes one by one, in order.
// [gpt2_attention]
template <class T>
arma::Mat<T> mix_heads(const BasicBlock<T>& b, arma::uword layer, arma::uword heads, const arma::Mat<T>& qkv,
                       const attn::BasicHooks<T>& hooks, BasicLayerTrace<T>& trace) {
  const arma::uword n = qkv.n_rows, d = qkv.n_cols / 3, dh = d / heads;
  trace.patterns.assign(heads, {});
  trace.head_outputs.assign(heads, {});
  const auto head = [&](arma::uword h) {
    const arma::Mat<T> Q = qkv.cols(h * dh, (h + 1) * dh - 1);                  // n x d_h
    const arma::Mat<T> K = qkv.cols(d + h * dh, d + (h + 1) * dh - 1);          // n x d_h
    const arma::Mat<T> V = qkv.cols(2 * d + h * dh, 2 * d + (h + 1) * dh - 1);  // n x d_h
    const arma::Mat<T> scores = Q * K.t() / std::sqrt(T(dh));                   // n x n: Q K^T / sqrt(d_h)
    trace.patterns[h] = attn::causal_softmax(scores);                           // n x n: A, row i over j <= i
    const arma::Mat<T> z = trace.patterns[h] * V;                               // n x d_h: the mixtures
    trace.head_outputs[h] = z * b.proj_weight.rows(h * dh, (h + 1) * dh - 1);   // n x d: z_h W_O^h
  };
  const arma::uword parts = std::min(parts_for(n, d, d), heads);
  in_parallel(parts, [&](arma::uword k) {
    for (arma::uword h = heads * k / parts; h < heads * (k + 1) / parts; ++h) head(h);
  });
  arma::Mat<T> out(n, d, arma::fill::zeros);
  for (arma::uword h = 0; h < heads; ++h) {
    if (hooks.head_output) hooks.head_output(layer, h, trace.head_outputs[h]);
    out += trace.head_outputs[h];
  }
  return out;
}
// [gpt2_attention]

/// [Q | K | V] of the normed stream `a` (rows: tokens, of one sequence or several stacked): rows x 3d.
template <class T>
arma::Mat<T> qkv_of(const BasicBlock<T>& b, const arma::Mat<T>& a) {
  return affine(a, b.attn_weight, b.attn_bias);  // rows x 3d: a W_attn + b_attn
}

/// The MLP sub-block on the normed stream `m` (n x d): returns n x d.
template <class T>
arma::Mat<T> mlp_sublayer(const BasicBlock<T>& b, const arma::Mat<T>& m) {
  const arma::Mat<T> hidden = affine(m, b.fc_weight, b.fc_bias, Activation::gelu);  // n x 4d: gelu(m W_fc + b_fc)
  return affine(hidden, b.fc_proj_weight, b.fc_proj_bias);                          // n x d
}

/// Blocks `from` .. layers - 1 on the stream X (n x d) entering block `from`, filling pass.layers
/// from `from` on and pass.resid_final.
template <class T>
void run_blocks(const BasicWeights<T>& w, arma::Mat<T> X, arma::uword from, const attn::BasicHooks<T>& hooks,
                BasicPass<T>& pass) {
  const double eps = w.config.epsilon;
  for (arma::uword l = from; l < w.config.layers; ++l) {
    const BasicBlock<T>& b = w.blocks[l];
    BasicLayerTrace<T>& trace = pass.layers[l];
    if (hooks.residual) hooks.residual(l, X);
    trace.resid_pre = X;
    const arma::Mat<T> qkv = qkv_of(b, layer_norm(X, b.ln_1_gain, b.ln_1_bias, eps));  // n x 3d
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
template <class T>
BasicPass<T> forward(const BasicWeights<T>& w, const std::vector<arma::uword>& tokens,
                     const attn::BasicHooks<T>& hooks) {
  check_tokens(w.config, tokens);
  BasicPass<T> pass{tokens, std::vector<BasicLayerTrace<T>>(w.config.layers), {}, {}};
  run_blocks(w, embed(w, tokens), 0, hooks, pass);  // the embedding: token plus position, n x d
  pass.logits = unembed(w, layer_norm(pass.resid_final, w.ln_f_gain, w.ln_f_bias, w.config.epsilon));  // n x vocab
  return pass;
}
// [gpt2_forward]

template <class T>
BasicPass<T> resume(const BasicWeights<T>& w, const BasicPass<T>& clean, arma::uword layer,
                    const attn::BasicHooks<T>& hooks, const arma::uvec& logit_rows) {
  const arma::uword n = clean.tokens.size();
  if (layer > w.config.layers || clean.layers.size() != w.config.layers || clean.resid_final.n_rows != n ||
      clean.resid_final.n_cols != w.config.width) {
    throw std::invalid_argument("GPT-2 resume: layer " + std::to_string(layer) + " or a pass of another shape");
  }
  if (!logit_rows.is_empty() && logit_rows.max() >= n) {
    throw std::invalid_argument("GPT-2 resume: logit row " + std::to_string(logit_rows.max()) + " outside " +
                                std::to_string(n) + " positions");
  }
  BasicPass<T> pass{
      clean.tokens, std::vector<BasicLayerTrace<T>>(clean.layers.begin(), clean.layers.begin() + layer), {}, {}};
  pass.layers.resize(w.config.layers);
  run_blocks(w, layer < w.config.layers ? clean.layers[layer].resid_pre : clean.resid_final, layer, hooks, pass);
  if (logit_rows.is_empty()) return pass;                             // the caller reads the streams only
  const arma::Mat<T> final_rows = pass.resid_final.rows(logit_rows);  // k x d
  pass.logits = unembed(w, layer_norm(final_rows, w.ln_f_gain, w.ln_f_bias, w.config.epsilon));  // k x vocab
  return pass;
}

template <class T>
std::vector<arma::Mat<T>> resume_streams(const BasicWeights<T>& w, const BasicPass<T>& clean, arma::uword layer,
                                         const std::vector<attn::BasicHooks<T>>& variants) {
  const arma::uword n = clean.tokens.size(), B = variants.size(), L = w.config.layers;
  if (layer > L || clean.layers.size() != L || clean.resid_final.n_rows != n)
    throw std::invalid_argument("GPT-2 resume_streams: layer " + std::to_string(layer) + " or a pass of another shape");
  // (B n) x d: variant b in rows b n .. b n + n - 1, so each block's weights serve every variant at once
  arma::Mat<T> X = arma::repmat(layer < L ? clean.layers[layer].resid_pre : clean.resid_final, B, 1);
  const auto residual_hooks = [&](arma::uword l) {
    for (arma::uword v = 0; v < B; ++v) {
      if (!variants[v].residual) continue;
      arma::Mat<T> Xv = X.rows(v * n, v * n + n - 1);
      variants[v].residual(l, Xv);
      X.rows(v * n, v * n + n - 1) = Xv;
    }
  };
  for (arma::uword l = layer; l < L; ++l) {
    const BasicBlock<T>& b = w.blocks[l];
    residual_hooks(l);
    const arma::Mat<T> qkv = qkv_of(b, layer_norm(X, b.ln_1_gain, b.ln_1_bias, w.config.epsilon));  // (B n) x 3d
    for (arma::uword v = 0; v < B; ++v) {
      BasicLayerTrace<T> trace;  // not kept: only the final streams are returned
      X.rows(v * n, v * n + n - 1) +=
          mix_heads(b, l, w.config.heads, arma::Mat<T>(qkv.rows(v * n, v * n + n - 1)), variants[v], trace);
    }
    X.each_row() += b.proj_bias;
    X += mlp_sublayer(b, layer_norm(X, b.ln_2_gain, b.ln_2_bias, w.config.epsilon));
  }
  residual_hooks(L);
  std::vector<arma::Mat<T>> streams;
  for (arma::uword v = 0; v < B; ++v) streams.push_back(X.rows(v * n, v * n + n - 1));
  return streams;
}

// The two precisions: float for the tools, double for the checks.
#define GPT2_MODEL_FOR(T)                                                                                             \
  template std::vector<Parameter<T>> parameter_table(BasicWeights<T>&);                                               \
  template std::vector<ConstParameter<T>> parameter_table(const BasicWeights<T>&);                                    \
  template BasicWeights<T> random_weights<T>(const Config&, attn::Random&);                                           \
  template void check_weights(const BasicWeights<T>&);                                                                \
  template arma::Mat<T> layer_norm(const arma::Mat<T>&, const arma::Row<T>&, const arma::Row<T>&, double);            \
  template arma::Mat<T> gelu(const arma::Mat<T>&);                                                                    \
  template arma::Mat<T> affine(const arma::Mat<T>&, const arma::Mat<T>&, const arma::Row<T>&, Activation);            \
  template arma::Mat<T> unembed(const BasicWeights<T>&, const arma::Mat<T>&);                                         \
  template BasicPass<T> forward(const BasicWeights<T>&, const std::vector<arma::uword>&, const attn::BasicHooks<T>&); \
  template BasicPass<T> resume(const BasicWeights<T>&, const BasicPass<T>&, arma::uword, const attn::BasicHooks<T>&,  \
                               const arma::uvec&);                                                                    \
  template std::vector<arma::Mat<T>> resume_streams(const BasicWeights<T>&, const BasicPass<T>&, arma::uword,         \
                                                    const std::vector<attn::BasicHooks<T>>&);
GPT2_MODEL_FOR(float)
GPT2_MODEL_FOR(double)
#undef GPT2_MODEL_FOR
template BasicWeights<double> converted<double, float>(const BasicWeights<float>&);
template BasicWeights<float> converted<float, double>(const BasicWeights<double>&);

}  // namespace gpt2
