/// \file chapters/09_real_heads/program.hpp
/// \brief Chapter 09's program beside its lesson, what main.cpp calls:
/// - the session (session.cpp): the inputs checked before anything is printed (the sentence, the
///   modes the flags ask for, the fortunes folder, a saved model, the folder a run will be saved
///   into), a training run whose divergence is said in the flags' terms, and the `--compare A B`
///   mode;
/// - the article's claims real_01 to real_08 (claims.cpp), each checked on the study's results;
/// - the printers (report.cpp) and the figures (figures.cpp), which take the study's results
///   (study.hpp, lab.hpp) and compute nothing;
/// - the `--gpt2` mode (gpt2_report.cpp): GPT-2 read from a folder in the Hugging Face layout, every
///   section of common/gpt2/lab.hpp computed once, then printed.
///
/// Throws: the printers nothing beyond std::bad_alloc (stream errors are the stream's state, checked
/// by app::cli::run); the figures std::invalid_argument only for data whose shape disagrees with its
/// labels (through app::Plotter), and a figure gnuplot cannot draw is reported (exit code 1), not
/// thrown. The session's and the modes' errors name the flag a reader typed, each before anything is
/// printed: FlagError for a value or a combination of flags that cannot be used (checked_sentence,
/// check_modes, model_folders, check_plot_folder, compare_flag), and for a --sentence GPT-2's
/// tokenizer refuses or longer than its context, or a --position past its tokens (run_gpt2);
/// FileError, a FlagError, naming the flag and the file or folder, for a --corpus folder
/// read_corpus() refuses (corpus_for, run_compare, run_gpt2) or whose held-out text gives GPT-2 no
/// window (run_gpt2), a saved run load_run() or require_directions() refuses, trained on another corpus or
/// whose weights overflow the scores (saved_run, load_given, run_compare), a --save or --cached
/// folder that cannot be written (check_save, run_compare), and a --gpt2 folder that cannot be used
/// (missing, a file, a required file missing or not regular) or a file in it that is broken (wrong
/// shapes, truncated, invalid JSON, a NaN weight, a vocab.json that cannot read the chapter's fixed
/// texts, a context shorter than they need) (run_gpt2). std::runtime_error (exit code 1) when
/// Debian's own fortunes folder cannot be used, saying how to install it when it is missing
/// (corpus_for, run_compare, run_gpt2), for a model part without a direction, naming the file
/// (require_directions), and for a run that diverges (train_or_explain, run_compare), whose other
/// failures are train()'s; app::IoError (exit code 1) when the trained run cannot be saved
/// (run_compare). usage_errors() turns FlagError and FileError into the command line's usage errors
/// (exit code 2) as its comment says. The claims and the others throw nothing (beyond std::bad_alloc).
/// Sources: the article, "Watch real heads" (the printed sections follow its questions in order);
/// the project's rule for bad input (docs/bad_input.md: one line, exit code 2 for a usage error, 1
/// for a runtime failure).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/apparatus/files.hpp"
#include "common/apparatus/plot.hpp"
#include "common/apparatus/print.hpp"
#include "common/gpt2/lab.hpp"
#include "study.hpp"

