/// \file chapters/08_induction/figures.cpp
/// \brief The figures (see figures.hpp).
#include "figures.hpp"

#include <armadillo>
#include <string>
#include <vector>

#include "common/apparatus/print.hpp"

namespace ch08 {

using app::format_number;

namespace {

void draw_curves(app::Plotter& plots, const Findings& f) {
  const std::vector<Checkpoint>& curve = f.run.curve;
  arma::vec steps(curve.size());
  arma::mat losses(curve.size(), 3);
  for (std::size_t i = 0; i < curve.size(); ++i) {
    steps(i) = static_cast<double>(curve[i].step);
    losses.row(i) = arma::rowvec{curve[i].held_out.first, curve[i].held_out.repeat, curve[i].held_out.overall};
  }
  plots.lines({.name = "ch08_loss_curves",
               .title = "Held-out loss while training",
               .xlabel = "Adam step",
               .ylabel = "cross-entropy (nats)",
               .x = steps,
               .y = losses,
               .series = {"first occurrence", "repeat", "every position"},
               .points = true});
}

void draw_head_scores(app::Plotter& plots, const Findings& f) {
  const HeadScores& s = f.scores;
  std::vector<std::string> names;
  arma::mat scores(s.induction.n_elem, 3);
  for (arma::uword l = 0; l < s.induction.n_rows; ++l) {
    for (arma::uword h = 0; h < s.induction.n_cols; ++h) {
      names.push_back(head_name(l, h));
      scores.row(names.size() - 1) = arma::rowvec{s.previous_token(l, h), s.induction(l, h), s.duplicate_token(l, h)};
    }
  }
  plots.bars({.name = "ch08_head_scores",
              .title = "Per-head attention scores on held-out sequences",
              .xlabel = "head (layer.head)",
              .ylabel = "mean attention weight",
              .categories = names,
              .series = {"previous-token score", "induction score", "duplicate-token score"},
              .values = scores,
              .yrange = std::make_pair(0.0, 1.0)});
}

/// Head `which`'s weights on held-out sequence 0, masked cells blank, the block's two copies outlined.
void draw_pattern(app::Plotter& plots, const Findings& f, HeadIndex which, const std::string& why,
                  const std::string& name) {
  const arma::mat A = arma::conv_to<arma::mat>::from(attn::attention_pattern(f.pass, which.layer, which.head, 0));
  arma::mat shown = A;
  shown.elem(arma::find(arma::trimatu(arma::ones(A.n_rows, A.n_cols), 1))).fill(arma::datum::nan);
  std::vector<std::string> positions(A.n_rows);
  for (arma::uword i = 0; i < A.n_rows; i += 4) positions[i] = std::to_string(i);
  const Block& b = f.run.held_out.blocks[0];
  const arma::uword s = b.start, n = b.length;
  plots.heatmap({.name = name,
                 .title = why + " " + head_name(which.layer, which.head) + ": block at " + std::to_string(s) + ".." +
                          std::to_string(s + n - 1) + ", repeat at " + std::to_string(s + n) + ".." +
                          std::to_string(s + 2 * n - 1),
                 .xlabel = "source position j",
                 .ylabel = "receiving position i",
                 .col_labels = positions,
                 .row_labels = positions,
                 .values = shown,
                 .cbrange = std::make_pair(0.0, 1.0),
                 .cell_labels = false,
                 .outlines = {{s + n, s + 2 * n - 1, s, s + n - 1, "#d62728", false,
                               "the repeat (rows) reading the first copy (columns)"},
                              {s, s + n - 1, s, s + n - 1, "#2ca02c", true, "the first copy reading itself"}},
                 .palette = {"#f7fbff", "#9ecae1", "#08306b"},
                 .cblabel = "weight A[i, j]"});
}

void draw_ablation(app::Plotter& plots, const Findings& f) {
  std::vector<std::string> ablated;
  arma::mat effect(f.ablations.size(), 2);
  for (std::size_t i = 0; i < f.ablations.size(); ++i) {
    ablated.push_back(f.ablations[i].name);
    effect.row(i) = arma::rowvec{f.ablations[i].losses.first, f.ablations[i].losses.repeat};
  }
  const RegionLosses& base = f.run.curve.back().held_out;
  plots.bars({.name = "ch08_ablation",
              .title = "Held-out loss with heads zeroed (intact: first " + format_number(base.first, 2) + ", repeat " +
                       format_number(base.repeat, 2) + ")",
              .xlabel = "zeroed",
              .ylabel = "cross-entropy (nats)",
              .categories = ablated,
              .series = {"first occurrence", "repeat"},
              .values = effect,
              .key = "below"});  // inside, the legend would sit on the first bars' value labels
}

}  // namespace

void draw_figures(app::Plotter& plots, const Findings& f) {
  draw_curves(plots, f);
  draw_head_scores(plots, f);
  draw_pattern(plots, f, f.top_induction, "Top induction score:", "ch08_induction_pattern");
  const double best_previous = f.scores.previous_token(f.top_previous.layer, f.top_previous.head);
  draw_pattern(plots, f, f.top_previous,
               best_previous < 0.3 ? "No previous-token head (best score " + format_number(best_previous, 3) + "):"
                                   : "Top previous-token score " + format_number(best_previous, 3) + ":",
               "ch08_previous_token_pattern");
  draw_pattern(plots, f, f.summary.key_first_layer, "Most needed first-layer head:", "ch08_key_first_layer_pattern");
  draw_ablation(plots, f);
}

void draw_skip_trigrams(app::Plotter& plots, const SkipTrigramFindings& f) {
  std::vector<std::string> rows, columns;
  for (const SkipTrigram& s : kSkipTrigrams) {
    rows.push_back(skip_name(s) + " ->");
    columns.push_back(skip_vocabulary()[s.next]);
  }
  plots.heatmap({.name = "ch08_skip_trigram_message",
                 .title = "What the one-layer head reads from the source (logits it adds)",
                 .xlabel = "continuation",
                 .ylabel = "skip-trigram",
                 .col_labels = columns,
                 .row_labels = rows,
                 .values = f.message,
                 .precision = 1,
                 .cblabel = "logit"});
}

}  // namespace ch08
