/// \file chapters/08_induction/main.cpp
/// \brief Chapter 08 program: train a two-layer attention-only model on repeated blocks, find the
/// heads that copy, and ablate them; then train one head on skip-trigrams and show its bug.
///
/// Follows the article's "Reverse-engineer a head you trained". Run `ch08_induction --help`.
#include <iostream>
#include <string>

#include "common/apparatus/cli.hpp"
#include "common/apparatus/faults.hpp"
#include "common/apparatus/plot.hpp"
#include "figures.hpp"
#include "lab.hpp"
#include "report.hpp"

namespace po = boost::program_options;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch08_induction",
    "train a two-layer attention-only model on repeated blocks; score and ablate its heads; then the "
    "skip-trigram bug of a one-layer head",
    "\"Reverse-engineer a head you trained\" (repeated patterns and ablation; skip-trigram bugs)",
    "  ch08_induction\n  ch08_induction --quick --seed 3\n  ch08_induction --fixed-offset\n"
    "  ch08_induction --heads 4 --steps 1500 --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  ch08::LabOptions lab;     ///< the training run (sizes, data, steps, seed, learning rate)
  app::PlotSettings plots;  ///< --plots, --no-plots
};

/// A step costs about width^2: the default 1000 x 32^2 takes a few seconds, so this budget is minutes.
constexpr double kWorkBudget = 4e7;

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("seed", po::value<long long>()->value_name("N")->default_value(1), "seeds weights, batches and held-out sets of both models (0 to 4294967295)")
      ("steps", po::value<long long>()->value_name("N"), "Adam steps, 1 to 1000000 (default 1000; 700 with --quick)")
      ("heads", po::value<long long>()->value_name("N")->default_value(2), "heads per layer, 1 to 64 (d_k = width / heads)")
      ("width", po::value<long long>()->value_name("D")->default_value(32), "residual stream width (1 to 256; steps x width^2 at most 4e7)")
      ("lr", po::value<double>()->value_name("RATE")->default_value(1e-2), "Adam learning rate, in (0, 1]")
      ("fixed-offset", "every block has the same length and position (the control of claim ind_04)")
      ("quick", "a shorter run for tests and the docs");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  Flags f;
  if (vm.count("quick")) f.lab = ch08::quick_options(f.lab);
  f.lab.seed = app::cli::seed(vm);
  if (vm.count("steps")) f.lab.steps = static_cast<arma::uword>(app::cli::integer(vm, "steps", 1, 1000000));
  f.lab.lr = app::cli::positive_real(vm, "lr", 1.0);
  f.lab.data.fixed_offset = vm.count("fixed-offset") > 0;
  const auto heads = static_cast<arma::uword>(app::cli::integer(vm, "heads", 1, 64));
  const auto width = static_cast<arma::uword>(app::cli::integer(vm, "width", 1, 256));
  if (static_cast<double>(f.lab.steps) * static_cast<double>(width * width) > kWorkBudget) {
    const std::string steps =
        vm.count("steps")
            ? std::to_string(f.lab.steps)
            : std::to_string(f.lab.steps) + (vm.count("quick") ? " (--quick's steps)" : " (the default steps)");
    throw app::cli::UsageError("--steps x --width^2 must be at most 4e7 (about 5 minutes of training), got " + steps +
                               " x " + std::to_string(width) + "^2");
  }
  if (width % heads != 0) {
    throw app::cli::UsageError("--width must be a multiple of --heads (d_k = width / heads), got " +
                               std::to_string(width) + " and " + std::to_string(heads));
  }
  f.lab.shape.heads = heads;
  f.lab.shape.width = width;
  f.lab.shape.d_k = width / heads;
  ch08::validate(f.lab);
  f.plots = app::cli::plot_settings(vm);
  return f;
}

/// Trains, printing each checkpoint; a diverging run stops with exit code 1 and no results.
ch08::LabResult train_and_print(const ch08::LabOptions& o) {
  ch08::print_training_heading(std::cout);
  app::DivergenceWatch watch(o.lr);
  try {
    return ch08::train(o, [&](const ch08::Checkpoint& c) {
      ch08::print_checkpoint(std::cout, c);
      watch.observe(static_cast<long long>(c.step), c.held_out.overall);
    });
  } catch (const std::invalid_argument& e) {
    watch.refused(e.what());  // a non-finite score mid-training
  }
}

int run(const Flags& flags) {
  app::Plotter plots(flags.plots);
  ch08::print_setup(std::cout, flags.lab);
  const ch08::Findings findings = ch08::measure(train_and_print(flags.lab), flags.lab.data.fixed_offset);

  ch08::print_losses(std::cout, findings);
  ch08::print_scores(std::cout, findings);
  ch08::print_ablations(std::cout, findings);
  const ch08::SkipTrigramFindings skip =
      ch08::measure_skip_trigrams(ch08::train_skip_trigrams({.seed = flags.lab.seed}));
  ch08::print_skip_trigrams(std::cout, skip);
  std::cout << '\n';
  ch08::draw_figures(plots, findings);
  ch08::draw_skip_trigrams(plots, skip);
  plots.report(std::cout);
  ch08::print_wall_time(std::cout, findings);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
