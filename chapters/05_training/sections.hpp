/// \file chapters/05_training/sections.hpp
/// \brief Chapter 05's sections computed once: the article's training run (sections 1 and 2), what
/// the trained model does and the first update's gradients (sections 3 and 4), the companions
/// (sections 5 and 6) and the speed benchmark. The printers (report.hpp) and the figures
/// (figures.hpp) take these results and compute nothing.
///
/// Throws: std::invalid_argument as load_model() does for files that are missing, malformed or of the
/// wrong shape (starting_model); like train() for passes < 1, lr <= 0 or a model whose shapes disagree
/// (train_article); like attn::one_head_forward for non-finite parameters (examine: call it after the
/// divergence check); like Trainer for bad settings (bench). run_companions throws nothing of its own
/// (the settings are the article's); the others throw nothing beyond std::bad_alloc.
/// Sources: the article, "Make it learn", "Heads and blocks train together", "Can two small matrices
/// recover identifiable features?" and "Attention learns the data, not the world".
#pragma once

#include <armadillo>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "biased.hpp"
#include "common/attention/backprop.hpp"
#include "features.hpp"
#include "parameter_files.hpp"
#include "training.hpp"

namespace ch05 {

/// The parameters training starts from: read from `init_dir` by load_model() if given, else
/// initial_model() from `settings` (its seed and width).
attn::OneHeadModel starting_model(const std::optional<std::string>& init_dir, const TrainSettings& settings);

/// Sections 1 and 2: the article's model before and after training on its four examples.
struct TrainingRun {
  TrainSettings settings{};      ///< passes, learning rate and seed of the run
  attn::OneHeadModel initial{};  ///< section 1: the parameters before training
  attn::OneHeadModel model{};    ///< the parameters after training
  TrainLog log{};                ///< section 2: per-pass losses, bank's rows for examples 0 and 1
  double final_loss = 0.0;       ///< section 2: the mean loss of the trained model
};

/// Trains a copy of `initial` on article_examples() with `settings` (passes, lr; the seed is only
/// recorded), tracking bank's row in the first two examples.
TrainingRun train_article(const attn::OneHeadModel& initial, const TrainSettings& settings);

/// Sections 3 and 4: what the trained model does, and how one loss reaches every parameter group.
struct Findings {
  std::vector<Prediction> predictions{};  ///< section 3: one per article example, in order
  arma::mat final_weights{};              ///< examples x vocabulary: bank's row spread over the words (weights_by_word)
  Example first_example{};                ///< section 4: the article's first example
  attn::OneHeadGrads first{};             ///< section 4: its gradients from the initial parameters
  arma::vec first_norms{};                ///< section 4: Frobenius norm of each group's gradient (kOneHeadGroups order)
};

/// The findings of a trained run (after the divergence check).
Findings examine(const TrainingRun& run);

/// The biased-dataset survey trains seeds 0-19.
inline constexpr std::uint64_t kSurveySeeds = 20;

/// The survey's runs that share one attention pattern.
struct PatternGroup {
  BiasPattern pattern{};               ///< the pattern they share
  std::vector<std::size_t> members{};  ///< indices into the survey, in seed order
};

/// Sections 5 and 6, the companions (left empty by --no-companions).
struct Companions {
  std::optional<FeatureRecovery> features{};  ///< section 5
  arma::mat feature_norms{};                  ///< section 5: 9 x 4 row norms (feature_row_norms)
  std::uint64_t seed = 0;                     ///< section 6: the reader's seed
  std::vector<BiasedRow> biased{};            ///< section 6: the run from the reader's seed
  std::vector<BiasedRun> survey{};            ///< section 6: seeds 0-19
  std::vector<PatternGroup> patterns{};       ///< section 6: the survey grouped by pattern, first seen first
  std::optional<std::size_t> contrast{};      ///< section 6: the first run that fits all six with the contrast,
                                              ///< the article's case, shown first (the rule is printed)
  std::size_t contrast_count = 0;             ///< section 6: the survey's runs that fit all six with the contrast
};

/// The companions with the article's settings and the reader's `seed` (about a second).
Companions run_companions(std::uint64_t seed);

/// The survey's runs grouped by their pattern, groups in the order their first run appears.
std::vector<PatternGroup> group_patterns(const std::vector<BiasedRun>& runs);

/// The benchmark: the article's training timed on this machine.
struct Bench {
  TrainSettings settings;     ///< what was timed
  int repeats = 20;           ///< timed runs (after one to warm up)
  double microseconds = 0.0;  ///< the best run's time per optimizer step
};

/// Times `settings`' training: one run to warm up caches and allocations, then the best of 20
/// (wall clock: not deterministic).
Bench bench(const TrainSettings& settings);

}  // namespace ch05
