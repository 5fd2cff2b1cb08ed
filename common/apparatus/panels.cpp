/// \file panels.cpp
/// \brief Grouped-bar panels in one figure (see panels.hpp).
#include "common/apparatus/panels.hpp"

#include <sstream>
#include <stdexcept>

namespace attn {
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

}  // namespace attn
