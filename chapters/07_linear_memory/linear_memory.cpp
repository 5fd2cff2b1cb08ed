/// \file linear_memory.cpp
/// \brief Chapter 07 computations (see linear_memory.hpp).
#include "linear_memory.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "common/attention/attention.hpp"
#include "common/attention/random.hpp"
#include "common/attention/toy.hpp"

namespace ch07 {

namespace {
void require_qkv(const arma::mat& Q, const arma::mat& K, const arma::mat& V, const char* who, bool causal) {
  if (Q.n_cols != K.n_cols || K.n_rows != V.n_rows || Q.n_cols == 0 || K.n_rows == 0 || V.n_cols == 0 ||
      (causal && Q.n_rows != K.n_rows)) {
    throw std::invalid_argument(
        std::string(who) + ": Q is " + attn::shape(Q) + ", K is " + attn::shape(K) + ", V is " + attn::shape(V) +
        (causal ? " (need n x d_k, n x d_k, n x d_v)" : " (need n_q x d_k, n_kv x d_k, n_kv x d_v)"));
  }
}
}  // namespace

// [bilinear]
arma::mat bilinear_matrix(const arma::mat& Wq, const arma::mat& Wk) {
  if (arma::size(Wq) != arma::size(Wk) || Wq.is_empty()) {
    throw std::invalid_argument("bilinear_matrix: Wq is " + attn::shape(Wq) + " but Wk is " + attn::shape(Wk));
  }
  return Wq * Wk.t();  // d x d: (X_i Wq)(X_j Wk)^T = X_i (Wq Wk^T) X_j^T
}

arma::mat bilinear_scores(const arma::mat& X, const arma::mat& M) {
  if (M.n_rows != X.n_cols || M.n_cols != X.n_cols) {
    throw std::invalid_argument("bilinear_scores: X is " + attn::shape(X) + " but M is " + attn::shape(M));
  }
  return X * M * X.t();  // n x n
}
// [bilinear]

// [kernel_smoothing]
arma::mat kernel_smoothing(const arma::mat& Q, const arma::mat& K, const arma::mat& V) {
  require_qkv(Q, K, V, "kernel_smoothing", false);
  if (!Q.is_finite() || !K.is_finite() || !V.is_finite()) {
    throw std::invalid_argument("kernel_smoothing: Q, K or V has a non-finite entry (NaN or inf)");
  }
  const double scale = std::sqrt(static_cast<double>(K.n_cols));
  arma::mat H(Q.n_rows, V.n_cols, arma::fill::zeros);
  for (arma::uword i = 0; i < Q.n_rows; ++i) {
    double total = 0.0;
    for (arma::uword j = 0; j < K.n_rows; ++j) {
      const double kernel = std::exp(arma::dot(Q.row(i), K.row(j)) / scale);  // positive compatibility
      H.row(i) += kernel * V.row(j);
      total += kernel;
    }
    if (!std::isfinite(total)) {  // exp of a score beyond about 709 overflows
      throw std::invalid_argument("kernel_smoothing: row " + std::to_string(i) +
                                  "'s kernel sum overflows (a score q.k / sqrt(d_k) above about 709)");
    }
    if (!std::isnormal(total)) {  // every exp underflowed (or nearly): the average would be 0/0 or lose its digits
      throw std::invalid_argument("kernel_smoothing: row " + std::to_string(i) +
                                  "'s kernels all underflow (every score q.k / sqrt(d_k) below about -708); "
                                  "softmax attention subtracts the row's largest score first");
    }
    H.row(i) /= total;  // a weighted average of the values
  }
  return H;
}
// [kernel_smoothing]

// [linear_masked]
arma::mat causal_linear_attention_masked(const arma::mat& Q, const arma::mat& K, const arma::mat& V) {
  require_qkv(Q, K, V, "causal_linear_attention_masked", true);
  return arma::trimatl(Q * K.t()) * V;  // no softmax: the raw products q_i . k_j, future ones zeroed
}
// [linear_masked]

// [linear_recurrent]
arma::mat causal_linear_attention_recurrent(const arma::mat& Q, const arma::mat& K, const arma::mat& V,
                                            std::vector<arma::mat>* memories) {
  require_qkv(Q, K, V, "causal_linear_attention_recurrent", true);
  arma::mat S(V.n_cols, K.n_cols, arma::fill::zeros);  // d_v x d_k, the same size at every step
  arma::mat Y(Q.n_rows, V.n_cols);
  if (memories) memories->clear();
  for (arma::uword i = 0; i < Q.n_rows; ++i) {
    S += V.row(i).t() * K.row(i);  // write: S_i = S_(i-1) + v_i k_i^T
    Y.row(i) = Q.row(i) * S.t();   // read:  y_i = S_i q_i
    if (memories) memories->push_back(S);
  }
  return Y;
}
// [linear_recurrent]

std::size_t kv_cache_bytes(std::size_t position, std::size_t d_k, std::size_t d_v) {
  return position * (d_k + d_v) * sizeof(double);
}

std::size_t linear_memory_bytes(std::size_t d_k, std::size_t d_v) { return d_v * d_k * sizeof(double); }

std::vector<std::size_t> bench_positions(std::size_t max_position) {
  if (max_position == 0) throw std::invalid_argument("bench_positions: the longest position must be at least 1");
  std::vector<std::size_t> positions;
  for (std::size_t p = 1; p < max_position; p *= 2) positions.push_back(p);
  positions.push_back(max_position);
  return positions;
}

namespace {

using Clock = std::chrono::steady_clock;

/// Best of three batches of the mean time per call, each batch running at least `seconds`.
template <class Step>
double time_step(Step&& step, double seconds) {
  double best = 1e300;
  for (int batch = 0; batch < 3; ++batch) {
    std::size_t calls = 0;
    const auto start = Clock::now();
    double elapsed = 0.0;
    do {
      for (int k = 0; k < 8; ++k) step();
      calls += 8;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

}  // namespace

// [generation_steps]
std::vector<CostRow> benchmark_generation(std::size_t d_k, std::size_t d_v, std::size_t max_position,
                                          double seconds_per_batch) {
  if (d_k == 0 || d_v == 0 || !(seconds_per_batch > 0.0)) {
    throw std::invalid_argument("benchmark_generation: d_k, d_v and the batch time must be positive");
  }
  const std::vector<std::size_t> positions = bench_positions(max_position);
  attn::Random rng(2024);  // the inputs only feed the timing; any fixed numbers do
  // Tokens are rows: key t occupies keys[t * d_k, (t + 1) * d_k), one contiguous row per token.
  const double key_scale = 1.0 / std::sqrt(static_cast<double>(d_k));
  const arma::vec keys = rng.normal_matrix(max_position * d_k, 1, key_scale);
  const arma::vec values = rng.normal_matrix(max_position * d_v, 1);
  const arma::vec q = rng.normal_matrix(d_k, 1, key_scale);
  std::vector<double> scores(max_position), y(d_v), S(d_v * d_k, 0.0);
  volatile double sink = 0.0;  // keeps the compiler from dropping the work

  std::vector<CostRow> rows;
  for (std::size_t n : positions) {
    // Softmax attention at position n: the new key and value join the cache, then q reads all n.
    const auto softmax_step = [&] {
      double top = -1e300;
      for (std::size_t t = 0; t < n; ++t) {
        const double* k = keys.memptr() + t * d_k;
        double s = 0.0;
        for (std::size_t c = 0; c < d_k; ++c) s += q[c] * k[c];
        scores[t] = s;
        top = std::max(top, s);
      }
      double total = 0.0;
      std::fill(y.begin(), y.end(), 0.0);
      for (std::size_t t = 0; t < n; ++t) {
        const double w = std::exp(scores[t] - top);
        total += w;
        const double* v = values.memptr() + t * d_v;
        for (std::size_t c = 0; c < d_v; ++c) y[c] += w * v[c];
      }
      sink = sink + y[0] / total;
    };
    // The linear memory at position n: write v k^T into S, read S q. Nothing depends on n.
    const double* k = keys.memptr() + (n - 1) * d_k;
    const double* v = values.memptr() + (n - 1) * d_v;
    const auto linear_step = [&] {
      for (std::size_t a = 0; a < d_v; ++a) {
        double read = 0.0;
        for (std::size_t b = 0; b < d_k; ++b) {
          S[a * d_k + b] += v[a] * k[b];
          read += S[a * d_k + b] * q[b];
        }
        y[a] = read;
      }
      sink = sink + y[0];
    };
    rows.push_back({.position = n,
                    .softmax_seconds = time_step(softmax_step, seconds_per_batch),
                    .linear_seconds = time_step(linear_step, seconds_per_batch),
                    .softmax_bytes = kv_cache_bytes(n, d_k, d_v),
                    .linear_bytes = linear_memory_bytes(d_k, d_v)});
  }
  return rows;
}
// [generation_steps]

// ---- the program's sections, computed once --------------------------------------------------------

RandomHead random_head(unsigned seed) {
  // Every random number of sections 1-3 is drawn here, in one order, from one stream.
  attn::Random rng(seed);
  RandomHead h;
  h.X = rng.normal_matrix(4, 6);   // 4 tokens, d = 6
  h.Wq = rng.normal_matrix(6, 2);  // d_k = 2
  h.Wk = rng.normal_matrix(6, 2);
  h.Wv = rng.normal_matrix(6, 3);  // d_v = 3
  do h.R = rng.normal_matrix(2, 2);
  while (std::abs(arma::det(h.R)) < 0.1);  // comfortably invertible
  return h;
}

BilinearSection learned_matching(const RandomHead& h) {
  BilinearSection b{.M = bilinear_matrix(h.Wq, h.Wk)};
  b.S = bilinear_scores(h.X, b.M);
  const arma::mat QK = (h.X * h.Wq) * (h.X * h.Wk).t();
  b.largest_difference = arma::abs(b.S - QK).max();
  b.rank = arma::rank(b.M);
  b.asymmetry = arma::abs(b.M - b.M.t()).max();
  return b;
}

FactorSection not_unique(const RandomHead& h) {
  FactorSection f{.Wq2 = h.Wq * h.R, .Wk2 = h.Wk * arma::inv(h.R).t()};
  const arma::mat before = (h.X * h.Wq) * (h.X * h.Wk).t(), after = (h.X * f.Wq2) * (h.X * f.Wk2).t();
  f.factor_change = arma::abs(f.Wq2 - h.Wq).max();
  f.score_change = arma::abs(after - before).max();
  f.det_R = arma::det(h.R);
  return f;
}

KernelSection kernel_view(const RandomHead& h) {
  KernelSection k{.pass = attn::attention(h.X, h.Wq, h.Wk, h.Wv)};
  k.smooth = kernel_smoothing(k.pass.Q, k.pass.K, k.pass.V);
  k.largest_difference = arma::abs(k.smooth - k.pass.H).max();
  return k;
}

MemorySection running_memory(const attn::EmbeddingTable& table) {
  MemorySection m{.words = attn::split_sentence("the river money bank")};
  const arma::mat X = table.lookup(m.words);  // identity projections: q = k = v = x
  m.masked = causal_linear_attention_masked(X, X, X);
  m.recurrent = causal_linear_attention_recurrent(X, X, X, &m.memories);
  const arma::mat I = arma::eye(X.n_cols, X.n_cols);
  m.softmax = attn::attention(X, I, I, I, {.causal = true});
  m.largest_difference = arma::abs(m.masked - m.recurrent).max();
  for (std::size_t i = 1; i <= m.words.size(); ++i) m.cache_numbers.push_back(i * 2 * X.n_cols);
  return m;
}

CostSection cost_section(std::size_t max_position) {
  CostSection c{.rows = benchmark_generation(kCostWidth, kCostWidth, max_position, 0.002)};
  for (const CostRow& r : c.rows) {
    c.time_ratios.push_back(r.softmax_seconds / r.linear_seconds);
    c.byte_ratios.push_back(static_cast<double>(r.softmax_bytes) / static_cast<double>(r.linear_bytes));
  }
  return c;
}

std::string scientific(double x) { return fmt::format("{:.1e}", x); }

}  // namespace ch07
