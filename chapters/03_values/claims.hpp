/// \file claims.hpp
/// \brief Chapter 03's claims (heads_01 to heads_04 and val_01 to val_05 of docs/claims.md), each
/// checked on a section's result from values.hpp and returned as an app::ClaimCheck: the program
/// prints it beside the numbers (app::print_claim), the tests assert it. Nothing here computes the
/// mathematics.
///
/// Throws: std::invalid_argument like combination() when `combos` lacks a combination the claim reads
/// (claim_values_keep_weights, claim_values_swap_content: the swap query with raw and with swapped
/// values; claim_residual: with raw values); otherwise nothing beyond std::bad_alloc, given arguments
/// computed by values.hpp (the function is named where the type does not say it).
/// Sources: the article, "The embedding table and the projection matrices are separate", "How many
/// tables and vectors are there?", "Three roles: matching and carrying information", "What the weight
/// actually measures" and "Where this leaves us"; Vaswani et al. 2017, §3.2.2.
#pragma once

#include <optional>
#include <vector>

#include "common/apparatus/print.hpp"
#include "values.hpp"

namespace ch03 {

/// Claim heads_04 in section 0: E and the projections Wq, Wk, Wv are learned; X, Q, K, V, A and H
/// are computed on each pass; and in `example` they are separate objects of different shapes (E is
/// vocabulary x d, a projection d x d_k, X n x d). `rows` from separate_objects(example).
app::ClaimCheck claim_separate_objects(const std::vector<SeparateObject>& rows, const ExampleSublayer& example);

/// Claim heads_01 in section 1: one sublayer of h heads on n tokens has 3h learned projections, 3h
/// computed Q/K/V matrices and 3nh vectors; `built` (when given) confirms them from real matrices.
/// From count_objects(n, h, N) and build_sublayer(n, h).
app::ClaimCheck claim_counts_per_block(const Counts& c, long long n, long long h,
                                       const std::optional<BuiltSublayer>& built);
/// Claim heads_02: N blocks hold 3Nh Q/K/V projections and N output projections.
app::ClaimCheck claim_stack_counts(const Counts& c, long long h, long long N);
/// Claim heads_03: the example's X (n x d) -> Concat (n x sum d_v) -> Wo ((sum d_v) x d) -> Delta
/// (n x d) -> Y = X + Delta (n x d), and Y equals X + Delta exactly.
app::ClaimCheck claim_sublayer_shapes(const ExampleSublayer& e);

/// Claim val_01 in section 2: swapping the values leaves tower's weights exactly as with raw values
/// (swap query). `combos` from three_roles().
app::ClaimCheck claim_values_keep_weights(const std::vector<Combination>& combos);
/// Claim val_02: swapping the values swaps tower's mixture coordinates (swap query).
app::ClaimCheck claim_values_swap_content(const std::vector<Combination>& combos);
/// Claim val_05, added to section 2: with Wq != Wk, s_ij differs from s_ji (by more than 1e-9) and
/// M = Wq Wk^T is not symmetric. From asymmetric_scores().
app::ClaimCheck claim_asymmetry(const Asymmetry& a);

/// Claim val_03 in section 3: the extra key leaves q_tower, k_Eiffel and their score unchanged and
/// lowers a(tower, Eiffel). From add_another_key().
app::ClaimCheck claim_another_key(const AnotherKey& k);

/// Claim val_04 in section 4: tower [1, 0] plus its swap-query mixture is the residual result, to the
/// last bit. `combos` from three_roles().
app::ClaimCheck claim_residual(const std::vector<Combination>& combos);

}  // namespace ch03
