/// \file scaling.cpp
/// \brief Chapter 04 computations (see scaling.hpp).
#include "scaling.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "common/attention/attention.hpp"
#include "common/attention/random.hpp"

namespace ch04 {
namespace {

void require_pair(const arma::vec& q, const arma::vec& k, const char* who) {
  if (q.is_empty() || k.is_empty() || q.n_elem != k.n_elem) {
    throw std::invalid_argument(std::string(who) + ": q has " + std::to_string(q.n_elem) + " entries, k has " +
                                std::to_string(k.n_elem) + " (need the same length, at least 1)");
  }
}

}  // namespace

double dot(const arma::vec& q, const arma::vec& k) {
  require_pair(q, k, "dot");
  return arma::dot(q, k);
}

// [cosine_similarity]
double cosine_similarity(const arma::vec& q, const arma::vec& k) {
  require_pair(q, k, "cosine_similarity");
  const double lengths = arma::norm(q) * arma::norm(k);
  if (lengths == 0.0) throw std::invalid_argument("cosine_similarity: a zero vector has no angle");
  return arma::dot(q, k) / lengths;  // the lengths cancel: cos(theta)
}
// [cosine_similarity]

double scaled_dot(double dot, arma::uword d_k) {
  if (d_k == 0) throw std::invalid_argument("scaled_dot: d_k must be at least 1");
  return dot / std::sqrt(static_cast<double>(d_k));
}

// [shadow_of]
Shadow shadow_of(double angle_degrees, double length, double b_length) {
  if (!std::isfinite(angle_degrees)) throw std::invalid_argument("the angle must be a finite number of degrees");
  if (!std::isfinite(length) || length < 0.0) {
    throw std::invalid_argument("the length of a must be finite and >= 0, not " + std::to_string(length));
  }
  if (!std::isfinite(b_length) || b_length <= 0.0) {
    throw std::invalid_argument("the length of b must be finite and > 0, not " + std::to_string(b_length));
  }
  const double theta = std::fmod(angle_degrees, 360.0) * std::numbers::pi / 180.0;
  Shadow s;
  s.angle_degrees = angle_degrees;
  s.length = length;
  s.b_length = b_length;
  s.a = length * arma::vec{std::cos(theta), std::sin(theta)};
  s.b = arma::vec{b_length, 0.0};
  s.projection = length * std::cos(theta);  // |a| cos(theta): a's shadow along b
  s.shadow = arma::vec{s.projection, 0.0};
  s.dot = arma::dot(s.a, s.b);  // = projection * |b|
  if (length > 0.0) s.cosine = s.dot / (length * arma::norm(s.b));
  const double zero_band = 1e-12 * length;  // cos(90 deg) is 6e-17 in floating point
  s.side = s.projection > zero_band ? Side::positive : s.projection < -zero_band ? Side::negative : Side::zero;
  return s;
}
// [shadow_of]

// [dot_product_variance]
VarianceEstimate dot_product_variance(arma::uword d_k, arma::uword samples, std::uint64_t seed) {
  if (d_k == 0) throw std::invalid_argument("dot_product_variance: d_k must be at least 1");
  if (samples < 2) throw std::invalid_argument("dot_product_variance: need at least 2 samples");
  attn::Random rng(seed);  // N(0, 1) components: mean 0, variance 1, independent draws
  arma::vec dots(samples);
  for (arma::uword s = 0; s < samples; ++s) {
    double sum = 0.0;
    for (arma::uword r = 0; r < d_k; ++r) sum += rng.normal() * rng.normal();  // q_r k_r
    dots(s) = sum;
  }
  VarianceEstimate e{.d_k = d_k, .samples = samples};
  e.mean = arma::mean(dots);
  e.var_raw = arma::var(dots);                                // expected d_k
  const double m4 = arma::mean(arma::pow(dots - e.mean, 4));  // fourth central moment
  e.se_raw = std::sqrt(std::max(m4 - e.var_raw * e.var_raw, 0.0) / static_cast<double>(samples));
  e.var_scaled = e.var_raw / static_cast<double>(d_k);  // Var(X / c) = Var(X) / c^2, c = sqrt(d_k)
  e.se_scaled = e.se_raw / static_cast<double>(d_k);
  return e;
}
// [dot_product_variance]

bool within_three_standard_errors(const VarianceEstimate& e) {
  return std::abs(e.var_raw - static_cast<double>(e.d_k)) <= 3 * e.se_raw &&
         std::abs(e.var_scaled - 1.0) <= 3 * e.se_scaled;
}

std::vector<arma::uword> variance_widths() { return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}; }