namespace ch09 {

// ---- the session: inputs checked, a run trained or loaded (session.cpp) -------------------------

/// An unusable value of a flag: the message names the flag and the reason.
class FlagError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An input file or folder the reader named (--load, --cached, --save, --corpus, --gpt2) that
/// cannot be used: a usage error too (exit code 2), but its line does not send the reader to
/// --help, which cannot mend a file.
class FileError : public FlagError {
 public:
  using FlagError::FlagError;
};

/// `body` with a FileError rethrown as app::InputFileError and any other FlagError as
/// `UsageError` (both the command line's usage error, exit code 2; only the second adds
/// "(see --help)").
template <class UsageError, class Result, class Arg>
std::function<Result(const Arg&)> usage_errors(Result (*body)(const Arg&)) {
  return [body](const Arg& arg) {
    try {
      return body(arg);
    } catch (const FileError& e) {
      throw app::InputFileError(e.what());
    } catch (const FlagError& e) {
      throw UsageError(e.what());
    }
  };
}

/// `sentence` unchanged if it has 1 to `context` printable ASCII characters (the character model's
/// alphabet). For GPT-2 (`any_text`), whose tokenizer reads bytes, any UTF-8 text of 1 to
/// kMaxGpt2SentenceBytes bytes (its tokens are counted against the model's context at load).
std::string checked_sentence(const std::string& sentence, arma::uword context, bool any_text = false);

/// The longest --sentence read with --gpt2, in bytes (GPT-2 small's context is 1024 tokens).
inline constexpr std::size_t kMaxGpt2SentenceBytes = 65536;

/// Refuses flag combinations a mode would ignore (--gpt2 takes only --sentence, --position, --corpus
/// and --no-plots; --bench no input or output; --load no training flags, which --cached takes as the
/// settings its model must have been trained with); `typed` holds the flags given on the command
/// line (not defaults), `loading` whether --load reads a saved model.
void check_modes(const std::set<std::string>& typed, bool loading);

/// Where the model is read from and saved to, from --save, --load and --cached (which loads DIR if
/// it holds a run of this program's recipe and settings, else trains and saves there); `flag` names
/// the folder in error messages.
struct ModelFolders {
  std::optional<std::string> save;   ///< the folder the trained run is saved into
  std::optional<std::string> load;   ///< the folder a run is read from instead of training
  bool cached = false;               ///< --cached: load only a run trained as `TrainOptions` ask
  std::string flag = "--load";       ///< "--load" or "--cached"
  std::string save_flag = "--save";  ///< "--save" or "--cached"
};

/// The folders of --save, --load and --cached; refuses --cached beside either of the others, and
/// --save beside --load (a loaded run is not trained, so nothing new would be saved).
ModelFolders model_folders(const std::optional<std::filesystem::path>& save,
                           const std::optional<std::filesystem::path>& load,
                           const std::optional<std::filesystem::path>& cached);

/// Refuses a plot folder that is one of the saved run's files (run.txt, model.txt, the manifest) of
/// --save, --cached or --load: app::plot_folder_clash.
void check_plot_folder(const app::PlotSettings& plots, const ModelFolders& folders);

/// Trains as ch09::train() does, progress lines on `progress`; a divergence's message names the
/// step and suggests a smaller --lr.
Run train_or_explain(const Corpus& corpus, const Vocabulary& vocab, const TrainOptions& options,
                     std::ostream& progress);

/// The corpus in the folder the reader named with --corpus, else in Debian's folder (kFortuneFolder).
Corpus corpus_for(const std::optional<std::string>& folder);

/// The smallest size a saved model's largest weight in each part may have (the embedding, the
/// unembedding, each head's W_Q, W_K, W_V and W_O): below it a part has no direction (all zero,
/// -0 or subnormal), and the composition scores and shares of the report would divide 0 by 0.
inline constexpr double kSmallestWeight = 1e-6;

/// Refuses a model with a part whose weights are all below kSmallestWeight in size, naming `file`
/// and the part.
void require_directions(const Model& model, const std::string& file);

/// The run saved in folders.load, or nothing when no folder is read. Refuses, naming the flag, a
/// folder load_run() or require_directions() refuses, and a run trained on another corpus than
/// `corpus` (its checksum). With --cached, a run of another recipe, other settings than `wanted`,
/// another corpus or an earlier format is not read: nothing is returned and `stale` says why, so
/// the caller trains again and saves into folders.save.
std::optional<Run> saved_run(const ModelFolders& folders, const Corpus& corpus, const Vocabulary& vocab,
                             const TrainOptions& wanted, std::string& stale);

/// A saved run read back, with its report.
struct Loaded {
  Run run;        ///< the saved run
  Report report;  ///< make_report() on its model
};

/// saved_run() and its report on `sentence` (writes decoded at `position`). Also refuses weights that load_run()
/// accepted one by one but that overflow the scores together, naming the file.
std::optional<Loaded> load_given(const ModelFolders& folders, const Corpus& corpus, const Vocabulary& vocab,
                                 const std::string& sentence, std::optional<arma::uword> position,
                                 const TrainOptions& wanted, std::string& stale);

/// Refuses a --save (or --cached) folder that cannot be written, before minutes of training.
void check_save(const ModelFolders& folders);

// ---- --compare A B: two sentences checked, then a model loaded or trained (session.cpp) ---------

/// What `--help` says of --compare.
inline const char* const kCompareHelp =
    "compare two sentences' streams at a marked position after the embedding and each layer, centred and "
    "against held-out controls, instead of the report. Brackets mark the span read at its last character: "
    "--compare \"the river [bank]\" \"the money [bank]\"; without them, the last word both sentences share";

/// The --compare flag's value: absent, or the two marked sentences.
using CompareFlag = std::optional<MarkedPair>;

/// --compare's two values in the marker syntax of mark_pair(), for this chapter's model (its
/// context of TrainOptions{}.shape.context characters, loaded or trained); `typed` holds the flags
/// given. Refuses other than two values, a value that starts with "--" (a flag typed where a
/// sentence should be), an unusable sentence (mark_pair()'s reason), or a flag given beside it that
/// the mode would ignore: --sentence, --position, --bench.
MarkedPair compare_flag(const std::vector<std::string>& values, const std::set<std::string>& typed);

/// The --compare mode: the model from `folders` (loaded, or trained with `options` on the corpus in
/// `corpus_folder` and saved when asked), then compare() printed on standard output and drawn with
/// `plots`; a --quick run's model (is_quick()) adds its note. Returns exit code 0.
int run_compare(const MarkedPair& pair, const ModelFolders& folders, const std::optional<std::string>& corpus_folder,
                const TrainOptions& options, const app::PlotSettings& plots);

// ---- the article's claims, checked on the study's results (claims.cpp) -------------------------

// Each returns an app::ClaimCheck whose evidence is the statement, a colon, then the measured
// numbers: the program prints it with its verdict and tag, and the tests assert the same function
// on the model their fixture trained. They compute nothing of the mathematics.

/// real_01: the model's held-out loss is below the bigram baseline.
app::ClaimCheck claim_beats_bigram(const Baselines& b);
/// real_02: a first-layer head's previous-token score is above 0.5.
app::ClaimCheck claim_previous_token_head(const Roles& r);
/// real_03: a second-layer head's induction score (random letters) is above 0.3, and zeroing the
/// induction heads (`zeroed`, induction_ablation()) raises the random-repeat loss by more than half
/// the in-context advantage (first - repeat).
app::ClaimCheck claim_induction_head(const Roles& r, const Ablation& zeroed);
/// real_04: for at least one head and position the largest weight is not the largest contribution.
app::ClaimCheck claim_contribution_differs(const Contributions& c);
/// real_05: bank's reading holds no sense beyond its letters. Holds when the letter controls move
/// the reading after the last layer (mean centred distance >= kLettersSeen: the measure sees a
/// changed word) and at no layer is the sense pair further apart than its letter controls in
/// enough items for the sign test (p < kSenseLevel). Fails when the controls do not move the
/// reading (nothing could be seen) or when some layer separates the senses beyond the letters.
app::ClaimCheck claim_bank_controls(const BankStudy& b);
/// real_06: the induction heads' direct logit effect raises the repeating character above every
/// other at more than half the repeat positions.
app::ClaimCheck claim_head_copies(const CopyingSection& c);
/// real_07: patching the previous-token head's output from shuffled windows raises the repeat loss
/// by more than half the in-context advantage; the rank of its K-composition with the induction head
/// among first-layer heads is printed beside, not judged.
app::ClaimCheck claim_circuit(const CircuitSection& c);
/// real_08: zero and mean ablation agree on where the repeats are computed: under both, the head
/// whose removal raises the random-repeat loss most is in the circuit (an induction head of
/// `induction`, or the previous-token head `previous` they read), and so is the largest of the
/// induction heads' layer. Which head ranks first differs from run to run; both are printed.
app::ClaimCheck claim_ablations_agree(const AblationCompare& c, const std::vector<std::string>& induction,
                                      const std::string& previous);

/// real_01 to real_08, in that order, checked on `r` (what the printers show beside each section).
std::vector<app::ClaimCheck> check_claims(const Report& r);

// ---- the printers (report.cpp) ------------------------------------------------------------------

/// One claim, wrapped: "  <statement>: <numbers> (holds)   [tag]". On a --quick run's model
/// (`quick`) a claim that fails reads "(not judged: a --quick run is too short)" instead of
/// "(does NOT hold)": the claims are about the full run.
void print_claim(std::ostream& out, const app::ClaimCheck& claim, bool quick = false);

/// The chapter's title line, then why a --cached run is trained again (`stale`, when not empty),
/// then "Loaded the model saved in DIR." when `loaded` names the folder read, else the line said
/// before training starts.
void print_start(std::ostream& out, const std::optional<std::string>& loaded, const std::string& stale = "");

/// One progress report of training (the program sends it to stderr): a line of its own, or with
/// `one_line` (a terminal) the same line rewritten, ended at the last step.
void print_progress(std::ostream& out, const Progress& progress, bool one_line = false);

/// The note after a --quick run: too short for the induction head, and how to train the full run.
void print_quick_note(std::ostream& out);

/// The data and the model: files, entries, characters, vocabulary, shape, training.
void print_data(std::ostream& out, const Corpus& corpus, const Vocabulary& vocab, const Run& run);

/// Sections 1 to 7 with their claims.
void print_report(std::ostream& out, const Report& report, const Run& run);

/// The wall time of training; `loaded`: the run was read back, so the time is the saved run's.
void print_wall_time(std::ostream& out, const Run& run, bool loaded);

/// --bench: "ch09 model step: X ms (N steps, batch B x T, K threads, float)".
void print_step_timing(std::ostream& out, const StepTiming& timing);

// --compare A B (study.hpp's Comparison): the two marked sentences, where every head reads at
// the marked positions side by side, and the readings compared stage by stage against their controls.

/// `m`'s sentence with its span in brackets, a newline shown as "\\n" and any other unprintable byte
/// as '?', cut to at most `width` characters around the span ("..." where cut; `width` >= 12).
std::string shown(const Marked& m, std::size_t width);

/// The comparison: the sentences and positions, the heads side by side, the table of cosines
/// (raw and centred, with the controls' lowest, mean and highest) and what each stage's rank says.
void print_comparison(std::ostream& out, const Comparison& c);

// ---- the figures (figures.cpp) ------------------------------------------------------------------

/// Every figure: ch09_loss_curve, ch09_head_view, ch09_contributions, ch09_head_roles,
/// ch09_ablations and ch09_bank (PNG and .dat).
void draw_report(app::Plotter& plots, const Report& report, const Run& run);

/// One head view as a grid of heat maps, layers by heads, the sentence's characters on both axes
/// (figure `name`, PNG and .dat); the sentence reaches gnuplot only quoted.
void draw_head_view(app::Plotter& plots, const std::string& name, const HeadView& view);

/// Figures ch09_compare_a and ch09_compare_b (the two head views) and ch09_compare (A vs B's
/// centred cosine after each layer beside the controls' lowest, mean and highest).
void draw_comparison(app::Plotter& plots, const Comparison& c);

// ---- --gpt2: the same tools on GPT-2 (gpt2_report.cpp) ------------------------------------------

/// What --gpt2 reads besides the folder.
struct Gpt2Request {
  std::string dir;                      ///< --gpt2 DIR
  std::string sentence;                 ///< --sentence: the head view's text
  std::optional<arma::uword> position;  ///< --position: the token decoded (default: the last)
  std::optional<std::string> corpus;    ///< --corpus: the fortunes' folder whose held-out text is read
};

/// Loads GPT-2 from request.dir, runs gpt2::run_lab() (progress lines on `progress`) and prints
/// every section on `out`. Returns the exit code, 0.
int run_gpt2(std::ostream& out, std::ostream& progress, const Gpt2Request& request);

/// Prints every section of `lab` (GPT-2 read from `dir`).
void print_gpt2(std::ostream& out, const std::string& dir, const gpt2::Lab& lab);

}  // namespace ch09
