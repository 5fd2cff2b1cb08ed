/// \file chapters/09_real_heads/session.hpp
/// \brief The program's session: its inputs checked before anything is printed (the sentence, the
/// modes the flags ask for, the fortunes folder, a saved model, the folder a run will be saved
/// into) and a training run whose divergence is said in the flags' terms; and the `--compare A B`
/// mode, its two sentences checked as typed, then a model loaded or trained.
///
/// Part of the program (compiled into ch09_real_heads beside main.cpp, not into the lesson): its
/// errors name the flag a reader typed.
///
/// Throws: FlagError, naming the flag, for a value or a combination of flags that cannot be used
/// (checked_sentence, check_modes, model_folders, check_plot_folder, compare_flag); FileError, a
/// FlagError, naming the flag and the file or folder, for a --corpus folder read_corpus() refuses
/// (corpus_for, run_compare), a saved run load_run() or require_directions() refuses, trained on
/// another corpus or whose weights overflow the scores (saved_run, load_given, run_compare), and a
/// --save or --cached folder that cannot be written (check_save, run_compare); std::runtime_error
/// (exit code 1) when Debian's own fortunes folder cannot be used, saying how to install it when it
/// is missing (corpus_for, run_compare), for a model part without a direction, naming the file
/// (require_directions), and for a run that diverges (train_or_explain, run_compare), whose other
/// failures are train()'s; app::IoError (exit code 1) when the trained run cannot be saved
/// (run_compare). usage_errors() turns FlagError and FileError into the command line's usage errors
/// (exit code 2) as its comment says; it throws nothing itself (beyond std::bad_alloc).
/// Sources: the project's rule for bad input (docs/bad_input.md: one line, exit code 2 for a usage
/// error, 1 for a runtime failure).
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
#include "study.hpp"

namespace ch09 {

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

// ---- --compare A B: its two sentences checked as typed, then a model loaded or trained ----------

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

}  // namespace ch09
