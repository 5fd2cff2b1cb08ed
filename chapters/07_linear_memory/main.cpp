/// \file chapters/07_linear_memory/main.cpp
/// \brief Chapter 07 program: learned matching as a bilinear form, attention as kernel smoothing,
/// and causal linear attention as a fixed-size memory, with its generation cost measured (--bench).
///
/// Follows the article's "Learned matching, kernel smoothing, and memory". Run
/// `ch07_linear_memory --help`.
#include <iostream>

#include "common/apparatus/cli.hpp"
#include "common/apparatus/plot.hpp"
#include "figures.hpp"
#include "linear_memory.hpp"
#include "report.hpp"

namespace po = boost::program_options;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch07_linear_memory",
    "the score as a bilinear form, attention as kernel smoothing, linear attention as a fixed-size memory",
    "\"Learned matching, kernel smoothing, and memory\" (optional mathematics)",
    "  ch07_linear_memory\n  ch07_linear_memory --seed 3\n  ch07_linear_memory --bench\n"
    "  ch07_linear_memory --bench --bench-max 65536 --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  unsigned seed = 7;              ///< --seed of the random head
  bool bench = false;             ///< --bench
  std::size_t bench_max = 16384;  ///< --bench-max
  app::PlotSettings plots;        ///< --plots, --no-plots
};

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("seed", po::value<long long>()->value_name("N")->default_value(7),
       "seed of the random head in sections 1-3 (0 to 4294967295)")
      ("bench", "measure the per-token cost of both mechanisms up to --bench-max positions")
      ("bench-max", po::value<long long>()->value_name("POS")->default_value(16384),
       "longest position the benchmark measures (1 to 1048576)");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  Flags f;
  f.bench = vm.count("bench") > 0;
  if (!vm["bench-max"].defaulted() && !f.bench) throw app::cli::UsageError("--bench-max only applies with --bench");
  f.bench_max = static_cast<std::size_t>(app::cli::integer(vm, "bench-max", 1, 1LL << 20));
  f.seed = static_cast<unsigned>(app::cli::seed(vm, "seed"));
  f.plots = app::cli::plot_settings(vm);
  return f;
}

int run(const Flags& flags) {
  app::Plotter plots(flags.plots);
  const ch07::RandomHead head = ch07::random_head(flags.seed);
  const ch07::BilinearSection matching = ch07::learned_matching(head);
  const ch07::FactorSection factors = ch07::not_unique(head);
  const ch07::KernelSection kernel = ch07::kernel_view(head);
  const ch07::MemorySection memory = ch07::running_memory(attn::toy_embeddings());

  std::cout << "Chapter 07 - Learned matching, kernel smoothing, and memory\n";
  ch07::print_matching(std::cout, head, matching, flags.seed);
  ch07::print_not_unique(std::cout, head, factors);
  ch07::print_kernel(std::cout, kernel);
  ch07::print_memory(std::cout, memory);
  if (flags.bench) {
    const ch07::CostSection cost = ch07::cost_section(flags.bench_max);
    ch07::print_cost(std::cout, cost);
    ch07::draw_cost(plots, cost);
  } else {
    std::cout << "\n  (run with --bench to measure the per-token cost up to position " << flags.bench_max << ")\n";
  }

  std::cout << '\n';
  ch07::draw_memory(plots, memory, attn::toy_embeddings().axes());
  plots.report(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
