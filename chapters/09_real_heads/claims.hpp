/// \file chapters/09_real_heads/claims.hpp
/// \brief Chapter 09's claims (real_01 to real_08 of docs/claims.md), each checked on a section's
/// result and returned as an app::ClaimCheck whose evidence is the statement, a colon, then the
/// measured numbers: the program prints it wrapped, with its verdict and tag (report.hpp), and the
/// tests assert the same function on the model their fixture trained. Nothing here computes the
/// mathematics.
///
/// Throws: nothing beyond std::bad_alloc, given results of heads.hpp, interventions.hpp
/// and compare.hpp.
/// Sources: the article, "Watch real heads".
#pragma once

#include <string>
#include <vector>

#include "common/apparatus/print.hpp"
#include "compare.hpp"
#include "heads.hpp"
#include "interventions.hpp"

namespace ch09 {

/// real_01: the model's held-out loss is below the bigram baseline.
app::ClaimCheck claim_beats_bigram(const Baselines& b);
/// real_02: a first-layer head's previous-token score is above 0.5.
app::ClaimCheck claim_previous_token_head(const Roles& r);
/// real_03: a second-layer head's induction score (random letters) is above 0.3, and zeroing the
/// induction heads (`zeroed`, induction_ablation()) raises the random-repeat loss by more than half
/// the in-context advantage (first - repeat).
app::ClaimCheck claim_induction_head(const Roles& r, const Ablation& zeroed);
/// real_04: for at least one head and position the largest weight is not the largest contribution.
app::ClaimCheck claim_contribution_differs(const Contributions& c);
/// real_05: bank's reading holds no sense beyond its letters. Holds when the letter controls move
/// the reading after the last layer (mean centred distance >= kLettersSeen: the measure sees a
/// changed word) and at no layer is the sense pair further apart than its letter controls in
/// enough items for the sign test (p < kSenseLevel). Fails when the controls do not move the
/// reading (nothing could be seen) or when some layer separates the senses beyond the letters.
app::ClaimCheck claim_bank_controls(const BankStudy& b);
/// real_06: the induction heads' direct logit effect raises the repeating character above every
/// other at more than half the repeat positions.
app::ClaimCheck claim_head_copies(const CopyingSection& c);
/// real_07: patching the previous-token head's output from shuffled windows raises the repeat loss
/// by more than half the in-context advantage; the rank of its K-composition with the induction head
/// among first-layer heads is printed beside, not judged.
app::ClaimCheck claim_circuit(const CircuitSection& c);
/// real_08: zero and mean ablation agree on where the repeats are computed: under both, the head
/// whose removal raises the random-repeat loss most is in the circuit (an induction head of
/// `induction`, or the previous-token head `previous` they read), and so is the largest of the
/// induction heads' layer. Which head ranks first differs from run to run; both are printed.
app::ClaimCheck claim_ablations_agree(const AblationCompare& c, const std::vector<std::string>& induction,
                                      const std::string& previous);

}  // namespace ch09
