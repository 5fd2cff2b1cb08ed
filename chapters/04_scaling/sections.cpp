/// \file sections.cpp
/// \brief Chapter 04's sections computed once, with their claims (see sections.hpp).
#include "sections.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/attention/checks.hpp"

namespace ch04 {
namespace {

using attn::format_number;
using attn::format_plain;

/// "[4, 2, 0]": each entry in its shortest form.
std::string plain_vector(const arma::rowvec& v) {
  std::vector<std::string> entries;
  for (const double x : v) entries.push_back(format_plain(x));
  return fmt::format("[{}]", fmt::join(entries, ", "));
}

std::string percents(const arma::rowvec& w) {
  std::vector<std::string> entries;
  for (const double x : w) entries.push_back(format_number(100.0 * x, 1) + "%");
  return fmt::format("[{}]", fmt::join(entries, ", "));
}

bool close(double got, double expected, double tolerance) { return std::abs(got - expected) <= tolerance; }

bool all_close(const arma::rowvec& got, const std::vector<double>& expected, double tolerance) {
  if (got.n_elem != expected.size()) return false;
  for (std::size_t j = 0; j < expected.size(); ++j) {
    if (!close(got(j), expected[j], tolerance)) return false;
  }
  return true;
}

}  // namespace

attn::Parsed<arma::rowvec> scores_from_text(const std::string& name, const std::string& text) {
  const attn::Parsed<std::vector<std::string>> entries = attn::split_list(text);
  if (!entries.value)
    return {.value = {}, .problem = fmt::format("{} {} {}", name, attn::quoted(text), entries.problem)};
  std::vector<double> values;
  for (const std::string& entry : *entries.value) {
    // One number an entry: "3 1" is two scores missing their comma, "\r" no score at all.
    const attn::Parsed<double> x = attn::parse_number(entry);
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
  arma::rowvec dots(4), cosines(4);
  for (const auto& [q, k] : pairs) {
    t.rows.push_back({.q = q, .k = k, .dot = dot(q, k), .cosine = cosine_similarity(q, k)});
    dots(t.rows.size() - 1) = t.rows.back().dot;
    cosines(t.rows.size() - 1) = t.rows.back().cosine;
  }
  t.growth = t.rows[1].dot / t.rows[0].dot;
  t.claim = {.id = "scale_01",
             .holds = all_close(dots, {1, 100, 0, -1}, 1e-12) && all_close(cosines, {1, 1, 0, -1}, 1e-12),
             .evidence = "  dot products " + plain_vector(dots) + ", cosines " + plain_vector(cosines)};
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
  const bool article = angle_degrees == 20.0 && length == 10.0 && b_length == 1.0;
  const Shadow& s = e.shadow;
  e.projection = {{.id = "scale_02",
                   .holds = close(s.projection, 9.40, 0.005),
                   .evidence = "  signed projection  |a| cos(theta)      = " + format_number(s.projection, 2)},
                  article};
  e.dot = {{.id = "scale_02",
            .holds = close(s.dot, 9.40, 0.005),
            .evidence = "  dot product        projection x |b|    = " + format_number(s.dot, 2)},
           article};
  return e;
}

FixedDivisor fixed_divisor() {
  FixedDivisor f{.d_k = 64, .divisor = std::sqrt(64.0), .dots = {1, 8, 40, 100}};
  f.scaled.set_size(f.dots.n_elem);
  for (arma::uword i = 0; i < f.dots.n_elem; ++i) f.scaled(i) = scaled_dot(f.dots(i), f.d_k);
  f.longer_dot = 10 * f.base_dot;
  f.longer_scaled = scaled_dot(f.longer_dot, f.d_k);
  f.shorter_scaled = scaled_dot(f.base_dot, f.d_k);
  f.claim = {.id = "scale_03",
             .holds = all_close(f.scaled.t(), {0.125, 1, 5, 12.5}, 1e-12),
             .evidence = "  scaled dot products " + plain_vector(f.scaled.t())};
  return f;
}

attn::ClaimCheck scaled_variance_claim(const std::vector<VarianceEstimate>& estimates) {
  const bool all = std::all_of(estimates.begin(), estimates.end(), within_three_standard_errors);
  return {.id = "scale_04", .holds = all && !estimates.empty(), .evidence = "  by 8 brings it back to 1."};
}

VarianceSection variance_section(arma::uword samples, std::uint64_t seed) {
  VarianceSection v{.estimates = variance_sweep(variance_widths(), samples, seed), .samples = samples, .seed = seed};
  for (const VarianceEstimate& e : v.estimates) v.within.push_back(within_three_standard_errors(e));
  v.claim = scaled_variance_claim(v.estimates);
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

/// A ratio with 6 decimals while it is small, else in 6 significant digits (2.68812e+43), so a
/// large one never prints 40 digits.
std::string ratio_text(double x) { return x < 1e6 ? format_number(x, 6) : format_plain(x); }

/// "    raw:    a1 / a2 = 7.389056,  exp(2) = 7.389056" (scale_06).
ClaimLine ratio_line(const std::string& label, const arma::rowvec& s, const arma::rowvec& a, bool article) {
  const double ratio = a(0) / a(1), expected = std::exp(s(0) - s(1));
  if (!std::isfinite(ratio) || !std::isfinite(expected) || ratio == 0.0) {  // a weight underflowed to 0
    return {{.id = "scale_06",
             .holds = false,
             .evidence = "    " + label + "a1 / a2 = exp(" + format_plain(s(0) - s(1)) +
                         "), beyond the range of a double: one of the two weights rounds to 0"},
            false};
  }
  return {{.id = "scale_06",
           .holds = std::abs(ratio - expected) <= 1e-12 * expected,
           .evidence = "    " + label + "a1 / a2 = " + ratio_text(ratio) + ",  exp(" + format_plain(s(0) - s(1)) +
                       ") = " + ratio_text(expected)},
          article};
}

}  // namespace

SoftmaxScaling softmax_scaling(const arma::rowvec& scores, arma::uword d_k, bool article) {
  SoftmaxScaling r{.d_k = d_k, .divisor = std::sqrt(static_cast<double>(d_k)), .raw = scores};
  if (d_k == 0) throw std::invalid_argument("softmax_scaling: d_k must be at least 1");
  r.scaled = scores / r.divisor;
  r.a_raw = softmax(r.raw);
  r.a_scaled = softmax(r.scaled);
  r.raw_line = {{.id = "scale_05",
                 .holds = all_close(r.a_raw, {0.867, 0.117, 0.016}, 0.0005),
                 .evidence = "  raw    " + plain_vector(r.raw) + " -> " + percents(r.a_raw)},
                article};
  r.scaled_line = {{.id = "scale_05",
                    .holds = all_close(r.a_scaled, {0.665, 0.245, 0.090}, 0.0005),
                    .evidence = "  scaled " + plain_vector(r.scaled) + " -> " + percents(r.a_scaled)},
                   article};
  r.winner = winner_words(r.raw, r.divisor);
  if (scores.n_elem >= 2) {
    r.ratio_raw = ratio_line("raw:    ", r.raw, r.a_raw, article);
    r.ratio_scaled = ratio_line("scaled: ", r.scaled, r.a_scaled, article);
  }
  double worst = 0.0;
  for (double shift : {-50.0, 3.0, 1000.0}) worst = std::max(worst, arma::abs(softmax(r.raw + shift) - r.a_raw).max());
  r.shift = {{.id = "scale_06",
              .holds = worst < 1e-12,
              .evidence = "  Adding -50, 3 or 1000 to every score: the largest change in any weight is " +
                          (worst < 1e-12 ? std::string("below 1e-12") : format_number(worst, 15))},
             article};
  return r;
}

namespace {

/// The closing line of section 6: what |J| did as c grew (scale_07 on the article's scores).
ClaimLine verdict_line(const arma::rowvec& scores, const arma::vec& norms, bool article) {
  if (scores.max() == scores.min()) {
    return {{.id = "scale_07",
             .holds = false,
             .evidence = "  Equal scores stay equal for every c: the weights stay uniform and |J| stays " +
                         small_number(norms(0)) + "."},
            false};
  }
  if (arma::accu(scores == scores.max()) > 1) {
    return {{.id = "scale_07",
             .holds = false,
             .evidence = "  The top scores are tied, so the weights never near one-hot: |J| goes from " +
                         small_number(norms(0)) + " to " + small_number(norms.back()) + "."},
            false};
  }
  const bool falls = arma::all(arma::diff(norms) < 0.0);
  return {{.id = "scale_07",
           .holds = falls,
           .evidence = std::string("  As c grows the weights near one-hot and |J| ") +
                       (falls ? "falls" : "does not fall at every step") + ": from " + small_number(norms(0)) + " to " +
                       small_number(norms.back()) + "."},
          article};
}

}  // namespace

LearningSignal learning_signal(const arma::rowvec& scores, double divisor, bool article) {
  LearningSignal r{.scores = scores};
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
  r.verdict = verdict_line(scores, r.norms, article);
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
