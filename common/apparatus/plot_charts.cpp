/// \file plot_charts.cpp
/// \brief The charts' data files and gnuplot commands: bars, lines, arrows, heat maps and vector
/// figures (see plot.hpp); Plotter draws each through gnuplot (plot.cpp).
#include <armadillo>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "common/apparatus/plot.hpp"
#include "common/apparatus/plot_detail.hpp"
#include "common/apparatus/print.hpp"

namespace app {

using namespace plot_detail;

// ---- bar charts ---------------------------------------------------------------------------------

void Plotter::bars(const BarChart& chart) {
  if (chart.values.n_rows != chart.categories.size() || chart.values.n_cols != chart.series.size()) {
    throw std::invalid_argument("Plotter::bars(" + chart.name + "): values are " + std::to_string(chart.values.n_rows) +
                                " x " + std::to_string(chart.values.n_cols) + " for " +
                                std::to_string(chart.categories.size()) + " categories x " +
                                std::to_string(chart.series.size()) + " series");
  }
  draw(chart.name, {bar_chart_data(chart)},
       [&](const std::vector<std::string>& dat) { return bar_chart_commands(chart, dat[0]); });
}

std::string bar_chart_data(const BarChart& chart) {
  std::ostringstream data;
  data << "# " << comment_text(chart.title) << "\n# category";
  for (const auto& s : chart.series) data << '\t' << comment_text(s);
  data << '\n';
  for (arma::uword r = 0; r < chart.values.n_rows; ++r) {
    data << data_label(chart.categories[r]);
    for (arma::uword c = 0; c < chart.values.n_cols; ++c) data << '\t' << number(chart.values(r, c));
    data << '\n';
  }
  return data.str();
}

/// The plots that print each bar's value: above a bar that rises, below one that falls (upright
/// where they would overlap, none where even upright they would); a value that rounds to zero
/// prints "0.0", not "-0.0".
std::string value_label_plots(const BarChart& chart, const std::string& dat, std::pair<double, double> yr,
                              int label_font) {
  const double n_series = static_cast<double>(chart.series.size());
  const std::string gap = number(0.045 * (yr.second - yr.first));
  const std::string zero = format_plain(0.5 * std::pow(10.0, -chart.precision));
  // Upright labels rise from above a rising bar and hang below a falling one: one plot for each.
  const std::vector<std::pair<std::string, std::string>> sides =
      upright_values(chart)
          ? std::vector<std::pair<std::string, std::string>>{{">=", " rotate by 90 left"}, {"<", " rotate by 90 right"}}
          : std::vector<std::pair<std::string, std::string>>{{"", ""}};
  // Bars narrower than a line of text cannot carry a label even upright: the printed output and
  // the axis give the values then.
  const Canvas& canvas = Canvas::current();
  const double plot = canvas.narrow ? 280.0 : 0.85 * static_cast<double>(canvas.width);
  if (plot / static_cast<double>(chart.categories.size() * (chart.series.size() + 1)) < 13.0) return "";
  std::ostringstream gp;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const double offset = (static_cast<double>(s) - (n_series - 1) / 2) / (n_series + 1);
    const std::string v = "$" + std::to_string(s + 2);
    for (const auto& [test, turn] : sides) {
      const std::string y = "(" + v + " < 0 ? " + v + " - " + gap + " : " + v + " + " + gap + ")";
      gp << ", " << dat << " using ($0 + " << number(offset)
         << "):" << (test.empty() ? y : "(" + v + " " + test + " 0 ? " + y + " : 1/0)") << ":(sprintf('%."
         << chart.precision << "f', abs(" << v << ") < " << zero << " ? 0.0 : " << v << ")) with labels" << turn
         << " font '," << label_font << "' notitle";
    }
  }
  return gp.str();
}

std::string bar_chart_commands(const BarChart& chart, const std::string& dat, int label_font) {
  label_font = Canvas::current().font(label_font);
  const double lo = chart.values.is_empty() ? 0.0 : std::min(0.0, chart.values.min());
  const double hi = chart.values.is_empty() ? 1.0 : std::max(0.0, chart.values.max());
  // Bars start at 0: room below is added only for negative bars (and their labels); upright labels
  // need about twice the room.
  const double room = upright_values(chart) ? 0.3 : 0.15;
  const auto yr =
      chart.yrange.value_or(std::make_pair(lo < 0.0 ? lo - 0.8 * room * (hi - lo) : 0.0, hi + room * (hi - lo)));
  std::ostringstream gp;
  gp << axis_labels(chart.title, chart.xlabel, chart.ylabel)
     << "set style data histograms\nset style histogram clustered gap 1\n"
        "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset grid ytics\n"
     << "set key " << phone_key(chart.key, chart.series, chart.value_labels && chart.series.size() > 1)
     << "\nset yrange " << range(yr) << "\nset xtics " << tics(chart.categories) << " nomirror"
     << (crowded_on_phone(chart.categories) ? " rotate by 30 right" : "") << "\nset xzeroaxis\n"
     << "plot ";
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    gp << (s ? ", " : "") << dat << " using " << s + 2 << " title " << gnuplot_quote(chart.series[s]);
  }
  if (chart.value_labels) gp << value_label_plots(chart, dat, yr, label_font);
  return gp.str() + "\n";
}

