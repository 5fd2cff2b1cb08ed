/// \file sections.cpp
/// \brief Chapter 04's sections computed once (see sections.hpp).
#include "sections.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/apparatus/print.hpp"
#include "common/attention/checks.hpp"

namespace ch04 {

using app::format_plain;

app::Parsed<arma::rowvec> scores_from_text(const std::string& name, const std::string& text) {
  const app::Parsed<std::vector<std::string>> entries = app::split_list(text);
  if (!entries.value)
    return {.value = {}, .problem = fmt::format("{} {} {}", name, attn::quoted(text), entries.problem)};
  std::vector<double> values;
  for (const std::string& entry : *entries.value) {
    // One number an entry: "3 1" is two scores missing their comma, "\r" no score at all.
    const app::Parsed<double> x = app::parse_number(entry);
    if (!x.value) {
      const bool two = entry.find_first_of(" \t") != std::string::npos &&
                       entry.find_first_not_of(" \t0123456789.eE+-") == std::string::npos;
      return {.value = {},
              .problem = fmt::format("{}: entry {} {}", name, attn::quoted(entry),
                                     two ? "holds several numbers (separate scores by commas)" : x.problem)};
    }
    if (std::abs(*x.value) > attn::kLargestInput) {
      return {.value = {},
              .problem = fmt::format("{} entries must be between {:g} and {:g} (got {})", name, -attn::kLargestInput,
                                     attn::kLargestInput, attn::quoted(entry))};
    }
    values.push_back(*x.value);
  }
  if (values.size() > kMaxScores) {
    return {.value = {}, .problem = fmt::format("{} needs 1 to {} numbers, got {}", name, kMaxScores, values.size())};
  }
  return {.value = arma::rowvec(values), .problem = {}};
}

std::string small_number(double x) {
  return std::abs(x) >= 0.1 || x == 0.0 ? fmt::format("{:.4f}", x) : fmt::format("{:.2e}", x);
}

DotCosineTable dot_cosine_table() {
  DotCosineTable t;
  const std::pair<arma::vec, arma::vec> pairs[] = {
      {{1, 0}, {1, 0}}, {{10, 0}, {10, 0}}, {{1, 0}, {0, 1}}, {{1, 0}, {-1, 0}}};
  for (const auto& [q, k] : pairs) {
    t.rows.push_back({.q = q, .k = k, .dot = dot(q, k), .cosine = cosine_similarity(q, k)});
  }
  t.growth = t.rows[1].dot / t.rows[0].dot;
  return t;
}

Explorer explorer(double angle_degrees, double length, double b_length) {
  Explorer e;
  e.shadow = shadow_of(angle_degrees, length, b_length);
  for (double other : {1.0, 5.0, 10.0}) e.other_lengths.push_back(shadow_of(angle_degrees, other, b_length));
  e.sweep.angles = arma::linspace(0.0, 360.0, 361);
  e.sweep.lengths = {1, 5, 10};
  e.sweep.dots.set_size(e.sweep.angles.n_elem, e.sweep.lengths.n_elem);
  for (arma::uword i = 0; i < e.sweep.angles.n_elem; ++i) {
    for (arma::uword j = 0; j < e.sweep.lengths.n_elem; ++j) {
      e.sweep.dots(i, j) = shadow_of(e.sweep.angles(i), e.sweep.lengths(j), b_length).dot;
    }
  }
  e.sweep.shown_angle = std::fmod(angle_degrees, 360.0);
  if (e.sweep.shown_angle < 0) e.sweep.shown_angle += 360.0;
  e.sweep.b_length = b_length;
  e.article = angle_degrees == 20.0 && length == 10.0 && b_length == 1.0;
  return e;
}

FixedDivisor fixed_divisor() {
  FixedDivisor f{.d_k = 64, .divisor = std::sqrt(64.0), .dots = {1, 8, 40, 100}};
  f.scaled.set_size(f.dots.n_elem);
  for (arma::uword i = 0; i < f.dots.n_elem; ++i) f.scaled(i) = scaled_dot(f.dots(i), f.d_k);
  f.longer_dot = 10 * f.base_dot;
  f.longer_scaled = scaled_dot(f.longer_dot, f.d_k);
  f.shorter_scaled = scaled_dot(f.base_dot, f.d_k);
  return f;
}

VarianceSection variance_section(arma::uword samples, std::uint64_t seed) {
  VarianceSection v{.estimates = variance_sweep(variance_widths(), samples, seed), .samples = samples, .seed = seed};
  for (const VarianceEstimate& e : v.estimates) v.within.push_back(within_three_standard_errors(e));
  return v;
}

namespace {

/// What dividing the scores by `divisor` did to the top key.
std::string winner_words(const arma::rowvec& raw, double divisor) {
  if (raw.n_elem == 1) return "  One key takes all the weight, whatever its score.";
  if (raw.max() == raw.min()) return "  Equal scores stay equal: every key keeps the same share.";
  if (divisor == 1.0) return "  Dividing by 1 changes nothing.";
  if (arma::accu(raw == raw.max()) > 1) return "  The top keys stay tied, each with a smaller share.";
  return fmt::format("  Key {}{}", raw.index_max() + 1,
                     softmax(raw / divisor).max() < softmax(raw).max()
                         ? " still wins, with a smaller share."
                         : " still wins; its share is the same to double precision.");
}

}  // namespace

SoftmaxScaling softmax_scaling(const arma::rowvec& scores, arma::uword d_k, bool article) {
  SoftmaxScaling r{.d_k = d_k, .divisor = std::sqrt(static_cast<double>(d_k)), .raw = scores, .article = article};
  if (d_k == 0) throw std::invalid_argument("softmax_scaling: d_k must be at least 1");
  r.scaled = scores / r.divisor;
  r.a_raw = softmax(r.raw);
  r.a_scaled = softmax(r.scaled);
  r.winner = winner_words(r.raw, r.divisor);
  return r;
}

LearningSignal learning_signal(const arma::rowvec& scores, double divisor, bool article) {
  LearningSignal r{.scores = scores, .article = article};
  for (arma::uword j = 0; j < scores.n_elem; ++j) r.keys.push_back(std::string("a").append(std::to_string(j + 1)));
  for (double c : {1.0 / divisor, 1.0}) {
    JacobianAt at{.scores = c * scores};
    at.a = softmax(at.scores);
    at.J = softmax_jacobian(at.a);
    at.norm = arma::norm(at.J, "fro");
    r.at.push_back(at);
  }
  r.cs = {0.25, 0.5, 1, 2, 4, 8, 16};
  r.weights = sharpness_sweep(scores, r.cs);
  r.norms = jacobian_norm_sweep(scores, r.cs);
  r.largest = arma::max(r.weights, 1);
  return r;
}

SharpnessCurves sharpness_curves(const arma::rowvec& scores, double divisor) {
  SharpnessCurves c{.scores = scores, .cs = arma::logspace(std::log10(0.05), std::log10(20.0), 161)};
  c.weights = sharpness_sweep(scores, c.cs);
  c.norms = jacobian_norm_sweep(scores, c.cs);
  for (arma::uword j = 0; j < scores.n_elem; ++j) {
    c.keys.push_back(fmt::format("key {} (score {})", j + 1, format_plain(scores(j))));
  }
  c.marks = {{1.0 / divisor, "c = 1/" + format_plain(divisor)}, {1.0, "c = 1"}};
  return c;
}

}  // namespace ch04
