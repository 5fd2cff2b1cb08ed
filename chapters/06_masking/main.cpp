/// \file chapters/06_masking/main.cpp
/// \brief Chapter 06 program: the causal mask, the -inf fill, the causal view as renormalization,
/// and cross-attention.
///
/// Follows the article's "Causal masking: a decoder only looks left". Run `ch06_masking --help`.
#include <iostream>

#include "common/apparatus/cli.hpp"
#include "common/apparatus/plot.hpp"
#include "figures.hpp"
#include "masking.hpp"
#include "report.hpp"

namespace po = boost::program_options;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch06_masking", "the causal mask, why its fill is -inf, the causal view as renormalization, cross-attention",
    "\"Causal masking: a decoder only looks left\"",
    "  ch06_masking\n  ch06_masking --sentence \"the bank river\" --causal\n"
    "  ch06_masking --sentence \"bank the money river\" --bidirectional\n  ch06_masking --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  std::vector<std::string> words;  ///< --sentence (default "the bank river", the plotted one)
  ch06::Views views;               ///< --causal, --bidirectional (neither: both)
  bool custom = false;             ///< print "Your sentence" (one of those flags was given)
  app::PlotSettings plots;         ///< --plots, --no-plots
};

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("sentence", po::value<std::string>()->value_name("WORDS"),
       "show this sentence's weights (words from: the, river, money, bank); default plot: \"the bank river\"")
      ("causal", "show and plot only the causal view of --sentence")
      ("bidirectional", "show and plot only the bidirectional view of --sentence");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  if (vm.count("causal") && vm.count("bidirectional")) {
    throw app::cli::UsageError("--causal and --bidirectional exclude each other (give neither to see both)");
  }
  Flags f;
  f.views = {.bidirectional = vm.count("causal") == 0, .causal = vm.count("bidirectional") == 0};
  f.custom = vm.count("sentence") || vm.count("causal") || vm.count("bidirectional");
  f.words = app::cli::sentence(vm, "sentence", "the bank river", attn::toy_embeddings());
  f.plots = app::cli::plot_settings(vm);
  return f;
}

int run(const Flags& flags) {
  const ch06::BothViews yours = ch06::both_views(flags.words);  // refuses unknown words before printing anything
  app::Plotter plots(flags.plots);
  const ch06::MaskSection mask = ch06::mask_section();
  const ch06::TiredCatSection cat = ch06::tired_cat_section();
  const ch06::WordOrderSection orders = ch06::word_order_section();
  const ch06::CrossSection cross = ch06::cross_section();

  std::cout << "Chapter 06 - Causal masking: a decoder only looks left\n";
  ch06::print_mask(std::cout, mask);
  ch06::print_tired_cat(std::cout, cat);
  ch06::print_word_orders(std::cout, orders);
  ch06::print_cross(std::cout, cross);
  if (flags.custom) ch06::print_your_sentence(std::cout, yours, flags.views);

  std::cout << '\n';
  ch06::draw_figures(plots, cat, yours, flags.views);
  plots.report(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
