/// \file chapters/08_induction/figures.hpp
/// \brief Chapter 08's figures, drawn from the findings (lab.hpp) through common/plot's charts:
/// the held-out loss curves, the per-head scores, three heads' attention patterns and the
/// ablation table, and what the skip-trigram example's head reads. Nothing here computes a lesson
/// number; each function turns a result into a chart.
///
/// Throws: nothing beyond std::bad_alloc; a figure gnuplot cannot draw is reported (app::Plotter).
/// Sources: the article, "Reverse-engineer a head you trained".
#pragma once

#include "common/apparatus/plot.hpp"
#include "lab.hpp"
#include "skip_trigrams.hpp"

namespace ch08 {

/// Every figure of the chapter: ch08_loss_curves, ch08_head_scores, ch08_induction_pattern,
/// ch08_previous_token_pattern, ch08_key_first_layer_pattern and ch08_ablation (PNG and .dat).
void draw_figures(app::Plotter& plots, const Findings& findings);

/// The skip-trigram example's figure, ch08_skip_trigram_message: the message its head reads from
/// the source, in logits, for each skip-trigram (rows) and continuation (columns).
void draw_skip_trigrams(app::Plotter& plots, const SkipTrigramFindings& findings);

}  // namespace ch08
