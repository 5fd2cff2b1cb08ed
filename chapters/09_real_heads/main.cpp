/// \file chapters/09_real_heads/main.cpp
/// \brief Chapter 09 program ("Watch real heads"): train a small attention-only transformer on Debian's
/// fortunes, then watch its heads read, write, do measurable work, break when zeroed, and represent
/// "bank"; --compare two sentences; --gpt2 the same tools on GPT-2. The lesson: lab.hpp (the text and
/// the training), study.hpp (what the trained heads do; GPT-2's side: common/gpt2/lab.hpp). What this
/// file calls: program.hpp (checks of the inputs, claims, printers, figures, --compare and --gpt2).
#include <iostream>

#include "common/apparatus/cli.hpp"
#include "program.hpp"

namespace po = boost::program_options;
using app::cli::UsageError;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch09_real_heads",
    "train a two-layer attention-only model on Debian's fortunes; inspect, score and ablate its heads",
    "\"Watch real heads\" (and \"Reverse-engineer a head you trained\")",
    "  ch09_real_heads --save build/release/ch09_model\n  ch09_real_heads --load build/release/ch09_model "
    "--sentence \"the river bank\"\n  ch09_real_heads --repeat-share 0 --no-plots\n  ch09_real_heads --quick"};

/// The command line, read once.
struct Flags {
  ch09::TrainOptions train;               ///< how to train (unless loading)
  std::string sentence;                   ///< the head view's input
  std::optional<arma::uword> position;    ///< --position: where the writes are decoded (default: the last)
  ch09::ModelFolders folders;             ///< --save, --load, --cached
  bool quick = false;                     ///< --quick
  std::optional<std::string> corpus;      ///< --corpus DIR, if typed (else Debian's folder)
  arma::uword bench = 0;                  ///< --bench N: time N training steps and stop
  ch09::CompareFlag compare;              ///< --compare A B: two readings compared instead of the report
  std::optional<ch09::Gpt2Request> gpt2;  ///< --gpt2 DIR: the same tools on GPT-2 read from DIR
  app::PlotSettings plots;                ///< --plots / --no-plots
};

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& o) {
  // clang-format off
  o.add_options()
      ("steps", po::value<long long>()->value_name("N"), "Adam steps (default 4000, about 1-3 minutes; 300 with --quick)")
      ("seed", po::value<long long>()->value_name("N")->default_value(1), "seeds the weights and the training windows")
      ("repeat-share", po::value<double>()->value_name("P")->default_value(1.0), "share of training windows that hold a snippet followed by itself (0 = plain text)")
      ("lr", po::value<double>()->value_name("RATE")->default_value(3e-3, "0.003"), "Adam learning rate, in (0, 1]")
      ("sentence", po::value<std::string>()->value_name("TEXT")->default_value(ch09::kDefaultSentence),
       "the text of the head view (1 to 128 printable ASCII characters; --gpt2: any UTF-8 text, up to its context in tokens)")
      ("position", po::value<long long>()->value_name("I"), "decode each head's write at character I (from 0; default: the last; --gpt2: token I)")
      ("save", po::value<std::string>()->value_name("DIR"), "save the trained model into DIR")
      ("load", po::value<std::string>()->value_name("DIR"), "inspect the model saved in DIR instead of training")
      ("cached", po::value<std::string>()->value_name("DIR"), "load the model saved in DIR if this program trained it with these settings and this corpus, else train and save it there (the tour, the book and the tests use this)")
      ("corpus", po::value<std::string>()->value_name("DIR")->default_value(ch09::kFortuneFolder), "the folder of fortune files")
      ("quick", "a short run (300 steps of 16 windows, seconds) to try the program: too short for the claims")
      ("bench", po::value<long long>()->value_name("N"), "time N training steps of the full model and stop")
      ("compare", po::value<std::vector<std::string>>()->multitoken()->value_name("A B"), ch09::kCompareHelp)
      ("gpt2", po::value<std::string>()->value_name("DIR"),
       "the same tools on GPT-2 read from DIR (model.safetensors, vocab.json, merges.txt), token by token");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  const std::set<std::string> typed = app::cli::typed(vm);
  Flags f;
  f.quick = typed.count("quick") > 0;
  if (f.quick) f.train = ch09::quick_options(f.train);
  if (typed.count("steps")) f.train.steps = static_cast<arma::uword>(app::cli::integer(vm, "steps", 1, 100000));
  f.train.seed = app::cli::seed(vm);
  f.train.windows.repeat_share = f.train.long_windows.repeat_share = app::cli::real(vm, "repeat-share", 0, 1);
  f.train.lr = app::cli::positive_real(vm, "lr", 1.0);
  f.sentence = ch09::checked_sentence(vm["sentence"].as<std::string>(), f.train.shape.context, typed.count("gpt2"));
  const auto last = static_cast<long long>(typed.count("gpt2") ? ch09::kMaxGpt2SentenceBytes : f.sentence.size() - 1);
  if (typed.count("position")) f.position = static_cast<arma::uword>(app::cli::integer(vm, "position", 0, last));
  const auto folder = [&](const char* name) { return app::cli::path(vm, name); };
  f.folders = ch09::model_folders(folder("save"), folder("load"), folder("cached"));
  if (typed.count("corpus")) f.corpus = folder("corpus")->string();
  if (typed.count("gpt2")) f.gpt2 = ch09::Gpt2Request{folder("gpt2")->string(), f.sentence, f.position, f.corpus};
  if (typed.count("bench")) f.bench = static_cast<arma::uword>(app::cli::integer(vm, "bench", 1, 10000));
  if (typed.count("compare")) f.compare = ch09::compare_flag(vm["compare"].as<std::vector<std::string>>(), typed);
  ch09::check_modes(typed, f.folders.load.has_value() && !f.folders.cached);
  f.plots = app::cli::plot_settings(vm);
  ch09::check_plot_folder(f.plots, f.folders);
  return f;
}

