/// \file claims.hpp
/// \brief Chapter 06's claims (mask_01 to mask_06 of docs/claims.md), each checked on a section's
/// result from masking.hpp (or on the weights in it) and returned as an app::ClaimCheck: the program
/// prints it beside the numbers (app::print_claim), the tests assert it. Nothing here computes the
/// mathematics.
///
/// Throws: std::invalid_argument for a row i that is not in the table (claim_renormalized_row),
/// blocked >= n (claim_blocked_source), or weights future_share refuses, empty or not square
/// (claim_zero_fill); the others throw nothing beyond std::bad_alloc, given a non-empty square A
/// (claim_causal_weights) or results of masking.hpp.
/// Sources: the article, "Causal masking: a decoder only looks left" (with its cross-attention);
/// Vaswani et al. 2017, §3.2.3.
#pragma once

#include <armadillo>
#include <string>

#include "common/apparatus/print.hpp"
#include "masking.hpp"

namespace ch06 {

/// Claim mask_01 on causal weights A (n x n): every entry above the diagonal is exactly 0, every row
/// sums to 1 (to 1e-12) and row 0 is [1, 0, ..]. Evidence: two lines, the row sums to 12 digits
/// and row 0 to two.
app::ClaimCheck claim_causal_weights(const arma::mat& A);

/// Claim mask_02 on the weights of the wrong fill (n x n, zero_fill before softmax): the future
/// keeps a share (row 0's weight above the diagonal is positive). Evidence: each row's share, two
/// decimals.
app::ClaimCheck claim_zero_fill(const arma::mat& leaky);

/// Claim mask_03 on section 3: in "the river bank" bank is last, so its causal row equals its
/// bidirectional row, mix_01's weights (to 1e-15). Evidence: the causal row and "unchanged".
app::ClaimCheck claim_unchanged_row(const WordOrderSection& s);

/// Claim mask_05 on section 2: every row of the illustrative table sums to 1 (to 1e-12).
/// Evidence: the row sums, two decimals.
app::ClaimCheck claim_row_sums(const TiredCatSection& t);

/// Claim mask_05 on section 2, one row: the causal view of row `i` is its allowed weights (j <= i)
/// divided by their total; for "tired" (i = 1) the article's [0.10, 0.90, 0, 0, 0]. Evidence: the
/// division with its numbers.
app::ClaimCheck claim_renormalized_row(const TiredCatSection& t, arma::uword i);

/// Claim mask_05 on section 2: softmax(log A + causal mask) gives the renormalized rows (largest
/// difference at most 1e-12). Evidence: two lines, ending with the difference.
app::ClaimCheck claim_mask_renormalizes(const TiredCatSection& t);

/// Claim mask_04 on a causal receiving row (1 x n, "the bank river": bank at position 1): the
/// source `blocked` after it gets weight exactly 0. Evidence: the row and the blocked word's
/// weight.
app::ClaimCheck claim_blocked_source(const arma::rowvec& row, arma::uword blocked, const std::string& word);

/// Claim mask_06 on a cross-attention pass of n_q queries over n_kv keys and values: Q n_q x d_k,
/// K n_kv x d_k, V n_kv x d_v, A n_q x n_kv with rows summing to 1, H n_q x d_v. Evidence: the five
/// shapes.
app::ClaimCheck claim_cross_shapes(const attn::HeadPass& pass, arma::uword n_q, arma::uword n_kv);

}  // namespace ch06
