/// \file figures.cpp
/// \brief Chapter 06's figures (see figures.hpp).
#include "figures.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "common/apparatus/panels.hpp"
#include "common/attention/toy.hpp"

namespace ch06 {
namespace {

/// NaN above the diagonal, so the heatmaps mark those cells as masked.
arma::mat mark_future(arma::mat A) {
  for (arma::uword i = 0; i < A.n_rows; ++i) {
    for (arma::uword j = i + 1; j < A.n_cols; ++j) A(i, j) = std::numeric_limits<double>::quiet_NaN();
  }
  return A;
}

/// Weight heatmaps side by side: bidirectional on the left, causal (masked cells grey) on the right;
/// only the views asked for (the widget's toggle).
void side_by_side(app::Plotter& plots, const std::string& name, const std::string& title,
                  const std::vector<std::string>& words, const arma::mat& open, const arma::mat& causal,
                  const Views& views = {}) {
  const auto panel = [&](const std::string& view, const arma::mat& A) {
    return app::Heatmap{.title = view,
                        .xlabel = "key (source position)",
                        .ylabel = "query (receiving position)",
                        .col_labels = words,
                        .row_labels = words,
                        .values = A,
                        .cbrange = std::make_pair(0.0, 1.0),
                        .colorbox = false,
                        .xtics_rotation = -30};
  };
  std::vector<app::Heatmap> panels;
  if (views.bidirectional) panels.push_back(panel("bidirectional", open));
  if (views.causal) panels.push_back(panel("causal (grey: masked, weight 0)", mark_future(causal)));
  app::heatmap_panels(plots, name, title, panels);
}

/// The causal mask as two kinds of cell with a key: allowed (0 added, the score is kept) and
/// blocked (-inf added, the weight becomes exactly 0). A mask has no scale, so no colour bar.
void mask_key(app::Plotter& plots, const std::vector<std::string>& words, const arma::mat& mask) {
  const arma::mat blocked = arma::conv_to<arma::mat>::from(mask == -arma::datum::inf);  // kind 1: -inf added
  std::vector<std::string> positions;  // "the (0)": the key's j / the query's i
  for (std::size_t k = 0; k < words.size(); ++k) positions.push_back(fmt::format("{} ({})", words[k], k));
  plots.heatmap({.name = "ch06_mask",
                 .title = "The causal mask added to the scores before softmax",
                 .xlabel = "key j (column: the position being read)",
                 .ylabel = "query i (row: the position reading)",
                 .col_labels = positions,
                 .row_labels = positions,
                 .values = blocked,
                 .kinds = {{.label = "0", .colour = "#c6dbef", .key = "allowed (j <= i): 0 added, score kept"},
                           {.label = "-inf",
                            .colour = "#4d4d4d",
                            .text_colour = "white",
                            .key = "blocked (j > i): -inf added, weight 0"}}});
}

/// The article's three panels for the five-token table: scores, the scores with the future masked
/// (-inf, grey), and the softmax of each masked row (the causal weights, exactly 0 above the diagonal).
void three_panels(app::Plotter& plots, const TiredCatSection& t) {
  const auto panel = [&](const std::string& title, const arma::mat& values,
                         std::optional<std::pair<double, double>> range, int precision) {
    return app::Heatmap{.title = title,
                        .xlabel = "key (row: the query reading)",
                        .col_labels = t.words,
                        .row_labels = t.words,
                        .values = values,
                        .precision = precision,
                        .cbrange = range,
                        .nan_label = "-inf",
                        .colorbox = false,  // every cell prints its number; three bars would crowd them
                        .xtics_rotation = -30};
  };
  const double lo = std::floor(t.scores.min()), hi = std::ceil(t.scores.max());
  app::heatmap_panels(
      plots, "ch06_three_panels",
      fmt::format("\"{}\": scores, masked, softmax (illustrative values)", attn::join_words(t.words)),
      {panel("scores (log A)", t.scores, std::make_pair(lo, hi), 1),
       panel("masked: -inf above the diagonal", mark_future(t.masked_scores), std::make_pair(lo, hi), 1),
       panel("softmax of each row", t.masked, std::make_pair(0.0, 1.0), kPrecision)});
}

}  // namespace

void draw_figures(app::Plotter& plots, const TiredCatSection& cat, const BothViews& yours, const Views& views) {
  side_by_side(plots, "ch06_tired_cat",
               fmt::format("\"{}\": illustrative weights, both views", attn::join_words(cat.words)), cat.words, cat.A,
               cat.renormalized);
  mask_key(plots, cat.words, cat.mask);
  three_panels(plots, cat);
  const char* shown = !views.causal ? "bidirectional view" : !views.bidirectional ? "causal view" : "both views";
  side_by_side(plots, "ch06_bank_river", fmt::format("\"{}\": identity head, {}", attn::join_words(yours.words), shown),
               yours.words, yours.open.A, yours.causal.A, views);
}

}  // namespace ch06
