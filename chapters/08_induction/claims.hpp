/// \file claims.hpp
/// \brief Chapter 08's claims (ind_01 to ind_04 and skip_01 to skip_03 of docs/claims.md), each
/// checked on a result from circuit.hpp or skip_trigrams.hpp and returned as an app::ClaimCheck: the
/// program prints it beside the numbers (app::print_claim), the tests assert it. Nothing here computes
/// the mathematics.
///
/// Throws: nothing beyond std::bad_alloc, given results of circuit.hpp and skip_trigrams.hpp.
/// Sources: the article, "Reverse-engineer a head you trained" (the lab, and its pointer to the worked
/// example "skip-trigram bugs and induction heads").
#pragma once

#include "circuit.hpp"
#include "common/apparatus/print.hpp"
#include "skip_trigrams.hpp"

namespace ch08 {

// ---- the two-layer lab (section results of circuit.hpp) ---------------------------------------

/// Claim ind_01 on section 1 (held-out region_losses): the repeat is predicted far better than the
/// first occurrence (repeat loss below half the first-occurrence loss). The evidence prints the ratio
/// and the verdict.
app::ClaimCheck claim_repeats_predicted(const RegionLosses& held_out);
/// Claim ind_02 on section 2 (head_scores, layers x heads): the highest last-layer induction score is
/// above 0.3 and above every first-layer head's (the circuit's copying step sits in layer 2).
app::ClaimCheck claim_induction_in_last_layer(const HeadScores& scores);
/// Claim ind_03 on section 3 (summarize_ablations): zeroing all of the last layer, and zeroing the key
/// first-layer head, each raise the repeat loss by more than half the in-context advantage (both
/// layers are needed).
app::ClaimCheck claim_both_layers_needed(const AblationSummary& summary);
/// Claim ind_04 on section 2 of the fixed-offset control (head_scores): a first-layer head scores
/// above 0.5 as induction, since position alone then finds the copy.
app::ClaimCheck claim_position_finds_copy(const HeadScores& scores);

// ---- the one-layer skip-trigram example (measure_skip_trigrams, 4 x 4 in kSkipTrigrams order) --

/// Claim skip_01: the model completes every skip-trigram (mean probability of the right
/// continuation above 0.5 in each row) with the head on the source (mean weight above 0.5).
app::ClaimCheck claim_skip_trigrams_learned(const SkipTrigramFindings& f);
/// Claim skip_02, the bug: in every row the message read from the source raises both of that
/// source's continuations above both of the other source's, the unwanted one (the continuation the
/// source takes after the other query) by at least half as much as the wanted one; so the two
/// queries after one source receive the same message.
app::ClaimCheck claim_same_message(const SkipTrigramFindings& f);
/// Claim skip_03, its cost: in every row the model gives the unwanted continuation more than twice
/// the probability of the continuation neither word calls for.
app::ClaimCheck claim_unwanted_continuation(const SkipTrigramFindings& f);

}  // namespace ch08
