/// \file chapters/01_mixing/main.cpp
/// \brief Chapter 01 program: watch one head mix "the river bank" and "the money bank".
///
/// Follows the article's "One forward pass, no training", "Why it mixed at all" and
/// "Try the score scale". Run `ch01_mixing --help` for the flags. The lesson is mixing.hpp, its
/// printers report.hpp and its figures figures.hpp.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "common/apparatus/cli.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/toy.hpp"
#include "figures.hpp"
#include "mixing.hpp"
#include "report.hpp"

namespace po = boost::program_options;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch01_mixing", "one attention head mixes the words of \"the river bank\" (identity projections)",
    "\"One forward pass, no training\", \"Why it mixed at all\", \"Try the score scale\"",
    "  ch01_mixing\n  ch01_mixing --scale 5\n  ch01_mixing --sentence \"the money river bank\" --scale 0.1\n"
    "  ch01_mixing --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  std::vector<std::string> words;  ///< --sentence (default "the river bank")
  double multiplier = 1.0;         ///< --scale
  bool experiment = false;         ///< print "Your experiment" (a flag of it was given)
  app::PlotSettings plots;         ///< --plots, --no-plots
};

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("sentence", po::value<std::string>()->value_name("WORDS"),
       "also trace the last word of this sentence (words from: the, river, money, bank)")
      ("scale", po::value<double>()->value_name("FACTOR")->default_value(1.0),
       "multiply the scores by FACTOR before softmax in your experiment (-1000 to 1000)");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  Flags f;
  f.multiplier = app::cli::real(vm, "scale", -1000.0, 1000.0);
  if (f.multiplier == 0.0) f.multiplier = 0.0;  // "--scale -0" is the multiplier 0, printed "x 0"
  f.experiment = vm.count("sentence") > 0 || !vm["scale"].defaulted();
  f.words = app::cli::sentence(vm, "sentence", "the river bank", attn::toy_embeddings());
  f.plots = app::cli::plot_settings(vm);
  return f;
}

int run(const Flags& flags) {
  const attn::EmbeddingTable& table = attn::toy_embeddings();
  const ch01::Experiment yours = ch01::experiment(table, flags.words, flags.multiplier);  // refuses unknown words
  app::Plotter plots(flags.plots);

  const ch01::ForwardPassSection forward = ch01::one_forward_pass(table);
  const ch01::WhyItMixedSection why = ch01::why_it_mixed(table);
  const ch01::ScoreScaleSection scale = ch01::score_scale(table);

  fmt::print(std::cout, "Chapter 01 - Mixing: one forward pass, no training\n");
  ch01::print_embedding_table(std::cout, table);
  ch01::print_forward_pass(std::cout, forward, table.axes());
  ch01::print_why_it_mixed(std::cout, why);
  ch01::print_score_scale(std::cout, scale);
  if (flags.experiment) ch01::print_experiment(std::cout, yours, table.axes());

  fmt::print(std::cout, "\n");
  plots.arrows(ch01::updates_chart(forward, table.axes()));
  plots.bars(ch01::bank_weights_chart(forward));
  plots.bars(ch01::mixtures_chart(forward, table.axes()));
  plots.lines(ch01::scale_sweep_chart(yours));
  plots.report(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
