/// \file figures.cpp
/// \brief Chapter 02's figures (see figures.hpp).
#include "figures.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/apparatus/numbers.hpp"
#include "common/apparatus/panels.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/checks.hpp"
#include "common/attention/toy.hpp"

namespace ch02 {

namespace {

/// 12288 -> "12,288": the article writes widths with thousands separators.
std::string with_commas(arma::uword n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';  // a comma before each group of three
    out += digits[i];
  }
  return out;
}

/// The keys and the query arrow of the matching space, without the views.
app::VectorFigure matching_space(const std::string& label, const MatchTable& t) {
  const auto& table = attn::toy_embeddings();
  const arma::mat keys = table.E() * fixed_wk();  // vocabulary x 3
  app::PointSet in{
      .title = "keys in the sentence", .points = arma::mat(0, 3), .stems = true, .label_offset = {3.0, 1.1}};
  // Present keys' labels sit right of their dot, clear of the query arrow that starts at k_the.
  // Absent words' labels sit a line higher: seen along an axis, an absent key can hide behind a present
  // one (k_money behind k_the, looking along finance), and the two labels would print on top of each other.
  app::PointSet out{.title = "keys of absent words",
                    .points = arma::mat(0, 3),
                    .colour = "gray60",
                    .hollow = true,
                    .label_offset = {1.5, 2.3}};
  for (arma::uword r = 0; r < keys.n_rows; ++r) {
    const std::string& w = table.words()[r];
    app::PointSet& set = std::find(t.words.begin(), t.words.end(), w) != t.words.end() ? in : out;
    set.points.insert_rows(set.points.n_rows, keys.row(r));
    set.labels.push_back("k_" + w);
  }
  const arma::rowvec q = t.Q.row(t.receiver);
  const std::string who = t.words[t.receiver];
  app::VectorFigure f{.name = "ch02_matching_space",
                      .title = "Matching space (" + label + "): keys, and " + who + "'s query direction",
                      .axes = {"finance", "water", "structure"},
                      .points = {in, out}};
  if (arma::norm(q) > 0) {  // a zero query has no direction to draw
    f.arrows.push_back({.title = "q_" + who + " direction (drawn at length 0.75; scores use the full query)",
                        .from = arma::mat(1, 3, arma::fill::zeros),
                        .to = 0.75 * q / arma::norm(q),
                        .labels = {"q_" + who}});
  }
  // Axes start at 0 unless a key or the query direction is negative, so points sit above the floor.
  double lo = std::min(0.0, keys.min());
  if (!f.arrows.empty()) lo = std::min(lo, f.arrows.front().to.min());
  f.range = std::make_pair(lo - 0.1, 1.2);  // room above the top keys for their labels
  return f;
}

/// "f1", "f2", ...: the name of feature i (0-based).
std::string feature_name(arma::uword i) { return fmt::format("f{}", i + 1); }

}  // namespace

app::View3d parse_view(const std::string& text) {
  const auto refused = [&](const std::string& why) {
    return std::invalid_argument(why + " (got " + attn::quoted(text) + ")");
  };
  const app::Parsed<std::vector<std::string>> angles = app::split_list(text);
  if (!angles.value) throw std::invalid_argument(attn::quoted(text) + " " + angles.problem);
  if (angles.value->size() != 2) throw refused("must be AZIMUTH,ELEVATION in degrees, e.g. 35,28");
  double degrees[2];
  for (std::size_t i = 0; i < 2; ++i) {
    const app::Parsed<double> angle = app::parse_number((*angles.value)[i]);
    if (!angle.value) throw std::invalid_argument(attn::quoted((*angles.value)[i]) + " " + angle.problem);
    degrees[i] = *angle.value;
  }
  const app::View3d view{.azimuth = degrees[0], .elevation = degrees[1]};
  if (view.azimuth < 0 || view.azimuth > 360) throw refused("azimuth must be between 0 and 360 degrees");
  if (view.elevation < -90 || view.elevation > 90) throw refused("elevation must be between -90 and 90 degrees");
  return view;
}

