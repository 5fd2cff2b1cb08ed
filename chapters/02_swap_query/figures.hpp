/// \file figures.hpp
/// \brief Chapter 02's figures that need more than the common charts: the three-dimensional
/// matching space and the preset panels. The plotting code lives here, beside the lesson's
/// results, so the program only calls it.
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "common/plot.hpp"
#include "swap_query.hpp"

namespace ch02 {

/// The matching space (ch02_matching_space): every vocabulary word's key (Wk fixed, 4 x 3) as a
/// point, those in the table's sentence highlighted, and the receiver's query direction from the
/// table as an arrow rescaled to length 1. `label` names the query in the title.
/// Throws nothing; a figure gnuplot cannot draw is reported (attn::Plotter::bars).
/// Source: the article, "What is query/key space, and how does it relate to subspaces?".
void draw_matching_space(attn::Plotter& plots, const std::string& label, const MatchTable& t);

/// bank's weights under the three hand-set presets, in both article sentences, as two panels
/// (ch02_bank_presets). Throws nothing; a figure gnuplot cannot draw is reported.
/// Source: the article, "Try three hypothetical matching directions".
void draw_bank_presets(attn::Plotter& plots);

}  // namespace ch02
