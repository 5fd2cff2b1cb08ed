/// \file chapters/05_training/figures.hpp
/// \brief Chapter 05's figures, drawn from the sections' results (sections.hpp) and the
/// step-through's Walk (training.hpp) through common/plot's charts. Nothing here computes a lesson
/// number; each function turns a result into charts.
///
/// Throws: nothing beyond std::bad_alloc; a figure gnuplot cannot draw is reported (app::Plotter).
/// Sources: the article, "Make it learn", "Follow one sentence through training", "Can two small
/// matrices recover identifiable features?" and "Attention learns the data, not the world".
#pragma once

#include "biased.hpp"
#include "common/apparatus/plot.hpp"
#include "sections.hpp"
#include "training.hpp"
#include "walkthrough.hpp"

namespace ch05 {

/// The training figures: the loss per pass (ch05_loss), bank's weights during training in the first
/// two examples (ch05_bank_attention_river, ch05_bank_attention_money) and after it
/// (ch05_final_attention).
void draw_training(app::Plotter& plots, const TrainingRun& run, const Findings& findings);

/// The companions' figures, those that were run: feature recovery (ch05_feature_recovery), the
/// biased dataset (ch05_biased_attention) and its survey over seeds (ch05_biased_seeds).
void draw_companions(app::Plotter& plots, const Companions& companions);

/// The step-through's figures: for each followed update, every parameter group before the step, its
/// gradient and the group after (ch05_walkthrough_update_N); after more than one update, the
/// parameters at the start and the end (ch05_walkthrough_trained).
void draw_walk(app::Plotter& plots, const Walk& walk);

}  // namespace ch05
