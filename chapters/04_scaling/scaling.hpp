/// \file scaling.hpp
/// \brief Chapter 04: dot products, cosine similarity, and why scores are divided by sqrt(d_k).
///
/// Source: the article, "Dot products, cosine similarity, and scaling" and its subsections
/// (including the "Rotate a. Watch its shadow." explorer); Vaswani et al. 2017, §3.2.1 (the
/// variance argument for the sqrt(d_k) divisor). Vectors here are single queries or keys.
#pragma once

#include <armadillo>
#include <cstdint>
#include <optional>
#include <vector>

namespace ch04 {

/// q .\ k = sum_r q_r k_r. q, k: the same length d >= 1 (row or column, one vector each).
/// Throws std::invalid_argument if either is empty or the lengths differ (naming both).
/// Source: the article, "A dot product includes vector length".
double dot(const arma::vec& q, const arma::vec& k);

/// cosSim(q, k) = q .\ k / (|q| |k|) = cos(theta), the angle alone. q, k: the same length d >= 1.
/// Throws std::invalid_argument like dot(), and if either vector is zero (the angle is undefined).
/// Source: the article, "Cosine similarity removes the lengths".
double cosine_similarity(const arma::vec& q, const arma::vec& k);

/// A score divided by the head's fixed divisor: dot / sqrt(d_k), whatever the vectors' lengths.
/// Throws std::invalid_argument if d_k is 0. Source: Vaswani et al. 2017, §3.2.1.
double scaled_dot(double dot, arma::uword d_k);

/// Sign of a signed projection, as the explorer reports it.
enum class Side { positive, zero, negative };

/// The explorer's state: a at an angle with a length, b the unit vector along the horizontal axis.
struct Shadow {
  double angle_degrees = 0.0;    ///< the angle of a from b, as given
  double length = 0.0;           ///< |a|
  arma::vec a;                   ///< 2 x 1: length * (cos angle, sin angle)
  arma::vec b;                   ///< 2 x 1: (1, 0)
  double projection = 0.0;       ///< signed projection of a on b's direction: |a| cos(angle)
  arma::vec shadow;              ///< 2 x 1: the projection vector (projection, 0)
  double dot = 0.0;              ///< a . b = projection * |b| = projection (b is a unit vector)
  std::optional<double> cosine;  ///< cos(angle); empty when |a| = 0 (undefined)
  Side side = Side::zero;        ///< positive, zero (within 1e-12 |a|) or negative projection
};

/// The "Rotate a. Watch its shadow." explorer: a has `length` and makes `angle_degrees` with b = (1, 0).
/// angle_degrees: any finite number; length: finite and >= 0.
/// Throws std::invalid_argument if the angle is not finite or the length is negative or not finite.
/// Source: the article, "A dot product includes vector length" (its shadow explorer).
Shadow shadow_of(double angle_degrees, double length);

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

/// Draws `samples` pairs q, k (each d_k x 1, independent N(0, 1) components) from a
/// std::mt19937_64 seeded with `seed`, and measures the variance of q .\ k and of q .\ k / sqrt(d_k).
/// Throws std::invalid_argument if d_k is 0 or samples < 2.
/// Source: the article, "Why divide by the square root of the dimension?"; Vaswani et al. 2017,
/// §3.2.1, footnote 4.
VarianceEstimate dot_product_variance(arma::uword d_k, arma::uword samples, std::uint64_t seed);

/// Claim scale_04 on one estimate: the measured Var(q .\ k) lies within 3 standard errors of d_k,
/// and Var(q .\ k / sqrt(d_k)) within 3 of 1. Throws nothing.
/// Source: the article, "Why divide by the square root of the dimension?".
bool within_three_standard_errors(const VarianceEstimate& e);

/// The widths the program's Monte Carlo table measures: 1, 2, 4, ..., 512 (10 widths).
/// Throws nothing. Source: the article, "Why divide by the square root of the dimension?".
std::vector<arma::uword> variance_widths();

/// dot_product_variance for each d_k in turn (seed + index, so each width has its own stream).
/// Throws like dot_product_variance. One estimate per width, in order.
/// Source: the article, "Why divide by the square root of the dimension?".
std::vector<VarianceEstimate> variance_sweep(const std::vector<arma::uword>& widths, arma::uword samples,
                                             std::uint64_t seed);

/// softmax of one score row. scores: 1 x m, finite, m >= 1. Returns 1 x m weights summing to 1.
/// Throws std::invalid_argument like attn::softmax_rows. Source: the article, "Scaling changes how sharply
/// softmax chooses".
arma::rowvec softmax(const arma::rowvec& scores);

/// The softmax Jacobian at weights a = softmax(s): J = diag(a) - a^T a, with J(i, j) = d a_i / d s_j.
/// a: 1 x m (a row of weights); returns m x m, symmetric, every row summing to 0.
/// Throws std::invalid_argument if a is empty. Source: differentiating a_i = exp(s_i) / sum_m exp(s_m).
arma::mat softmax_jacobian(const arma::rowvec& a);

/// Weights of c * scores for each c: multipliers.n_elem x m, row t the weights under multipliers(t).
/// scores: 1 x m, finite. Throws std::invalid_argument like softmax(). Source: the article, "Scaling
/// changes how sharply softmax chooses".
arma::mat sharpness_sweep(const arma::rowvec& scores, const arma::vec& multipliers);

/// Frobenius norm of softmax_jacobian(softmax(c * scores)) for each c: multipliers.n_elem x 1.
/// scores: 1 x m. Throws std::invalid_argument like softmax(). Source: the article, "Scaling changes how
/// sharply softmax chooses".
arma::vec jacobian_norm_sweep(const arma::rowvec& scores, const arma::vec& multipliers);

}  // namespace ch04
