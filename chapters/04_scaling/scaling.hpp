/// \file scaling.hpp
/// \brief Chapter 04: dot products, cosine similarity, and why scores are divided by sqrt(d_k).
///
/// Vectors here are single queries or keys; a score row is 1 x m (one score per key).
/// Throws: std::invalid_argument, naming the shapes, for empty vectors or vectors of different
/// lengths (dot, cosine_similarity) and for an empty q or rows of K not as wide as q (scaled_scores,
/// cosine_scores); for a zero vector, whose angle is undefined (cosine_similarity, cosine_scores);
/// for d_k of 0 (scaled_dot, dot_product_variance, variance_sweep) or fewer than 2 samples (the last
/// two); for an angle that is not finite, a length of a that is negative or not finite, or a length
/// of b that is not finite and positive (shadow_of); for empty or non-finite scores, like
/// attn::softmax_rows (softmax, sharpness_sweep, jacobian_norm_sweep); for empty weights
/// (softmax_jacobian); for key >= m (with_key_scaled). The others throw nothing beyond std::bad_alloc.
/// Sources: the article, "Dot products, cosine similarity, and scaling" and its subsections "A dot
/// product includes vector length" (its "Rotate a. Watch its shadow." explorer), "Cosine similarity
/// removes the lengths", "Why divide by the square root of the dimension?", "Scaling changes how
/// sharply softmax chooses" and "Why not use cosine similarity instead?" (length_example is built
/// for it); Vaswani et al. 2017, §3.2.1 and footnote 4 (the variance argument for the sqrt(d_k)
/// divisor).
#pragma once

#include <armadillo>
#include <cstdint>
#include <optional>
#include <vector>

namespace ch04 {

/// q .\ k = sum_r q_r k_r. q, k: the same length d >= 1 (row or column, one vector each).
double dot(const arma::vec& q, const arma::vec& k);

/// cosSim(q, k) = q .\ k / (|q| |k|) = cos(theta), the angle alone. q, k: the same length d >= 1.
double cosine_similarity(const arma::vec& q, const arma::vec& k);

/// A score divided by the head's fixed divisor: dot / sqrt(d_k), whatever the vectors' lengths.
double scaled_dot(double dot, arma::uword d_k);

/// Sign of a signed projection, as the explorer reports it.
enum class Side { positive, zero, negative };

/// The explorer's state: a at an angle with a length, b along the horizontal axis with its own length.
struct Shadow {
  double angle_degrees = 0.0;      ///< the angle of a from b, as given
  double length = 0.0;             ///< |a|
  double b_length = 1.0;           ///< |b| (1 in the article: b is a unit vector)
  arma::vec a{};                   ///< 2 x 1: length * (cos angle, sin angle)
  arma::vec b{};                   ///< 2 x 1: (|b|, 0)
  double projection = 0.0;         ///< signed projection of a on b's direction: |a| cos(angle)
  arma::vec shadow{};              ///< 2 x 1: the projection vector (projection, 0)
  double dot = 0.0;                ///< a . b = projection * |b|
  std::optional<double> cosine{};  ///< cos(angle); empty when |a| = 0 (undefined)
  Side side = Side::zero;          ///< positive, zero (within 1e-12 |a|) or negative projection
};

/// The "Rotate a. Watch its shadow." explorer: a has `length` and makes `angle_degrees` with
/// b = (b_length, 0). angle_degrees: any finite number; length: finite and >= 0; b_length: finite
/// and > 0 (b's direction is the line a casts its shadow on).
Shadow shadow_of(double angle_degrees, double length, double b_length = 1.0);

/// What a Monte Carlo run measured for one d_k (q and k with independent N(0, 1) components).
struct VarianceEstimate {
  arma::uword d_k = 0;      ///< query/key width
  arma::uword samples = 0;  ///< number of (q, k) pairs drawn
  double mean = 0.0;        ///< sample mean of q . k (expected 0)
  double var_raw = 0.0;     ///< sample variance of q . k (expected d_k)
  double se_raw = 0.0;      ///< its standard error, sqrt((m4 - s^4) / samples)
  double var_scaled = 0.0;  ///< sample variance of q . k / sqrt(d_k) (expected 1)
  double se_scaled = 0.0;   ///< its standard error (se_raw / d_k)
};

/// Draws `samples` pairs q, k (each d_k x 1, independent N(0, 1) components) from one attn::Random
/// stream seeded with `seed` (the same numbers with every standard library), and measures the
/// variance of q .\ k and of q .\ k / sqrt(d_k).
VarianceEstimate dot_product_variance(arma::uword d_k, arma::uword samples, std::uint64_t seed);

/// Claim scale_04 on one estimate: the measured Var(q .\ k) lies within 3 standard errors of d_k,
/// and Var(q .\ k / sqrt(d_k)) within 3 of 1.
bool within_three_standard_errors(const VarianceEstimate& e);

/// The widths the program's Monte Carlo table measures: 1, 2, 4, .., 512 (10 widths).
std::vector<arma::uword> variance_widths();

/// dot_product_variance for each d_k in turn (seed + index, so each width has its own stream).
/// One estimate per width, in order.
std::vector<VarianceEstimate> variance_sweep(const std::vector<arma::uword>& widths, arma::uword samples,
                                             std::uint64_t seed);

/// softmax of one score row. scores: 1 x m, finite, m >= 1. Returns 1 x m weights summing to 1.
arma::rowvec softmax(const arma::rowvec& scores);

/// The softmax Jacobian at weights a = softmax(s): J = diag(a) - a^T a, with J(i, j) = d a_i / d s_j.
/// a: 1 x m (a row of weights); returns m x m, symmetric, every row summing to 0.
/// J follows from differentiating a_i = exp(s_i) / sum_m exp(s_m).
arma::mat softmax_jacobian(const arma::rowvec& a);

/// Weights of c * scores for each c: multipliers.n_elem x m, row t the weights under multipliers(t).
/// scores: 1 x m, finite.
arma::mat sharpness_sweep(const arma::rowvec& scores, const arma::vec& multipliers);

/// Frobenius norm of softmax_jacobian(softmax(c * scores)) for each c: multipliers.n_elem x 1.
/// scores: 1 x m.
arma::vec jacobian_norm_sweep(const arma::rowvec& scores, const arma::vec& multipliers);

/// The cosine section's example: one query and three fixed keys with d_k = 4, so that the scaled
/// scores q .\ k / sqrt(4) are the whole numbers [2, 1, -1]: k1 scores positive, k3 negative.
struct LengthExample {
  arma::rowvec q{};  ///< 1 x 4, the query [2, 0, 1, 0]
  arma::mat K;       ///< 3 x 4, one key per row: k1 [2, 1, 0, 0], k2 [0, 0, 2, 1], k3 [-1, 0, 0, 1]
};

/// The example above.
LengthExample length_example();

/// Scaled dot-product scores of one query against every key: q K^T / sqrt(d_k), d_k = q.n_elem.
/// q: 1 x d_k; K: m x d_k (one key per row). Returns 1 x m.
arma::rowvec scaled_scores(const arma::rowvec& q, const arma::mat& K);

/// Cosine scores of one query against every key: cosSim(q, k_j) for each row k_j of K, the lengths
/// divided out (no sqrt(d_k) divisor: the cosine is already between -1 and 1). q: 1 x d_k; K: m x d_k.
/// Returns 1 x m.
arma::rowvec cosine_scores(const arma::rowvec& q, const arma::mat& K);

/// K with row `key` multiplied by c (one key made c times longer). K: m x d_k.
arma::mat with_key_scaled(const arma::mat& K, arma::uword key, double c);

}  // namespace ch04
