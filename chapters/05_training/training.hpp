/// \file training.hpp
/// \brief Chapter 05: the article's one-head classifier trained with Adam, its parameters on disk,
/// the two-coordinate step-through (printed by report.hpp), and the biased-dataset companion.
///
/// Source: the article, "Make it learn", "Follow one sentence through training" and "Attention
/// learns the data, not the world". The model and its backward pass live in common/attention/backprop.hpp.
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

// ---- parameters on disk -----------------------------------------------------------------------

/// Writes E.txt, Wq.txt, Wk.txt, Wv.txt, Wc.txt and bc.txt into `dir` (created if needed) in
/// Armadillo's plain-text matrix format (raw_ascii: one row per line, entries separated by spaces),
/// each entry with 17 significant digits so that reading it back is exact. The six files are
/// written as a set (attn::AtomicFile::commit_all): all in full under temporary names, then renamed,
/// with a manifest.txt of their sizes and checksums renamed first.
/// Throws attn::IoError (exit 1) with the system's reason if the folder or a file cannot be written.
/// Source: the article's trained model, kept for later chapters (no paper; Armadillo's raw_ascii).
void save_model(const attn::OneHeadModel& model, const std::filesystem::path& dir);

/// The six paths save_model writes in `dir`, one per parameter group: E.txt .. bc.txt.
/// Source: the parameter table attn::kOneHeadGroups.
std::vector<std::filesystem::path> model_files(const std::filesystem::path& dir);

/// Reads the six files written by save_model (bc.txt may hold its C values on one line or one per
/// line). d is taken from E.txt's width; E.txt must have `vocab` rows, Wq/Wk/Wv must be d x d,
/// Wc d x `classes`. Each file must be a regular file of at most attn::kMaxInputFileBytes (1 MiB),
/// checked before reading; entries follow the number rule of common/apparatus/numbers.hpp. Throws
/// std::invalid_argument naming the file if one is missing, unreadable, not a regular file, too
/// large, ragged, not numeric, beyond +-1e6 (attn::kLargestInput), or of the wrong shape, and if
/// the folder's manifest.txt (when there is one) does not match the files (a torn or mixed set, or
/// a file edited by hand: delete manifest.txt to read edited files as they are).
/// Source: the inverse of save_model (no paper).
attn::OneHeadModel load_model(const std::filesystem::path& dir, arma::uword vocab, arma::uword classes);

/// Writes one line per pass: the pass's mean loss with 17 significant digits ("6.2429412345678901e-01"),
/// atomically (the whole file or, on failure, none). pass_loss: passes x 1. Throws attn::IoError if it
/// cannot be written. Source: the article's loss curve ("Make it learn").
void write_loss_log(const arma::vec& pass_loss, const std::filesystem::path& file);

// ---- the step-through widget --------------------------------------------------------------------

/// The widget's model: two learned coordinates (d = d_k = d_v = 2), the article's vocabulary, two
/// classes, initialized by init_like_pytorch(seed) and then the classifier bias set to zero.
/// Shapes: E 4 x 2, Wq Wk Wv 2 x 2, Wc 2 x 2, bc 1 x 2. Source: the article, "Follow one
/// sentence through training".
attn::OneHeadModel walkthrough_model(std::uint64_t seed);

/// The widget's two examples, alternated by its training: "the river bank" (water) and
/// "the money bank" (finance). Source: the article, "Follow one sentence through training".
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
/// sentence (first + k - 1) mod 2, keeping every followed update in full. Throws
/// std::invalid_argument if updates < 0, first > 1, a followed number is below 1 or the list is not
/// ascending, or lr is refused by attn::Sgd (not finite or <= 0). Source: the article,
/// "Follow one sentence through training" (Next stage, Apply update, Next sentence, Train 20 steps).
Walk run_walk(const WalkSettings& settings);

// ---- companion: the biased dataset --------------------------------------------------------------

/// Vocabulary of the biased dataset: the, bank and the six context words. Source: the
/// article, "Attention learns the data, not the world".
const std::vector<std::string>& biased_vocabulary();

/// Six sentences "the CONTEXT bank" with arbitrary labels: river water, money finance, vault water,
/// salmon finance, lawyer water, attorney finance. Source: the article, "Attention learns
/// the data, not the world".
std::vector<Example> biased_examples();

/// One row of the biased-dataset table.
struct BiasedRow {
  std::string context;         ///< the middle word
  arma::uword label = 0;       ///< assigned class
  arma::uword prediction = 0;  ///< the trained model's class
  double attention = 0.0;      ///< bank's attention weight on the context word
};

/// Trains the article's model (same settings) on the biased dataset and returns the table, one row
/// per example. Throws std::invalid_argument like initial_model and train (d = 0, passes < 1, lr <= 0).
/// Source: the article, "Attention learns the data, not the world".
std::vector<BiasedRow> train_biased(const TrainSettings& settings);

/// How bank's weight on the context word behaves over the three sentences of one class after
/// training: all near 0 (below kNearZero), all near 1 (above 1 - kNearZero), or neither.
enum class ClassAttention { near_0, near_1, mixed };

/// "Near" 0 or 1 for the biased-dataset survey: within 0.1 of it.
inline constexpr double kNearZero = 0.1;

/// The pattern of one trained run: how the water contexts and the finance contexts are attended.
struct BiasPattern {
  ClassAttention water = ClassAttention::mixed;    ///< river, vault, lawyer
  ClassAttention finance = ClassAttention::mixed;  ///< money, salmon, attorney
  /// True if one class is attended near 0 and the other near 1: the article's contrast.
  bool contrast() const;
  /// True if both patterns are the same.
  bool operator==(const BiasPattern&) const = default;
};

/// The pattern of a table from train_biased: each class's context weights sorted into near 0,
/// near 1 or mixed. Source: the article, "Attention learns the data, not the world".
BiasPattern bias_pattern(const std::vector<BiasedRow>& rows);

/// A pattern in words, e.g. "water near 0, finance near 1".
std::string describe(const BiasPattern& pattern);

/// One seed of the survey: its table, how many of the six it fits, its pattern.
struct BiasedRun {
  std::uint64_t seed = 0;       ///< seed of the initial parameters
  std::vector<BiasedRow> rows;  ///< the table train_biased returns
  int fitted = 0;               ///< rows whose prediction is the assigned label (of 6)
  BiasPattern pattern;          ///< bias_pattern(rows)
};

/// The biased dataset trained from `count` consecutive seeds starting at `first` (settings.seed
/// is ignored), in seed order. Throws std::invalid_argument if count is 0 (and like train_biased).
/// Source: the article, "Attention learns the data, not the world" (its table is one seed's run).
std::vector<BiasedRun> survey_biased_seeds(const TrainSettings& settings, std::uint64_t first, std::uint64_t count);

}  // namespace ch05
