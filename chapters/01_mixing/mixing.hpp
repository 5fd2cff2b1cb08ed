/// \file mixing.hpp
/// \brief Chapter 01: one forward pass with identity projections, traced row by row.
///
/// Tokens are rows: X is n x d, A is n x n, H is n x d.
/// Throws: std::invalid_argument for a row i >= n (trace_row, multiplier_sweep); for a non-finite
/// multiplier or any input attn::attention refuses (identity_head and all built on it); for an unknown
/// word or an empty sentence (sentence_pass, experiment; the three sections if the table lacks the,
/// river, money or bank); for a multiplier not among the section's (ScoreScaleSection::at). The others
/// throw nothing beyond std::bad_alloc (SentencePass's accessors: on a computed pass).
/// Sources: the article, "One forward pass, no training", "Why it mixed at all" and "Try the score
/// scale".
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/toy.hpp"

namespace ch01 {

/// Words joined by ", " as the printed lines list them ("the, river, bank"); "" for none.
std::string comma_list(const std::vector<std::string>& words);

/// The head with Wq = Wk = Wv = I (d x d): scores = multiplier * X X^T / sqrt(d), A, H = A X.
/// X: n x d. The article's `attention(X, I, I, I)`.
attn::HeadPass identity_head(const arma::mat& X, double multiplier = 1.0);

/// One receiving row followed through the head, step by step ("Why it mixed at all").
struct RowTrace {
  arma::rowvec dots;     ///< 1 x n: x_i . x_j, the unscaled dot products
  arma::rowvec scaled;   ///< 1 x n: dots / sqrt(d)
  arma::rowvec scores;   ///< 1 x n: multiplier * scaled, what softmax receives
  arma::rowvec weights;  ///< 1 x n: softmax(scores), sums to 1
  arma::rowvec mixture;  ///< 1 x d: weights X
};

/// Traces row i of X (n x d) through the identity head.
RowTrace trace_row(const arma::mat& X, arma::uword i, double multiplier = 1.0);

/// The plain (uniform) average of X's rows: 1 x d. The baseline attention is compared with.
/// An empty X gives an empty row.
arma::rowvec plain_average(const arma::mat& X);

/// Row i's weights as the score multiplier varies: multipliers.n_elem x n, row m the weights
/// under multipliers(m). X: n x d.
arma::mat multiplier_sweep(const arma::mat& X, arma::uword i, const arma::vec& multipliers);

/// One sentence through the identity head, with its receiving (last) position.
struct SentencePass {
  std::vector<std::string> words{};  ///< the sentence
  arma::mat X{};                     ///< n x d, one embedding per row
  attn::HeadPass pass{};             ///< the identity head on X
  arma::uword receiver = 0;          ///< the receiving row: the last word
  /// 1 x n: the receiver's weights over the sentence (the article's `A[-1]`).
  arma::rowvec weights() const { return pass.A.row(receiver); }
  /// 1 x d: the mixture the receiver gets (the article's `H[-1]`).
  arma::rowvec mixture() const { return pass.H.row(receiver); }
  /// 1 x d: the receiver's input plus its mixture (the residual preview, identity output projection).
  arma::rowvec residual() const { return X.row(receiver) + pass.H.row(receiver); }
  /// 1 x n: the sum of every row of A, each 1 up to rounding (softmax rows).
  arma::rowvec row_sums() const { return arma::sum(pass.A, 1).t(); }
};

/// `words` (looked up in `table`) through the identity head with the scores multiplied by
/// `multiplier`, received at the last word.
SentencePass sentence_pass(const attn::EmbeddingTable& table, const std::vector<std::string>& words,
                           double multiplier = 1.0);

/// Section 1, "One forward pass, no training": both article sentences and a plain average.
struct ForwardPassSection {
  SentencePass river{};  ///< "the river bank"
  SentencePass money{};  ///< "the money bank"
  arma::rowvec mean{};   ///< 1 x d: the plain average of "the river bank"'s rows
};
/// Computes section 1 over the toy table.
ForwardPassSection one_forward_pass(const attn::EmbeddingTable& table);

/// Section 2, "Why it mixed at all": bank's row of "the river bank" step by step, and the whole head.
struct WhyItMixedSection {
  SentencePass sentence{};  ///< "the river bank"
  RowTrace trace{};         ///< bank's row traced
};
/// Computes section 2 over the toy table.
WhyItMixedSection why_it_mixed(const attn::EmbeddingTable& table);

/// Section 3, "Try the score scale": bank's weights in "the river bank" under three multipliers.
struct ScoreScaleSection {
  std::vector<std::string> words{};  ///< the sentence's words (the table's columns)
  arma::vec multipliers{};           ///< 3 x 1: 0.1, 1, 5 (the article's rows)
  arma::mat weights{};               ///< multipliers x n: bank's weights under each multiplier
  /// 1 x n: the weights under multiplier m, one of `multipliers`.
  arma::rowvec at(double m) const;
};
/// Computes section 3 over the toy table.
ScoreScaleSection score_scale(const attn::EmbeddingTable& table);

/// The reader's experiment and the sweep plot: a sentence's last word traced at one multiplier,
/// and its weights as the multiplier sweeps 0.05 . 10 (121 points, log spaced).
struct Experiment {
  SentencePass sentence{};    ///< the sentence at the chosen multiplier
  double multiplier = 1.0;    ///< the chosen multiplier
  RowTrace trace{};           ///< the last word traced
  arma::vec sweep{};          ///< 121 x 1: the multipliers, 0.05 .. 10
  arma::mat sweep_weights{};  ///< 121 x n: the last word's weights under each
};
/// Computes the experiment: the reader's own sentence at the reader's multiplier.
Experiment experiment(const attn::EmbeddingTable& table, const std::vector<std::string>& words, double multiplier);

}  // namespace ch01
