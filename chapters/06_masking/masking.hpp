/// \file masking.hpp
/// \brief Chapter 06: the causal mask, why its fill is -inf, and the causal view as renormalization.
///
/// Source: the article, "Causal masking: a decoder only looks left". Tokens are rows: X is n x d,
/// A is n x n with row i the distribution of receiving position i over source positions.
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/apparatus/print.hpp"
#include "common/attention/attention.hpp"

namespace ch06 {

/// The identity head (Wq = Wk = Wv = I, d_k = d) on X (n x d), bidirectional or causal.
/// Throws std::invalid_argument like attn::attention. Source: the article, "Causal masking: a decoder only
/// looks left".
attn::HeadPass identity_head(const arma::mat& X, bool causal);

/// The wrong fill: scores (n x n) with every entry above the diagonal set to 0 instead of -inf.
/// Throws std::invalid_argument if scores is empty or not square. Source: the article, "Causal masking: a
/// decoder only looks left".
arma::mat zero_fill(const arma::mat& scores);

/// Per row, the total weight on positions after the row's own (above the diagonal): n x 1.
/// A: n x n. Zero for every row of a correctly masked A. Throws std::invalid_argument if A is empty or
/// not square. Source: the article, "Causal masking: a decoder only looks left".
arma::vec future_share(const arma::mat& A);

/// The words of the article's illustrative table: the, tired, cat, finally, slept. Throws nothing.
/// Source: the article, "Causal masking: a decoder only looks left".
const std::vector<std::string>& tired_cat_words();

/// The article's illustrative bidirectional weights for "the tired cat finally slept": 5 x 5, row i
/// the distribution of word i over all five words; every row sums to 1. Illustrative values, not
/// from a model (the article says so). Throws nothing. Source: the article, "Causal masking: a decoder only
/// looks left".
arma::mat tired_cat_weights();

/// The causal view of bidirectional weights: each row keeps its allowed keys (j <= i) and is
/// divided by their total. A: n x n with positive diagonal. Returns n x n, zero above the diagonal,
/// rows summing to 1. Throws std::invalid_argument if A is not square, has a negative entry or a
/// row with no positive allowed weight. Source: the article, "Causal masking: a decoder only looks left".
arma::mat renormalize_causal(const arma::mat& A);

/// The same causal view computed as the article's mask does it: softmax(log(A) + causal mask) row
/// by row, treating log-weights as scores. A: n x n, positive on and below the diagonal.
/// Throws std::invalid_argument if A is not square or a row has no positive allowed weight.
arma::mat mask_log_weights(const arma::mat& A);

// ---- the program's sections, computed once --------------------------------------------------------

/// Section 1, the mask on "the river bank" (identity head): the mask, both views, and the wrong fill.
struct MaskSection {
  std::vector<std::string> words{};  ///< the river bank
  arma::mat mask{};                  ///< n x n: 0 on and below the diagonal, -inf above
  attn::HeadPass open{};             ///< bidirectional pass (its scores are the unmasked X X^T / sqrt(d))
  attn::HeadPass causal{};           ///< causal pass
  arma::mat leaky{};                 ///< n x n: softmax of zero_fill(open.scores), the wrong fill's weights
};
/// Computes section 1. Throws nothing (fixed inputs). Source: the article, "Causal masking".
MaskSection mask_section();

/// The article's five-token table in both views (section 2 and its figure).
struct TiredCatSection {
  std::vector<std::string> words{};  ///< the tired cat finally slept
  arma::mat A{};                     ///< 5 x 5 bidirectional weights (illustrative)
  arma::mat renormalized{};          ///< 5 x 5: renormalize_causal(A)
  arma::mat masked{};                ///< 5 x 5: mask_log_weights(A), the same rows by the mask
  arma::mat scores{};                ///< 5 x 5: log A, scores whose row-wise softmax is A
  arma::mat masked_scores{};         ///< 5 x 5: log A + causal mask (-inf above the diagonal)
};
/// Computes section 2. Throws nothing (fixed inputs). Source: the article, "Causal masking: a decoder only
/// looks left".
TiredCatSection tired_cat_section();

/// One sentence through the identity head in both views (the reader's sentence and its figure).
struct BothViews {
  std::vector<std::string> words{};  ///< the sentence
  attn::HeadPass open{};             ///< bidirectional
  attn::HeadPass causal{};           ///< causal
};
/// Both views of `words` (toy table; X n x 4, A n x n). Throws std::invalid_argument for an unknown
/// word or an empty sentence. Source: the article, "Causal masking: a decoder only looks left".
BothViews both_views(const std::vector<std::string>& words);

/// Section 3, the same head in two word orders: bank last ("the river bank") and bank in the middle
/// ("the bank river"), both views each.
struct WordOrderSection {
  BothViews bank_last{};    ///< the river bank: bank is row 2
  BothViews bank_middle{};  ///< the bank river: bank is row 1
};
/// Computes section 3. Throws nothing (fixed inputs). Source: the article, "Causal masking".
WordOrderSection word_order_section();

// ---- claims, checked on the computed weights (printed with attn::print_claim) ----------------------

/// Claim mask_01 on causal weights A (n x n): every entry above the diagonal is exactly 0, every row
/// sums to 1 (to 1e-12) and row 0 is [1, 0, ...]. Evidence: two lines, the row sums to 12 digits
/// and row 0 to two. Throws nothing for a non-empty square A. Source: the article, "Causal masking".
attn::ClaimCheck causal_weights_claim(const arma::mat& A);

/// Claim mask_02 on the weights of the wrong fill (n x n, zero_fill before softmax): the future
/// keeps a share (row 0's weight above the diagonal is positive). Evidence: each row's share, two
/// decimals. Throws std::invalid_argument like future_share. Source: the article, "Causal masking".
attn::ClaimCheck zero_fill_claim(const arma::mat& leaky);

/// Claim mask_03 on section 3: in "the river bank" bank is last, so its causal row equals its
/// bidirectional row, mix_01's weights (to 1e-15). Evidence: the causal row and "unchanged".
/// Throws nothing on a result of word_order_section.
attn::ClaimCheck unchanged_row_claim(const WordOrderSection& s);

/// Claim mask_05 on section 2: every row of the illustrative table sums to 1 (to 1e-12).
/// Evidence: the row sums, two decimals. Throws nothing on a result of tired_cat_section.
attn::ClaimCheck row_sums_claim(const TiredCatSection& t);

/// Claim mask_05 on section 2, one row: the causal view of row `i` is its allowed weights (j <= i)
/// divided by their total; for "tired" (i = 1) the article's [0.10, 0.90, 0, 0, 0]. Evidence: the
/// division with its numbers. Throws std::invalid_argument if i is not a row of the table.
attn::ClaimCheck renormalized_row_claim(const TiredCatSection& t, arma::uword i);

/// Claim mask_05 on section 2: softmax(log A + causal mask) gives the renormalized rows (largest
/// difference at most 1e-12). Evidence: two lines, ending with the difference. Throws nothing on a
/// result of tired_cat_section.
attn::ClaimCheck mask_renormalizes_claim(const TiredCatSection& t);

/// Claim mask_04 on a causal receiving row (1 x n, "the bank river": bank at position 1): the
/// source `blocked` after it gets weight exactly 0. Evidence: the row and the blocked word's
/// weight. Throws std::invalid_argument if blocked >= n. Source: the article, "Causal masking".
attn::ClaimCheck blocked_source_claim(const arma::rowvec& row, arma::uword blocked, const std::string& word);

/// Claim mask_06 on a cross-attention pass of n_q queries over n_kv keys and values: Q n_q x d_k,
/// K n_kv x d_k, V n_kv x d_v, A n_q x n_kv with rows summing to 1, H n_q x d_v. Evidence: the five
/// shapes. Throws nothing. Source: the article, "Causal masking" (cross-attention); Vaswani et al.
/// 2017, §3.2.3.
attn::ClaimCheck cross_shapes_claim(const attn::HeadPass& pass, arma::uword n_q, arma::uword n_kv);

}  // namespace ch06
