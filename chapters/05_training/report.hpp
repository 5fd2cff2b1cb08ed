/// \file chapters/05_training/report.hpp
/// \brief Chapter 05's printed sections: each printer takes a section's result (sections.hpp, or the
/// step-through's Walk of training.hpp) and writes it to a stream; none computes anything.
///
/// Throws: nothing beyond std::bad_alloc (stream errors are the stream's state, checked by
/// app::cli::run).
/// Sources: the article, "Make it learn", "Follow one sentence through training", "Heads and blocks
/// train together", "Can two small matrices recover identifiable features?" and "Attention learns
/// the data, not the world".
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/attention/backprop.hpp"
#include "sections.hpp"
#include "training.hpp"
#include "walkthrough.hpp"

namespace ch05 {

// ---- the article's training run ------------------------------------------------------------------

/// The title and section 1: the model and its parameter count, read from `init_dir` if given,
/// else initialized from the run's seed.
void print_model(std::ostream& out, const TrainingRun& run, const std::optional<std::string>& init_dir);

/// Section 2: the training run, with a progress line every 50 passes.
void print_training(std::ostream& out, const TrainingRun& run);

/// Section 3: predictions and bank's attention rows, with claims train_02 and train_03; section 4:
/// one loss reaches every parameter group (the gradient norms of the first update).
void print_findings(std::ostream& out, const Findings& findings);

/// Section 5: feature recovery (claim feat_01); section 6: the biased dataset, first the article's
/// case from the seed a printed rule picks, then the reader's seed (claim bias_01), then the survey
/// over seeds 0-19 and the article's case as a rate (claim bias_02). Prints nothing for companions
/// that were not run.
void print_companions(std::ostream& out, const Companions& companions);

/// The footer: the wall time of section 2's training loop.
void print_wall_time(std::ostream& out, const TrainLog& log);

// ---- the benchmark -------------------------------------------------------------------------------

/// The benchmark: its title, what it timed and the result.
void print_bench(std::ostream& out, const Bench& bench);

// ---- the step-through ----------------------------------------------------------------------------

/// The row labels of a parameter group of the step-through's model: the vocabulary for E, the
/// coordinates c1, c2 for the projections and the classifier, "bias" for bc.
const std::vector<std::string>& group_rows(const attn::ParameterGroup& group);

/// Prints a Walk: each followed update in the widget's eight stages with every number (sentence,
/// lookup, Q/K/V, mixture, prediction, loss, gradients, update), the other updates one line each,
/// and, after more than one update, where the model stands and its parameter tables.
/// `between_stages` is called between stages (for --pause).
void print_walk(std::ostream& out, const Walk& walk, const std::function<void()>& between_stages);

/// What print_walk calls between stages: with `pause`, and standard input a terminal or a pipe,
/// "[Enter: next stage]" on standard output, then a wait for Enter (no more waiting once the pipe
/// runs dry); otherwise nothing.
std::function<void()> stage_pause(bool pause);

}  // namespace ch05
