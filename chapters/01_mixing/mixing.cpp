/// \file mixing.cpp
/// \brief Chapter 01 computations (see mixing.hpp).
#include "mixing.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace ch01 {

// [identity_head]
attn::HeadPass identity_head(const arma::mat& X, double multiplier) {
  const arma::mat I = arma::eye(X.n_cols, X.n_cols);  // d x d: leaves every vector unchanged
  return attn::attention(X, I, I, I, {.causal = false, .score_multiplier = multiplier});
}
// [identity_head]

// [trace_row]
RowTrace trace_row(const arma::mat& X, arma::uword i, double multiplier) {
  if (i >= X.n_rows) {
    throw std::invalid_argument("trace_row: row " + std::to_string(i) + " of X (" + attn::shape(X) + ")");
  }
  const attn::HeadPass pass = identity_head(X, multiplier);
  RowTrace t;
  t.dots = X.row(i) * X.t();                                     // 1 x n
  t.scaled = t.dots / std::sqrt(static_cast<double>(X.n_cols));  // 1 x n
  t.scores = pass.scores.row(i);                                 // multiplier * scaled
  t.weights = pass.A.row(i);                                     // softmax(scores)
  t.mixture = pass.H.row(i);                                     // weights X: 1 x d
  return t;
}
// [trace_row]

arma::rowvec plain_average(const arma::mat& X) { return arma::mean(X, 0); }

arma::mat multiplier_sweep(const arma::mat& X, arma::uword i, const arma::vec& multipliers) {
  arma::mat weights(multipliers.n_elem, X.n_rows);
  for (arma::uword m = 0; m < multipliers.n_elem; ++m) weights.row(m) = trace_row(X, i, multipliers(m)).weights;
  return weights;
}

SentencePass sentence_pass(const attn::EmbeddingTable& table, const std::vector<std::string>& words,
                           double multiplier) {
  SentencePass s{.words = words, .X = table.lookup(words)};
  s.pass = identity_head(s.X, multiplier);
  s.receiver = s.X.n_rows - 1;
  return s;
}

ForwardPassSection one_forward_pass(const attn::EmbeddingTable& table) {
  ForwardPassSection f{.river = sentence_pass(table, attn::split_sentence("the river bank")),
                       .money = sentence_pass(table, attn::split_sentence("the money bank"))};
  f.mean = plain_average(f.river.X);
  return f;
}

WhyItMixedSection why_it_mixed(const attn::EmbeddingTable& table) {
  WhyItMixedSection w{.sentence = sentence_pass(table, attn::split_sentence("the river bank"))};
  w.trace = trace_row(w.sentence.X, w.sentence.receiver);
  return w;
}

arma::rowvec ScoreScaleSection::at(double m) const {
  for (arma::uword r = 0; r < multipliers.n_elem; ++r) {
    if (multipliers(r) == m) return weights.row(r);
  }
  throw std::invalid_argument("ScoreScaleSection: no row for multiplier " + std::to_string(m));
}

ScoreScaleSection score_scale(const attn::EmbeddingTable& table) {
  ScoreScaleSection s{.words = attn::split_sentence("the river bank"), .multipliers = {0.1, 1.0, 5.0}};
  const arma::mat X = table.lookup(s.words);
  s.weights = multiplier_sweep(X, X.n_rows - 1, s.multipliers);
  return s;
}

Experiment experiment(const attn::EmbeddingTable& table, const std::vector<std::string>& words, double multiplier) {
  Experiment e{.sentence = sentence_pass(table, words, multiplier), .multiplier = multiplier};
  e.trace = trace_row(e.sentence.X, e.sentence.receiver, multiplier);
  e.sweep = arma::logspace(std::log10(0.05), 1.0, 121);  // 0.05 .. 10
  e.sweep_weights = multiplier_sweep(e.sentence.X, e.sentence.receiver, e.sweep);
  return e;
}

