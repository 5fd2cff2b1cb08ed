/// \file claims.hpp
/// \brief Chapter 01's claims (mix_01 to mix_12 of docs/claims.md), each checked on a section's
/// result from mixing.hpp and returned as an app::ClaimCheck: the program prints it beside the
/// numbers (app::print_claim), the tests assert it. Nothing here computes the mathematics.
///
/// Throws: nothing beyond std::bad_alloc, given a result of the section function the claim names
/// (one_forward_pass, why_it_mixed, score_scale; claim_plain_average also needs a table of d >= 2).
/// Sources: the article, "One forward pass, no training", "Why it mixed at all", "Try the score
/// scale"; docs/claims.md, mix_01 to mix_12.
#pragma once

#include <string>
#include <vector>

#include "common/apparatus/print.hpp"
#include "mixing.hpp"

namespace ch01 {

/// The article's printed numbers for sections 1 and 2 (two decimals): a value claim holds when the
/// computed value rounds to them, within half a unit of the last digit (mix_01 to mix_09).
inline constexpr int kArticleDecimals = 2;

/// Claim mix_01 in section 1: bank's weights in "the river bank" are [0.26, 0.31, 0.43]. Evidence:
/// "weights: [..] over (the, river, bank)".
app::ClaimCheck claim_river_weights(const ForwardPassSection& f);
/// Claim mix_02: bank's mixture in "the river bank" is [0.21, 0.52, 0.34, 0.41] over `axes` (the
/// table's d axis names).
app::ClaimCheck claim_river_mixture(const ForwardPassSection& f, const std::vector<std::string>& axes);
/// Claim mix_03: bank's weights in "the money bank" equal those in "the river bank" (to 1e-15) and
/// are [0.26, 0.31, 0.43].
app::ClaimCheck claim_money_weights(const ForwardPassSection& f);
/// Claim mix_04: bank's mixture in "the money bank" is [0.52, 0.21, 0.34, 0.41] over `axes`.
app::ClaimCheck claim_money_mixture(const ForwardPassSection& f, const std::vector<std::string>& axes);
/// Claims mix_05 and mix_06: the residual preview (bank input + mixture) is [0.71, 1.02, 1.14, 0.61]
/// in the river sentence and [1.02, 0.71, 1.14, 0.61] in the money sentence.
app::ClaimCheck claim_river_residual(const ForwardPassSection& f);
/// Claim mix_06, see claim_river_residual.
app::ClaimCheck claim_money_residual(const ForwardPassSection& f);
/// Claim mix_07: the plain average of "the river bank" has water 0.50 and finance 0.17 (axes 1 and
/// 0 of the toy table).
app::ClaimCheck claim_plain_average(const ForwardPassSection& f);

/// Claim mix_08 in section 2: bank's unscaled dot products with the, river, bank are
/// [0.20, 0.54, 1.18].
app::ClaimCheck claim_dots(const WhyItMixedSection& w);
/// Claim mix_09: the same divided by sqrt(4) = 2 are [0.10, 0.27, 0.59], printed under the dot
/// products (the label padded to their label's width).
app::ClaimCheck claim_scaled(const WhyItMixedSection& w);
/// Claim mix_01 again, in section 2: the softmax of the scaled dots is [0.26, 0.31, 0.43].
app::ClaimCheck claim_softmax(const WhyItMixedSection& w);

/// Claim mix_10 on section 3: multiplying the scores by 5 raises bank's own weight above its x1
/// weight and bank keeps the largest weight. Evidence: both weights, to two decimals.
app::ClaimCheck claim_sharpening(const ScoreScaleSection& s);

/// Claim mix_11 on section 3: at x0.1 every weight is within 0.02 of uniform (1/n). Evidence: the
/// largest distance, rounded up (app::format_upper_bound, 4 digits), so the printed bound holds.
app::ClaimCheck claim_flattening(const ScoreScaleSection& s);

/// Claim mix_12 on one sentence: A is n x n with every row non-negative and summing to 1 (to
/// 1e-12), H is n x d. Evidence: the three shapes, on two lines.
app::ClaimCheck claim_shapes(const SentencePass& s);

}  // namespace ch01
