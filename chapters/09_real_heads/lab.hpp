/// \file chapters/09_real_heads/lab.hpp
/// \brief Chapter 09's text and training run. The English text of Debian's `fortunes` package is
/// read at run time, split into entries, held out by entry, turned into character tokens and cut
/// into windows: plain text, or a snippet followed by itself (corpus.cpp). The shared
/// attention-only model (common/attention/attn_only.hpp) is trained in float on those windows, with
/// a held-out curve and divergence detection; a run is saved and loaded, so inspecting it again
/// does not retrain (lab.cpp).
///
/// Nothing from the corpus is stored in the repository (scripts/install-deps.sh installs the
/// package). The windows that hold a snippet followed by itself are what forms the induction circuit
/// at this scale (measured: plain text alone gave no induction head in 10,000 steps).
///
/// Throws: std::runtime_error naming the folder if it is missing, not a folder, in /dev, /proc or
/// /sys, cannot be read, holds no fortune file, a fortune file that cannot be read or exceeds
/// 16 MiB, more than 256 MiB of text or too little fortune text; for Debian's folder
/// (kFortuneFolder) missing or too small the message also says how to install it (read_corpus).
/// std::invalid_argument for a spec or options validate() refuses (validate, sample_windows,
/// random_repeats, train), a text no longer than a window (sample_windows, held_out_windows,
/// train), an alphabet of fewer than 2 tokens (random_repeats), a count of 0 (held_out_windows),
/// a held-out pass that meets a non-finite score (train), or a shape or learning rate the trainer
/// refuses (time_training_steps). Divergence, a std::runtime_error, when a batch loss is not finite
/// or exceeds twice the uniform loss ln(vocab) (train); an exception `progress` throws stops train
/// and propagates. app::IoError (exit code 1) naming the file and the system's reason (save_run).
/// std::runtime_error naming the file (and line) and the reason for a saved set that is not this
/// chapter's run, whole and in range, among them EarlierRun for a run.txt of an earlier format and
/// OtherCorpus for another vocabulary (load_run); app::InputFileError (exit code 2) for a file that
/// is not regular, larger than 32 MiB or not as its manifest says (load_run). The others throw
/// nothing (beyond std::bad_alloc).
/// Sources: the article, "Watch real heads" (a model trained on real text, then inspected); Kingma &
/// Ba 2015 (Adam).
#pragma once

#include <armadillo>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/apparatus/model_files.hpp"
#include "common/attention/attn_only.hpp"
#include "common/attention/head_roles.hpp"
#include "common/attention/random.hpp"
#include "common/fast/attn_only_fast.hpp"

namespace ch09 {

// ---- the text: fortunes read, split, held out, tokenized and cut into windows (corpus.cpp) ------

/// Where Debian installs the fortune files.
inline const std::string kFortuneFolder = "/usr/share/games/fortunes";

/// Characters as tokens: token 0 is the newline, then every printable ASCII character found in
/// the text in code order, then one token for anything else (tabs, bytes of UTF-8 characters,
/// backspaces of overstruck text).
class Vocabulary {
 public:
  /// The vocabulary of `text`: newline, the printable characters that occur, unknown (2 to 97
  /// tokens).
  explicit Vocabulary(const std::string& text);
  /// Number of tokens: characters().size() + 1 (the unknown token).
  arma::uword size() const { return chars_.size() + 1; }
  /// The token of byte `c` (the unknown token for anything not in the vocabulary).
  arma::uword token(char c) const { return table_[static_cast<unsigned char>(c)]; }
  /// The character of a token ('\n' for the newline, '?' for the unknown token and for any
  /// token >= size()).
  char character(arma::uword token) const;
  /// A printable label of a token for tables and axes: "\n" as "NL", space as "_", unknown as "UNK".
  std::string label(arma::uword token) const;
  /// The unknown token.
  arma::uword unknown() const { return chars_.size(); }
  /// The characters in token order (without the unknown token); saved with a model, compared on load.
  const std::string& characters() const { return chars_; }
  /// Tokens of `text`: a 1 x text.size() row, one token per byte.
  arma::urowvec encode(const std::string& text) const;

