/// \file training.hpp
/// \brief Chapter 05, "Make it learn": the article's one-head classifier, its four sentences, and
/// its training with Adam (the step-through is walkthrough.hpp, the biased-dataset companion
/// biased.hpp, the parameter files parameter_files.hpp).
///
/// The model and its backward pass live in common/attention/backprop.hpp. A sentence of n tokens is
/// n x 1 ids; its attention A is n x n.
/// Throws: std::invalid_argument naming an unknown word (and the vocabulary) or for an empty sentence
/// (encode); for vocab or d of 0 (initial_model); for model shapes that disagree (attn::check_model)
/// or lr <= 0 (Trainer, train, microseconds_per_step); for empty data, passes < 1 or a tracked index
/// out of range (train); for an example attn::one_head_forward refuses, an empty sentence, an id
/// outside the vocabulary or a class out of range (Trainer::step, train, predict, predictions,
/// mean_loss); std::logic_error from Armadillo's bounds check for an id >= vocab (weights_by_word).
/// The others throw nothing beyond std::bad_alloc.
/// Sources: the article, "Make it learn" (its `torch.optim.Adam` training loop, `logits.argmax()`,
/// attention table and `nn.CrossEntropyLoss`; it reports no timing); Kingma & Ba 2015 (Adam).
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

/// The article's vocabulary in id order: the, river, money, bank.
const std::vector<std::string>& vocabulary();

/// The class names in label order: water (0), finance (1).
const std::vector<std::string>& class_names();

/// Token ids of `words` in `vocab`: n x 1, entry i the id of words[i].
arma::uvec encode(const std::vector<std::string>& words, const std::vector<std::string>& vocab);

/// One example: `words`, their ids in `vocab` (encode) and the target class `label`.
Example example(const std::vector<std::string>& words, arma::uword label, const std::vector<std::string>& vocab);

/// The article's four examples, in its order: "the river bank" 0, "the money bank" 1,
/// "river bank" 0, "money bank" 1.
std::vector<Example> article_examples();

/// The article's settings (d = 8, 300 passes, Adam with learning rate 0.05, seed 0).
struct TrainSettings {
  arma::uword d = 8;       ///< embedding and head width (d = d_k = d_v)
  int passes = 300;        ///< passes over the examples; one Adam step per example
  double lr = 0.05;        ///< Adam learning rate
  std::uint64_t seed = 0;  ///< seed of init_like_pytorch
};

/// The article's model, freshly initialized: vocabulary x d embedding, d x d projections, d x 2
/// classifier with bias (attn::init_like_pytorch).
attn::OneHeadModel initial_model(arma::uword vocab, const TrainSettings& settings);

/// Adam on a one-head model, one optimizer step per example. Keeps its forward pass, gradients
/// and moments between steps, so a step allocates nothing once sizes have settled.
class Trainer {
 public:
  /// Trains `model` in place (it must outlive the Trainer). lr: Adam's learning rate (> 0).
  Trainer(attn::OneHeadModel& model, double lr);
  Trainer(const Trainer&) = delete;             ///< holds pointers into itself: not copyable (deleted)
  Trainer& operator=(const Trainer&) = delete;  ///< not assignable (deleted)
  /// Forward pass, hand-written backward pass, one Adam step. Returns the example's loss before the
  /// step (a scalar, nats). The example holds n >= 1 token ids and a class.
  double step(const Example& example);
  /// Optimizer steps taken so far (a count).
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
TrainLog train(attn::OneHeadModel& model, const std::vector<Example>& data, int passes, double lr,
               const std::vector<std::size_t>& track = {});

/// The predicted class (argmax of the 1 x C logits) of one example: the article's `logits.argmax()`.
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
/// uniform row would give.
std::vector<Prediction> predictions(const attn::OneHeadModel& model, const std::vector<Example>& data);

/// The last position's weights spread over the vocabulary (the article's attention table): examples
/// x vocab, entry (i, r) the weight example i's last word gives word r (its last position if r
/// repeats), NaN where r is absent. Every id must be < vocab.
arma::mat weights_by_word(const std::vector<Prediction>& predictions, arma::uword vocab);

/// Mean cross-entropy (nats) over `data` without updating anything; NaN for empty data.
double mean_loss(const attn::OneHeadModel& model, const std::vector<Example>& data);

/// Microseconds per optimizer step, measured over `repeats` full trainings from `settings`
/// (the best of the repeats, to keep other processes' noise out). Used by `--bench`. Wall clock, so
/// not deterministic; repeats < 1 gives infinity.
double microseconds_per_step(const TrainSettings& settings, int repeats);

}  // namespace ch05