int run(const Flags& flags) {
  if (flags.bench > 0)
    return ch09::print_step_timing(std::cout, ch09::time_training_steps(flags.train, flags.bench)), 0;
  if (flags.compare) return ch09::run_compare(*flags.compare, flags.folders, flags.corpus, flags.train, flags.plots);
  if (flags.gpt2) return ch09::run_gpt2(std::cout, std::cerr, *flags.gpt2);
  app::Plotter plots(flags.plots);
  const ch09::Corpus corpus = ch09::corpus_for(flags.corpus);
  const ch09::Vocabulary vocab(corpus.train_text);
  std::string stale;  // why a --cached folder's run is not read back
  auto loaded = ch09::load_given(flags.folders, corpus, vocab, flags.sentence, flags.position, flags.train, stale);
  if (!loaded) ch09::check_save(flags.folders);
  ch09::print_start(std::cout, loaded ? flags.folders.load : std::nullopt, stale);
  const ch09::Run run = loaded ? loaded->run : ch09::train_or_explain(corpus, vocab, flags.train, std::cerr);
  if (flags.quick) ch09::print_quick_note(std::cout);
  if (flags.folders.save && !loaded) ch09::save_run(run, *flags.folders.save);
  ch09::print_data(std::cout, corpus, vocab, run);
  const ch09::Report report =
      loaded ? loaded->report : ch09::make_report(corpus, vocab, run, flags.sentence, flags.position);
  ch09::print_report(std::cout, report, run);
  ch09::draw_report(plots, report, run);
  plots.report(std::cout);
  ch09::print_wall_time(std::cout, run, loaded.has_value());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(
      argc, argv,
      {kProgram, declare_flags, ch09::usage_errors<UsageError>(read_flags), ch09::usage_errors<UsageError>(run)});
}