namespace {

/// 10 to the power k written with superscripts: 10⁻¹, 10⁰, 10¹².
std::string power_of_ten(int k) {
  static const char* const digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string exponent;
  for (const char c : std::to_string(std::abs(k))) exponent += digits[c - '0'];
  return "10" + std::string(k < 0 ? "⁻" : "") + exponent;
}

/// A tic list for a log axis over [lo, hi]: every decade (every second or third when there are
/// many), each labelled with power_of_ten(), plus gnuplot's minor tics between them.
std::string decade_tics(double lo, double hi) {
  if (!(lo > 0.0) || !(hi >= lo) || !std::isfinite(hi)) return "autofreq";
  const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9)),
            last = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  const int step = last - first > 16 ? 3 : last - first > 8 ? 2 : 1;
  std::string out = "(";
  for (int k = first; k <= last; k += step) {
    out += (k == first ? "" : ", ") + gnuplot_quote(power_of_ten(k)) + " 1e" + std::to_string(k);
  }
  return out + ")";
}

void check_line_chart(const LineChart& chart) {
  if (chart.y.n_rows != chart.x.n_elem || chart.y.n_cols != chart.series.size()) {
    throw std::invalid_argument("Plotter::lines(" + chart.name + "): y is " + std::to_string(chart.y.n_rows) + " x " +
                                std::to_string(chart.y.n_cols) + " for " + std::to_string(chart.x.n_elem) +
                                " points x " + std::to_string(chart.series.size()) + " series");
  }
  if (!chart.styles.empty() && chart.styles.size() != chart.series.size()) {
    throw std::invalid_argument("Plotter::lines(" + chart.name + "): " + std::to_string(chart.styles.size()) +
                                " styles for " + std::to_string(chart.series.size()) + " series");
  }
  const bool bars =
      std::any_of(chart.styles.begin(), chart.styles.end(), [](const LineStyle& s) { return s.error_bars; });
  if (bars && (chart.errors.n_rows != chart.y.n_rows || chart.errors.n_cols != chart.y.n_cols)) {
    throw std::invalid_argument("Plotter::lines(" + chart.name + "): errors are " +
                                std::to_string(chart.errors.n_rows) + " x " + std::to_string(chart.errors.n_cols) +
                                " for y of " + std::to_string(chart.y.n_rows) + " x " + std::to_string(chart.y.n_cols));
  }
}

/// Columns: x, one per series, then (with error bars) one +- column per series.
std::string line_chart_data(const LineChart& chart) {
  const bool errors = !chart.errors.is_empty();
  std::ostringstream data;
  data << "# " << comment_text(chart.title) << "\n# " << comment_text(chart.xlabel);
  for (const auto& s : chart.series) data << '\t' << comment_text(s);
  if (errors) {
    for (const auto& s : chart.series) data << "\t+- " << comment_text(s);
  }
  data << '\n';
  for (arma::uword r = 0; r < chart.x.n_elem; ++r) {
    data << number(chart.x(r));
    for (arma::uword c = 0; c < chart.y.n_cols; ++c) data << '\t' << number(chart.y(r, c));
    if (errors) {
      for (arma::uword c = 0; c < chart.y.n_cols; ++c) data << '\t' << number(chart.errors(r, c));
    }
    data << '\n';
  }
  return data.str();
}

