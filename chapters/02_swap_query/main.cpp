/// \file chapters/02_swap_query/main.cpp
/// \brief Chapter 02 program: a learned query asks a different question than raw similarity.
/// Follows the article from "When raw similarity asks the wrong question" to "One query can combine several
/// matching criteria": the lesson is swap_query.hpp, its printers report.hpp, its figures figures.hpp.
#include <fmt/ostream.h>

#include <iostream>
#include <optional>

#include "common/apparatus/cli.hpp"
#include "common/attention/toy.hpp"
#include "figures.hpp"
#include "report.hpp"
#include "swap_query.hpp"

namespace po = boost::program_options;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch02_swap_query", "a learned query asks a different question than raw similarity",
    "\"When raw similarity asks the wrong question\", \"Producing a query\", \"What is query/key space\", "
    "\"What information does the query map lose?\", \"Try three hypothetical matching directions\", "
    "\"One query can combine several matching criteria\"",
    "  ch02_swap_query\n  ch02_swap_query --preset finance\n"
    "  ch02_swap_query --wq \"0 0 0; 0 0 0; 2 2 0; 0 0 0\" --sentence \"the money river bank\"\n"
    "  ch02_swap_query --view 120,20                    # turn the matching space (\"Rotate view\")\n"
    "  ch02_swap_query --view 0,90 --preset structure   # look straight down on it\n"
    "  ch02_swap_query --width 4096 --dk 64 --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  ch02::QueryChoice query;                           ///< --preset, or --wq (4 x 3) instead
  std::optional<std::vector<std::string>> sentence;  ///< --sentence, instead of both article sentences
  arma::uword width = 12288;                         ///< --width
  arma::uword d_k = 128;                             ///< --dk
  app::View3d view{};                                ///< --view (azimuth 35, elevation 28)
  app::PlotSettings plots;                           ///< --plots, --no-plots
};

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("preset", po::value<std::string>()->value_name("NAME")->default_value("water"),
       "bank's hand-set query: water, finance or structure")
      ("wq", po::value<std::string>()->value_name("ROWS"),
       "a custom 4 x 3 Wq instead of a preset, rows separated by ';' (input finance, water, structure, generic), "
       "e.g. \"0 0 0; 0 0 0; 0 3.75 0; 0 0 0\"")
      ("sentence", po::value<std::string>()->value_name("WORDS"),
       "match the last word of this sentence instead of bank in both article sentences "
       "(words from: the, river, money, bank)")
      ("width", po::value<long long>()->value_name("D")->default_value(12288),
       "input width of the random query map in the null-space example")
      ("dk", po::value<long long>()->value_name("D_K")->default_value(128),
       "query width of the random query map in the null-space example")
      ("view", po::value<std::string>()->value_name("AZ,EL")->default_value("35,28"),
       "viewpoint of the 3-d matching-space figures, in degrees: azimuth AZ 0..360 about the "
       "structure axis, elevation EL -90..90 above the floor (90 looks straight down)");
  // clang-format on
}

/// `parse(args...)`; its std::invalid_argument becomes a usage error starting with `prefix` ("--wq: ").
template <class Parse, class... Args>
auto parsed(const std::string& prefix, const Parse& parse, const Args&... args) {
  try {
    return parse(args...);
  } catch (const std::invalid_argument& e) {
    throw app::cli::UsageError(prefix + e.what());
  }
}

Flags read_flags(const po::variables_map& vm) {
  Flags f;
  f.width = static_cast<arma::uword>(app::cli::integer(vm, "width", 1, ch02::kMaxWidth));
  f.d_k = static_cast<arma::uword>(app::cli::integer(vm, "dk", 1, ch02::kMaxDk));
  if (f.width * f.d_k > ch02::kMaxEntries) {
    throw app::cli::UsageError(
        fmt::format("--width x --dk must be at most {} entries (got {})", ch02::kMaxEntries, f.width * f.d_k));
  }
  f.query.preset = ch02::parse_preset(app::cli::choice(vm, "preset", {"water", "finance", "structure"}));
  if (vm.count("wq")) {
    if (!vm["preset"].defaulted()) throw app::cli::UsageError("give either --preset or --wq, not both");
    f.query.custom = parsed("--wq: ", ch02::parse_matrix, vm["wq"].as<std::string>(), 4, 3);  // 4 x 3
  }
  if (vm.count("sentence")) f.sentence = app::cli::sentence(vm, "sentence", "", attn::toy_embeddings());
  f.view = parsed("--view ", ch02::parse_view, vm["view"].as<std::string>());
  f.plots = app::cli::plot_settings(vm);
  return f;
}

int run(const Flags& flags) {
  app::Plotter plots(flags.plots);
  const ch02::Sections r{.teaching = ch02::teaching_section(),
                         .small = ch02::small_null_space(),
                         .width = ch02::width_example(flags.width, flags.d_k, ch02::kWidthSeed),
                         .matching = ch02::matching_widget(flags.query.Wq(), flags.sentence),
                         .presets = ch02::preset_weights(flags.query.custom),
                         .combined = ch02::combined_query(attn::split_sentence("the river bank")),
                         .superposition = ch02::superposition()};
  fmt::print(std::cout, "Chapter 02 - Swap query: learned projections change what a token matches\n");
  ch02::print_raw_similarity(std::cout, r.teaching);
  ch02::print_producing_a_query(std::cout, r.teaching);
  ch02::print_null_space(std::cout, r.small, r.width);
  ch02::print_matching(std::cout, flags.query, r.matching, !flags.sentence);
  ch02::print_combined_criteria(std::cout, r.combined);
  ch02::print_superposition(std::cout, r.superposition);

  fmt::print(std::cout, "\n");
  ch02::draw_figures(plots, r, flags.query.label(), flags.view);
  plots.report(std::cout);
  fmt::print(std::cout, "wall time of the width example: {:.3f} s\n", r.width.seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
