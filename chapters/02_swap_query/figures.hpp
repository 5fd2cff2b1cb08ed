/// \file figures.hpp
/// \brief Chapter 02's figures: the matching space in 3-d (one view, and several side by side),
/// the preset panels, the combined query's shares, the superposition toy and the query-map
/// diagram. Each turns a lesson result into a common/plot figure; nothing here computes the lesson.
#pragma once

#include <armadillo>
#include <optional>
#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"
#include "swap_query.hpp"

namespace ch02 {

/// The matching space (ch02_matching_space) seen from `view`: every vocabulary word's key (Wk fixed,
/// 4 x 3) as a point, those in the table's sentence highlighted, and the receiver's query drawn from
/// the origin as an arrow of length 0.75 along its direction (the keys sit at distance up to about
/// 1, so the arrow's head stays clear of them). `label` names the query in the title.
/// Throws nothing; a figure gnuplot cannot draw is reported (attn::Plotter::vectors).
/// Source: the article, "Try three hypothetical matching directions" (its "Rotate view").
attn::VectorFigure matching_space_figure(const std::string& label, const MatchTable& t, attn::View3d view);

/// The same figure from three viewpoints side by side (ch02_matching_views): `view`, from above
/// (azimuth 0, elevation 90: the finance-water floor) and from the side along the finance axis
/// (azimuth 90, elevation 0: water against structure). Throws nothing.
attn::VectorFigure matching_views_figure(const std::string& label, const MatchTable& t, attn::View3d view);

/// bank's weights under the three hand-set presets, and under the reader's Wq when given, in both
/// article sentences, as two panels (ch02_bank_presets). Throws nothing; a figure gnuplot cannot
/// draw is reported. Source: the article, "Try three hypothetical matching directions".
void draw_bank_presets(attn::Plotter& plots, const PresetWeights& presets);

/// The combined query's shares (ch02_combined_shares): one group per source token, one bar per
/// coordinate pair, and the score they add up to. Throws nothing.
/// Source: the article, "One query can combine several matching criteria".
attn::BarChart combined_shares_chart(const CombinedQuery& c);

/// The superposition toy's feature directions in the plane (ch02_superposition) and the two
/// active inputs as points. Throws nothing. Source: Elhage et al. 2022, "Toy Models of Superposition".
attn::VectorFigure superposition_figure(const Superposition& s);

/// The reads of every feature with one and with two features active, linear and with the ReLU read
/// (ch02_superposition_reads). Throws nothing. Source: as superposition_figure.
attn::BarChart superposition_reads_chart(const Superposition& s);

/// Graphviz source of the query map at the width example's sizes (ch02_query_map): bank's
/// 1 x d input, the d x d_k Wq (learned), its 1 x d_k query, river's key through Wk, their score,
/// and what the map ignores (rank and null-space dimension). Throws nothing.
/// Source: the article, "One head maps the full representation into a smaller matching space".
std::string query_map_diagram(const WidthExample& w);

}  // namespace ch02