/// The axes of a line chart: labels, key, log scales, ranges and the dashed x marks.
std::string line_chart_axes(const LineChart& chart) {
  std::ostringstream gp;
  const std::string key = phone_key(chart.key, chart.series);
  gp << axis_labels(chart.title, chart.xlabel, chart.ylabel) << "set grid\nset key " << key << "\n";
  // A legend below the plot gets a line of space between it and the x label (gnuplot packs them tight).
  if (key.rfind("below", 0) == 0) gp << "set key height 1.5\n";
  // Log axes label their decades as powers of ten, written as the article does (10⁻⁸, not
  // 0.000000010 or 10^-8); another base labels its powers as plain numbers (1, 2, 4, ...).
  const std::string base = chart.log_base == 10 ? "" : " " + std::to_string(chart.log_base);
  if (chart.logx) {
    gp << "set logscale x" << base << "\n";
    const auto xr = chart.xrange.value_or(chart.x.is_empty() ? std::make_pair(1.0, 10.0)
                                                             : std::make_pair(chart.x.min(), chart.x.max()));
    gp << (chart.log_base == 10 ? "set xtics " + decade_tics(xr.first, xr.second) + "\n" : "set format x '%g'\n");
  }
  if (chart.xrange) {
    gp << "set xrange " << range(*chart.xrange) << "\n";
  } else if (chart.x.n_elem > 1) {
    gp << "set xrange " << range({chart.x.min(), chart.x.max()}) << "\n";
  }
  if (chart.logy) {
    gp << "set logscale y" << base << "\n";
    const arma::vec positive = arma::nonzeros(arma::clamp(arma::vectorise(chart.y), 0.0, arma::datum::inf));
    const auto yr = chart.yrange.value_or(positive.is_empty() ? std::make_pair(1.0, 10.0)
                                                              : std::make_pair(positive.min(), positive.max()));
    gp << (chart.log_base == 10 ? "set ytics " + decade_tics(yr.first, yr.second) + "\n" : "set format y '%g'\n");
  }
  if (chart.yrange) gp << "set yrange " << range(*chart.yrange) << "\n";
  // Each mark's label a line below the previous one's, so marks close together (c = 1/2 and c = 1
  // on a phone's narrow axis) keep their labels apart.
  double label_at = 0.96;
  for (const auto& [x, label] : chart.x_marks) {
    gp << "set arrow from " << number(x) << ", graph 0 to " << number(x)
       << ", graph 1 nohead dashtype 2 linecolor rgb 'gray40'\n"
       << "set label " << gnuplot_quote(label) << " at " << number(x) << ", graph " << number(label_at)
       << " offset 0.4, 0 textcolor rgb 'gray30'\n";
    label_at -= 0.07;
  }
  return gp.str();
}

/// One series' plot element: a line (solid or dashed, in its colour) or points with error bars.
std::string line_series(const LineChart& chart, std::size_t s, const std::string& dat) {
  const LineStyle style = chart.styles.empty() ? LineStyle{} : chart.styles[s];
  const std::string colour = style.colour.empty() ? "" : " linecolor rgb " + gnuplot_quote(style.colour);
  std::ostringstream gp;
  gp << dat << " using 1:" << s + 2;
  if (style.error_bars) {
    gp << ":" << chart.series.size() + s + 2 << " with yerrorbars pointtype 7 pointsize 1.2";
  } else {
    const int dash = style.dashtype != 0 ? style.dashtype : (style.dashed ? 2 : 0);
    gp << " with " << (chart.points ? "linespoints" : "lines") << " linewidth 2"
       << (dash != 0 ? " dashtype " + std::to_string(dash) : std::string());
  }
  gp << colour << " title " << gnuplot_quote(chart.series[s]);
  return gp.str();
}

}  // namespace

void Plotter::lines(const LineChart& chart) {
  check_line_chart(chart);
  if (!enabled_) return;
  draw(chart.name, {line_chart_data(chart)}, [&](const std::vector<std::string>& dats) {
    std::string gp = line_chart_axes(chart) + "plot ";
    for (std::size_t s = 0; s < chart.series.size(); ++s) gp += (s ? ", " : "") + line_series(chart, s, dats[0]);
    return gp;
  });
}

void Plotter::arrows(const ArrowChart& chart) {
  std::ostringstream data;
  data << "# " << comment_text(chart.title) << "\n# x\ty\tdx\tdy\t(one row per arrow)\n";
  for (const Arrow& a : chart.arrows) {
    data << number(a.x0) << '\t' << number(a.y0) << '\t' << number(a.x1 - a.x0) << '\t' << number(a.y1 - a.y0) << "\t# "
         << comment_text(a.label) << '\n';
  }
  draw(chart.name, {data.str()}, [&](const std::vector<std::string>& dats) {
    std::ostringstream gp;
    gp << axis_labels(chart.title, chart.xlabel, chart.ylabel) << (chart.equal_scale ? "set size ratio -1\n" : "")
       << "set grid\nset xrange " << range(chart.xrange) << "\nset yrange " << range(chart.yrange) << "\n"
       << (chart.x_axis ? "set xzeroaxis linetype -1\n" : "") << "set key " << phone_key(chart.key, {}) << "\nplot ";
    for (std::size_t i = 0; i < chart.arrows.size(); ++i) {
      const Arrow& a = chart.arrows[i];
      gp << (i ? ", " : "") << dats[0] << " every ::" << i << "::" << i << " using 1:2:3:4 with vectors "
         << (a.head ? "head filled" : "nohead") << " linewidth " << a.width << (a.dashed ? " dashtype 2" : "")
         << " linecolor rgb " << gnuplot_quote(a.colour) << " "
         << (a.label.empty() ? std::string("notitle") : "title " + gnuplot_quote(a.label));
    }
    return gp.str() + "\n";
  });
}

