/// \file chapters/08_induction/report.hpp
/// \brief Chapter 08's printed sections: each printer takes the lab's options, a checkpoint or the
/// findings (lab.hpp, skip_trigrams.hpp) and writes them to a stream, with the claims checked on them
/// (claims.hpp); none computes the mathematics.
///
/// Throws: nothing beyond std::bad_alloc (stream errors are the stream's state, checked by
/// app::cli::run).
/// Sources: the article, "Reverse-engineer a head you trained".
#pragma once

#include <ostream>

#include "claims.hpp"
#include "lab.hpp"
#include "skip_trigrams.hpp"

namespace ch08 {

/// The title, the data and the model of a run with `options`.
void print_setup(std::ostream& out, const LabOptions& options);

/// The heading of the training log, printed before the first checkpoint.
void print_training_heading(std::ostream& out);

/// One line of the training log: the held-out losses at a checkpoint.
void print_checkpoint(std::ostream& out, const Checkpoint& checkpoint);

/// Section 1: held-out losses on first occurrences and repeats, the uniform guess, claim ind_01.
void print_losses(std::ostream& out, const Findings& findings);

/// Section 2: each head's previous-token, induction and duplicate-token scores, claim ind_02 (or
/// ind_04 for the fixed-offset control).
void print_scores(std::ostream& out, const Findings& findings);

/// Section 3: the ablation table, its summary and claim ind_03 (not for the control).
void print_ablations(std::ostream& out, const Findings& findings);

/// Section 4: the skip-trigram example: what the one-layer model predicts, what its head reads from
/// the source and what the direct path adds, then claims skip_01 to skip_03.
void print_skip_trigrams(std::ostream& out, const SkipTrigramFindings& findings);

/// The footer: the wall time of the two-layer lab's training loop.
void print_wall_time(std::ostream& out, const Findings& findings);

}  // namespace ch08
