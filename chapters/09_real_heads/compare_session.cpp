/// \file chapters/09_real_heads/compare_session.cpp
/// \brief The --compare mode of the program (see compare_session.hpp).
#include "compare_session.hpp"

#include <filesystem>
#include <iostream>

#include "common/apparatus/files.hpp"
#include "compare_view.hpp"
#include "report.hpp"
#include "study.hpp"

namespace ch09 {

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
                const TrainOptions& options, const attn::PlotSettings& settings) {
  attn::Plotter plots(settings);
  const Corpus corpus = corpus_for(corpus_folder);
  const Vocabulary vocab(corpus.train_text);
  std::string stale;  // why a --cached folder's run is not read back
  const std::optional<Run> loaded = saved_run(folders, corpus, vocab, options, stale);
  const auto compare_run = [&](const Run& run) {
    try {
      return compare(run.model, vocab, pair, corpus.held_text);
    } catch (const std::invalid_argument& e) {
      if (!loaded) throw;
      throw FileError(folders.flag + ": " + attn::quoted_path(std::filesystem::path(*folders.load) / "model.txt") +
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