std::vector<VarianceEstimate> variance_sweep(const std::vector<arma::uword>& widths, arma::uword samples,
                                             std::uint64_t seed) {
  std::vector<VarianceEstimate> out;
  for (std::size_t i = 0; i < widths.size(); ++i) out.push_back(dot_product_variance(widths[i], samples, seed + i));
  return out;
}

arma::rowvec softmax(const arma::rowvec& scores) { return attn::softmax_rows(arma::mat(scores)); }

// [softmax_jacobian]
arma::mat softmax_jacobian(const arma::rowvec& a) {
  if (a.is_empty()) throw std::invalid_argument("softmax_jacobian: no weights");
  // a_i = exp(s_i) / sum_m exp(s_m)   =>   d a_i / d s_j = a_i [i == j] - a_i a_j
  return arma::mat(arma::diagmat(a) - a.t() * a);
}
// [softmax_jacobian]

arma::mat sharpness_sweep(const arma::rowvec& scores, const arma::vec& multipliers) {
  arma::mat weights(multipliers.n_elem, scores.n_elem);
  for (arma::uword t = 0; t < multipliers.n_elem; ++t) weights.row(t) = softmax(multipliers(t) * scores);
  return weights;
}

arma::vec jacobian_norm_sweep(const arma::rowvec& scores, const arma::vec& multipliers) {
  arma::vec norms(multipliers.n_elem);
  for (arma::uword t = 0; t < multipliers.n_elem; ++t) {
    norms(t) = arma::norm(softmax_jacobian(softmax(multipliers(t) * scores)), "fro");
  }
  return norms;
}

LengthExample length_example() {
  // clang-format off
  return {.q = arma::rowvec{2, 0, 1, 0},
          .K = arma::mat{{ 2, 1, 0, 0},
                         { 0, 0, 2, 1},
                         {-1, 0, 0, 1}}};
  // clang-format on
}

namespace {

void require_keys(const arma::rowvec& q, const arma::mat& K, const char* who) {
  if (q.is_empty() || K.n_cols != q.n_elem || K.n_rows == 0) {
    throw std::invalid_argument(std::string(who) + ": q is 1 x " + std::to_string(q.n_elem) + ", K is " +
                                std::to_string(K.n_rows) + " x " + std::to_string(K.n_cols) +
                                " (need K m x d_k, m >= 1, d_k = q's width >= 1)");
  }
}

}  // namespace

// [length_scores]
arma::rowvec scaled_scores(const arma::rowvec& q, const arma::mat& K) {
  require_keys(q, K, "scaled_scores");
  return arma::rowvec(q * K.t() / std::sqrt(static_cast<double>(q.n_elem)));
}

arma::rowvec cosine_scores(const arma::rowvec& q, const arma::mat& K) {
  require_keys(q, K, "cosine_scores");
  arma::rowvec out(K.n_rows);
  for (arma::uword j = 0; j < K.n_rows; ++j) out(j) = cosine_similarity(q.t(), K.row(j).t());
  return out;
}
// [length_scores]

arma::mat with_key_scaled(const arma::mat& K, arma::uword key, double c) {
  if (key >= K.n_rows) {
    throw std::invalid_argument("with_key_scaled: key " + std::to_string(key) + " of " + std::to_string(K.n_rows));
  }
  arma::mat out = K;
  out.row(key) *= c;
  return out;
}

}  // namespace ch04
