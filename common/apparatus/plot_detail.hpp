/// \file plot_detail.hpp
/// \brief What plot.cpp's charts share, internal to the apparatus: the text of gnuplot commands and
/// data files, and the rules that fit a figure to a phone's canvas (380 x 420 px). Each rule reads
/// the canvas being drawn (Canvas::current()) and leaves a desktop figure as it was asked for.
/// Nothing here throws (beyond std::bad_alloc).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/apparatus/plot.hpp"

namespace app::plot_detail {

// ---- text ---------------------------------------------------------------------------------------

/// Text for a `#` comment line of a data file: line breaks become spaces.
std::string comment_text(std::string text);

/// A label as a data file's first column: double-quoted, for a reader who re-plots the data. gnuplot
/// reads no escapes in data files (`"a\"b"` reads as `a`), so double quotes become single ones,
/// backslashes slashes and control bytes spaces. The figure's own tick labels are set in the
/// commands (tics(), exact through gnuplot_quote), not read from here.
std::string data_label(const std::string& text);

/// On a phone, the widest title or x label a plot has room for, in characters of 12 px: gnuplot
/// centres both over the plot's area, which the y label and tick labels push right of the canvas's
/// middle, so a line as wide as the canvas is cut off at its right edge.
inline constexpr int kPlotLabelColumns = 40;

/// The title and the x label (each wrapped on a phone, the title at `title_columns`) and the y label.
std::string axis_labels(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                        int title_columns = kPlotLabelColumns);

/// gnuplot tic labels, `("a" 0, "b" 1, ...)`: one per position, each exact through gnuplot_tic_label().
std::string tics(const std::vector<std::string>& labels);

/// A number as gnuplot reads it back exactly (17 significant digits).
std::string number(double x);

/// A gnuplot range, `[lo:hi]`.
std::string range(const std::pair<double, double>& r);

// ---- phone layout -------------------------------------------------------------------------------

/// Where a chart's key goes: as the figure asks, except on a phone when it sits inside the plot and
/// either its longest entry (7 px a character, beside a 60 px sample) would not fit the plot's
/// width (about 270 px) or the plot is full of value labels (`labelled`) that it would cover: then
/// under the plot. A key under the plot on a phone is one entry a line, each sample before its text
/// (right-aligned text pushed its samples past a phone canvas's right edge).
std::string phone_key(const std::string& key, const std::vector<std::string>& entries, bool labelled = false);

/// Whether `labels`, side by side under a phone's plot (about 280 px, 7 px a character and a space
/// between), would run into one another: then they are slanted.
bool crowded_on_phone(const std::vector<std::string>& labels);

/// Whether a bar chart's value labels, side by side at the font's width (6.5 px a character), would
/// run into one another (about 280 px of plot on a phone, 85% of the canvas on a desktop, for every
/// bar and each cluster's gap): then they stand upright.
bool upright_values(const BarChart& chart);

/// The width a phone's canvas (380 px) leaves a heat map's grid: less the row labels (7 px a
/// character of the longest), the y label and the colour scale (95 px).
double phone_grid_width(const Heatmap& map);

/// Whether each cell of `map` has room for its label on the canvas being drawn. On a phone a cell
/// is the smaller of its share of the grid's width and of about 260 px of height (a panel is about
/// 380 px tall), and a label needs about 6.5 px a character at 10-11 px. A desktop's canvas has
/// room (its figures were drawn for it).
bool cell_labels_fit(const Heatmap& map);

/// The grid's height over its width: square cells, except on a phone where a wide, flat grid would
/// give each row less than a label's height (14 px): there the rows get that height.
double grid_ratio(const Heatmap& map);

/// How the column labels are turned: as the figure asks; on a phone by 30 degrees, or upright when
/// even slanted the labels shown (not empty) would not fit side by side (about 18 px each).
std::string column_label_rotation(const Heatmap& map);

/// A wide, short grid of numbers (at least 11 columns, twice as many as rows) drawn for a phone:
/// transposed, one column a row, where its columns would crowd a 380 px canvas (with more than 12
/// rows, every other row labelled, as a phone's canvas gives each about 10 px); none otherwise.
std::optional<Heatmap> phone_layout(const Heatmap& map);

}  // namespace app::plot_detail