namespace {

void check_heatmap(const Heatmap& map) {
  if (map.values.n_rows != map.row_labels.size() || map.values.n_cols != map.col_labels.size()) {
    throw std::invalid_argument("Plotter::heatmap(" + map.name + "): values are " + std::to_string(map.values.n_rows) +
                                " x " + std::to_string(map.values.n_cols) + " for " +
                                std::to_string(map.row_labels.size()) + " row labels x " +
                                std::to_string(map.col_labels.size()) + " column labels");
  }
  if (map.palette.size() < 2)
    throw std::invalid_argument("Plotter::heatmap(" + map.name + "): a palette needs 2 colours");
  for (const CellOutline& o : map.outlines) {
    if (o.first_row > o.last_row || o.last_row >= map.values.n_rows || o.first_col > o.last_col ||
        o.last_col >= map.values.n_cols) {
      throw std::invalid_argument("Plotter::heatmap(" + map.name + "): an outline of rows " +
                                  std::to_string(o.first_row) + ".." + std::to_string(o.last_row) + ", columns " +
                                  std::to_string(o.first_col) + ".." + std::to_string(o.last_col) +
                                  " does not fit the " + std::to_string(map.values.n_rows) + " x " +
                                  std::to_string(map.values.n_cols) + " cells");
    }
  }
  for (const double k : map.values) {
    if (!map.kinds.empty() && !(k >= 0 && k < static_cast<double>(map.kinds.size()) && k == std::floor(k))) {
      throw std::invalid_argument("Plotter::heatmap(" + map.name + "): a cell holds " + format_number(k, 3) +
                                  ", not one of the " + std::to_string(map.kinds.size()) + " kinds");
    }
  }
}

/// "0xffffff" for "white", "0x000000" for anything else (the two label colours kinds use).
std::string rgb_number(const std::string& colour) { return colour == "white" ? "0xffffff" : "0x000000"; }

}  // namespace

std::string heatmap_data(const Heatmap& map) {
  check_heatmap(map);
  std::ostringstream data;
  if (map.kinds.empty()) {
    data << "# " << comment_text(map.title) << "\n# column\trow\tvalue (NaN: " << comment_text(map.nan_label)
         << ")\tlabel\n";
  } else {
    data << "# " << comment_text(map.title) << "\n# column\trow\tkind\tlabel\tlabel colour\n";
  }
  for (arma::uword r = 0; r < map.values.n_rows; ++r) {
    for (arma::uword c = 0; c < map.values.n_cols; ++c) {
      const double x = map.values(r, c);
      if (!map.kinds.empty()) {
        const CellKind& kind = map.kinds[static_cast<std::size_t>(x)];
        data << c << '\t' << r << '\t' << x << '\t' << gnuplot_quote(kind.label) << '\t' << rgb_number(kind.text_colour)
             << '\n';
        continue;
      }
      // The cell's text is written out here: gnuplot 5.4 compares NaN equal to itself, so it
      // cannot tell a masked cell from the value column alone.
      data << c << '\t' << r << '\t' << (std::isnan(x) ? "NaN" : number(x)) << '\t'
           << gnuplot_quote(std::isnan(x) ? map.nan_label : format_number(x, map.precision)) << '\n';
    }
    data << '\n';
  }
  return data.str();
}

/// The palette and colour range of a heat map of values. Values of both signs on the default
/// palette get red below zero, white at zero and blue above, over a range centred on zero, so the
/// sign shows as the hue and the size as its depth.
std::string colour_scale(const Heatmap& map) {
  const Heatmap defaults{};
  const arma::vec finite = map.values.elem(arma::find_finite(map.values));
  const double lo = map.cbrange ? map.cbrange->first : finite.is_empty() ? 0.0 : finite.min();
  const double hi = map.cbrange ? map.cbrange->second : finite.is_empty() ? 0.0 : finite.max();
  const bool diverging = map.palette == defaults.palette && lo < 0.0 && hi > 0.0;
  const std::vector<std::string> palette =
      diverging ? std::vector<std::string>{"#b2182b", "#f4a582", "#f7f7f7", "#92c5de", "#2166ac"} : map.palette;
  std::ostringstream gp;
  gp << "set palette defined (";
  for (std::size_t k = 0; k < palette.size(); ++k) gp << (k ? ", " : "") << k << ' ' << gnuplot_quote(palette[k]);
  gp << ")\n";
  if (diverging) {
    const double reach = std::max(-lo, hi);
    gp << "set cbrange " << range({-reach, reach}) << "\n";
  } else if (map.cbrange) {
    gp << "set cbrange " << range(*map.cbrange) << "\n";
  }
  return gp.str();
}

