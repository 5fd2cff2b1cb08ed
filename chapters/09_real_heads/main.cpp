/// \file chapters/09_real_heads/main.cpp
/// \brief Chapter 09 program: train a small attention-only transformer on real English text (the
/// fortunes Debian ships), then watch its heads: where they read, what they contribute, what they
/// measurably do, what breaks when one is zeroed, and what "bank" looks like inside.
///
/// Follows the article's "Watch real heads". Run `ch09_real_heads --help`.
#include <armadillo>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "common/apparatus/files.hpp"
#include "lab.hpp"
#include "report.hpp"

namespace po = boost::program_options;
using attn::cli::UsageError;

namespace {

/// The command line, read once.
struct Flags {
  ch09::TrainOptions train;                   ///< how to train (unless loading)
  std::string sentence;                       ///< the head view's input
  std::optional<std::string> save;            ///< --save DIR
  std::optional<std::string> load;            ///< --load DIR
  std::optional<std::string> cached;          ///< --cached DIR: load DIR if it holds a run, else train and save there
  std::string corpus = ch09::kFortuneFolder;  ///< --corpus DIR
  bool corpus_given = false;                  ///< --corpus was typed (not its default)
  bool quick = false;                         ///< --quick
  arma::uword bench = 0;                      ///< --bench N: time N training steps and stop
  attn::PlotSettings plots;                   ///< --plots / --no-plots
};

po::options_description options() {
  po::options_description o("Options");
  attn::cli::add_common_options(o);
  // clang-format off
  o.add_options()
      ("steps", po::value<long long>()->value_name("N"), "Adam steps (default 4000, about 1-3 minutes; 300 with --quick)")
      ("seed", po::value<long long>()->value_name("N")->default_value(1), "seeds the weights and the training windows")
      ("repeat-share", po::value<double>()->value_name("P")->default_value(1.0),
       "share of training windows that hold a snippet followed by itself (0 = plain text)")
      ("lr", po::value<double>()->value_name("RATE")->default_value(3e-3, "0.003"), "Adam learning rate, in (0, 1]")
      ("sentence", po::value<std::string>()->value_name("TEXT")->default_value(ch09::kDefaultSentence),
       "the text of the head view (1 to 128 printable characters)")
      ("save", po::value<std::string>()->value_name("DIR"), "save the trained model into DIR")
      ("load", po::value<std::string>()->value_name("DIR"), "inspect the model saved in DIR instead of training")
      ("cached", po::value<std::string>()->value_name("DIR"),
       "load the model saved in DIR if there is one, else train and save it there (the book uses this)")
      ("corpus", po::value<std::string>()->value_name("DIR")->default_value(ch09::kFortuneFolder),
       "the folder of fortune files")
      ("quick", "a short run (300 steps of 16 windows, seconds) for the tour: too short for the claims")
      ("bench", po::value<long long>()->value_name("N"), "time N training steps of the full model and stop");
  // clang-format on
  return o;
}

Flags read_flags(const po::variables_map& vm) {
  Flags f;
  f.quick = vm.count("quick") > 0;
  if (f.quick) f.train = ch09::quick_options(f.train);
  if (vm.count("steps")) f.train.steps = static_cast<arma::uword>(attn::cli::integer(vm, "steps", 1, 100000));
  f.train.seed = attn::cli::seed(vm);
  f.train.windows.repeat_share = attn::cli::real(vm, "repeat-share", 0, 1);
  f.train.lr = attn::cli::positive_real(vm, "lr", 1.0);
  f.sentence = vm["sentence"].as<std::string>();
  if (f.sentence.empty() || f.sentence.size() > f.train.shape.context) {
    throw UsageError("--sentence must have 1 to 128 characters, got " + std::to_string(f.sentence.size()));
  }
  for (const char c : f.sentence) {
    if (c < 32 || c > 126)
      throw UsageError("--sentence must be printable ASCII, got \"" + attn::cli::printable(f.sentence) + "\"");
  }
  const auto folder = [&](const char* name) -> std::optional<std::string> {
    if (const auto p = attn::cli::path(vm, name)) return p->string();
    return std::nullopt;
  };
  f.save = folder("save");
  f.load = folder("load");
  if (const auto cached = folder("cached")) {
    if (f.load || f.save) throw UsageError("--cached both loads and saves; give it without --load and --save");
    const std::string dir = *cached;
    f.cached = dir;
    std::error_code ec;
    (std::filesystem::exists(std::filesystem::path(dir) / "run.txt", ec) ? f.load : f.save) = dir;
  }
  if (f.load && (vm.count("steps") || f.quick || !vm["seed"].defaulted() || !vm["repeat-share"].defaulted() ||
                 !vm["lr"].defaulted())) {
    throw UsageError(
        "--load inspects a saved model; --steps, --quick, --seed, --lr and --repeat-share only apply to training");
  }
  f.corpus = folder("corpus").value_or(ch09::kFortuneFolder);
  f.corpus_given = !vm["corpus"].defaulted();
  if (vm.count("bench")) f.bench = static_cast<arma::uword>(attn::cli::integer(vm, "bench", 1, 10000));
  if (vm.count("bench") && vm.count("plots"))
    throw UsageError("--bench draws no plots, so --plots has nothing to write");
  // One rule for a mode: a flag it would ignore is refused, not silently dropped.
  for (const char* flag : {"save", "load", "cached", "sentence", "corpus", "steps", "repeat-share"}) {
    if (vm.count("bench") && vm.count(flag) && !vm[flag].defaulted()) {
      throw UsageError(std::string("--bench times training steps on random tokens; --") + flag +
                       " does not apply to it");
    }
  }
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

/// --bench: the time of one training step of the full model on random tokens (for scripts/bench-vs-pytorch.sh).
int bench(const Flags& f) {
  attn::Random rng(f.train.seed);
  attn::AttnOnlyShape shape = f.train.shape;
  shape.vocab = 97;
  ch09::Model model = attn::init_model<ch09::Real>(shape, rng);
  attn::AttnOnlyTrainer<ch09::Real> trainer(f.train.lr);
  arma::umat tokens(f.train.batch, shape.context);
  for (auto& t : tokens) t = rng.below(shape.vocab);
  for (int i = 0; i < 3; ++i) trainer.step(model, tokens);  // warm up
  const auto start = std::chrono::steady_clock::now();
  for (arma::uword i = 0; i < f.bench; ++i) trainer.step(model, tokens);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "ch09 model step: " << attn::format_number(ms / static_cast<double>(f.bench), 2) << " ms (" << f.bench
            << " steps, batch " << f.train.batch << " x " << shape.context << ", " << trainer.threads()
            << " threads, float)\n";
  return 0;
}

/// The model --load names, read before anything is printed: a missing or malformed folder is a
/// usage error (exit 2), one line, like any other unusable input file.
std::optional<ch09::Run> load_given(const Flags& f, const ch09::Vocabulary& vocab) {
  if (!f.load) return std::nullopt;
  try {
    return ch09::load_run(*f.load, vocab);
  } catch (const std::exception& e) {
    throw UsageError(std::string(f.cached ? "--cached: " : "--load: ") + e.what());
  }
}

/// The text to train on, read before anything is printed. A folder given with --corpus that is
/// missing, unreadable or too small is a usage error naming the flag (exit 2), like --load's and
/// --init's unreadable files; Debian's default folder missing is a runtime failure (exit 1) that
/// says how to install it.
ch09::Corpus read_corpus(const Flags& f) {
  if (!f.corpus_given) return ch09::read_corpus(f.corpus);
  try {
    return ch09::read_corpus(f.corpus);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--corpus: ") + e.what());
  }
}

/// Refuses a --save folder that cannot be written before minutes of training (exit 2).
void check_save(const Flags& f) {
  if (!f.save) return;
  const std::string flag = f.cached ? "--cached" : "--save";
  if (const std::string problem = attn::folder_problem(*f.save); !problem.empty())
    throw UsageError(flag + ": " + problem);
  std::vector<std::string> names = ch09::run_files();
  names.push_back(attn::kManifestName);
  for (const std::string& name : names) {
    if (const std::string problem = attn::replace_problem(std::filesystem::path(*f.save) / name); !problem.empty())
      throw UsageError(flag + ": " + problem);
  }
}

/// The report of a loaded model, computed before anything is printed: weights that --load accepted
/// one by one but that overflow the scores together are an unusable input file (exit 2), named.
std::optional<ch09::Report> report_of_loaded(const Flags& f, const std::optional<ch09::Run>& loaded,
                                             const ch09::Corpus& corpus, const ch09::Vocabulary& vocab) {
  if (!loaded) return std::nullopt;
  try {
    return ch09::make_report(corpus, vocab, loaded->model, f.sentence);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string(f.cached ? "--cached: " : "--load: ") +
                     attn::quoted_path(std::filesystem::path(*f.load) / "model.txt") +
                     " holds weights that overflow the model's scores (" + e.what() + ")");
  }
}

ch09::Run obtain_run(const Flags& f, std::optional<ch09::Run> loaded, const ch09::Corpus& corpus,
                     const ch09::Vocabulary& vocab) {
  if (loaded) {
    ch09::Run run = std::move(*loaded);
    std::cout << "Loaded the model saved in " << *f.load << ".\n";
    return run;
  }
  std::cout << "Training (progress on stderr)...\n";
  ch09::Run run = ch09::train(corpus, vocab, f.train, [](const ch09::Progress& p) {
    std::cerr << "  step " << p.step << "/" << p.steps << ": loss " << attn::format_number(p.loss, 3) << ", "
              << attn::format_number(p.elapsed, 0) << " s elapsed, about " << attn::format_number(p.left, 0)
              << " s left\n";
  });
  if (f.quick) {
    std::cout << "(a --quick run: the induction head needs the full run, about 1-3 min; from the repository,\n"
                 " `ch09_real_heads --save build/release/ch09_model` keeps it where the tour and the book look)\n";
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run("ch09_real_heads", [&] {
    const po::options_description opts = options();
    po::variables_map vm;
    const attn::cli::ProgramInfo info{
        "ch09_real_heads",
        "train a two-layer attention-only model on Debian's fortunes; inspect, score and ablate its heads",
        "\"Watch real heads\" (and \"Reverse-engineer a head you trained\")",
        "  ch09_real_heads --save build/release/ch09_model\n  ch09_real_heads --load build/release/ch09_model "
        "--sentence \"the river "
        "bank\"\n"
        "  ch09_real_heads --repeat-share 0 --no-plots\n  ch09_real_heads --quick"};
    if (!attn::cli::parse(argc, argv, opts, info, vm)) return 0;
    const Flags flags = read_flags(vm);
    if (flags.bench > 0) return bench(flags);
    attn::Plotter plots(flags.plots);

    const ch09::Corpus corpus = read_corpus(flags);
    const ch09::Vocabulary vocab(corpus.train_text);
    std::optional<ch09::Run> loaded = load_given(flags, vocab);
    std::optional<ch09::Report> loaded_report = report_of_loaded(flags, loaded, corpus, vocab);
    check_save(flags);
    std::cout << "Chapter 09 - Watch real heads: a small transformer trained on real English text\n\n";
    ch09::Run run;
    try {
      run = obtain_run(flags, std::move(loaded), corpus, vocab);
    } catch (const ch09::Divergence& d) {
      std::cerr << "ch09_real_heads: error: " << d.what() << "; try a smaller --lr (now "
                << attn::format_number(flags.train.lr, 4) << "); claims skipped\n";
      return 1;
    }
    if (flags.save) ch09::save_run(run, *flags.save);
    ch09::print_data(std::cout, corpus, vocab, run);
    ch09::Report report =
        loaded_report ? std::move(*loaded_report) : ch09::make_report(corpus, vocab, run.model, flags.sentence);
    const ch09::TrainOptions quick = ch09::quick_options(ch09::TrainOptions{});
    report.quick = run.options.steps == quick.steps && run.options.batch == quick.batch;
    ch09::print_report(std::cout, report, run);
    std::cout << '\n';
    ch09::draw_report(plots, report, run);
    plots.report(std::cout);
    std::cout << "wall time of training: " << attn::format_number(run.seconds, 1) << " s"
              << (flags.load ? " (when the saved model was trained)" : "") << "\n";
    return 0;
  });
}
