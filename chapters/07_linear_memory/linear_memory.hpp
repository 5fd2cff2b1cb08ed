/// \file linear_memory.hpp
/// \brief Chapter 07: the score as a learned bilinear form, attention as kernel smoothing, and
/// unnormalized causal linear attention as a fixed-size running memory (with its cost measured).
///
/// Tokens are rows: X is n x d, Q n x d_k, K n x d_k, V n x d_v.
/// Throws: std::invalid_argument, naming the shapes, for inputs whose shapes disagree (bilinear_matrix,
/// bilinear_scores, kernel_smoothing, causal_linear_attention_masked and _recurrent, and the sections
/// on such a head) or n of 0 (the two causal linear attentions); for an entry of Q, K or V that is not
/// finite, a row whose kernel sum overflows (a scaled score above about 709) or whose kernels all
/// underflow (every scaled score below about -708: the average would be 0/0), as attn::softmax_rows
/// refuses non-finite scores (kernel_smoothing, kernel_view); for max_position of 0 (bench_positions,
/// cost_section); for a size of 0 or a batch time that is not positive (benchmark_generation); for a
/// table that lacks the, river, money or bank (running_memory). std::runtime_error from Armadillo for a
/// singular R, which random_head rules out (not_unique). The others throw nothing beyond
/// std::bad_alloc; the byte counts do not check for overflow.
/// Sources: the article, "Learned matching, kernel smoothing, and memory" (with its cost comparison);
/// Katharopoulos et al. 2020 (linear attention, §3.2; the causal form and its recurrence, §3.3-3.4);
/// Schlag et al. 2021 (fast weight programmers).
#pragma once

#include <armadillo>
#include <cstddef>
#include <string>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/toy.hpp"

