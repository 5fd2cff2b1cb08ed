/// \file mixing.hpp
/// \brief Chapter 01: one forward pass with identity projections, traced row by row.
///
/// Source: the article, "One forward pass, no training", "Why it mixed at all" and
/// "Try the score scale". Tokens are rows: X is n x d.
/// Unless its comment names an exception, a function here throws nothing (beyond std::bad_alloc).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/apparatus/print.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/toy.hpp"

namespace ch01 {

/// Words joined by ", " as the printed lines list them ("the, river, bank"); "" for none.
std::string comma_list(const std::vector<std::string>& words);

/// The head with Wq = Wk = Wv = I (d x d): scores = multiplier * X X^T / sqrt(d), A, H = A X.
/// X: n x d. Throws std::invalid_argument like attn::attention.
/// Source: the article, "One forward pass, no training" (`attention(X, I, I, I)`).
attn::HeadPass identity_head(const arma::mat& X, double multiplier = 1.0);

/// One receiving row followed through the head, step by step ("Why it mixed at all").
struct RowTrace {
  arma::rowvec dots;     ///< 1 x n: x_i . x_j, the unscaled dot products
  arma::rowvec scaled;   ///< 1 x n: dots / sqrt(d)
  arma::rowvec scores;   ///< 1 x n: multiplier * scaled, what softmax receives
  arma::rowvec weights;  ///< 1 x n: softmax(scores), sums to 1
  arma::rowvec mixture;  ///< 1 x d: weights X
};

/// Traces row i of X (n x d) through the identity head. Throws std::invalid_argument if i >= n
/// (or as identity_head). Source: the article, "Why it mixed at all".
RowTrace trace_row(const arma::mat& X, arma::uword i, double multiplier = 1.0);

/// The plain (uniform) average of X's rows: 1 x d. The baseline attention is compared with.
/// An empty X gives an empty row. Source: the article, "One forward pass, no training".
arma::rowvec plain_average(const arma::mat& X);

/// Row i's weights as the score multiplier varies: multipliers.n_elem x n, row m the weights
/// under multipliers(m). X: n x d. Throws as trace_row (i >= n, a non-finite multiplier).
/// Source: the article, "Try the score scale".
arma::mat multiplier_sweep(const arma::mat& X, arma::uword i, const arma::vec& multipliers);

/// One sentence through the identity head, with its receiving (last) position.
struct SentencePass {
  std::vector<std::string> words{};  ///< the sentence
  arma::mat X{};                     ///< n x d, one embedding per row
  attn::HeadPass pass{};             ///< the identity head on X
  arma::uword receiver = 0;          ///< the receiving row: the last word
  /// 1 x n: the receiver's weights over the sentence. Throws nothing on a computed pass.
  /// Source: the article's `A[-1]` ("One forward pass, no training").
  arma::rowvec weights() const { return pass.A.row(receiver); }
  /// 1 x d: the mixture the receiver gets. Throws nothing on a computed pass.
  /// Source: the article's `H[-1]` ("One forward pass, no training").
  arma::rowvec mixture() const { return pass.H.row(receiver); }
  /// 1 x d: the receiver's input plus its mixture (the residual preview, identity output projection).
  /// Throws nothing on a computed pass. Source: the article, "Why it mixed at all".
  arma::rowvec residual() const { return X.row(receiver) + pass.H.row(receiver); }
  /// 1 x n: the sum of every row of A, each 1 up to rounding (softmax rows).
  /// Throws nothing on a computed pass. Source: the article, "Why it mixed at all" (every row at once).
  arma::rowvec row_sums() const { return arma::sum(pass.A, 1).t(); }
};

/// `words` (looked up in `table`) through the identity head with the scores multiplied by
/// `multiplier`, received at the last word. Throws std::invalid_argument for an unknown word or an
/// empty sentence. Source: the article, "One forward pass, no training".
SentencePass sentence_pass(const attn::EmbeddingTable& table, const std::vector<std::string>& words,
                           double multiplier = 1.0);

/// Section 1, "One forward pass, no training": both article sentences and a plain average.
struct ForwardPassSection {
  SentencePass river{};  ///< "the river bank"
  SentencePass money{};  ///< "the money bank"
  arma::rowvec mean{};   ///< 1 x d: the plain average of "the river bank"'s rows
};
/// Computes section 1 over the toy table. Throws std::invalid_argument if `table` lacks one of the
/// words the, river, money, bank. Source: the article, "One forward pass, no training".
ForwardPassSection one_forward_pass(const attn::EmbeddingTable& table);

/// Section 2, "Why it mixed at all": bank's row of "the river bank" step by step, and the whole head.
struct WhyItMixedSection {
  SentencePass sentence{};  ///< "the river bank"
  RowTrace trace{};         ///< bank's row traced
};
/// Computes section 2 over the toy table. Throws std::invalid_argument if `table` lacks the, river
/// or bank. Source: the article, "Why it mixed at all".
WhyItMixedSection why_it_mixed(const attn::EmbeddingTable& table);

/// Section 3, "Try the score scale": bank's weights in "the river bank" under three multipliers.
struct ScoreScaleSection {
  std::vector<std::string> words{};  ///< the sentence's words (the table's columns)
  arma::vec multipliers{};           ///< 3 x 1: 0.1, 1, 5 (the article's rows)
  arma::mat weights{};               ///< multipliers x n: bank's weights under each multiplier
  /// 1 x n: the weights under multiplier m (one of `multipliers`; throws std::invalid_argument otherwise).
  /// Source: the article, "Try the score scale".
  arma::rowvec at(double m) const;
};
/// Computes section 3 over the toy table. Throws std::invalid_argument if `table` lacks the, river
/// or bank. Source: the article, "Try the score scale".
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
/// Computes the experiment. Throws std::invalid_argument for an unknown word, an empty sentence or a
/// non-finite multiplier. Source: the article, "Try the score scale" (the reader's own sentence).
Experiment experiment(const attn::EmbeddingTable& table, const std::vector<std::string>& words, double multiplier);

// ---- claims, checked on the section results (printed with attn::print_claim) ----------------------

/// The article's printed numbers for sections 1 and 2 (two decimals): a value claim holds when the
/// computed value rounds to them, within half a unit of the last digit. Source: the article, "One
/// forward pass, no training" and "Why it mixed at all"; docs/claims.md, mix_01 to mix_09.
inline constexpr int kArticleDecimals = 2;

/// Claim mix_01 in section 1: bank's weights in "the river bank" are [0.26, 0.31, 0.43]. Evidence:
/// "weights: [..] over (the, river, bank)". Throws nothing on a result of one_forward_pass.
attn::ClaimCheck river_weights_claim(const ForwardPassSection& f);
/// Claim mix_02: bank's mixture in "the river bank" is [0.21, 0.52, 0.34, 0.41] over `axes` (the
/// table's d axis names). Throws nothing on a result of one_forward_pass.
attn::ClaimCheck river_mixture_claim(const ForwardPassSection& f, const std::vector<std::string>& axes);
/// Claim mix_03: bank's weights in "the money bank" equal those in "the river bank" (to 1e-15) and
/// are [0.26, 0.31, 0.43]. Throws nothing on a result of one_forward_pass.
attn::ClaimCheck money_weights_claim(const ForwardPassSection& f);
/// Claim mix_04: bank's mixture in "the money bank" is [0.52, 0.21, 0.34, 0.41] over `axes`.
/// Throws nothing on a result of one_forward_pass.
attn::ClaimCheck money_mixture_claim(const ForwardPassSection& f, const std::vector<std::string>& axes);
/// Claims mix_05 and mix_06: the residual preview (bank input + mixture) is [0.71, 1.02, 1.14, 0.61]
/// in the river sentence and [1.02, 0.71, 1.14, 0.61] in the money sentence. Throws nothing on a
/// result of one_forward_pass.
attn::ClaimCheck river_residual_claim(const ForwardPassSection& f);
/// Claim mix_06, see river_residual_claim.
attn::ClaimCheck money_residual_claim(const ForwardPassSection& f);
/// Claim mix_07: the plain average of "the river bank" has water 0.50 and finance 0.17 (axes 1 and
/// 0 of the toy table). Throws nothing on a result of one_forward_pass over a table of d >= 2.
attn::ClaimCheck plain_average_claim(const ForwardPassSection& f);

/// Claim mix_08 in section 2: bank's unscaled dot products with the, river, bank are
/// [0.20, 0.54, 1.18]. Throws nothing on a result of why_it_mixed.
attn::ClaimCheck dots_claim(const WhyItMixedSection& w);
/// Claim mix_09: the same divided by sqrt(4) = 2 are [0.10, 0.27, 0.59], printed under the dot
/// products (the label padded to their label's width). Throws nothing on a result of why_it_mixed.
attn::ClaimCheck scaled_claim(const WhyItMixedSection& w);
/// Claim mix_01 again, in section 2: the softmax of the scaled dots is [0.26, 0.31, 0.43].
/// Throws nothing on a result of why_it_mixed.
attn::ClaimCheck softmax_claim(const WhyItMixedSection& w);

/// Claim mix_10 on section 3: multiplying the scores by 5 raises bank's own weight above its x1
/// weight and bank keeps the largest weight. Evidence: both weights, to two decimals. Throws nothing
/// on a result of score_scale. Source: the article, "Try the score scale".
attn::ClaimCheck sharpening_claim(const ScoreScaleSection& s);

/// Claim mix_11 on section 3: at x0.1 every weight is within 0.02 of uniform (1/n). Evidence: the
/// largest distance, rounded up (attn::format_upper_bound, 4 digits), so the printed bound holds.
/// Throws nothing on a result of score_scale. Source: the article, "Try the score scale".
attn::ClaimCheck flattening_claim(const ScoreScaleSection& s);

/// Claim mix_12 on one sentence: A is n x n with every row non-negative and summing to 1 (to
/// 1e-12), H is n x d. Evidence: the three shapes, on two lines. Source: the
/// article, "Why it mixed at all" (every row at once).
attn::ClaimCheck shapes_claim(const SentencePass& s);

}  // namespace ch01
