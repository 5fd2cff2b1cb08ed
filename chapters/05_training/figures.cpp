/// \file chapters/05_training/figures.cpp
/// \brief The figures (see figures.hpp).
#include "figures.hpp"

#include <algorithm>
#include <armadillo>
#include <string>
#include <vector>

#include "common/apparatus/panels.hpp"
#include "common/attention/toy.hpp"
#include "report.hpp"

namespace ch05 {
namespace {

/// The six parameter groups of a two-coordinate model stacked into one table for a figure:
/// 13 x 2 (E's four rows, then two rows each of Wq, Wk, Wv and Wc, then bc). Row labels in
/// `labels` ("E the", "Wq c1", ..., "bc").
arma::mat stack_groups(const attn::OneHeadModel& model, std::vector<std::string>* labels = nullptr) {
  arma::mat stacked;
  if (labels) labels->clear();
  for (const auto& group : attn::kOneHeadGroups) {
    stacked = arma::join_cols(stacked, model.*group.value);
    if (!labels) continue;
    for (const std::string& row : group_rows(group)) {
      labels->push_back(group.rows == attn::Dim::one ? std::string(group.name) : std::string(group.name) + " " + row);
    }
  }
  return stacked;
}

/// The same for the gradients of a backward pass (13 x 2, same rows).
arma::mat stack_groups(const attn::OneHeadGrads& grads) {
  arma::mat stacked;
  for (const auto& group : attn::kOneHeadGroups) stacked = arma::join_cols(stacked, grads.*group.grad);
  return stacked;
}

/// The biased-dataset survey: bank's weight on each context word (rows), one column per seed.
void draw_survey(app::Plotter& plots, const std::vector<BiasedRun>& survey) {
  std::vector<std::string> contexts, seeds;
  for (const BiasedRow& r : survey.front().rows) contexts.push_back(r.context + (r.label == 0 ? " (w)" : " (f)"));
  arma::mat weights(contexts.size(), survey.size());
  for (std::size_t j = 0; j < survey.size(); ++j) {
    seeds.push_back(std::to_string(survey[j].seed));
    for (std::size_t i = 0; i < contexts.size(); ++i) weights(i, j) = survey[j].rows[i].attention;
  }
  plots.heatmap({.name = "ch05_biased_seeds",
                 .title = "Biased dataset: bank's weight on the context word after training, per seed",
                 .xlabel = "seed of the initial parameters",
                 .ylabel = "context word (w water, f finance)",
                 .col_labels = seeds,
                 .row_labels = contexts,
                 .values = weights,
                 .cbrange = std::make_pair(0.0, 1.0),
                 .cell_labels = false,
                 .cblabel = "bank's weight"});
}

}  // namespace

void draw_training(app::Plotter& plots, const TrainingRun& run, const Findings& findings) {
  const std::vector<Prediction>& predictions = findings.predictions;
  const TrainLog& log = run.log;
  const arma::uword passes = log.pass_loss.n_elem;
  plots.lines({.name = "ch05_loss",
               .title = "Mean training loss per pass (Adam, one step per example)",
               .xlabel = "pass over the four examples",
               .ylabel = "mean cross-entropy (nats, log scale)",
               .x = arma::regspace(1, double(passes)),
               .y = log.pass_loss,
               .series = {"mean loss"},
               .logy = true});
  arma::vec passes_axis = arma::regspace(0, double(passes));
  passes_axis(0) = 0.5;  // "before training" on a log axis
  for (std::size_t k = 0; k < 2; ++k) {
    const Example& e = predictions[k].example;
    // A word keeps its colour in both figures; the and bank both end near 0: the dashes keep both visible.
    std::vector<app::LineStyle> styles;
    const std::vector<int> dashes{1, 2, 4};
    for (std::size_t w = 0; w < e.words.size(); ++w) {
      styles.push_back({.colour = app::word_colour(e.words[w]), .dashtype = dashes[w % dashes.size()]});
    }
    plots.lines({.name = std::string("ch05_bank_attention_") + e.words[1],
                 .title = "bank's attention weights during training, \"" + attn::join_words(e.words) + "\"",
                 .xlabel = "passes completed (log scale; the first point, at 0.5, is before training)",
                 .ylabel = "weight from bank",
                 .x = passes_axis,
                 .y = log.tracked[k],
                 .series = e.words,
                 .logx = true,
                 .yrange = std::make_pair(0.0, 1.0),
                 .styles = styles});
  }
  const auto& vocab = vocabulary();
  std::vector<std::string> labels;
  for (const auto& p : predictions) labels.push_back(attn::join_words(p.example.words));
  plots.heatmap({.name = "ch05_final_attention",
                 .title = "bank's attention after training, one row per example",
                 .xlabel = "source word",
                 .ylabel = "example",
                 .col_labels = vocab,
                 .row_labels = labels,
                 .values = findings.final_weights,
                 .cbrange = std::make_pair(0.0, 1.0),
                 .nan_label = "absent"});
}

void draw_companions(app::Plotter& plots, const Companions& companions) {
  const std::vector<BiasedRow>& biased = companions.biased;
  if (companions.features) {
    const arma::mat& norms = companions.feature_norms;
    plots.bars({.name = "ch05_feature_recovery",
                .title = "Weight each map puts on each input feature: true vs learned",
                .xlabel = "input feature (0-2 query-relevant, 3-5 value-relevant, 6-8 distractors)",
                .ylabel = "row norm",
                // clang-format off
                .categories = {"0", "1", "2", "3", "4", "5", "6", "7", "8"},
                .series = {"Wq* (true)", "Wq (learned)", "Wv* (true)", "Wv (learned)"},
                .values = norms,
                .value_labels = false,
                .key = "top right"});  // the distractor features 6-8 leave that corner empty
    // clang-format on
  }
  if (!biased.empty()) {
    // The article's case (the seed the rule picks) first, when a seed has it, then the reader's seed.
    std::vector<const BiasedRun*> picked;
    if (companions.contrast) picked.push_back(&companions.survey[*companions.contrast]);
    arma::mat weights(biased.size(), picked.size() + 1);
    std::vector<std::string> contexts, series;
    for (const BiasedRun* r : picked) series.push_back("seed " + std::to_string(r->seed) + " (the rule's pick)");
    series.push_back("seed " + std::to_string(companions.seed) + " (yours)");
    for (std::size_t i = 0; i < biased.size(); ++i) {
      for (std::size_t k = 0; k < picked.size(); ++k) weights(i, k) = picked[k]->rows[i].attention;
      weights(i, picked.size()) = biased[i].attention;
      contexts.push_back(biased[i].context + (biased[i].label == 0 ? " (w)" : " (f)"));
    }
    plots.bars({.name = "ch05_biased_attention",
                .title = "Biased dataset: bank's attention to the context word after training",
                .xlabel = "context word (assigned label: w water, f finance)",
                .ylabel = "weight from bank",
                .categories = contexts,
                .series = series,
                .values = weights,
                .yrange = std::make_pair(0.0, 1.35),
                .key = "top center horizontal"});
  }
  if (!companions.survey.empty()) draw_survey(plots, companions.survey);
}

void draw_walk(app::Plotter& plots, const Walk& walk) {
  std::vector<std::string> rows;
  stack_groups(walk.initial, &rows);
  const std::vector<std::string> cols{"1", "2"};
  const auto panel = [&](const std::string& title, const arma::mat& values, double range, bool first = false) {
    return app::Heatmap{.title = title,
                        .xlabel = "column: c1, c2 (Wc, bc: water, finance)",
                        .ylabel = first ? "parameter group, row" : "",
                        .col_labels = cols,
                        .row_labels = rows,
                        .values = values,
                        .cbrange = std::make_pair(-range, range)};
  };
  for (const WalkUpdate& u : walk.followed) {
    const arma::mat before = stack_groups(u.before), grad = stack_groups(u.grads), after = stack_groups(u.after);
    const double range = std::max(arma::abs(before).max(), arma::abs(after).max());
    const double grange = std::max(arma::abs(grad).max(), 1e-12);
    app::heatmap_panels(plots, "ch05_walkthrough_update_" + std::to_string(u.number),
                        "Update " + std::to_string(u.number) + ", \"" + attn::join_words(u.example.words) +
                            "\": the parameters, their gradient, the parameters after the SGD step",
                        {panel("before the step", before, range, true), panel("gradient", grad, grange),
                         panel("after the step", after, range)});
  }
  if (walk.total() == 1) return;
  const arma::mat start = stack_groups(walk.initial), end = stack_groups(walk.final);
  const double range = std::max(arma::abs(start).max(), arma::abs(end).max());
  app::heatmap_panels(plots, "ch05_walkthrough_trained",
                      "Every parameter before update 1 and after update " + std::to_string(walk.total()),
                      {panel("at the start (seed " + std::to_string(walk.settings.seed) + ")", start, range, true),
                       panel("after " + std::to_string(walk.total()) + " updates", end, range)});
}

}  // namespace ch05