 private:
  std::string chars_;
  std::vector<arma::uword> table_;
};

/// The corpus: training and held-out text, split by entry.
struct Corpus {
  std::vector<std::string> files;  ///< fortune files read, in name order
  arma::uword entries = 0;         ///< entries (text between '%' lines) over all files
  arma::uword held_entries = 0;    ///< entries held out
  bool held_tail = false;          ///< fewer than 20 entries: the text's last 5% is held out instead
  std::string train_text;          ///< the training entries, concatenated
  std::string held_text;           ///< the held-out entries, concatenated
  std::string checksum;            ///< app::checksum of both texts: a saved run records what it learned from
};

/// Reads every fortune file in `folder` (every regular file, or link to one, but strfile's `.dat`
/// indexes and Debian's `.u8` links, and empty files), splits each at lines holding only '%' (and spaces;
/// CRLF line ends read as LF), and holds out every 20th entry in reading order (5%, deterministic),
/// or, with fewer than 20 entries, the text's last 5% from the start of a line. A file may hold
/// at most 16 MiB, all of them 256 MiB; a corpus needs at least 10,000 training and 256 held-out
/// characters.
Corpus read_corpus(const std::string& folder = kFortuneFolder);

/// A batch of windows and, for windows with a repeat, where the snippet sits.
struct Windows {
  arma::umat tokens;                ///< count x context token ids, row = window
  std::vector<attn::Block> blocks;  ///< one per window; length 0 for a plain window
};

/// How training windows are drawn.
struct WindowSpec {
  arma::uword context = 128;     ///< tokens per window, T
  double repeat_share = 1.0;     ///< share of windows that hold a snippet followed by itself
  arma::uword min_snippet = 10;  ///< shortest snippet
  arma::uword max_snippet = 64;  ///< longest snippet (2 max_snippet <= context)
};

/// Refuses a spec unless 2 <= min_snippet <= max_snippet, 2 max_snippet <= context and
/// 0 <= repeat_share <= 1.
void validate(const WindowSpec& spec);

/// `count` windows of real text from `tokens` (a 1 x n row, n > context), each starting at a
/// uniform offset. With probability spec.repeat_share a window holds a snippet of uniform length
/// in [min_snippet, max_snippet] at a uniform start, its next `length` characters overwritten by
/// the same snippet again (the window keeps real text before and after). Result: count x context
/// tokens and count blocks.
Windows sample_windows(attn::Random& rng, const arma::urowvec& tokens, arma::uword count, const WindowSpec& spec);

/// `count` windows of uniformly random tokens drawn from `alphabet`, each with a snippet of
/// length in [min_snippet, max_snippet] repeated right after itself (the induction test on text
/// that means nothing). Result: count x context tokens and count blocks; `alphabet`: 1 x k, k >= 2.
Windows random_repeats(attn::Random& rng, const arma::urowvec& alphabet, arma::uword count, const WindowSpec& spec);

// ---- the training run, saved and loaded (lab.cpp) -----------------------------------------------

/// The scalar the model trains in.
using Real = float;
/// The chapter's model.
using Model = attn::AttnOnlyModel<Real>;
/// A forward pass of the chapter's model.
using Pass = attn::AttnOnlyPass<Real>;

/// Everything a training run depends on (the full run: 1 to 3 minutes on 2 cores).
struct TrainOptions {
  attn::AttnOnlyShape shape{0, 128, 64, 4, 16, 2, true};  ///< vocab is filled from the corpus
  /// The windows of the first `long_steps` steps: every snippet 48 to 64 characters long. A long
  /// repeat puts a copyable character at over a third of the positions, so the induction circuit
  /// pays from the start and forms within those steps on every seed and CPU measured; with the
  /// snippets of `windows` alone it formed by step 4,000 in 5 of 8 runs.
  WindowSpec long_windows{128, 1.0, 48, 64};
  arma::uword long_steps = 3000;  ///< steps drawn from long_windows before `windows` takes over
  /// The windows of the remaining steps: snippets of 10 to 64 characters in real text, from which
  /// the model learns when copying pays (after long repeats only, it copies on plain text as well
  /// and loses to the bigram baseline there).
  WindowSpec windows{};
  arma::uword steps = 4000;      ///< Adam steps
  arma::uword batch = 32;        ///< windows per step
  double lr = 3e-3;              ///< Adam learning rate
  std::uint64_t seed = 1;        ///< seeds the initial weights and the training windows
  arma::uword eval_every = 250;  ///< steps between held-out evaluations
};

/// The same options with the short settings of `--quick` (the tour and the no-gnuplot test):
/// 300 steps of 16 windows, a few seconds. Too short for the claims: it shows the program, not the circuit.
TrainOptions quick_options(TrainOptions options);

/// Refuses a bad shape or window spec, a context that differs between them, steps, batch or
/// evaluation interval outside [1, 10^6], [1, 4096] and [1, 10^6], or a learning rate that is not
/// finite and in (0, 1].
void validate(const TrainOptions& options);

/// One point of the training curve.
struct CurvePoint {
  arma::uword step = 0;   ///< Adam steps taken
  double train = 0.0;     ///< mean training-batch loss over the steps since the last point (nats/char);
                          ///< at step 0, the untrained model's loss on the first batch (measured before its update)
  double held_out = 0.0;  ///< held-out loss on plain text (nats/char)
};

/// The recipe of this program's training: a checksum of the sources that decide what training
/// computes, set by the build. Two runs with the same recipe and options give the same model on
/// the same kernels.
std::string training_recipe();

/// A trained (or loaded) model and what is known about its training.
struct Run {
  TrainOptions options;           ///< how it was trained
  std::string recipe;             ///< training_recipe() of the program that trained it
  std::string characters;         ///< the vocabulary's characters (checked against the corpus on load)
  std::string corpus;             ///< Corpus::checksum of the text it was trained and evaluated on
  Model model;                    ///< parameters after the last step
  std::vector<CurvePoint> curve;  ///< at step 0, every eval_every steps and at the end
  double seconds = 0.0;           ///< wall time of training
};

/// Thrown when the loss stops being finite or explodes: training stopped at `step`.
class Divergence : public std::runtime_error {
 public:
  /// step: the Adam step at which the loss was bad; loss: its value.
  Divergence(arma::uword step, double loss);
  arma::uword step;  ///< where it happened
  double loss;       ///< the bad loss
};

/// Progress of a run, reported every few seconds and at every curve point.
struct Progress {
  arma::uword step = 0;   ///< steps taken
  arma::uword steps = 0;  ///< steps in the run
  double loss = 0.0;      ///< recent mean training loss
  double elapsed = 0.0;   ///< seconds since training began
  double left = 0.0;      ///< estimated seconds to go
};

/// A fixed set of plain held-out windows: count x context tokens, `count` (>= 1) windows at evenly
/// spaced offsets of held_tokens (1 x n, n > context).
arma::umat held_out_windows(const arma::urowvec& held_tokens, arma::uword count, arma::uword context);

/// Trains from scratch on `corpus`: each step draws options.batch windows (sample_windows; from
/// options.long_windows for the first options.long_steps steps) and takes one
/// attn::AttnOnlyTrainer step. `progress` (may be empty) is called at least every 2 seconds.
Run train(const Corpus& corpus, const Vocabulary& vocab, TrainOptions options,
          const std::function<void(const Progress&)>& progress = {});

/// The time of one training step of the full model (options.shape with 97 tokens) on random tokens.
struct StepTiming {
  double ms = 0.0;          ///< mean milliseconds per step
  arma::uword steps = 0;    ///< steps timed (after 3 warm-up steps)
  arma::uword batch = 0;    ///< windows per step
  arma::uword context = 0;  ///< tokens per window
  unsigned threads = 0;     ///< threads of the trainer
  double gflop = 0.0;       ///< GFLOP of matrix products a step, counted dense (attn::training_step_flops)
};

/// Times `steps` Adam steps of a model seeded by options.seed on one fixed batch of random tokens
/// (for scripts/bench-vs-pytorch.sh).
StepTiming time_training_steps(const TrainOptions& options, arma::uword steps);

/// The files of a saved run, beside their manifest: run.txt (options, vocabulary, curve) and
/// model.txt (app::save_model).
std::vector<std::string> run_files();

/// Writes `run` into folder `dir` (created if needed) as one set: model.txt and run.txt written in
/// full under temporary names, then renamed after a manifest of their sizes and checksums
/// (app::AtomicFile::commit_all), so a signal never leaves a new model beside an old run.txt, and
/// load_run() refuses a pair torn otherwise.
void save_run(const Run& run, const std::string& dir);

/// What makes a saved `run` differ from what this program would train with `options` ("" when it
/// is the same recipe with the same settings), e.g. "seed 1, not 2".
std::string run_mismatch(const Run& run, const TrainOptions& options);

/// Thrown by load_run() for a run.txt an earlier version of this chapter saved (another format).
class EarlierRun : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown by load_run() for a run trained on a corpus whose vocabulary is not `vocab`'s.
class OtherCorpus : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reads a run written by save_run(): both files regular and at most 32 MiB (a FIFO or device is
/// refused, never waited on), matching the manifest; every field of run.txt in range (steps,
/// batch, lr, seed, repeat share, evaluation interval, seconds, vocabulary, corpus checksum, a curve of exactly the
/// points the steps and interval record, losses in [0, 1000]) and the model of this chapter's
/// shape over `vocab`. Each file is read once and the bytes checked are the bytes parsed, so a save
/// into `dir` meanwhile is refused or read whole, never mixed; `after_reading` is called once the
/// set has been read (tests change the folder there).
Run load_run(const std::string& dir, const Vocabulary& vocab, const std::function<void()>& after_reading = {});

}  // namespace ch09