std::string comma_list(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

namespace {

// The article's printed values (claims mix_01 to mix_09).
const std::vector<double> kBankWeights{0.26, 0.31, 0.43};
const std::vector<double> kRiverMixture{0.21, 0.52, 0.34, 0.41}, kMoneyMixture{0.52, 0.21, 0.34, 0.41};
const std::vector<double> kRiverResidual{0.71, 1.02, 1.14, 0.61}, kMoneyResidual{1.02, 0.71, 1.14, 0.61};
const std::vector<double> kDots{0.20, 0.54, 1.18}, kScaled{0.10, 0.27, 0.59};

/// Whether `value` rounds to the article's `printed` numbers (half a unit in the second decimal).
bool as_printed(const arma::rowvec& value, const std::vector<double>& printed) {
  if (value.n_elem != printed.size()) return false;
  const double half_unit = 0.5 * std::pow(10.0, -kArticleDecimals) + 1e-12;
  for (arma::uword k = 0; k < value.n_elem; ++k) {
    if (!(std::abs(value(k) - printed[k]) <= half_unit)) return false;
  }
  return true;
}

std::string vector_text(const arma::rowvec& v) { return attn::format_vector(v, kArticleDecimals); }

attn::ClaimCheck weights_line(const char* id, const SentencePass& s, bool holds) {
  return {id, holds, "    weights:    " + vector_text(s.weights()) + "  over (" + comma_list(s.words) + ")"};
}

attn::ClaimCheck mixture_line(const char* id, const SentencePass& s, const std::vector<std::string>& axes,
                              const std::vector<double>& printed) {
  return {id, as_printed(s.mixture(), printed),
          "    mixture:    " + vector_text(s.mixture()) + "  (" + comma_list(axes) + ")"};
}

}  // namespace

// [value_claims]
attn::ClaimCheck river_weights_claim(const ForwardPassSection& f) {
  return weights_line("mix_01", f.river, as_printed(f.river.weights(), kBankWeights));
}

attn::ClaimCheck river_mixture_claim(const ForwardPassSection& f, const std::vector<std::string>& axes) {
  return mixture_line("mix_02", f.river, axes, kRiverMixture);
}

attn::ClaimCheck money_weights_claim(const ForwardPassSection& f) {
  const arma::rowvec money = f.money.weights(), river = f.river.weights();
  const bool same = money.n_elem == river.n_elem && arma::abs(money - river).max() <= 1e-15;
  return weights_line("mix_03", f.money, same && as_printed(money, kBankWeights));
}

attn::ClaimCheck money_mixture_claim(const ForwardPassSection& f, const std::vector<std::string>& axes) {
  return mixture_line("mix_04", f.money, axes, kMoneyMixture);
}

attn::ClaimCheck river_residual_claim(const ForwardPassSection& f) {
  return {"mix_05", as_printed(f.river.residual(), kRiverResidual),
          "    river sentence: " + vector_text(f.river.residual())};
}

attn::ClaimCheck money_residual_claim(const ForwardPassSection& f) {
  return {"mix_06", as_printed(f.money.residual(), kMoneyResidual),
          "    money sentence: " + vector_text(f.money.residual())};
}

attn::ClaimCheck plain_average_claim(const ForwardPassSection& f) {
  const double water = f.mean(1), finance = f.mean(0);
  return {"mix_07", as_printed({water, finance}, {0.50, 0.17}),
          "    water " + attn::format_number(water, kArticleDecimals) + ", finance " +
              attn::format_number(finance, kArticleDecimals)};
}

attn::ClaimCheck dots_claim(const WhyItMixedSection& w) {
  return {"mix_08", as_printed(w.trace.dots, kDots),
          "  dot products with " + comma_list(w.sentence.words) + ": " + vector_text(w.trace.dots)};
}

attn::ClaimCheck scaled_claim(const WhyItMixedSection& w) {
  const arma::uword d = w.sentence.X.n_cols;
  const std::string label =
      fmt::format("  divided by sqrt({}) = {}:", d, attn::format_number(std::sqrt(static_cast<double>(d)), 0));
  // padded to dots_claim's label, so the two vectors line up
  const std::size_t width = ("  dot products with " + comma_list(w.sentence.words) + ": ").size();
  return {"mix_09", as_printed(w.trace.scaled, kScaled),
          fmt::format("{:<{}}{}", label, width, vector_text(w.trace.scaled))};
}

attn::ClaimCheck softmax_claim(const WhyItMixedSection& w) {
  return {"mix_01", as_printed(w.trace.weights, kBankWeights),
          "  softmax (exp, then divide by sum):  " + vector_text(w.trace.weights)};
}
// [value_claims]

attn::ClaimCheck sharpening_claim(const ScoreScaleSection& s) {
  const arma::rowvec sharp = s.at(5.0), plain = s.at(1.0);
  const arma::uword bank = s.words.size() - 1;
  return {.id = "mix_10",
          .holds = sharp(bank) > plain(bank) && sharp.index_max() == bank,
          .evidence = "  x5: " + s.words[bank] + "'s own weight grows from " + attn::format_number(plain(bank), 2) +
                      " to " + attn::format_number(sharp(bank), 2) + " and stays the largest"};
}

attn::ClaimCheck flattening_claim(const ScoreScaleSection& s) {
  const arma::rowvec flat = s.at(0.1);
  const double deviation = arma::abs(flat - 1.0 / static_cast<double>(flat.n_elem)).max();
  return {.id = "mix_11",
          .holds = deviation <= 0.02,
          .evidence = "  x0.1: every weight is within " + attn::format_upper_bound(deviation, 4) + " of 1/" +
                      std::to_string(flat.n_elem) + ", close to a plain average"};
}

attn::ClaimCheck shapes_claim(const SentencePass& s) {
  const attn::HeadPass& p = s.pass;
  const arma::uword n = s.X.n_rows;
  const bool shapes = p.scores.n_rows == n && p.scores.n_cols == n && p.A.n_rows == n && p.A.n_cols == n &&
                      p.H.n_rows == n && p.H.n_cols == s.X.n_cols;
  const bool rows = shapes && p.A.min() >= 0.0 && arma::abs(arma::sum(p.A, 1) - 1.0).max() <= 1e-12;
  return {.id = "mix_12",
          .holds = rows,
          .evidence = "\n  Every row at once: scores = X X^T / sqrt(" + std::to_string(s.X.n_cols) + ") is " +
                      attn::shape(p.scores) + ",\n  A = softmax(scores) is " + attn::shape(p.A) + ", H = A X is " +
                      attn::shape(p.H)};
}

}  // namespace ch01
