/// \file walkthrough.hpp
/// \brief Chapter 05, "Follow one sentence through training": the step-through's two-coordinate
/// model and its updates, computed once (report.hpp prints them stage by stage).
///
/// Throws: std::invalid_argument for updates < 0, first > 1, followed numbers below 1 or not
/// ascending, or an lr that attn::Sgd refuses, not finite or <= 0 (run_walk); the others throw
/// nothing beyond std::bad_alloc.
/// Sources: the article, "Follow one sentence through training" (its widget: Next stage, Apply
/// update, Next sentence, Train 20 steps, Reset).
#pragma once

#include <armadillo>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "training.hpp"

namespace ch05 {

/// The widget's model: two learned coordinates (d = d_k = d_v = 2), the article's vocabulary, two
/// classes, initialized by init_like_pytorch(seed) and then the classifier bias set to zero.
/// Shapes: E 4 x 2, Wq Wk Wv 2 x 2, Wc 2 x 2, bc 1 x 2.
attn::OneHeadModel walkthrough_model(std::uint64_t seed);

/// The widget's two examples, alternated by its training: "the river bank" (water) and
/// "the money bank" (finance).
std::vector<Example> walkthrough_examples();

/// The two sentences of walkthrough_examples() as text, in the same order: "the river bank",
/// "the money bank".
std::vector<std::string> walkthrough_sentences();

/// What the step-through does: its model's seed, SGD's learning rate, the sentence of the first
/// update, how many updates follow it, and which updates are shown stage by stage.
struct WalkSettings {
  std::uint64_t seed = 0;      ///< seed of walkthrough_model (rerunning with it is the widget's Reset)
  double lr = 0.3;             ///< SGD's learning rate (the widget's)
  std::size_t first = 0;       ///< index into walkthrough_examples() of update 1's sentence
  int updates = 0;             ///< further updates after the first, alternating the two sentences
  std::vector<int> follow{1};  ///< 1-based numbers of the updates shown in eight stages, ascending
};

/// Everything one SGD update computes on one sentence, computed once and printed stage by stage.
struct WalkUpdate {
  int number = 1;               ///< 1-based: the parameters going in have had number - 1 updates
  Example example{};            ///< the sentence and its target
  attn::OneHeadModel before{};  ///< the parameters going in
  attn::OneHeadPass pass{};     ///< the forward pass with them
  attn::OneHeadGrads grads{};   ///< the backward pass
  attn::OneHeadModel after{};   ///< the parameters after one SGD step
  attn::OneHeadPass again{};    ///< the same sentence through the updated model
};

/// An update shown on one line: its number, sentence and loss before the step.
struct QuickUpdate {
  int number = 1;            ///< 1-based update number
  std::size_t sentence = 0;  ///< index into walkthrough_examples()
  double loss = 0.0;         ///< the sentence's loss before the step (nats)
};

/// The whole step-through: the followed updates in full, the others one line each, and the end.
struct Walk {
  WalkSettings settings{};               ///< what was asked for
  std::vector<WalkUpdate> followed{};    ///< the updates of settings.follow, in order
  std::vector<QuickUpdate> quick{};      ///< every other update, in order
  attn::OneHeadModel initial{};          ///< the parameters before update 1
  attn::OneHeadModel final{};            ///< the parameters after the last update
  std::vector<attn::OneHeadPass> end{};  ///< each sentence of walkthrough_examples() through `final`
  /// Total number of updates taken (1 + settings.updates).
  int total() const { return 1 + settings.updates; }
};

/// Runs the step-through: 1 + settings.updates SGD updates of walkthrough_model(seed), or as many as
/// the last followed update if that is more (the returned settings say how many), update k on
/// sentence (first + k - 1) mod 2, keeping every followed update in full: the widget's Next stage,
/// Apply update, Next sentence and Train 20 steps.
Walk run_walk(const WalkSettings& settings);

}  // namespace ch05
