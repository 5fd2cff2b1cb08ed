/// \file figures.hpp
/// \brief Chapter 02's figures: tower's weights, the matching space in 3-d (one view, and several side by side),
/// the preset panels, the combined query's shares, the superposition toy and the query-map
/// diagram.
///
/// Each turns a lesson result into a common/plot figure; nothing here computes the lesson.
/// Throws: std::invalid_argument saying what is wrong and quoting the text for a viewpoint that is not
/// two angles in range (parse_view: "must be AZIMUTH,ELEVATION in degrees, e.g. 35,28 (got '35')"; the
/// caller names its flag); the others throw nothing beyond std::bad_alloc, and a figure gnuplot cannot
/// draw is reported (app::Plotter).
/// Sources: the article, "When raw similarity asks the wrong question", "Producing a query", "One head
/// maps the full representation into a smaller matching space", "Try three hypothetical matching
/// directions" (its "Rotate view") and "One query can combine several matching criteria"; Elhage et
/// al. 2022, "Toy Models of Superposition".
#pragma once

#include <armadillo>
#include <optional>
#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"
#include "swap_query.hpp"

namespace ch02 {

/// The viewpoint of the 3-d figures from text "AZIMUTH,ELEVATION" in degrees: azimuth 0.360 about
/// the vertical (structure) axis, elevation -90.90 above the floor. A comma list by the list rule
/// (app::split_list: "35, 28" is accepted, "35,28," refused), each angle by the number rule
/// (app::parse_number).
app::View3d parse_view(const std::string& text);

/// tower's weights over "the Eiffel tower" under the raw and the swap query, side by side
/// (ch02_tower_weights).
app::BarChart tower_weights_chart(const TeachingSection& teaching);

/// The matching space (ch02_matching_space) seen from `view`: every vocabulary word's key (Wk fixed,
/// 4 x 3) as a point, those in the table's sentence highlighted, and the receiver's query drawn from
/// the origin as an arrow of length 0.75 along its direction (the keys sit at distance up to about
/// 1, so the arrow's head stays clear of them). `label` names the query in the title.
app::VectorFigure matching_space_figure(const std::string& label, const MatchTable& t, app::View3d view);

/// The same figure from three viewpoints side by side (ch02_matching_views): `view`, from above
/// (azimuth 0, elevation 90: the finance-water floor) and from the side along the finance axis
/// (azimuth 90, elevation 0: water against structure).
app::VectorFigure matching_views_figure(const std::string& label, const MatchTable& t, app::View3d view);

/// bank's weights under the three hand-set presets, and under the reader's Wq when given, in both
/// article sentences, as two panels (ch02_bank_presets).
void draw_bank_presets(app::Plotter& plots, const PresetWeights& presets);

/// The combined query's shares (ch02_combined_shares): one group per source token, one bar per
/// coordinate pair, and the score they add up to.
app::BarChart combined_shares_chart(const CombinedQuery& c);

/// The superposition toy's feature directions in the plane (ch02_superposition) and the two
/// active inputs as points.
app::VectorFigure superposition_figure(const Superposition& s);

/// The reads of every feature with one and with two features active, linear and with the ReLU read
/// (ch02_superposition_reads).
app::BarChart superposition_reads_chart(const Superposition& s);

/// Every figure of the chapter, from the sections' results, in the page's order: tower's weights,
/// the matching space from `view` and from three views (the first table of section 4, the query
/// named `label`), the preset panels, the combined shares, the superposition toy and its reads, and
/// the query-map diagram.
void draw_figures(app::Plotter& plots, const Sections& r, const std::string& label, app::View3d view);

/// Graphviz source of the query map at the width example's sizes (ch02_query_map): bank's
/// 1 x d input, the d x d_k Wq (learned), its 1 x d_k query, river's key through Wk, their score,
/// and what the map ignores (rank and null-space dimension).
std::string query_map_diagram(const WidthExample& w);

}  // namespace ch02
