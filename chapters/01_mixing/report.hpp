/// \file report.hpp
/// \brief Chapter 01's printers: the toy table and each section's result as the article prints it.
///
/// Each printer takes a lesson result (mixing.hpp) and only lays it out; the numbers and the claims
/// come from the lesson. All write to `out`.
/// Throws: nothing beyond std::bad_alloc (stream errors are the stream's state).
/// Sources: the article's embedding table, "One forward pass, no training", "Why it mixed at all"
/// and "Try the score scale".
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "claims.hpp"
#include "common/attention/toy.hpp"
#include "mixing.hpp"

namespace ch01 {

/// The toy embedding table under its caption: one row per word, one column per axis (one decimal).
void print_embedding_table(std::ostream& out, const attn::EmbeddingTable& table);

/// Section 1, "One forward pass, no training": both sentences' bank weights and mixtures (claims
/// mix_01 to mix_04), the residual preview (mix_05, mix_06) and the plain average (mix_07).
/// `axes`: the table's d axis names, which the mixture claims name.
void print_forward_pass(std::ostream& out, const ForwardPassSection& f, const std::vector<std::string>& axes);

/// Section 2, "Why it mixed at all": bank's row step by step (mix_08, mix_09, mix_01), then A
/// (n x n) and H (n x d) with A's row sums (mix_12).
void print_why_it_mixed(std::ostream& out, const WhyItMixedSection& w);

/// Section 3, "Try the score scale": bank's weights under each multiplier, one table row each,
/// with the sharpening (mix_10) and flattening (mix_11) claims.
void print_score_scale(std::ostream& out, const ScoreScaleSection& s);

/// "Your experiment" (--sentence, --scale): the last word's dots, scaled dots, scores, weights,
/// mixture and residual, labels padded so the vectors line up. `axes`: the table's axis names.
void print_experiment(std::ostream& out, const Experiment& e, const std::vector<std::string>& axes);

}  // namespace ch01
