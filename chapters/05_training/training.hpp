/// \file training.hpp
/// \brief Chapter 05, "Make it learn": the article's one-head classifier, its four sentences, and
/// its training with Adam (the step-through is walkthrough.hpp, the biased-dataset companion
/// biased.hpp, the parameter files parameter_files.hpp).
///
/// Source: the article, "Make it learn". The model and its backward pass live in common/attention/backprop.hpp.
/// Unless its comment names an exception, a function here throws nothing (beyond std::bad_alloc).
#pragma once

#include <armadillo>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/attention/backprop.hpp"
#include "common/attention/optim.hpp"

namespace ch05 {

/// One labelled sentence: its words, their token ids and the class of the last word's sense.
struct Example {
  std::vector<std::string> words;  ///< e.g. {"the", "river", "bank"}
  arma::uvec ids;                  ///< n x 1: one token id per word (index into the vocabulary)
  arma::uword label = 0;           ///< 0 water, 1 finance
};

/// The article's vocabulary in id order: the, river, money, bank. Source: the article,
/// "Make it learn".
const std::vector<std::string>& vocabulary();

/// The class names in label order: water (0), finance (1). Source: the article, "Make it
/// learn".
const std::vector<std::string>& class_names();

/// Token ids of `words` in `vocab`. Throws std::invalid_argument naming an unknown word (and the
/// vocabulary) or an empty sentence. Returns n x 1, entry i the id of words[i]. Source: the article, "Make
/// it learn".
arma::uvec encode(const std::vector<std::string>& words, const std::vector<std::string>& vocab);

/// The article's four examples, in its order: "the river bank" 0, "the money bank" 1,
/// "river bank" 0, "money bank" 1. Source: the article, "Make it learn".
std::vector<Example> article_examples();

/// The article's settings (d = 8, 300 passes, Adam with learning rate 0.05, seed 0).
struct TrainSettings {
  arma::uword d = 8;       ///< embedding and head width (d = d_k = d_v)
  int passes = 300;        ///< passes over the examples; one Adam step per example
  double lr = 0.05;        ///< Adam learning rate
  std::uint64_t seed = 0;  ///< seed of init_like_pytorch
};

/// The article's model, freshly initialized: vocabulary x d embedding, d x d projections, d x 2
/// classifier with bias (attn::init_like_pytorch). Throws std::invalid_argument if vocab or d is 0.
/// Source: the article, "Make it learn".
attn::OneHeadModel initial_model(arma::uword vocab, const TrainSettings& settings);

/// Adam on a one-head model, one optimizer step per example. Keeps its forward pass, gradients
/// and moments between steps, so a step allocates nothing once sizes have settled.
class Trainer {
 public:
  /// Trains `model` in place (it must outlive the Trainer). lr: Adam's learning rate (> 0).
  /// Throws std::invalid_argument if the model's shapes disagree (attn::check_model) or lr <= 0.
  /// Source: the article's `torch.optim.Adam` loop ("Make it learn"); Kingma & Ba 2015.
  Trainer(attn::OneHeadModel& model, double lr);
  Trainer(const Trainer&) = delete;             ///< holds pointers into itself: not copyable (deleted)
  Trainer& operator=(const Trainer&) = delete;  ///< not assignable (deleted)
  /// Forward pass, hand-written backward pass, one Adam step. Returns the example's loss before the
  /// step (a scalar, nats). The example holds n >= 1 token ids and a class; throws
  /// std::invalid_argument like attn::one_head_forward for an empty sentence, an id outside the
  /// vocabulary or a class out of range. Source: the article's training loop ("Make it learn").
  double step(const Example& example);
  /// Optimizer steps taken so far (a count). Source: the article, "Make it learn".
  long steps() const { return adam_.steps(); }

 private:
  attn::OneHeadModel& model_;
  attn::Adam adam_;
  attn::OneHeadPass pass_;
  attn::OneHeadGrads grads_;
  std::vector<attn::Param> groups_;
};

/// What happened during training.
struct TrainLog {
  arma::vec pass_loss;  ///< passes x 1: the mean of each pass's per-example losses, each taken just before its step
  std::vector<arma::mat> tracked;  ///< one (passes + 1) x n matrix per tracked example: the last word's
                                   ///< attention row before training (row 0) and after each pass
  double seconds = 0.0;            ///< wall time of the loop (not deterministic)
  long steps = 0;                  ///< optimizer steps taken
};

/// Trains `model` in place: `passes` passes over `data` in order, one Adam step per example.
/// `track` lists indices into `data` whose last-position attention row is recorded after every pass.
/// Throws std::invalid_argument if data is empty, passes < 1, lr <= 0 or a tracked index is out of range
/// (and as attn::one_head_forward for a bad example). Source: the article, "Make it learn".
TrainLog train(attn::OneHeadModel& model, const std::vector<Example>& data, int passes, double lr,
               const std::vector<std::size_t>& track = {});

/// The predicted class (argmax of the 1 x C logits) of one example. Throws std::invalid_argument
/// like attn::one_head_forward. Source: the article's `logits.argmax()`.
arma::uword predict(const attn::OneHeadModel& model, const Example& example);

/// What a model does with one example: its class and the receiving (last) position's weights.
struct Prediction {
  Example example;            ///< the sentence and its target
  arma::uword predicted = 0;  ///< argmax of the logits
  arma::rowvec weights;       ///< 1 x n: the last row of A, how bank shares its attention
  arma::uword uniform = 0;    ///< the class predicted when bank's row is forced uniform (1/n each)
};

/// predict() and the last row of A for every example, from one forward pass each (one Prediction per
/// example, in order), and the class the same model predicts from the mixture mean(V) that a
/// uniform row would give. Throws std::invalid_argument like attn::one_head_forward. Source: the article, "Make
/// it learn".
std::vector<Prediction> predictions(const attn::OneHeadModel& model, const std::vector<Example>& data);

/// The last position's weights spread over the vocabulary: examples x vocab, entry (i, r) the
/// weight example i's last word gives word r (its last position if r repeats), NaN where r is absent.
/// Every id must be < vocab (Armadillo's bounds check throws std::logic_error otherwise). Source: the
/// article's attention table ("Make it learn").
arma::mat weights_by_word(const std::vector<Prediction>& predictions, arma::uword vocab);

/// Mean cross-entropy (nats) over `data` without updating anything; NaN for empty data. Throws
/// std::invalid_argument like attn::one_head_forward. Source: the article's loss (`nn.CrossEntropyLoss`).
double mean_loss(const attn::OneHeadModel& model, const std::vector<Example>& data);

/// Microseconds per optimizer step, measured over `repeats` full trainings from `settings`
/// (the best of the repeats, to keep other processes' noise out). Used by `--bench`. Wall clock, so
/// not deterministic; repeats < 1 gives infinity. Throws std::invalid_argument like Trainer for bad
/// settings. Source: the article's training loop ("Make it learn"); the article reports no timing.
double microseconds_per_step(const TrainSettings& settings, int repeats);

}  // namespace ch05
