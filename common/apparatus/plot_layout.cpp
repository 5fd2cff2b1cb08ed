/// \file plot_layout.cpp
/// \brief The text of gnuplot commands and data files, and the rules that fit a figure to a phone's
/// canvas (see plot_detail.hpp).
#include "common/apparatus/plot_detail.hpp"

#include <algorithm>
#include <sstream>

#include "common/apparatus/print.hpp"

namespace app::plot_detail {

// ---- text ---------------------------------------------------------------------------------------

std::string comment_text(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::string data_label(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += c == '"' ? '\'' : c == '\\' ? '/' : (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  return out + "\"";
}

std::string axis_labels(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                        int title_columns) {
  const Canvas& canvas = Canvas::current();
  return "set title " + gnuplot_quote(canvas.wrap(title, title_columns)) + "\nset xlabel " +
         gnuplot_quote(canvas.wrap(xlabel, kPlotLabelColumns)) + "\nset ylabel " + gnuplot_quote(ylabel) + "\n";
}

std::string tics(const std::vector<std::string>& labels) {
  std::string out = "(";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out += (i ? ", " : "") + gnuplot_tic_label(labels[i]) + " " + std::to_string(i);
  }
  return out + ")";
}

std::string number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

std::string range(const std::pair<double, double>& r) { return "[" + number(r.first) + ":" + number(r.second) + "]"; }

// ---- phone layout -------------------------------------------------------------------------------

std::string phone_key(const std::string& key, const std::vector<std::string>& entries, bool labelled) {
  if (!Canvas::current().narrow) return key;
  if (key.find("below") != std::string::npos && key.find("reverse") == std::string::npos)
    return key + " vertical Left reverse";
  for (const char* placed : {"below", "outside", "bmargin", "tmargin", "lmargin", "rmargin", "off", "at "})
    if (key.find(placed) != std::string::npos) return key;
  std::size_t widest = 0;
  for (const std::string& e : entries) widest = std::max(widest, e.size());
  return labelled || 7.0 * static_cast<double>(widest) + 60.0 > 270.0 ? "below Left reverse" : key;
}

bool crowded_on_phone(const std::vector<std::string>& labels) {
  if (!Canvas::current().narrow || labels.empty()) return false;
  std::size_t widest = 0;
  for (const std::string& l : labels) widest = std::max(widest, l.size());
  return static_cast<double>(labels.size() * (widest + 1)) * 7.0 > 280.0;
}

bool upright_values(const BarChart& chart) {
  if (!chart.value_labels || chart.categories.empty()) return false;
  const Canvas& canvas = Canvas::current();
  const double plot = canvas.narrow ? 280.0 : 0.85 * static_cast<double>(canvas.width);
  const double bars = static_cast<double>(chart.categories.size() * (chart.series.size() + 1));
  return 6.5 * static_cast<double>(chart.precision + 3) > plot / bars;
}

double phone_grid_width(const Heatmap& map) {
  std::size_t row_label = 0;
  for (const std::string& l : map.row_labels) row_label = std::max(row_label, l.size());
  const double by_width = std::max(380.0 - 7.0 * static_cast<double>(row_label) - 95.0, 100.0);
  // A grid taller than wide is as wide as about 260 px of height allow (square cells).
  const double by_height = 260.0 * static_cast<double>(map.values.n_cols) / static_cast<double>(map.values.n_rows);
  return std::min(by_width, by_height);
}

bool cell_labels_fit(const Heatmap& map) {
  if (!Canvas::current().narrow) return true;
  std::size_t cell_label = map.kinds.empty() ? map.nan_label.size() : 0;
  for (const CellKind& k : map.kinds) cell_label = std::max(cell_label, k.label.size());
  if (map.kinds.empty()) {
    const arma::vec finite = map.values.elem(arma::find_finite(map.values));
    for (const double x : finite) cell_label = std::max(cell_label, format_number(x, map.precision).size());
  }
  const double width = phone_grid_width(map) / static_cast<double>(map.values.n_cols);
  const double height = 260.0 / static_cast<double>(map.values.n_rows);
  return std::min(width, height) >= 6.5 * static_cast<double>(cell_label) + 4.0;
}

double grid_ratio(const Heatmap& map) {
  const double rows = static_cast<double>(map.values.n_rows), cols = static_cast<double>(map.values.n_cols);
  if (!Canvas::current().narrow || rows >= cols) return rows / cols;
  return std::max(rows / cols, 14.0 * rows / phone_grid_width(map));
}

std::string column_label_rotation(const Heatmap& map) {
  if (map.xtics_rotation != 0) return " rotate by " + std::to_string(map.xtics_rotation);
  if (!Canvas::current().narrow) return "";
  const auto shown =
      std::count_if(map.col_labels.begin(), map.col_labels.end(), [](const std::string& l) { return !l.empty(); });
  const bool crowded = 9.0 * static_cast<double>(shown) * 2.0 > phone_grid_width(map);
  return crowded ? " rotate by 90 right" : " rotate by 30 right";
}

std::optional<Heatmap> phone_layout(const Heatmap& map) {
  if (!map.kinds.empty() || !map.outlines.empty() || map.values.n_cols <= 10 ||
      map.values.n_cols < 2 * map.values.n_rows)
    return std::nullopt;
  Heatmap tall = map;
  tall.values = map.values.t();
  std::swap(tall.col_labels, tall.row_labels);
  std::swap(tall.xlabel, tall.ylabel);
  if (tall.row_labels.size() > 12)
    for (std::size_t r = 1; r < tall.row_labels.size(); r += 2) tall.row_labels[r].clear();
  return tall;
}

}  // namespace app::plot_detail
