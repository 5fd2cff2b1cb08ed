/// \file chapters/03_values/main.cpp
/// \brief Chapter 03 program: values carry the content; counting a multi-head sublayer; the residual.
///
/// Follows the article's "How many tables and vectors are there?", "Three roles: matching and
/// carrying information", "What the weight actually measures" and "Where this leaves us".
/// Run `ch03_values --help` for the flags. The lesson is values.hpp, its printers report.hpp and
/// its figures figures.hpp.
#include <fmt/ostream.h>

#include <iostream>
#include <string>
#include <vector>

#include "common/apparatus/cli.hpp"
#include "common/attention/toy.hpp"
#include "figures.hpp"
#include "report.hpp"
#include "values.hpp"

namespace po = boost::program_options;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch03_values", "values carry the content while queries and keys set the weights; a multi-head sublayer",
    "\"The embedding table and the projection matrices are separate\", "
    "\"How many tables and vectors are there?\", \"Three roles: matching and carrying information\", "
    "\"What the weight actually measures\", \"Where this leaves us\"",
    "  ch03_values\n  ch03_values --query swap --values raw\n  ch03_values --tokens 5 --heads 12 --blocks 24\n"
    "  ch03_values --sentence \"the money bank\" --no-plots"};

/// The counting table's sizes.
struct Sizes {
  long long tokens = 3;  ///< --tokens: n
  long long heads = 2;   ///< --heads: h
  long long blocks = 1;  ///< --blocks: N
};

/// What the reader asked for on the command line.
struct Flags {
  Sizes sizes;                              ///< --tokens, --heads, --blocks
  ch03::Choice query = ch03::Choice::raw;   ///< --query
  ch03::Choice values = ch03::Choice::raw;  ///< --values
  bool custom = false;                      ///< print "Your combination" (--query or --values given)
  std::vector<std::string> words;           ///< --sentence (default "the river bank")
  app::PlotSettings plots;                  ///< --plots, --no-plots
};

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& options) {
  // The ranges read_flags() enforces, stated from the same constants.
  const auto range = [](std::uint64_t most) { return fmt::format(" (1 to {})", most); };
  const std::string tokens = "token positions n in the counting table" + range(ch03::kMaxTokens);
  const std::string heads = "heads h per sublayer" + range(ch03::kMaxHeads);
  const std::string blocks = "transformer blocks N in the stack" + range(ch03::kMaxBlocks);
  // clang-format off
  options.add_options()
      ("query", po::value<std::string>()->value_name("raw|swap"), "tower's query projection in your combination")
      ("values", po::value<std::string>()->value_name("raw|swap"), "the value projection in your combination")
      ("tokens", po::value<long long>()->value_name("N")->default_value(3), tokens.c_str())
      ("heads", po::value<long long>()->value_name("H")->default_value(2), heads.c_str())
      ("blocks", po::value<long long>()->value_name("N")->default_value(1), blocks.c_str())
      ("sentence", po::value<std::string>()->value_name("WORDS"),
       "run the two-head example sublayer on this sentence (words from: the, river, money, bank)");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  Flags f;
  f.sizes = {.tokens = app::cli::integer(vm, "tokens", 1, ch03::kMaxTokens),
             .heads = app::cli::integer(vm, "heads", 1, ch03::kMaxHeads),
             .blocks = app::cli::integer(vm, "blocks", 1, ch03::kMaxBlocks)};
  f.custom = vm.count("query") || vm.count("values");
  if (vm.count("query")) f.query = ch03::parse_choice(app::cli::choice(vm, "query", {"raw", "swap"}));
  if (vm.count("values")) f.values = ch03::parse_choice(app::cli::choice(vm, "values", {"raw", "swap"}));
  f.words = app::cli::sentence(vm, "sentence", "the river bank", attn::toy_embeddings());
  f.plots = app::cli::plot_settings(vm);
  return f;
}

int run(const Flags& flags) {
  const auto [n, h, N] = flags.sizes;
  const ch03::ExampleSublayer example = ch03::example_sublayer(flags.words);  // refuses unknown words first
  app::Plotter plots(flags.plots);

  const std::vector<ch03::SeparateObject> objects = ch03::separate_objects(example);
  const ch03::CountingSection counting = ch03::counting_section(n, h, N);
  const std::vector<ch03::Combination> combos = ch03::three_roles();
  const ch03::Asymmetry asymmetric = ch03::asymmetric_scores();
  const ch03::AnotherKey another = ch03::add_another_key({0.0, 1.0});  // a second Eiffel-like token
  const ch03::Counts example_counts =  // the diagram's counts: the example's tokens and heads, one block
      ch03::count_objects(static_cast<long long>(example.words.size()),
                          static_cast<long long>(example.weights.heads.size()), 1);

  fmt::print(std::cout, "Chapter 03 - Values: matching sets the weights, values carry the content\n");
  ch03::print_separate_objects(std::cout, objects, example);
  ch03::print_counting(std::cout, counting, example);
  ch03::print_three_roles(std::cout, combos);
  ch03::print_asymmetry(std::cout, asymmetric);
  if (flags.custom) ch03::print_your_combination(std::cout, combos, flags.query, flags.values);
  ch03::print_another_key(std::cout, another);
  ch03::print_residual(std::cout, combos);

  fmt::print(std::cout, "\n");
  ch03::draw_figures(plots, combos, example, example_counts);
  plots.report(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
