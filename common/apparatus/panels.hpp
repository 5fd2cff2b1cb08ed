/// \file panels.hpp
/// \brief Several grouped-bar charts, or several heatmaps, side by side in one figure (gnuplot multiplot).
///
/// For comparisons the article makes across settings at once, e.g. weights and mixtures for four
/// query/value choices, or one receiving token's weights in two sentences.
///
/// Throws: std::invalid_argument if `panels` is empty or a panel's labels do not fit its values
/// (bar_panels: values categories x series; heatmap_panels), if the labels, heads and cells of a
/// grid do not agree (pattern_grid), and for a NAME outside [A-Za-z0-9_.-] (as Plotter::bars). A
/// plot gnuplot cannot draw is reported as Plotter reports it (app::report_failure), not thrown.
#pragma once

#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"

namespace app {

/// Draws `panels` left to right in one PNG, `NAME.png`, under an overall `title`; panel k's data
/// goes to `NAME.dat` (k = 1) or `NAME_k.dat`. Each panel is drawn like Plotter::bars (its own
/// title, axis labels, categories, series, y range and value labels; its `name` is ignored).
/// Does nothing when the Plotter is disabled.
void bar_panels(Plotter& plots, const std::string& name, const std::string& title, const std::vector<BarChart>& panels);

/// Draws heatmaps left to right in one PNG, `NAME.png`, under an overall `title`; panel k's data
/// goes to `NAME.dat` (k = 1) or `NAME_k.dat`. Each panel is drawn like Plotter::heatmap (its own
/// title, axis labels, cell labels, colour range; its `name` is ignored). Does nothing when the
/// Plotter is disabled.
void heatmap_panels(Plotter& plots, const std::string& name, const std::string& title,
                    const std::vector<Heatmap>& panels);

/// Every head's attention pattern (or any n x n map per head) on one sentence: a grid of heat maps.
struct PatternGrid {
  std::string name{};                 ///< file stem: NAME.png (or .svg) and NAME.dat, NAME_2.dat, ...
  std::string title{};                ///< over the grid
  std::vector<std::string> labels{};  ///< the sentence's n tokens, on both axes
  std::vector<std::string> heads{};   ///< one title per panel, e.g. "L1.H0"
  std::vector<arma::mat> cells{};     ///< one n x n map per head; row i receives, column j is read
  arma::uword columns = 1;            ///< panels per row of the PNG (the heads of one layer)
  std::string xlabel{};               ///< the axis of the tokens read, e.g. "source character j"
  std::string ylabel{};               ///< the axis of the tokens reading, e.g. "receiving character i"
  std::string cblabel{};              ///< the colour scale's label
  bool unit_range = false;            ///< weights: one colour scale 0 .. 1 for every panel
};

/// Draws `grid`: entries above the diagonal (j > i, masked) are blank; about 12 px per token row
/// of a panel, so 7-point tick labels stay apart; the book's canvases put two panels a row on a
/// desktop and one on a phone. Does nothing when the Plotter is disabled.
void pattern_grid(Plotter& plots, const PatternGrid& grid);

}  // namespace app
