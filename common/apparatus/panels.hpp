/// \file panels.hpp
/// \brief Several grouped-bar charts, or several heatmaps, side by side in one figure (gnuplot multiplot).
///
/// For comparisons the article makes across settings at once, e.g. weights and mixtures for four
/// query/value choices, or one receiving token's weights in two sentences.
#pragma once

#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"

namespace attn {

/// Draws `panels` left to right in one PNG, `NAME.png`, under an overall `title`; panel k's data
/// goes to `NAME.dat` (k = 1) or `NAME_k.dat`. Each panel is drawn like Plotter::bars (its own
/// title, axis labels, categories, series, y range and value labels; its `name` is ignored).
/// Does nothing when the Plotter is disabled. Throws std::invalid_argument if `panels` is empty
/// or a panel's values are not categories x series, and std::runtime_error if gnuplot fails.
void bar_panels(Plotter& plots, const std::string& name, const std::string& title, const std::vector<BarChart>& panels);

/// Draws heatmaps left to right in one PNG, `NAME.png`, under an overall `title`; panel k's data
/// goes to `NAME.dat` (k = 1) or `NAME_k.dat`. Each panel is drawn like Plotter::heatmap (its own
/// title, axis labels, cell labels, colour range; its `name` is ignored). Does nothing when the
/// Plotter is disabled. Throws std::invalid_argument if `panels` is empty or a panel's labels do
/// not fit its values, and std::runtime_error if gnuplot fails.
void heatmap_panels(Plotter& plots, const std::string& name, const std::string& title,
                    const std::vector<Heatmap>& panels);

}  // namespace attn
