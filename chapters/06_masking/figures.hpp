/// \file figures.hpp
/// \brief Chapter 06's figures, drawn from the sections' results (masking.hpp) through
/// common/plot's charts: the mask with its key, the article's three panels, and the weight
/// heatmaps of both views side by side. Nothing here computes a lesson number.
///
/// Throws: nothing beyond std::bad_alloc; a figure gnuplot cannot draw is reported (app::Plotter).
/// Sources: the article, "Causal masking: a decoder only looks left".
#pragma once

#include "common/apparatus/plot.hpp"
#include "masking.hpp"
#include "report.hpp"

namespace ch06 {

/// The article's figures for the five-token table (ch06_tired_cat: both views side by side;
/// ch06_mask: the mask as allowed and blocked cells; ch06_three_panels: scores, masked scores and
/// their softmax), then the reader's sentence in the chosen views (ch06_bank_river).
void draw_figures(app::Plotter& plots, const TiredCatSection& cat, const BothViews& yours, const Views& views);

}  // namespace ch06