/// On a phone, the widest title a heat map's grid has room for, in characters of 12 px: gnuplot
/// centres the title over the grid, which the row labels push right of the canvas's middle.
constexpr int kGridTitleColumns = 36;

/// The plot of a heat map of cell kinds (map.kinds): one colour per kind and a key naming them, and
/// each cell's label in `font` (empty: no labels).
std::string kinds_plot(const Heatmap& map, const std::string& dat, const std::string& font) {
  std::ostringstream gp;
  gp << "set palette defined (";
  for (std::size_t k = 0; k < map.kinds.size(); ++k)
    gp << (k ? ", " : "") << k << ' ' << gnuplot_quote(map.kinds[k].colour);
  gp << ")\nset cbrange [0:" << std::max<std::size_t>(map.kinds.size() - 1, 1) << "]\nunset colorbox\n"
     << (Canvas::current().narrow  // a phone column has no room beside the grid: the key goes under it,
                                   // centred on the canvas (centred under the grid, which the row labels push right, it
                                   // was cut off)
             ? "set key at screen 0.5, screen 0.01 center bottom vertical Left reverse samplen 2 spacing 1.5 box\n"
               "set bmargin 9\n"
             : "set key outside right top vertical Left reverse samplen 2 spacing 1.8 box\n")
     << "set style fill solid 1.0 border rgb 'white'\n"
     << "plot " << dat << " using 1:2:(0.5):(0.5):3 with boxxyerror fillcolor palette notitle";
  if (!font.empty()) gp << ", " << dat << " using 1:2:4:5 with labels textcolor rgb variable" << font << " notitle";
  for (const CellKind& kind : map.kinds)
    gp << ", keyentry with boxes fillcolor rgb " << gnuplot_quote(kind.colour) << " title " << gnuplot_quote(kind.key);
  gp << "\n";
  return gp.str();
}

std::string heatmap_commands(const Heatmap& map, const std::string& dat, int label_font) {
  const double rows = static_cast<double>(map.values.n_rows), cols = static_cast<double>(map.values.n_cols);
  const std::string font = " font '," + std::to_string(Canvas::current().font(label_font)) + "'";
  const bool labels = map.cell_labels && cell_labels_fit(map);  // the colours alone where they do not fit
  std::ostringstream gp;
  gp << axis_labels(map.title, map.xlabel, map.ylabel, kGridTitleColumns) << "set size ratio "
     << number(grid_ratio(map)) << "\n"
     << "set xrange [-0.5:" << number(cols - 0.5) << "]\nset yrange [" << number(rows - 0.5)
     << ":-0.5]\n"  // row 0 at the top
     << "set xtics " << tics(map.col_labels) << " nomirror" << column_label_rotation(map) << "\n"
     << "set ytics " << tics(map.row_labels) << " nomirror\n";
  if (!map.kinds.empty()) return gp.str() + kinds_plot(map, dat, labels ? font : std::string());
  gp << colour_scale(map) << "unset key\n"
     << "set object 1 rectangle from -0.5, -0.5 to " << number(cols - 0.5) << ", " << number(rows - 0.5)
     << " behind fillcolor rgb 'gray75' fillstyle solid noborder\n";
  if (!map.colorbox) gp << "unset colorbox\n";
  // A tall, narrow grid (a few columns, many rows: chapter 05's parameters on a phone) would get its
  // colour bar on top of its last column: it stands clear, at the grid's own scale.
  if (map.colorbox && grid_ratio(map) >= 3.0)
    gp << "set colorbox user origin graph 1.25, graph 0 size graph 0.12, graph 1\n";
  if (!map.cblabel.empty()) gp << "set cblabel " << gnuplot_quote(map.cblabel) << "\n";
  bool keyed = false;
  for (std::size_t k = 0; k < map.outlines.size(); ++k) {
    const CellOutline& o = map.outlines[k];
    gp << "set object " << k + 2 << " rectangle from " << number(static_cast<double>(o.first_col) - 0.5) << ", "
       << number(static_cast<double>(o.first_row) - 0.5) << " to " << number(static_cast<double>(o.last_col) + 0.5)
       << ", " << number(static_cast<double>(o.last_row) + 0.5) << " front fillstyle empty border rgb "
       << gnuplot_quote(o.colour) << " lw 2" << (o.dashed ? " dt 2" : "") << "\n";
    keyed = keyed || !o.key.empty();
  }
  // Under the x label, a line of space between. A phone's canvas has no room for the entries side by
  // side (gnuplot then drops the whole key): one a line, centred on the canvas, with room reserved.
  if (keyed && !Canvas::current().narrow) gp << "set key below horizontal samplen 3 height 1.5\n";
  if (keyed && Canvas::current().narrow)
    gp << "set key at screen 0.5, screen 0.01 center bottom vertical Left reverse samplen 1 spacing 1.5\nset bmargin "
          "9\n";
  // In SVG each cell is its own rectangle (`pixels`), sharp at any zoom, not a scaled bitmap.
  gp << "plot " << dat << " using 1:2:3 with image" << (Canvas::current().svg ? " pixels" : "") << " notitle";
  if (labels) gp << ", " << dat << " using 1:2:4 with labels" << font << " notitle";
  for (const CellOutline& o : map.outlines) {
    if (o.key.empty()) continue;
    gp << ", keyentry with lines lw 2 lc rgb " << gnuplot_quote(o.colour) << (o.dashed ? " dt 2" : "") << " title "
       << gnuplot_quote(Canvas::current().wrap(o.key, 30));  // on a phone, lines of 30 characters
  }
  gp << "\n";
  return gp.str();
}

