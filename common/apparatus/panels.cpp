/// \file panels.cpp
/// \brief Grouped-bar panels in one figure (see panels.hpp).
#include "common/apparatus/panels.hpp"

#include "common/apparatus/print.hpp"
#include "common/attention/checks.hpp"

#include <sstream>
#include <stdexcept>

namespace app {
namespace {

const Canvas& canvas() { return Canvas::current(); }

/// `set multiplot` for `n` panels: side by side, or on a phone's narrow canvas one under another,
/// each `panel_height` pixels tall (the canvas grows to hold them).
std::string layout(std::size_t n, int panel_height) {
  const Canvas& c = canvas();
  std::ostringstream gp;
  if (c.narrow) gp << c.terminal(c.width, panel_height * static_cast<int>(n) + 60);
  gp << "unset title\nset multiplot layout " << (c.narrow ? n : 1) << "," << (c.narrow ? 1 : n);
  return gp.str();
}

}  // namespace

void bar_panels(Plotter& plots, const std::string& name, const std::string& title,
                const std::vector<BarChart>& panels) {
  if (panels.empty()) throw std::invalid_argument("bar_panels(" + name + "): no panels");
  std::vector<std::string> data;
  for (const BarChart& chart : panels) {
    if (chart.values.n_rows != chart.categories.size() || chart.values.n_cols != chart.series.size() ||
        chart.values.is_empty()) {
      throw std::invalid_argument("bar_panels(" + name + "): panel '" + chart.title + "' has values " +
                                  std::to_string(chart.values.n_rows) + " x " + std::to_string(chart.values.n_cols) +
                                  " for " + std::to_string(chart.categories.size()) + " categories x " +
                                  std::to_string(chart.series.size()) + " series");
    }
    data.push_back(bar_chart_data(chart));
  }
  plots.figure(name, title, data, [&](const std::vector<std::string>& dat) {
    std::ostringstream gp;
    gp << layout(panels.size(), 330) << " title " << gnuplot_quote(canvas().wrap(title))
       << " font ',13'\nset key font '," << canvas().font(9)
       << "'\n";  // each panel sets its own styles (bar_chart_commands)
    for (std::size_t k = 0; k < panels.size(); ++k) gp << bar_chart_commands(panels[k], dat[k], 8);
    gp << "unset multiplot\n";
    return gp.str();
  });
}

void heatmap_panels(Plotter& plots, const std::string& name, const std::string& title,
                    const std::vector<Heatmap>& panels) {
  if (panels.empty()) throw std::invalid_argument("heatmap_panels(" + name + "): no panels");
  std::vector<std::string> data;
  for (const Heatmap& map : panels) data.push_back(heatmap_data(map));  // checks each panel's shape
  plots.figure(name, title, data, [&](const std::vector<std::string>& dat) {
    std::ostringstream gp;
    gp << layout(panels.size(), 360) << " title " << gnuplot_quote(canvas().wrap(title)) << "\n";
    for (std::size_t k = 0; k < panels.size(); ++k) gp << heatmap_commands(panels[k], dat[k], 10);
    gp << "unset multiplot\n";
    return gp.str();
  });
}

void pattern_grid(Plotter& plots, const PatternGrid& grid) {
  const std::size_t n_heads = grid.cells.size();
  if (n_heads == 0 || grid.heads.size() != n_heads || grid.columns == 0) {
    throw std::invalid_argument("pattern_grid: " + std::to_string(n_heads) + " maps for " +
                                std::to_string(grid.heads.size()) + " head titles");
  }
  for (const arma::mat& M : grid.cells) {
    if (M.n_rows != grid.labels.size() || M.n_cols != grid.labels.size())
      throw std::invalid_argument("pattern_grid: a map is " + attn::shape(M) + " for " +
                                  std::to_string(grid.labels.size()) + " tokens");
  }
  std::vector<std::string> data;
  for (const arma::mat& M : grid.cells) {
    std::ostringstream d;
    d << "# source j\treceiving i\tvalue (NaN: masked, j > i)\n";
    for (arma::uword i = 0; i < M.n_rows; ++i) {
      for (arma::uword j = 0; j < M.n_cols; ++j)
        d << j << '\t' << i << '\t' << (j > i ? "NaN" : format_number(M(i, j), 5)) << '\n';
      d << '\n';
    }
    data.push_back(d.str());
  }
  std::ostringstream tics;
  for (std::size_t t = 0; t < grid.labels.size(); ++t)
    tics << (t ? ", " : "") << gnuplot_tic_label(grid.labels[t]) << ' ' << t;
  const double n = static_cast<double>(grid.labels.size());
  plots.figure(grid.name, grid.title, data, [&](const std::vector<std::string>& dat) {
    std::ostringstream gp;
    const Canvas& c = canvas();
    const int panels = static_cast<int>(n_heads), columns = c.narrow ? 1 : 2;
    const int png_columns = static_cast<int>(grid.columns), png_rows = (panels + png_columns - 1) / png_columns;
    const int rows = c.svg ? (panels + columns - 1) / columns : png_rows;
    if (c.svg) {
      gp << c.terminal(c.width, (c.narrow ? 400 : 480) * rows + 40);
    } else {
      gp << "set terminal pngcairo noenhanced size " << 400 * png_columns << "," << 420 * png_rows + 40
         << " font 'DejaVu Sans,8'\n";
    }
    gp << "set multiplot layout " << rows << "," << (c.svg ? columns : png_columns) << " title "
       << gnuplot_quote(c.wrap(grid.title)) << "\n"
       << "unset title\nset size ratio 1\nunset key\nset palette defined (0 '#f7fbff', 1 '#9ecae1', 2 '#08306b')\n"
       << "set xrange [-0.5:" << n - 0.5 << "]\nset yrange [" << n - 0.5 << ":-0.5]\n"
       << "set xtics (" << tics.str() << ") font '," << c.font(7) << "' nomirror\nset ytics (" << tics.str()
       << ") font '," << c.font(7) << "' nomirror\n"
       << "set cblabel " << gnuplot_quote(grid.cblabel) << "\n"
       << "set xlabel " << gnuplot_quote(grid.xlabel) << " font '," << c.font(8) << "'\nset ylabel "
       << gnuplot_quote(grid.ylabel) << " font '," << c.font(8) << "'\n"
       << (grid.unit_range ? "set cbrange [0:1]\n" : "");
    for (std::size_t k = 0; k < dat.size(); ++k) {
      gp << "set title " << gnuplot_quote(grid.heads[k]) << "\n"
         << "plot " << dat[k] << " using 1:2:3 with image" << (c.svg ? " pixels" : "") << "\n";
    }
    gp << "unset multiplot\n";
    return gp.str();
  });
}

}  // namespace app
