/// \file chapters/09_real_heads/session.cpp
/// \brief The program's session (see program.hpp).
#include "program.hpp"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "common/apparatus/files.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/checks.hpp"
#include "common/attention/head_roles.hpp"

namespace ch09 {

std::string checked_sentence(const std::string& sentence, arma::uword context, bool any_text) {
  if (any_text) {
    if (sentence.empty() || sentence.size() > kMaxGpt2SentenceBytes)
      throw FlagError("--sentence must have 1 to " + std::to_string(kMaxGpt2SentenceBytes) + " bytes, got " +
                      std::to_string(sentence.size()));
    return sentence;  // UTF-8 and the token count are checked by GPT-2's tokenizer, against its context
  }
  if (sentence.empty() || sentence.size() > context)
    throw FlagError("--sentence must have 1 to " + std::to_string(context) + " characters, got " +
                    std::to_string(sentence.size()));
  for (const char c : sentence) {
    if (c < 32 || c > 126)
      throw FlagError(
          "--sentence must be printable ASCII (the character model's alphabet; --gpt2 takes any UTF-8), got " +
          attn::quoted(sentence));
  }
  return sentence;
}

void check_modes(const std::set<std::string>& typed, bool loading) {
  const auto given = [&](const char* flag) { return typed.count(flag) > 0; };
  if (given("gpt2")) {
    if (given("plots")) throw FlagError("--gpt2 draws no plots, so --plots has nothing to write");
    if (given("compare"))
      throw FlagError("--compare reads the character model; with --gpt2, section 5 compares bank with controls");
    for (const char* flag : {"save", "load", "cached", "steps", "quick", "seed", "repeat-share", "lr", "bench"}) {
      if (given(flag))
        throw FlagError(std::string("--gpt2 reads GPT-2 as trained; --") + flag + " does not apply to it");
    }
  }
  if (loading && (given("steps") || given("quick") || given("seed") || given("repeat-share") || given("lr"))) {
    throw FlagError(
        "--load inspects a saved model; --steps, --quick, --seed, --lr and --repeat-share only apply to training");
  }
  if (!given("bench")) return;
  if (given("plots")) throw FlagError("--bench draws no plots, so --plots has nothing to write");
  // One rule for a mode: a flag it would ignore is refused, not silently dropped.
  for (const char* flag : {"save", "load", "cached", "sentence", "position", "corpus", "steps", "repeat-share"}) {
    if (given(flag))
      throw FlagError(std::string("--bench times training steps on random tokens; --") + flag +
                      " does not apply to it");
  }
}

void check_plot_folder(const app::PlotSettings& plots, const ModelFolders& folders) {
  std::vector<app::OtherFile> files;  // the saved run's files: no figure folder may take one's place
  const bool reads = !folders.save;
  if (const std::optional<std::string> set = reads ? folders.load : folders.save) {
    const std::string& flag = reads ? folders.flag : folders.save_flag;
    for (const std::string& name : run_files()) files.push_back({flag, std::filesystem::path(*set) / name, reads});
    files.push_back({flag, std::filesystem::path(*set) / app::kManifestName, reads});
  }
  if (const std::string clash = app::plot_folder_clash(plots, files, "ch09_"); !clash.empty()) throw FlagError(clash);
}

ModelFolders model_folders(const std::optional<std::filesystem::path>& save,
                           const std::optional<std::filesystem::path>& load,
                           const std::optional<std::filesystem::path>& cached) {
  const auto text = [](const std::optional<std::filesystem::path>& p) -> std::optional<std::string> {
    if (p) return p->string();
    return std::nullopt;
  };
  ModelFolders m{text(save), text(load)};
  if (load && save) {
    throw FlagError(
        "--save with --load: a loaded run is not trained again, so there is nothing new to save "
        "(copy the folder, or train with --save alone)");
  }
  if (!cached) return m;
  if (load || save) throw FlagError("--cached both loads and saves; give it without --load and --save");
  std::error_code ec;
  if (std::filesystem::exists(*cached / "run.txt", ec)) m.load = cached->string();
  m.save = cached->string();  // used when the folder holds no run of this recipe and these settings
  m.cached = true;
  m.flag = m.save_flag = "--cached";
  return m;
}

Run train_or_explain(const Corpus& corpus, const Vocabulary& vocab, const TrainOptions& options,
                     std::ostream& progress) {
  try {
    const bool one_line = &progress == &std::cerr && ::isatty(STDERR_FILENO) == 1;
    return train(corpus, vocab, options, [&](const Progress& p) { print_progress(progress, p, one_line); });
  } catch (const Divergence& d) {
    throw std::runtime_error(std::string(d.what()) + "; try a smaller --lr (now " + app::format_number(options.lr, 4) +
                             "); claims skipped");
  }
}

Corpus corpus_for(const std::optional<std::string>& folder) {
  if (!folder) return read_corpus(kFortuneFolder);
  try {
    return read_corpus(*folder);
  } catch (const std::runtime_error& e) {
    throw FileError(std::string("--corpus: ") + e.what());
  }
}

void require_directions(const Model& model, const std::string& file) {
  const attn::AttnOnlyShape& s = model.shape;
  const auto check = [&](const arma::Mat<Real>& block, const std::string& what) {
    if (!block.is_empty() && arma::abs(block).max() > kSmallestWeight) return;
    throw std::runtime_error(
        app::quoted_path(file) + ": " + what + " holds no weight larger than " + attn::quoted_number(kSmallestWeight) +
        " in size (all zero, -0 or vanishing): it has no direction, so its scores and shares would be 0 / 0; no "
        "trained model has such a part");
  };
  check(model.E, "the embedding E");
  check(model.U, "the unembedding U");
  for (arma::uword l = 0; l < s.layers; ++l) {
    const attn::AttnLayer<Real>& layer = model.layers[l];
    for (arma::uword h = 0; h < s.heads; ++h) {
      const arma::span cols(h * s.d_k, (h + 1) * s.d_k - 1);
      const std::string head = attn::head_name(l, h);
      check(layer.Wq.cols(cols), head + "'s W_Q");
      check(layer.Wk.cols(cols), head + "'s W_K");
      check(layer.Wv.cols(cols), head + "'s W_V");
      check(layer.Wo.rows(cols), head + "'s W_O");
    }
  }
}

std::optional<Run> saved_run(const ModelFolders& folders, const Corpus& corpus, const Vocabulary& vocab,
                             const TrainOptions& wanted, std::string& stale) {
  if (!folders.load) return std::nullopt;
  std::optional<Run> run;
  try {
    run = load_run(*folders.load, vocab);
    require_directions(run->model, (std::filesystem::path(*folders.load) / "model.txt").string());
  } catch (const EarlierRun& e) {
    if (!folders.cached) throw FileError(folders.flag + ": " + e.what());
    stale = "an earlier version of this chapter saved it";
    return std::nullopt;
  } catch (const OtherCorpus& e) {
    if (!folders.cached) throw FileError(folders.flag + ": " + e.what());
    stale = "it was trained on another corpus";
    return std::nullopt;
  } catch (const std::exception& e) {
    throw FileError(folders.flag + ": " + e.what());
  }
  // The corpus is a setting: a model scored on held-out text it may have trained on says nothing.
  if (run->corpus != corpus.checksum) {
    if (!folders.cached) {
      throw FileError(folders.flag + ": " + app::quoted_path(std::filesystem::path(*folders.load) / "run.txt") +
                      ": the model was trained on another corpus (checksum " + run->corpus + ", the corpus read now " +
                      corpus.checksum + "); give that corpus with --corpus, or train again");
    }
    stale = "it was trained on another corpus";
    return std::nullopt;
  }
  if (folders.cached) {
    stale = run_mismatch(*run, wanted);
    if (!stale.empty()) return std::nullopt;
  }
  return run;
}

std::optional<Loaded> load_given(const ModelFolders& folders, const Corpus& corpus, const Vocabulary& vocab,
                                 const std::string& sentence, std::optional<arma::uword> position,
                                 const TrainOptions& wanted, std::string& stale) {
  std::optional<Run> run = saved_run(folders, corpus, vocab, wanted, stale);
  if (!run) return std::nullopt;
  std::optional<Loaded> out(Loaded{std::move(*run), {}});
  try {
    out->report = make_report(corpus, vocab, out->run, sentence, position);
  } catch (const std::invalid_argument& e) {
    throw FileError(folders.flag + ": " + app::quoted_path(std::filesystem::path(*folders.load) / "model.txt") +
                    " holds weights that overflow the model's scores (" + e.what() + ")");
  }
  return out;
}

void check_save(const ModelFolders& folders) {
  if (!folders.save) return;
  const std::optional<std::string>& dir = folders.save;
  const std::string& flag = folders.save_flag;
  if (const std::string problem = app::folder_problem(*dir); !problem.empty()) throw FileError(flag + ": " + problem);
  std::vector<std::string> names = run_files();
  names.push_back(app::kManifestName);
  for (const std::string& name : names) {
    if (const std::string problem = app::replace_problem(std::filesystem::path(*dir) / name); !problem.empty())
      throw FileError(flag + ": " + problem);
  }
}

// ---- --compare A B ----------------------------------------------------------------------------

MarkedPair compare_flag(const std::vector<std::string>& values, const std::set<std::string>& typed) {
  for (const char* flag : {"sentence", "position", "bench"}) {
    if (typed.count(flag))
      throw FlagError(std::string("--compare reads its own two sentences; --") + flag + " does not apply to it");
  }
  // program_options hands --compare the token after it even when that is a flag ("--compare --load
  // DIR" reads "--load" and "DIR" as the sentences): a sentence that starts with "--" is refused
  for (const std::string& v : values) {
    if (v.starts_with("--")) {
      throw FlagError("--compare: " + attn::quoted(v) +
                      " looks like a flag, not a sentence; give the two sentences right after --compare: "
                      "--compare \"the river [bank]\" \"the money [bank]\"");
    }
  }
  if (values.size() != 2) {
    throw FlagError("--compare needs two sentences, A and B, got " + std::to_string(values.size()) +
                    ": --compare \"the river [bank]\" \"the money [bank]\"");
  }
  try {
    return mark_pair(values[0], values[1], TrainOptions{}.shape.context);
  } catch (const std::invalid_argument& e) {
    throw FlagError(std::string("--compare: ") + e.what());
  }
}

int run_compare(const MarkedPair& pair, const ModelFolders& folders, const std::optional<std::string>& corpus_folder,
                const TrainOptions& options, const app::PlotSettings& settings) {
  app::Plotter plots(settings);
  const Corpus corpus = corpus_for(corpus_folder);
  const Vocabulary vocab(corpus.train_text);
  std::string stale;  // why a --cached folder's run is not read back
  const std::optional<Run> loaded = saved_run(folders, corpus, vocab, options, stale);
  const auto compare_run = [&](const Run& run) {
    try {
      return compare(run.model, vocab, pair, corpus.held_text);
    } catch (const std::invalid_argument& e) {
      if (!loaded) throw;
      throw FileError(folders.flag + ": " + app::quoted_path(std::filesystem::path(*folders.load) / "model.txt") +
                      " holds weights that overflow the model's scores (" + e.what() + ")");
    }
  };
  std::optional<Comparison> c;
  if (loaded) c = compare_run(*loaded);  // a saved model is refused before anything is printed
  if (!loaded) check_save(folders);
  print_start(std::cout, loaded ? folders.load : std::nullopt, stale);
  const Run run = loaded ? *loaded : train_or_explain(corpus, vocab, options, std::cerr);
  if (is_quick(run.options)) print_quick_note(std::cout);
  if (folders.save && !loaded) save_run(run, *folders.save);
  if (!c) c = compare_run(run);
  print_comparison(std::cout, *c);
  std::cout << '\n';
  draw_comparison(plots, *c);
  plots.report(std::cout);
  return 0;
}

}  // namespace ch09
