/// \file chapters/09_real_heads/figures.cpp
/// \brief Drawing the chapter's results (see program.hpp).
#include "program.hpp"

#include <cmath>

#include "common/apparatus/panels.hpp"
#include "common/apparatus/print.hpp"

namespace ch09 {

using app::format_number;

namespace {

std::vector<std::string> all_head_names(arma::uword layers, arma::uword heads) {
  std::vector<std::string> names;
  for (arma::uword l = 0; l < layers; ++l) {
    for (arma::uword h = 0; h < heads; ++h) names.push_back(head_name(l, h));
  }
  return names;
}

void draw_curve(app::Plotter& plots, const Report& r, const Run& run) {
  arma::vec steps(run.curve.size());
  arma::mat y(run.curve.size(), 3);
  for (std::size_t i = 0; i < run.curve.size(); ++i) {
    steps(i) = static_cast<double>(run.curve[i].step);
    y(i, 0) = run.curve[i].train;
    y(i, 1) = run.curve[i].held_out;
    y(i, 2) = r.baselines.bigram;
  }
  plots.lines({.name = "ch09_loss_curve",
               .title = "Training on fortunes: loss per character",
               .xlabel = "Adam step",
               .ylabel = "cross-entropy (nats/char)",
               .x = steps,
               .y = y,
               .series = {"training batches (doubled snippets)", "held-out plain text (32 windows)",
                          "bigram baseline on held-out text"},
               .points = true,
               .styles = {{"#0072b2", false, 0, false}, {"#d55e00", false, 0, false}, {"#000000", true, 2, false}}});
}

/// A grid of heat maps, layers by heads, with the sentence's characters on both axes.
void draw_grid(app::Plotter& plots, const std::string& name, const std::string& title, const HeadView& v,
               const std::vector<arma::mat>& cells, const std::string& cblabel, bool weights) {
  app::pattern_grid(plots, {.name = name,
                            .title = title,
                            .labels = v.labels,
                            .heads = all_head_names(v.layers, v.heads),
                            .cells = cells,
                            .columns = v.heads,
                            .xlabel = "source character j",
                            .ylabel = "receiving character i",
                            .cblabel = cblabel,
                            .unit_range = weights});  // weights share one scale; contribution sizes do not
}

void draw_roles(app::Plotter& plots, const Report& r) {
  const Roles& s = r.roles;
  const arma::uword L = s.previous_token.n_rows, H = s.previous_token.n_cols;
  arma::mat values(L * H, 4);
  for (arma::uword k = 0; k < L * H; ++k) {
    values.row(k) = {s.previous_token(k / H, k % H), s.induction_random(k / H, k % H),
                     s.induction_natural(k / H, k % H), s.duplicate_token(k / H, k % H)};
  }
  plots.bars({.name = "ch09_head_roles",
              .title = "Measured roles per head (held-out probes)",
              .xlabel = "head (layer.head)",
              .ylabel = "mean attention weight",
              .categories = all_head_names(L, H),
              .series = {"previous-token", "induction, random letters", "induction, text", "duplicate-token"},
              .values = values,  // the y range leaves room for the upright value labels
              .key = "below"});  // inside, the legend would sit on a tall bar's label
}

void draw_ablations(app::Plotter& plots, const Report& r) {
  const Ablation& base = r.ablations.front();
  std::vector<std::string> names;
  arma::mat rise(r.ablations.size() - 1, 3);
  for (std::size_t i = 1; i < r.ablations.size(); ++i) {
    const Ablation& a = r.ablations[i];
    names.push_back(a.name.rfind("all of ", 0) == 0 ? a.name.substr(7) : a.name);  // "layer 1" fits under its bars
    rise.row(i - 1) = {a.held_out - base.held_out, a.random.repeat - base.random.repeat,
                       a.natural.repeat - base.natural.repeat};
  }
  plots.bars({.name = "ch09_ablations",
              .title = "Loss rise when a head (or layer) is zeroed",
              .xlabel = "zeroed",
              .ylabel = "loss rise (nats/char)",
              .categories = names,
              .series = {"held-out text", "random-letter repeat", "text repeat"},
              .values = rise,
              .precision = 1});
}

void draw_bank(app::Plotter& plots, const Report& r) {
  const BankStudy& b = r.bank;
  const arma::uword layers = b.excess.n_cols - 1;  // centred, the embedding leaves nothing to compare
  std::vector<std::string> items, series;
  for (arma::uword i = 1; i <= b.excess.n_rows; ++i) items.push_back(std::to_string(i));
  for (arma::uword l = 1; l <= layers; ++l) series.push_back("after layer " + std::to_string(l));
  plots.bars({.name = "ch09_bank",
              .title = "How much further apart the sense pair is than its letter controls (centred cosines)",
              .xlabel = "item (matched sentences; positive: further apart)",
              .ylabel = "controls' cosine - sense pair's",
              .categories = items,
              .series = series,
              .values = b.excess.tail_cols(layers),
              .value_labels = false,
              .key = "below"});
}

}  // namespace

void draw_report(app::Plotter& plots, const Report& r, const Run& run) {
  draw_curve(plots, r, run);
  draw_head_view(plots, "ch09_head_view", r.view);
  draw_grid(plots, "ch09_contributions",
            "Contribution sizes ||a_ij v_j W_O|| on \"" + r.view.sentence + "\" (each panel on its own colour scale)",
            r.view, r.view.contributions, "size", false);
  draw_roles(plots, r);
  draw_ablations(plots, r);
  draw_bank(plots, r);
}

void draw_head_view(app::Plotter& plots, const std::string& name, const HeadView& view) {
  draw_grid(plots, name, "Attention weights A[i, j] on \"" + view.sentence + "\"", view, view.weights, "weight", true);
}

void draw_comparison(app::Plotter& plots, const Comparison& c) {
  draw_head_view(plots, "ch09_compare_a", c.view_a);
  draw_head_view(plots, "ch09_compare_b", c.view_b);
  const arma::uword layers = c.centred.n_elem - 1;
  arma::mat y(layers, 4);
  for (arma::uword l = 0; l < layers; ++l) {
    const arma::vec all = arma::join_cols(arma::vec(c.control_a.col(l + 1)), arma::vec(c.control_b.col(l + 1)));
    const arma::vec known = all.elem(arma::find_finite(all));
    if (known.n_elem == 0 || !std::isfinite(c.centred(l + 1))) return;  // nothing to draw
    y.row(l) = {c.centred(l + 1), known.min(), arma::mean(known), known.max()};
  }
  std::vector<std::string> stages;
  for (arma::uword l = 1; l <= layers; ++l) stages.push_back("after layer " + std::to_string(l));
  plots.bars({.name = "ch09_compare",
              .title = "Centred cosine of the two readings, against their controls",
              .xlabel = "",
              .ylabel = "centred cosine",
              .categories = stages,
              .series = {"A vs B", "controls: lowest", "controls: mean", "controls: highest"},
              .values = y,
              .yrange = std::make_pair(-1.0, 1.0),
              .key = "below"});
}

}  // namespace ch09
