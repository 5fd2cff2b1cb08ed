/// \file claims.hpp
/// \brief Chapter 04's claims (scale_01 to scale_09 of docs/claims.md), each checked on a section's
/// result from sections.hpp and returned as an app::ClaimCheck: the program prints it beside the
/// numbers (app::print_claim, tagged on the article's settings), the tests assert it. Nothing here
/// computes the mathematics.
///
/// Throws: std::invalid_argument for fewer than two scores (claim_raw_ratio, claim_scaled_ratio); the
/// others throw nothing beyond std::bad_alloc, given results of sections.hpp.
/// Sources: the article, "Dot products, cosine similarity, and scaling" and its subsections ("A dot
/// product includes vector length", "Cosine similarity removes the lengths", "Scaling preserves the
/// influence of lengths", "Why divide by the square root of the dimension?", "Scaling changes how
/// sharply softmax chooses", "Why not use cosine similarity instead?").
#pragma once

#include <vector>

#include "common/apparatus/print.hpp"
#include "sections.hpp"

namespace ch04 {

/// Claim scale_01 on section 2: the four dot products are 1, 100, 0, -1 and the cosines 1, 1, 0, -1
/// (to 1e-12). Evidence: both rows in their shortest form.
app::ClaimCheck claim_dot_cosine(const DotCosineTable& t);

/// Claim scale_02 on section 1: the signed projection |a| cos(theta) is the article's 9.40 (two
/// decimals). Evidence: "signed projection ... = 9.40". Holds only near the article's setting.
app::ClaimCheck claim_projection(const Explorer& e);
/// Claim scale_02: the dot product is the article's 9.40 (two decimals). Evidence: "dot product
/// ... = 9.40".
app::ClaimCheck claim_shadow_dot(const Explorer& e);

/// Claim scale_03 on section 3: 1, 8, 40, 100 divided by sqrt(64) are 0.125, 1, 5, 12.5 (to 1e-12).
/// Evidence: the scaled dot products.
app::ClaimCheck claim_fixed_divisor(const FixedDivisor& f);

/// Claim scale_04 over a sweep (section 4's estimates): every estimate within_three_standard_errors,
/// and at least one. Evidence: the end of the section's sentence, "by 8 brings it back to 1.".
app::ClaimCheck claim_scaled_variance(const std::vector<VarianceEstimate>& estimates);

/// Claim scale_05 on section 5: softmax of the raw scores is the article's [86.7%, 11.7%, 1.6%]
/// (0.867, 0.117, 0.016 to three decimals). Evidence: "raw [4, 2, 0] -> [86.7%, ...]".
app::ClaimCheck claim_raw_weights(const SoftmaxScaling& r);
/// Claim scale_05: softmax of the scaled scores is the article's [0.665, 0.245, 0.090] (three
/// decimals). Evidence: "scaled [2, 1, 0] -> [66.5%, ...]".
app::ClaimCheck claim_scaled_weights(const SoftmaxScaling& r);

/// Claim scale_06 on section 5: a1 / a2 = exp(s1 - s2) on the raw scores (relative 1e-12); when a
/// weight rounds to 0 the evidence says so and the claim does not hold.
app::ClaimCheck claim_raw_ratio(const SoftmaxScaling& r);
/// Claim scale_06: the same on the scaled scores.
app::ClaimCheck claim_scaled_ratio(const SoftmaxScaling& r);
/// Claim scale_06: adding -50, 3 or 1000 to every raw score changes no weight by 1e-12 or more.
/// Evidence: the largest change.
app::ClaimCheck claim_shift(const SoftmaxScaling& r);

/// Claim scale_07 on section 6: as c grows |J| falls at every step of the table. With equal or tied
/// top scores the weights never near one-hot: the evidence says so and the claim does not hold.
/// Evidence: the first and last |J| (small_number).
app::ClaimCheck claim_jacobian_falls(const LearningSignal& r);

/// Claim scale_08 on section 7's example: in every row the score row of c q is c times q K^T / sqrt(d_k)
/// (to 1e-12), the largest weight rises from row to row (rows in ascending c > 0), and the cosine
/// weights are those of q (to 1e-12).
app::ClaimCheck claim_query_length(const LengthExample& ex, const std::vector<QueryScaleRow>& rows);

/// Claim scale_09 on section 7's example: making one key c > 1 times longer multiplies its score by c;
/// its weight rises if its score is positive and falls if negative, both signs shown; cosine
/// weights do not move. rows: per key, ascending c starting at 1.
app::ClaimCheck claim_key_length(const LengthExample& ex, const std::vector<KeyScaleRow>& rows);

}  // namespace ch04
