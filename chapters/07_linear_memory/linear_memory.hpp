/// \file linear_memory.hpp
/// \brief Chapter 07: the score as a learned bilinear form, attention as kernel smoothing, and
/// unnormalized causal linear attention as a fixed-size running memory (with its cost measured).
///
/// Source: the article, "Learned matching, kernel smoothing, and memory"; Katharopoulos et al. 2020
/// (linear attention, §3.2, causal form §3.3); Schlag et al. 2021 (fast weight programmers).
/// Tokens are rows: X is n x d, Q n x d_k, K n x d_k, V n x d_v.
#pragma once

#include <armadillo>
#include <cstddef>
#include <vector>

namespace ch07 {

/// The matrix between the two inputs of an unscaled score: M = Wq Wk^T.
/// Wq, Wk: d x d_k. Returns d x d, of rank at most d_k, not symmetric in general.
/// Throws std::invalid_argument if the shapes differ.
arma::mat bilinear_matrix(const arma::mat& Wq, const arma::mat& Wk);

/// Unscaled scores as a bilinear form, s_ij = X_i M X_j^T. X: n x d; M: d x d. Returns n x n.
/// Throws std::invalid_argument if M is not d x d.
arma::mat bilinear_scores(const arma::mat& X, const arma::mat& M);

/// Softmax attention written as kernel smoothing: weights exp(q_i . k_j / sqrt(d_k)), normalized
/// over the sources j, average the values. Q: n_q x d_k; K: n_kv x d_k; V: n_kv x d_v.
/// Returns n_q x d_v. Computes exp() of the raw scores (no max subtraction), so it is meant for
/// moderate scores. Throws std::invalid_argument if the shapes disagree, an entry of Q, K or V is
/// not finite, or a row's kernel sum overflows (a scaled score above about 709), as attn::softmax_rows
/// refuses non-finite scores.
arma::mat kernel_smoothing(const arma::mat& Q, const arma::mat& K, const arma::mat& V);

/// Unnormalized causal linear attention as one masked product: Y = tril(Q K^T) V, the lower
/// triangle kept including the diagonal (constant scaling omitted, as in the article).
/// Q, K: n x d_k; V: n x d_v. Returns n x d_v, row i = sum_{j <= i} (q_i . k_j) v_j.
/// Throws std::invalid_argument if the shapes disagree or n is 0.
arma::mat causal_linear_attention_masked(const arma::mat& Q, const arma::mat& K, const arma::mat& V);

/// The same output token by token from a running memory: S_i = S_(i-1) + v_i^T k_i (d_v x d_k,
/// v_i and k_i rows), read as y_i = (S_i q_i^T)^T. Q, K: n x d_k; V: n x d_v. Returns n x d_v.
/// If `memories` is given it receives S_1 .. S_n (each d_v x d_k).
/// Throws std::invalid_argument like causal_linear_attention_masked.
arma::mat causal_linear_attention_recurrent(const arma::mat& Q, const arma::mat& K, const arma::mat& V,
                                            std::vector<arma::mat>* memories = nullptr);

/// Bytes a key/value cache holds at `position` tokens (doubles): position x (d_k + d_v) x 8.
std::size_t kv_cache_bytes(std::size_t position, std::size_t d_k, std::size_t d_v);

/// Bytes the linear memory S holds at any position (doubles): d_v x d_k x 8.
std::size_t linear_memory_bytes(std::size_t d_k, std::size_t d_v);

/// One row of the generation benchmark.
struct CostRow {
  std::size_t position = 0;       ///< tokens seen, including the one being generated
  double softmax_seconds = 0.0;   ///< one softmax step over a key/value cache of `position` tokens
  double linear_seconds = 0.0;    ///< one linear-memory step (update S, read it)
  std::size_t softmax_bytes = 0;  ///< bytes held by the key/value cache
  std::size_t linear_bytes = 0;   ///< bytes held by S
};

/// The positions the benchmark measures: 1, 2, 4, ... up to max_position, which is always
/// included. Throws std::invalid_argument if max_position is 0.
std::vector<std::size_t> bench_positions(std::size_t max_position);

/// Times one generation step at each of bench_positions(max_position), for both mechanisms:
/// softmax attention reads a cache of `position` keys and values (scores, softmax, weighted sum:
/// work and memory grow with the position), the linear memory adds v k^T to S and reads S q
/// (work and memory fixed). Each time is the best of three batches, each batch repeating the
/// step for at least `seconds_per_batch`. Inputs are random with a fixed seed.
/// Throws std::invalid_argument if a size is 0 or the batch time is not positive.
std::vector<CostRow> benchmark_generation(std::size_t d_k, std::size_t d_v, std::size_t max_position,
                                          double seconds_per_batch);

}  // namespace ch07
