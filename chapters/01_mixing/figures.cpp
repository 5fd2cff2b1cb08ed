/// \file figures.cpp
/// \brief Chapter 01's figures (see figures.hpp).
#include "figures.hpp"

#include <algorithm>
#include <armadillo>
#include <utility>

#include "common/attention/toy.hpp"

namespace ch01 {

app::BarChart bank_weights_chart(const ForwardPassSection& f) {
  std::vector<std::string> sources = f.river.words;  // "the", "river / money", "bank"
  sources[1] += " / " + f.money.words[1];
  return {.name = "ch01_bank_weights",
          .title = "bank's attention weights: identical in both sentences",
          .xlabel = "source position",
          .ylabel = "weight a_bank,j",
          .categories = sources,
          .series = {attn::join_words(f.river.words), attn::join_words(f.money.words)},
          .values = arma::join_rows(arma::vec(f.river.weights().t()), arma::vec(f.money.weights().t())),
          .yrange = std::make_pair(0.0, 0.6)};
}

app::BarChart mixtures_chart(const ForwardPassSection& f, const std::vector<std::string>& axes) {
  return {.name = "ch01_mixtures",
          .title = "bank's input and the two mixtures it receives",
          .xlabel = "coordinate",
          .ylabel = "value",
          .categories = axes,
          .series = {"bank input", "mixture in " + attn::join_words(f.river.words),
                     "mixture in " + attn::join_words(f.money.words)},
          .values = arma::join_rows(arma::vec(f.river.X.row(f.river.receiver).t()), arma::vec(f.river.mixture().t()),
                                    arma::vec(f.money.mixture().t())),
          .yrange = std::make_pair(0.0, 1.0)};
}

app::ArrowChart updates_chart(const ForwardPassSection& f, const std::vector<std::string>& axes) {
  const arma::rowvec x = f.river.X.row(f.river.receiver);  // bank's looked-up vector, 1 x d
  const std::string& bank = f.river.words[f.river.receiver];
  std::vector<app::Arrow> arrows{{.x1 = x(0),
                                  .y1 = x(1),
                                  .colour = app::word_colour(bank),
                                  .label = bank + "'s looked-up vector (both sentences)"}};
  for (const SentencePass* s : {&f.river, &f.money}) {
    const arma::rowvec y = s->residual();  // x + mixture
    const std::string& clue = s->words[1];
    arrows.push_back({.x0 = x(0),
                      .y0 = x(1),
                      .x1 = y(0),
                      .y1 = y(1),
                      .colour = app::word_colour(clue),
                      .label = "+ update in \"" + attn::join_words(s->words) + "\""});
    arrows.push_back({.x1 = y(0),
                      .y1 = y(1),
                      .colour = app::word_colour(clue),
                      .label = "= " + bank + " after the update (" + clue + ")",
                      .dashed = true,
                      .width = 1});
  }
  const double reach = 1.15 * std::max(arma::max(f.river.residual().head(2)), arma::max(f.money.residual().head(2)));
  return {.name = "ch01_updates",
          .title = "One looked-up bank vector, two sentences' updates added to it",
          .xlabel = axes.at(0),
          .ylabel = axes.at(1),
          .arrows = arrows,
          .xrange = {0.0, reach},
          .yrange = {0.0, reach},
          .x_axis = false,
          .key = "below vertical Left reverse"};
}

app::LineChart scale_sweep_chart(const Experiment& e) {
  const std::vector<std::string>& words = e.sentence.words;
  // Each word its own colour in every run; dashes keep coinciding curves (all near 1/3 at x0.1) visible.
  std::vector<app::LineStyle> styles;
  for (std::size_t k = 0; k < words.size(); ++k) {
    styles.push_back({.colour = app::word_colour(words[k]), .dashtype = k == 0 ? 1 : static_cast<int>(k) + 1});
  }
  std::vector<std::pair<double, std::string>> marks{{0.1, "x0.1"}, {1.0, "x1"}, {5.0, "x5"}};
  const bool marked = e.multiplier == 0.1 || e.multiplier == 1.0 || e.multiplier == 5.0;
  if (!marked && e.multiplier >= e.sweep.min() && e.multiplier <= e.sweep.max())
    marks.emplace_back(e.multiplier, "yours");
  return {.name = "ch01_scale_sweep",
          .title = "Weights received by '" + words[e.sentence.receiver] + "' in \"" + attn::join_words(words) +
                   "\" as the scores are multiplied",
          .xlabel = "score multiplier (log scale)",
          .ylabel = "weight",
          .x = e.sweep,
          .y = e.sweep_weights,
          .series = words,
          .logx = true,
          .x_marks = marks,
          .yrange = std::make_pair(0.0, 1.0),
          .styles = styles};
}

}  // namespace ch01
