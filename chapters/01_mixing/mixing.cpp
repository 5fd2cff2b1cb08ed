/// \file mixing.cpp
/// \brief Chapter 01 computations (see mixing.hpp).
#include "mixing.hpp"

#include <cmath>
#include <stdexcept>

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