app::BarChart tower_weights_chart(const TeachingSection& teaching) {
  const attn::HeadPass& raw = teaching.raw;
  const attn::HeadPass& swapped = teaching.swapped;
  return {.name = "ch02_tower_weights",
          .title = "tower's weights: raw similarity ties Eiffel with the filler; the swap query picks Eiffel",
          .xlabel = "source position",
          .ylabel = "weight a_tower,j",
          .categories = {"the", "Eiffel", "tower"},
          .series = {"raw query (Wq = I)", "swap query (Wq = swap)"},
          .values = arma::join_rows(arma::vec(raw.A.row(2).t()), arma::vec(swapped.A.row(2).t())),
          .yrange = std::make_pair(0.0, 0.65),
          .precision = 4};
}

app::VectorFigure matching_space_figure(const std::string& label, const MatchTable& t, app::View3d view) {
  app::VectorFigure f = matching_space(label, t);
  f.views = {view};
  return f;
}

app::VectorFigure matching_views_figure(const std::string& label, const MatchTable& t, app::View3d view) {
  app::VectorFigure f = matching_space(label, t);
  f.name = "ch02_matching_views";
  f.title = "Matching space (" + label +
            ") from three viewpoints: blue dots are the sentence's keys, "
            "grey circles absent words' keys, the orange arrow the query direction";
  // Yours, from above (the finance-water floor), and from the side along finance (water-structure).
  f.views = {view, {.azimuth = 0, .elevation = 90}, {.azimuth = 90, .elevation = 0}};
  return f;
}

void draw_bank_presets(app::Plotter& plots, const PresetWeights& presets) {
  std::vector<app::BarChart> panels;
  for (std::size_t k = 0; k < presets.sentences.size(); ++k) {
    const arma::mat& values = presets.weights[k];
    std::string title = "\"";
    title.append(attn::join_words(presets.sentences[k])).append("\"");
    panels.push_back({.title = title,
                      .xlabel = "source position",
                      .ylabel = "bank's weight",
                      .categories = presets.sentences[k],
                      .series = presets.series,
                      .values = values,
                      .yrange = std::make_pair(0.0, std::max(0.75, values.max() + 0.1)),
                      .precision = 2});
  }
  const std::string what =
      presets.series.size() > 3 ? "the three hand-set queries and yours" : "the three hand-set queries";
  app::bar_panels(plots, "ch02_bank_presets", "bank's weights under " + what + ", in both sentences", panels);
}

app::BarChart combined_shares_chart(const CombinedQuery& c) {
  const MatchTable& t = c.table;
  const std::string who = t.words[t.receiver];
  return {.name = "ch02_combined_shares",
          .title = who + "'s combined query (water + structure): each coordinate pair's share of the score",
          .xlabel = "source position j",
          .ylabel = "share q_r k_j,r / sqrt(3)",
          .categories = t.words,
          .series = {"finance share", "water share", "structure share", "score (their sum)"},
          .values = arma::join_rows(c.shares, t.scores.t()),
          .precision = 3};
}

app::VectorFigure superposition_figure(const Superposition& s) {
  app::ArrowSet features{.title = "feature directions w_i (rows of W)",
                         .from = arma::mat(s.W.n_rows, 2, arma::fill::zeros),
                         .to = s.W,
                         .colour = "#2b8cbe",
                         .width = 2,
                         .label_gap = 0.12};  // beyond each head: f4 and f5 point down, away from the default spot
  for (arma::uword i = 0; i < s.W.n_rows; ++i) features.labels.push_back(feature_name(i));
  // f1 and f3 active together land near f2's direction: why f2, inactive, reads most.
  app::PointSet inputs{
      .title = "input x = w_1 + w_3 (f1 and f3 active)",
      .points = arma::mat(s.W.row(0) + s.W.row(2)),
      .labels = {"x = w_1 + w_3"},
      .colour = "#e6550d",
      .label_offset = {8.5, 0.0}};  // right of the dot: x lies on f2's line, which the label would cross
  return {.name = "ch02_superposition",
          .title = std::to_string(s.W.n_rows) + " feature directions in " + std::to_string(s.W.n_cols) +
                   " dimensions: a representational possibility (after Elhage et al. 2022), not a trained head",
          .axes = {"dimension 1", "dimension 2"},
          .points = {inputs},
          .arrows = {features},
          .range = std::make_pair(-1.35, 1.35),
          .key = "outside below"};
}

