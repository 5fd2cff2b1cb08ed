/// \file claims.hpp
/// \brief Chapter 07's claims (mem_01 to mem_05 of docs/claims.md), each checked on a section's
/// result from linear_memory.hpp and returned as an app::ClaimCheck: the program prints it beside the
/// numbers (app::print_claim), the tests assert it. Nothing here computes the mathematics.
///
/// Throws: nothing beyond std::bad_alloc, given results of linear_memory.hpp (claim_bilinear_form needs
/// S of at least 2 x 2, claim_memory_fixed_size at least one memory).
/// Sources: the article, "Learned matching, kernel smoothing, and memory".
#pragma once

#include <armadillo>

#include "common/apparatus/print.hpp"
#include "linear_memory.hpp"

namespace ch07 {

/// Claim mem_01 on section 1 (a result of learned_matching): rank(M) <= d_k (pass the head's
/// Wq.n_cols), X M X^T equals (X Wq)(X Wk)^T to 1e-12 relative, and M is not symmetric: s_01 differs
/// from s_10. Evidence: s_01 and s_10, to four decimals.
app::ClaimCheck claim_bilinear_form(const BilinearSection& section, arma::uword d_k);
/// Claim mem_02 on section 2 (a result of not_unique): Wq R and Wk R^-T give the same scores to 1e-10
/// although the factors moved (by more than 1e-6). Evidence: both changes.
app::ClaimCheck claim_factors_not_unique(const FactorSection& section);
/// Claim mem_03 on section 3 (a result of kernel_view): softmax attention equals normalized
/// exp-kernel smoothing of the values, to 1e-12. Evidence: the kernel written out, the largest difference.
app::ClaimCheck claim_kernel_smoothing(const KernelSection& section);
/// Claim mem_04 on section 4 (a result of running_memory): y_i = S_i q_i with S_i = S_(i-1) + v_i k_i^T
/// equals the masked product, to 1e-10. Evidence: the largest difference.
app::ClaimCheck claim_running_memory(const MemorySection& section);
/// Claim mem_05 on section 4, per step: every S_i has the shape of S_1 while the cache holds i keys and
/// i values. Evidence: the shape of S.
app::ClaimCheck claim_memory_fixed_size(const MemorySection& section);
/// Claim mem_05 at scale (no section result: the byte counts of linear_memory.hpp): at d_k = d_v = 64
/// and position 16384, S holds 64 x 64 doubles and the cache 16384 x 128 (512 times more).
app::ClaimCheck claim_memory_at_scale();

}  // namespace ch07