namespace ch07 {

/// The matrix between the two inputs of an unscaled score: M = Wq Wk^T.
/// Wq, Wk: d x d_k. Returns d x d, of rank at most d_k, not symmetric in general.
arma::mat bilinear_matrix(const arma::mat& Wq, const arma::mat& Wk);

/// Unscaled scores as a bilinear form, s_ij = X_i M X_j^T. X: n x d; M: d x d. Returns n x n.
arma::mat bilinear_scores(const arma::mat& X, const arma::mat& M);

/// Softmax attention written as kernel smoothing: weights exp(q_i .\ k_j / sqrt(d_k)), normalized
/// over the sources j, average the values. Q: n_q x d_k; K: n_kv x d_k; V: n_kv x d_v.
/// Returns n_q x d_v. Computes exp() of the raw scores (no max subtraction, the kernel as the
/// article writes it), so it is meant for moderate scores: where softmax attention subtracts each
/// row's largest score first, this refuses.
arma::mat kernel_smoothing(const arma::mat& Q, const arma::mat& K, const arma::mat& V);

/// Unnormalized causal linear attention as one masked product: Y = tril(Q K^T) V, the lower
/// triangle kept including the diagonal (constant scaling omitted, as in the article).
/// Q, K: n x d_k; V: n x d_v. Returns n x d_v, row i = sum_{j <= i} (q_i . k_j) v_j.
arma::mat causal_linear_attention_masked(const arma::mat& Q, const arma::mat& K, const arma::mat& V);

/// The same output token by token from a running memory: S_i = S_(i-1) + v_i^T k_i (d_v x d_k,
/// v_i and k_i rows), read as y_i = (S_i q_i^T)^T. Q, K: n x d_k; V: n x d_v. Returns n x d_v.
/// If `memories` is given it receives S_1 . S_n (each d_v x d_k).
arma::mat causal_linear_attention_recurrent(const arma::mat& Q, const arma::mat& K, const arma::mat& V,
                                            std::vector<arma::mat>* memories = nullptr);

/// Bytes a key/value cache holds at `position` tokens (doubles): position x (d_k + d_v) x 8, a count.
std::size_t kv_cache_bytes(std::size_t position, std::size_t d_k, std::size_t d_v);

/// Bytes the linear memory S holds at any position (doubles): d_v x d_k x 8, a count.
std::size_t linear_memory_bytes(std::size_t d_k, std::size_t d_v);

/// One row of the generation benchmark.
struct CostRow {
  std::size_t position = 0;       ///< tokens seen, including the one being generated
  double softmax_seconds = 0.0;   ///< one softmax step over a key/value cache of `position` tokens
  double linear_seconds = 0.0;    ///< one linear-memory step (update S, read it)
  std::size_t softmax_bytes = 0;  ///< bytes held by the key/value cache
  std::size_t linear_bytes = 0;   ///< bytes held by S
};

/// The positions the benchmark measures: 1, 2, 4, .. up to max_position, which is always
/// included.
std::vector<std::size_t> bench_positions(std::size_t max_position);

/// Times one generation step at each of bench_positions(max_position), for both mechanisms:
/// softmax attention reads a cache of `position` keys and values (scores, softmax, weighted sum:
/// work and memory grow with the position), the linear memory adds v k^T to S and reads S q
/// (work and memory fixed). Each time is the best of three batches, each batch repeating the
/// step for at least `seconds_per_batch`. Inputs are random with a fixed seed.
std::vector<CostRow> benchmark_generation(std::size_t d_k, std::size_t d_v, std::size_t max_position,
                                          double seconds_per_batch);

// ---- the program's sections, computed once --------------------------------------------------------

/// The random head of sections 1-3 (d = 6, d_k = 2, d_v = 3, the article's setting for mem_01),
/// with the invertible 2 x 2 matrix R of section 2, all drawn in one place.
struct RandomHead {
  arma::mat X{};   ///< 4 x 6: four tokens
  arma::mat Wq{};  ///< 6 x 2
  arma::mat Wk{};  ///< 6 x 2
  arma::mat Wv{};  ///< 6 x 3
  arma::mat R{};   ///< 2 x 2 with |det R| >= 0.1 (redrawn until it is)
};

/// The head drawn from one attn::Random stream seeded with `seed`, in the order X, Wq, Wk, Wv, R,
/// every entry N(0, 1): the same numbers with every compiler and standard library (Armadillo's
/// global generator is not touched; the claims hold for any draw).
RandomHead random_head(unsigned seed);

/// Section 1: the score as a learned bilinear form.
struct BilinearSection {
  arma::mat M{};                    ///< 6 x 6: M = Wq Wk^T
  arma::mat S{};                    ///< 4 x 4: s_ij = X_i M X_j^T
  double largest_difference = 0.0;  ///< max |X M X^T - (X Wq)(X Wk)^T|
  arma::uword rank = 0;             ///< rank(M), at most d_k
  double asymmetry = 0.0;           ///< max |M - M^T|
};
/// Computes section 1 on `head`.
BilinearSection learned_matching(const RandomHead& head);

/// Section 2: the factorization is not unique, Wq R and Wk R^-T give the same scores.
struct FactorSection {
  arma::mat Wq2{};             ///< 6 x 2: Wq R
  arma::mat Wk2{};             ///< 6 x 2: Wk R^-T
  double factor_change = 0.0;  ///< max |Wq R - Wq|: the factors moved
  double score_change = 0.0;   ///< max |scores after - scores before|: the scores did not
  double det_R = 0.0;          ///< det R, away from 0 (random_head redraws R until |det R| >= 0.1)
};
/// Computes section 2 on `head` (with head.R).
FactorSection not_unique(const RandomHead& head);

/// Section 3: softmax attention as normalized exp-kernel smoothing.
struct KernelSection {
  attn::HeadPass pass{};            ///< the head on X
  arma::mat smooth{};               ///< 4 x 3: kernel_smoothing(Q, K, V)
  double largest_difference = 0.0;  ///< max |smooth - H|
};
/// Computes section 3 on `head`.
KernelSection kernel_view(const RandomHead& head);

/// Section 4: causal linear attention as a running memory, on "the river money bank" with
/// identity projections (q = k = v = x, d_k = d_v = 4).
struct MemorySection {
  std::vector<std::string> words{};          ///< the sentence
  arma::mat masked{};                        ///< 4 x 4: tril(Q K^T) V
  arma::mat recurrent{};                     ///< 4 x 4: y_i = S_i q_i, token by token
  std::vector<arma::mat> memories{};         ///< S_1 .. S_4, each 4 x 4
  attn::HeadPass softmax{};                  ///< the causal softmax head on the same sentence, for contrast
  double largest_difference = 0.0;           ///< max |masked - recurrent|
  std::vector<std::size_t> cache_numbers{};  ///< per step i (1-based): the i keys and i values a cache holds, 2 i d
};
/// Computes section 4 over `table`.
MemorySection running_memory(const attn::EmbeddingTable& table);

/// The head width of the cost measurement (d_k = d_v = 64).
inline constexpr std::size_t kCostWidth = 64;

/// Section 5 (--bench): the generation cost of both mechanisms at d_k = d_v = kCostWidth.
struct CostSection {
  std::size_t width = kCostWidth;     ///< d_k = d_v
  std::vector<CostRow> rows{};        ///< one per position of bench_positions
  std::vector<double> time_ratios{};  ///< per row: softmax time / linear time
  std::vector<double> byte_ratios{};  ///< per row: cache bytes / S bytes
};
/// Measures section 5 up to `max_position` (benchmark_generation, 2 ms batches).
CostSection cost_section(std::size_t max_position);

/// `x` in scientific notation with one decimal ("3.6e-15"), how the chapter prints rounding-level
/// differences.
std::string scientific(double x);

}  // namespace ch07