app::BarChart superposition_reads_chart(const Superposition& s) {
  std::vector<std::string> names;
  for (arma::uword i = 0; i < s.W.n_rows; ++i) names.push_back(feature_name(i));
  std::string relu = "ReLU(x W^T ";
  relu.append(app::format_number(s.bias, 3)).append(")");
  return {.name = "ch02_superposition_reads",
          .title = "Reading every feature: interference from the others (linear read x W^T, and a ReLU read)",
          .xlabel = "feature read",
          .ylabel = "read value",
          .categories = names,
          .series = {"x W^T, only f1 active", "x W^T, f1 and f3 active", relu + ", only f1", relu + ", f1 and f3"},
          .values = arma::join_rows(arma::join_rows(s.one_active.t(), s.two_active.t()),
                                    arma::join_rows(s.one_active_relu.t(), s.two_active_relu.t())),
          .value_labels = false,
          .key = "below"};
}

std::string query_map_diagram(const WidthExample& w) {
  const std::string d = with_commas(w.d), dk = with_commas(w.d_k);
  const auto node = [](const std::string& id, const std::string& label, bool learned) {
    return "  " + id + " [label=" + app::graphviz_quote(label) + ", fillcolor=\"" + (learned ? "#fdd49e" : "#c6dbef") +
           "\"];\n";
  };
  std::ostringstream dot;
  dot << "digraph query_map {\n  rankdir=LR;\n  fontname=\"DejaVu Sans\";\n"
      << "  label="
      << app::graphviz_quote("One head maps " + d + " input coordinates to " + dk +
                             " matching coordinates\n(amber: learned; blue: computed on each pass)")
      << ";\n  labelloc=t;\n  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\"];\n"
      << "  edge [fontname=\"DejaVu Sans\"];\n"
      << "  subgraph cluster_input {\n    label=" << app::graphviz_quote("token representation space: " + d + " dims")
      << ";\n    style=dashed;\n"
      << "  " << node("x_bank", "x_bank\n1 x " + d, false) << "  " << node("x_river", "x_river\n1 x " + d, false)
      << "  }\n"
      << node("Wq",
              "Wq\n" + d + " x " + dk + "\nrank " + with_commas(w.rank) + ": ignores\n" + with_commas(w.nullity) +
                  " input directions",
              true)
      << node("Wk", "Wk\n" + d + " x " + dk, true)
      << "  subgraph cluster_match {\n    label=" << app::graphviz_quote("query/key matching space: " + dk + " dims")
      << ";\n    style=dashed;\n"
      << "  " << node("q_bank", "q_bank = x_bank Wq\n1 x " + dk, false) << "  "
      << node("k_river", "k_river = x_river Wk\n1 x " + dk, false) << "  }\n"
      << node("score", "score =\nq_bank . k_river\n/ sqrt(" + dk + ")\n1 number", false)
      << "  x_bank -> Wq -> q_bank -> score;\n  x_river -> Wk -> k_river -> score;\n}\n";
  return dot.str();
}

void draw_figures(app::Plotter& plots, const Sections& r, const std::string& label, app::View3d view) {
  plots.bars(tower_weights_chart(r.teaching));
  plots.vectors(matching_space_figure(label, r.matching.tables.front(), view));
  draw_bank_presets(plots, r.presets);
  plots.vectors(matching_views_figure(label, r.matching.tables.front(), view));
  plots.bars(combined_shares_chart(r.combined));
  plots.vectors(superposition_figure(r.superposition));
  plots.bars(superposition_reads_chart(r.superposition));
  plots.diagram("ch02_query_map", query_map_diagram(r.width));
}

}  // namespace ch02
