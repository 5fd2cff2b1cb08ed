/// \file chapters/05_training/sections.cpp
/// \brief The chapter's sections computed once (see sections.hpp).
#include "sections.hpp"

#include <iterator>
#include <utility>

namespace ch05 {

attn::OneHeadModel starting_model(const std::optional<std::string>& init_dir, const TrainSettings& settings) {
  return init_dir ? load_model(*init_dir, vocabulary().size(), 2) : initial_model(vocabulary().size(), settings);
}

TrainingRun train_article(const attn::OneHeadModel& initial, const TrainSettings& settings) {
  const std::vector<Example> data = article_examples();
  TrainingRun run{.settings = settings, .initial = initial, .model = initial};
  run.log = train(run.model, data, settings.passes, settings.lr, {0, 1});
  run.final_loss = mean_loss(run.model, data);
  return run;
}

Findings examine(const TrainingRun& run) {
  const std::vector<Example> data = article_examples();
  Findings f;
  f.predictions = predictions(run.model, data);
  f.final_weights = weights_by_word(f.predictions, vocabulary().size());
  f.first_example = data[0];
  f.first = attn::one_head_backward(run.initial, attn::one_head_forward(run.initial, data[0].ids, data[0].label));
  f.first_norms.set_size(std::size(attn::kOneHeadGroups));
  for (std::size_t k = 0; k < f.first_norms.n_elem; ++k) {
    f.first_norms(k) = arma::norm(f.first.*attn::kOneHeadGroups[k].grad, "fro");
  }
  return f;
}

std::vector<PatternGroup> group_patterns(const std::vector<BiasedRun>& runs) {
  std::vector<PatternGroup> groups;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto it = groups.begin();
    while (it != groups.end() && !(it->pattern == runs[i].pattern)) ++it;
    if (it == groups.end()) it = groups.insert(groups.end(), {.pattern = runs[i].pattern, .members = {}});
    it->members.push_back(i);
  }
  return groups;
}

Companions run_companions(std::uint64_t seed) {
  TrainSettings article;
  article.seed = seed;
  Companions c{.features = recover_features(),
               .seed = seed,
               .biased = train_biased(article),
               .survey = survey_biased_seeds(article, 0, kSurveySeeds)};
  c.feature_norms = feature_row_norms(*c.features);
  c.patterns = group_patterns(c.survey);
  // The rule that picks the article's case: the first seed whose run fits all six with the contrast.
  for (std::size_t i = 0; i < c.survey.size(); ++i) {
    if (c.survey[i].fitted != 6 || !c.survey[i].pattern.contrast()) continue;
    if (!c.contrast) c.contrast = i;
    ++c.contrast_count;
  }
  return c;
}

Bench bench(const TrainSettings& settings) {
  Bench b{.settings = settings};
  microseconds_per_step(settings, 1);  // warm up caches and allocations
  b.microseconds = microseconds_per_step(settings, b.repeats);
  return b;
}

}  // namespace ch05
