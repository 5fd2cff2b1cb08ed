/// \file chapters/09_real_heads/figures.hpp
/// \brief Chapter 09's figures, drawn from the study (study.hpp) and the run (lab.hpp): the
/// training curve, the head view, the contribution sizes, the measured roles, the ablations and
/// bank's sense pairs against their letter controls. Nothing here computes a lesson number; each
/// function turns a result into a chart.
///
/// Throws: std::invalid_argument only for data whose shape disagrees with its labels (draw_report,
/// draw_head_view, draw_comparison, through app::Plotter); a figure gnuplot cannot draw is reported
/// (app::Plotter, exit code 1), not thrown, and the chapter carries on.
/// Sources: the article, "Watch real heads".
#pragma once

#include "common/apparatus/plot.hpp"
#include "study.hpp"

namespace ch09 {

/// Every figure: ch09_loss_curve, ch09_head_view, ch09_contributions, ch09_head_roles,
/// ch09_ablations and ch09_bank (PNG and .dat).
void draw_report(app::Plotter& plots, const Report& report, const Run& run);

/// One head view as a grid of heat maps, layers by heads, the sentence's characters on both axes
/// (figure `name`, PNG and .dat); the sentence reaches gnuplot only quoted.
void draw_head_view(app::Plotter& plots, const std::string& name, const HeadView& view);

/// Figures ch09_compare_a and ch09_compare_b (the two head views) and ch09_compare (A vs B's
/// centred cosine after each layer beside the controls' lowest, mean and highest).
void draw_comparison(app::Plotter& plots, const Comparison& c);

}  // namespace ch09
