/// \file panels.cpp
/// \brief Grouped-bar panels in one figure (see panels.hpp).
#include "common/panels.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace attn {
namespace {

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

std::string panel_data(const BarChart& chart) {
  std::ostringstream data;
  data << "# " << chart.title << "\n# category";
  for (const auto& s : chart.series) data << '\t' << s;
  data << '\n';
  for (arma::uword r = 0; r < chart.values.n_rows; ++r) {
    data << gnuplot_quote(chart.categories[r]);
    for (arma::uword c = 0; c < chart.values.n_cols; ++c) data << '\t' << number(chart.values(r, c));
    data << '\n';
  }
  return data.str();
}

std::string panel_commands(const BarChart& chart, const std::string& dat) {
  const double lo = std::min(0.0, chart.values.min()), hi = std::max(0.0, chart.values.max());
  const auto yr = chart.yrange.value_or(std::make_pair(lo - 0.12 * (hi - lo), hi + 0.15 * (hi - lo)));
  const double n_series = static_cast<double>(chart.series.size());
  std::ostringstream gp;
  gp << "set title " << gnuplot_quote(chart.title) << "\nset xlabel " << gnuplot_quote(chart.xlabel)
     << "\nset ylabel " << gnuplot_quote(chart.ylabel) << "\nset yrange [" << number(yr.first) << ":"
     << number(yr.second) << "]\nplot ";
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    gp << (s ? ", " : "") << dat << " using " << s + 2 << (s == 0 ? ":xtic(1)" : "") << " title "
       << gnuplot_quote(chart.series[s]);
  }
  if (chart.value_labels) {
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const double offset = (static_cast<double>(s) - (n_series - 1) / 2) / (n_series + 1);
      gp << ", " << dat << " using ($0 + " << number(offset) << "):" << s + 2 << ":(sprintf('%." << chart.precision
         << "f', $" << s + 2 << ")) with labels offset 0, 0.7 font ',8' notitle";
    }
  }
  return gp.str() + "\n";
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
    data.push_back(panel_data(chart));
  }
  plots.figure(name, title, data, [&](const std::vector<std::string>& dat) {
    std::ostringstream gp;
    gp << "unset title\nset multiplot layout 1," << panels.size() << " title " << gnuplot_quote(title)
       << " font ',13'\nset style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset grid ytics\nset key top left font ',9'\n"
          "set xtics nomirror\nset xzeroaxis\n";
    for (std::size_t k = 0; k < panels.size(); ++k) gp << panel_commands(panels[k], dat[k]);
    gp << "unset multiplot\n";
    return gp.str();
  });
}

}  // namespace attn
