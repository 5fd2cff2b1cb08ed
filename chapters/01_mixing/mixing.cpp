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

std::string comma_list(const std::vector<std::string>& words) { return fmt::format("{}", fmt::join(words, ", ")); }

}  // namespace ch01
