/// \file claims.hpp
/// \brief Chapter 02's claims (swap_01 to swap_06 and qk_01 to qk_10 of docs/claims.md), each checked
/// on a section's result from swap_query.hpp and returned as an app::ClaimCheck: the program prints
/// it beside the numbers (app::print_claim), the tests assert it. Nothing here computes the
/// mathematics.
///
/// Throws: std::invalid_argument like query_terms when Wq has not one row per column of the table's X
/// (claim_query_of); otherwise nothing beyond std::bad_alloc, given a result of the function that
/// computes the claim's argument (teaching_section, small_null_space, width_example, match_last,
/// matching_section, combined_query, superposition).
/// Sources: the article, "When raw similarity asks the wrong question", "Producing a query", "What
/// information does the query map lose?", "One head maps the full representation into a smaller
/// matching space", "Try three hypothetical matching directions" and "One query can combine several
/// matching criteria"; qk_10 after Elhage et al. 2022, "Toy Models of Superposition".
#pragma once

#include <armadillo>

#include "common/apparatus/print.hpp"
#include "swap_query.hpp"

namespace ch02 {

/// Claim swap_01 in section 1: under raw similarity tower's weights tie Eiffel with the filler and
/// favour tower itself, summing to 1. Evidence: tower's weights to four decimals.
app::ClaimCheck claim_raw_weights(const TeachingSection& t);
/// Claim swap_02: tower's raw mixture carries its weights: Paris identity = weight on Eiffel,
/// structure = its own (to 1e-15).
app::ClaimCheck claim_raw_mixture(const TeachingSection& t);
/// Claim swap_03: tower . Eiffel = 0 = tower . the, so Eiffel's weight equals the filler's exactly.
app::ClaimCheck claim_eiffel_ties_the_filler(const TeachingSection& t);

/// Claim swap_04 in section 2: under the swap query tower's largest weight is on Eiffel, the other
/// two tie.
app::ClaimCheck claim_swap_weights(const TeachingSection& t);
/// Claim swap_05: the swap query's mixture takes its Paris identity from Eiffel's weight, now the
/// larger part.
app::ClaimCheck claim_swap_mixture(const TeachingSection& t);
/// Claim swap_06: Q = X2 swap row by row (the same matrix on every token); tower's query is [0, 1].
app::ClaimCheck claim_queries_row_by_row(const TeachingSection& t);

/// Claim qk_01 in section 3: n = (1, 1, -1) spans M's null space (rank 2, nullity 1) and M n = 0.
app::ClaimCheck claim_n_in_null_space(const SmallNullSpace& s);
/// Claim qk_02: M e = M (e + n): the map cannot tell e from e + n.
app::ClaimCheck claim_same_query(const SmallNullSpace& s);
/// Claim qk_03 on section 3's width example: rank + nullity = d, rank <= d_k, and sampled
/// null-space rows leave the query unchanged (relative 1e-12).
app::ClaimCheck claim_width_nullity(const WidthExample& w);

/// Claim qk_04 on one table of section 4: the receiver's query is the sum of its terms x_r Wq_r
/// (query_terms, to 1e-12), and for the water preset it points along water only. `Wq`: 4 x 3, the
/// table's query projection.
app::ClaimCheck claim_query_of(const MatchTable& t, const arma::mat& Wq);
/// Claim qk_05: under fixed_wk(), every key is the token's finance, water and structure (Wk drops generic).
app::ClaimCheck claim_fixed_keys(const MatchTable& t);
/// Claim qk_06: every score is q_receiver . k_j / sqrt(d_k) (to 1e-14).
app::ClaimCheck claim_scores(const MatchTable& t);
/// Claim qk_07: the weights are the scores' softmax: positive, summing to 1, largest where the score is.
app::ClaimCheck claim_weights(const MatchTable& t);
/// Claim qk_08 on section 4: the receiver's query is the same in every table of `m` (only the keys
/// differ). `m` holds at least one table; the claim holds only with two or more.
app::ClaimCheck claim_query_same_in_both(const MatchingSection& m);

/// Claim qk_09 on section 5: the shares add up to every score (to 1e-12), and every key that matches
/// either preference (a non-zero water or structure coordinate) scores from it (a positive share
/// there).
app::ClaimCheck claim_combined_query(const CombinedQuery& c);
/// Claim qk_10 on section 5: rank(W) = dims < features, and reading one active feature picks up
/// non-zero interference from the others.
app::ClaimCheck claim_superposition(const Superposition& s);

}  // namespace ch02
