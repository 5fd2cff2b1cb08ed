/// \file masking.hpp
/// \brief Chapter 06: the causal mask, why its fill is -inf, and the causal view as renormalization.
///
/// Tokens are rows: X is n x d, A is n x n with row i the distribution of receiving position i over
/// source positions.
/// Throws: std::invalid_argument, naming the shape, for a matrix that is empty or not square
/// (zero_fill, future_share, renormalize_causal, mask_log_weights); for a row with no positive allowed
/// weight (renormalize_causal, mask_log_weights) or a negative weight (renormalize_causal); for an
/// unknown word or an empty sentence (both_views); for any input attn::attention refuses
/// (identity_head). The others throw nothing beyond std::bad_alloc.
/// Sources: the article, "Causal masking: a decoder only looks left" (with its cross-attention);
/// Vaswani et al. 2017, §3.2.3.
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/attention/attention.hpp"

namespace ch06 {

/// The identity head (Wq = Wk = Wv = I, d_k = d) on X (n x d), bidirectional or causal.
attn::HeadPass identity_head(const arma::mat& X, bool causal);

/// The wrong fill: scores (n x n) with every entry above the diagonal set to 0 instead of -inf.
arma::mat zero_fill(const arma::mat& scores);

/// Per row, the total weight on positions after the row's own (above the diagonal): n x 1.
/// A: n x n. Zero for every row of a correctly masked A.
arma::vec future_share(const arma::mat& A);

/// The words of the article's illustrative table: the, tired, cat, finally, slept.
const std::vector<std::string>& tired_cat_words();

/// The article's illustrative bidirectional weights for "the tired cat finally slept": 5 x 5, row i
/// the distribution of word i over all five words; every row sums to 1. Illustrative values, not
/// from a model (the article says so).
arma::mat tired_cat_weights();

/// The causal view of bidirectional weights: each row keeps its allowed keys (j <= i) and is
/// divided by their total. A: n x n with positive diagonal. Returns n x n, zero above the diagonal,
/// rows summing to 1.
arma::mat renormalize_causal(const arma::mat& A);

/// The same causal view computed as the article's mask does it: softmax(log(A) + causal mask) row
/// by row, treating log-weights as scores. A: n x n, positive on and below the diagonal.
arma::mat mask_log_weights(const arma::mat& A);

// ---- the program's sections, computed once --------------------------------------------------------

/// Section 1, the mask on "the river bank" (identity head): the mask, both views, and the wrong fill.
struct MaskSection {
  std::vector<std::string> words{};  ///< the river bank
  arma::mat mask{};                  ///< n x n: 0 on and below the diagonal, -inf above
  attn::HeadPass open{};             ///< bidirectional pass (its scores are the unmasked X X^T / sqrt(d))
  attn::HeadPass causal{};           ///< causal pass
  arma::mat leaky{};                 ///< n x n: softmax of zero_fill(open.scores), the wrong fill's weights
  arma::vec leaked{};                ///< n x 1: future_share(leaky), what each row gives the future
};
/// Computes section 1.
MaskSection mask_section();

/// The article's five-token table in both views (section 2 and its figure).
struct TiredCatSection {
  std::vector<std::string> words{};  ///< the tired cat finally slept
  arma::mat A{};                     ///< 5 x 5 bidirectional weights (illustrative)
  arma::mat renormalized{};          ///< 5 x 5: renormalize_causal(A)
  arma::mat masked{};                ///< 5 x 5: mask_log_weights(A), the same rows by the mask
  arma::mat scores{};                ///< 5 x 5: log A, scores whose row-wise softmax is A
  arma::mat mask{};                  ///< 5 x 5: the causal mask, 0 on and below the diagonal, -inf above
  arma::mat masked_scores{};         ///< 5 x 5: log A + causal mask (-inf above the diagonal)
};
/// Computes section 2.
TiredCatSection tired_cat_section();

/// One sentence through the identity head in both views (the reader's sentence and its figure).
struct BothViews {
  std::vector<std::string> words{};  ///< the sentence
  attn::HeadPass open{};             ///< bidirectional
  attn::HeadPass causal{};           ///< causal
};
/// Both views of `words` (toy table; X n x 4, A n x n).
BothViews both_views(const std::vector<std::string>& words);

/// Section 3, the same head in two word orders: bank last ("the river bank") and bank in the middle
/// ("the bank river"), both views each.
struct WordOrderSection {
  BothViews bank_last{};    ///< the river bank: bank is row 2
  BothViews bank_middle{};  ///< the bank river: bank is row 1
};
/// Computes section 3.
WordOrderSection word_order_section();

/// Section 4, cross-attention through the identity head: "river bank" reads "the money bank the
/// river"; then the causal rule for a non-square pair, with and without an alignment.
struct CrossSection {
  std::vector<std::string> q_words{};       ///< river bank (n_q = 2)
  std::vector<std::string> kv_words{};      ///< the money bank the river (n_kv = 5)
  attn::HeadPass pass{};                    ///< A: 2 x 5
  arma::uword offset = 0;                   ///< the alignment of the newest two queries: 3
  std::vector<std::string> newest_words{};  ///< the last two words of kv_words, the queries of offset_pass
  attn::HeadPass offset_pass{};             ///< causal with the offset: query i reads keys j <= i + offset
  std::string refusal{};                    ///< attn::cross_attention's message for causal without an offset
};
/// Computes section 4.
CrossSection cross_section();

}  // namespace ch06