void Plotter::heatmap(const Heatmap& map) {
  check_heatmap(map);
  if (!enabled_) return;
  const std::optional<Heatmap> tall = phone_layout(map);  // its data in a second file
  std::vector<std::string> data{heatmap_data(map)};
  if (tall) data.push_back(heatmap_data(*tall));
  draw(map.name, data, [&](const std::vector<std::string>& dats) {
    return tall && Canvas::current().narrow ? heatmap_commands(*tall, dats[1]) : heatmap_commands(map, dats[0]);
  });
}

// ---- vector figures (points and arrows in 2-d or 3-d) ---------------------------------------------

namespace {

void check_columns(const std::string& figure, const std::string& what, const arma::mat& m, arma::uword dims,
                   std::size_t labels) {
  if (m.n_cols != dims || (labels != 0 && labels != m.n_rows)) {
    throw std::invalid_argument("vector figure " + figure + ": " + what + " is " + std::to_string(m.n_rows) + " x " +
                                std::to_string(m.n_cols) + " with " + std::to_string(labels) + " labels; expected " +
                                std::to_string(dims) + " columns and one label per row (or none)");
  }
}

/// One data line: the coordinates of `a` (then those of `b`, if given), then a quoted label.
void data_row(std::ostringstream& out, const arma::rowvec& a, const arma::rowvec& b, const std::string& label) {
  for (const double x : a) out << number(x) << ' ';
  for (const double x : b) out << number(x) << ' ';
  out << data_label(label) << '\n';
}

/// The plot elements of one panel: point sets, then arrow sets, each with its style.
std::string vector_elements(const VectorFigure& f, const std::vector<std::string>& dats) {
  const bool three = f.axes.size() == 3;
  const std::string xyz = three ? "1:2:3" : "1:2", label_col = three ? "4" : "3";
  std::vector<std::string> parts;
  for (std::size_t s = 0; s < f.points.size(); ++s) {
    const PointSet& p = f.points[s];
    if (p.points.n_rows == 0) continue;
    const std::string colour = " linecolor rgb " + gnuplot_quote(p.colour);
    const std::string& dat = dats[s];
    if (three && p.stems) parts.push_back(dat + " using " + xyz + " with impulses dashtype 3" + colour + " notitle");
    parts.push_back(dat + " using " + xyz + " with points pointtype " + (p.hollow ? "6" : "7") + " pointsize 2" +
                    colour + (p.title.empty() ? " notitle" : " title " + gnuplot_quote(p.title)));
    if (!p.labels.empty()) {
      parts.push_back(dat + " using " + xyz + ":" + label_col + " with labels offset " +
                      format_plain(p.label_offset.first) + ", " + format_plain(p.label_offset.second) +
                      (p.hollow ? " textcolor rgb 'gray50'" : "") + " notitle");
    }
  }
  const std::string tail = three ? "1:2:3:4:5:6" : "1:2:3:4",
                    tip = three ? "($1+$4):($2+$5):($3+$6):7" : "($1+$3):($2+$4):5";
  for (std::size_t s = 0; s < f.arrows.size(); ++s) {
    const ArrowSet& a = f.arrows[s];
    if (a.from.n_rows == 0) continue;
    const std::string& dat = dats[f.points.size() + s];
    parts.push_back(dat + " using " + tail + " with vectors head filled size screen 0.025, 20 linewidth " +
                    std::to_string(a.width) + " linecolor rgb " + gnuplot_quote(a.colour) +
                    (a.title.empty() ? " notitle" : " title " + gnuplot_quote(a.title)));
    if (!a.labels.empty() && a.label_gap > 0) {
      // Beyond the head along the arrow: tail + (1 + gap / length) x (head - tail).
      const std::string length = three ? "sqrt($4**2+$5**2+$6**2)" : "sqrt($3**2+$4**2)";
      const std::string k = "(1+" + format_plain(a.label_gap) + "/" + length + ")";
      const std::string beyond =
          three ? "($1+$4*" + k + "):($2+$5*" + k + "):($3+$6*" + k + "):7" : "($1+$3*" + k + "):($2+$4*" + k + "):5";
      parts.push_back(dat + " using " + beyond + " with labels textcolor rgb " + gnuplot_quote(a.colour) + " notitle");
    } else if (!a.labels.empty()) {
      parts.push_back(dat + " using " + tip + " with labels offset 1.2, 1.0 textcolor rgb " + gnuplot_quote(a.colour) +
                      " notitle");
    }
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

/// The axis range shared by every axis: the figure's, or the data's (including 0) with a margin.
std::pair<double, double> vector_range(const VectorFigure& f) {
  if (f.range) return *f.range;
  double lo = 0.0, hi = 0.0;
  const auto widen = [&](const arma::mat& m) {
    if (m.is_empty()) return;
    lo = std::min(lo, m.min());
    hi = std::max(hi, m.max());
  };
  for (const PointSet& p : f.points) widen(p.points);
  for (const ArrowSet& a : f.arrows) {
    widen(a.from);
    widen(a.to);
  }
  const double margin = 0.1 * std::max(hi - lo, 1e-9);
  return {lo - margin, hi + margin};
}

}  // namespace

std::vector<std::string> vector_figure_data(const VectorFigure& f) {
  const arma::uword dims = f.axes.size();
  if (dims != 2 && dims != 3) {
    throw std::invalid_argument("vector figure " + f.name + ": " + std::to_string(dims) + " axes; expected 2 or 3");
  }
  if (dims == 3 && (f.views.empty() || f.views.size() > 3)) {
    throw std::invalid_argument("vector figure " + f.name + ": " + std::to_string(f.views.size()) +
                                " views; expected 1 to 3");
  }
  std::vector<std::string> data;
  const std::string coords = dims == 3 ? "x y z" : "x y";
  for (const PointSet& p : f.points) {
    check_columns(f.name, "point set '" + p.title + "'", p.points, dims, p.labels.size());
    std::ostringstream out;
    out << "# " << comment_text(f.title) << ": " << comment_text(p.title) << "\n# " << coords << " label\n";
    for (arma::uword r = 0; r < p.points.n_rows; ++r) {
      data_row(out, p.points.row(r), arma::rowvec(), p.labels.empty() ? "" : p.labels[r]);
    }
    data.push_back(out.str());
  }
  for (const ArrowSet& a : f.arrows) {
    check_columns(f.name, "arrow tails '" + a.title + "'", a.from, dims, a.labels.size());
    check_columns(f.name, "arrow heads '" + a.title + "'", a.to, dims, a.labels.size());
    if (a.from.n_rows != a.to.n_rows) {
      throw std::invalid_argument("vector figure " + f.name + ": arrow set '" + a.title + "' has " +
                                  std::to_string(a.from.n_rows) + " tails and " + std::to_string(a.to.n_rows) +
                                  " heads");
    }
    std::ostringstream out;
    out << "# " << comment_text(f.title) << ": " << comment_text(a.title) << "\n# tail " << coords << ", head - tail "
        << (dims == 3 ? "dx dy dz" : "dx dy") << ", label\n";
    for (arma::uword r = 0; r < a.from.n_rows; ++r) {
      data_row(out, a.from.row(r), a.to.row(r) - a.from.row(r), a.labels.empty() ? "" : a.labels[r]);
    }
    data.push_back(out.str());
  }
  return data;
}

namespace {

/// Side by side, a receding axis has a third of the width: a tic every third of the range [lo, hi]
/// at most, on a round step (1, 2 or 5 times a power of ten), so its labels keep apart.
std::string panel_tics(std::pair<double, double> r) {
  const double raw = (r.second - r.first) / 3.0, unit = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw <= 2 * unit ? 2 * unit : raw <= 5 * unit ? 5 * unit : 10 * unit;
  return "set xtics " + number(step) + "\nset ytics " + number(step) + "\nset ztics " + number(step) + "\n";
}

}  // namespace

std::string vector_figure_commands(const VectorFigure& f, const std::vector<std::string>& dats) {
  const std::string r = range(vector_range(f));
  std::ostringstream gp;
  gp << "set xlabel " << gnuplot_quote(f.axes[0]) << "\nset ylabel " << gnuplot_quote(f.axes[1]) << "\nset xrange " << r
     << "\nset yrange " << r << "\nset grid\nset key " << phone_key(f.key, {}) << "\n";
  if (f.axes.size() == 2) {
    gp << "set title " << gnuplot_quote(Canvas::current().wrap(f.title))
       << "\nset size ratio -1\nset xzeroaxis\nset yzeroaxis\nplot " << vector_elements(f, dats) << "\n";
    return gp.str();
  }
  gp << "set zrange " << r << "\nset ticslevel 0\nset xyplane at 0\n";
  const std::size_t n = f.views.size();
  const Canvas& canvas = Canvas::current();
  if (n > 1) gp << panel_tics(vector_range(f));
  const int panels = static_cast<int>(n);
  // Side-by-side panels need a wider canvas than one figure's 960 x 600 on the PNG; the book's
  // desktop canvas keeps its width and gives each panel a third of it, and a phone stacks them.
  if (n > 1 && !canvas.svg) gp << canvas.terminal(520 * panels, 560);
  if (n > 1 && canvas.svg) gp << canvas.terminal(canvas.width, canvas.narrow ? 380 * panels + 40 : 420);
  // Several panels share one title and no legend (the caller's title says what the marks are).
  if (n > 1) {
    gp << "set multiplot layout " << (canvas.narrow ? n : 1) << ", " << (canvas.narrow ? 1 : n) << " title "
       << gnuplot_quote(canvas.wrap(f.title)) << "\nset key off\n";
  }
  for (std::size_t v = 0; v < n; ++v) {
    const View3d& view = f.views[v];
    const std::string where = "azimuth " + format_plain(view.azimuth) + ", elevation " + format_plain(view.elevation);
    // Seen from straight above or below, the vertical axis is a point: its label would float by the frame.
    const bool end_on = std::abs(view.elevation) == 90.0;
    // Straight from above or from the side, gnuplot sets an axis label beside the wrong axis (or on
    // another label): the panel's title names the two axes seen instead.
    std::string seen;
    if (view.elevation == 90.0 && view.azimuth == 0.0) seen = f.axes[0] + " across, " + f.axes[1] + " up";
    if (view.elevation == 0.0 && view.azimuth == 90.0) seen = f.axes[1] + " across, " + f.axes[2] + " up";
    gp << "set xlabel " << gnuplot_quote(seen.empty() ? f.axes[0] : std::string()) << "\nset ylabel "
       << gnuplot_quote(seen.empty() ? f.axes[1] : std::string()) << "\n";
    gp << "set zlabel " << gnuplot_quote(end_on || !seen.empty() ? std::string() : f.axes[2])
       << " rotate parallel offset 2, 0\n";
    // Room on the left for the vertical axis's label (and on a phone, on the right for the receding
    // one's), which the panel's edge would cut.
    if ((n > 1 || canvas.narrow) && seen.empty() && !end_on)
      gp << "set lmargin 9\n" << (canvas.narrow ? "set rmargin 10\n" : "");
    else
      gp << "unset lmargin\nunset rmargin\n";
    const std::string panel = seen.empty() ? where : where + "\n(" + seen + ")";
    // One view's title spans the plot, which the margins above narrow on a phone.
    gp << "set title "
       << gnuplot_quote(n > 1 ? canvas.wrap(panel) : canvas.wrap(f.title + " (" + where + ")", canvas.narrow ? 44 : 0))
       << "\nset view " << number(90.0 - view.elevation) << ", " << number(view.azimuth)
       << (canvas.narrow ? ", 0.95, 1.1\n" : ", 1.12, 1.2\n");  // a phone's panel keeps room for the labels
    gp << "splot " << vector_elements(f, dats) << "\n";
  }
  if (n > 1) gp << "unset multiplot\n";
  return gp.str();
}

void Plotter::vectors(const VectorFigure& figure) {
  const std::vector<std::string> data = vector_figure_data(figure);  // checks the shapes first
  draw(figure.name, data, [&](const std::vector<std::string>& dats) { return vector_figure_commands(figure, dats); });
}

}  // namespace app
