/// \file chapters/04_scaling/main.cpp
/// \brief Chapter 04 program: dot products, cosine similarity, and why scores are divided by sqrt(d_k).
///
/// Follows the article's "Dot products, cosine similarity, and scaling" and its subsections, with
/// the "Rotate a. Watch its shadow." explorer as flags. Run `ch04_scaling --help` for the flags.
#include <armadillo>
#include <iostream>
#include <limits>

#include "common/apparatus/cli.hpp"
#include "common/apparatus/plot.hpp"
#include "figures.hpp"
#include "report.hpp"
#include "sections.hpp"

namespace po = boost::program_options;

namespace {

constexpr arma::uword kMaxSamples = 200000;  // 512-wide pairs: about a second and a half of draws at most
constexpr double kMaxLength = 1000.0;        // keeps the explorer's picture readable

const app::cli::ProgramInfo kProgram{
    "ch04_scaling", "dot products, cosine similarity, and why attention divides scores by sqrt(d_k)",
    "\"Dot products, cosine similarity, and scaling\" and its subsections",
    "  ch04_scaling                                  # the article's numbers, every claim tagged\n"
    "  ch04_scaling --angle 120 --length 5           # explorer: rotate a, change its length\n"
    "  ch04_scaling --angle=-90                      # explorer: a negative angle, written with '='\n"
    "  ch04_scaling --length 3 --b-length 2          # explorer: change either vector's length\n"
    "  ch04_scaling --scores \"3,1,1,0\"               # softmax: your own scores, raw and scaled\n"
    "  ch04_scaling --scores \"4,2,0\" --d-k 16        # score scale: a wider head divides by 4, flatter\n"
    "  ch04_scaling --samples 50000 --seed 7 --no-plots  # Monte Carlo: more pairs, another seed"};

/// What the reader asked for on the command line.
struct Flags {
  double angle = 20.0;           ///< --angle, degrees
  double length = 10.0;          ///< --length
  double b_length = 1.0;         ///< --b-length
  arma::rowvec scores{4, 2, 0};  ///< --scores (default the article's 4, 2, 0)
  bool article = true;           ///< the article's scores [4, 2, 0] and d_k = 4: the claims are tagged
  arma::uword d_k = 4;           ///< --d-k: the head width whose sqrt(d_k) divides the scores
  arma::uword samples = 10000;   ///< --samples
  std::uint64_t seed = 4;        ///< --seed
  app::PlotSettings plots;       ///< --plots, --no-plots
};

/// The chapter's own flags (--help, --plots and --no-plots come from the skeleton).
void declare_flags(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("angle", po::value<double>()->value_name("DEG")->default_value(20.0),
       "explorer: the angle of a from b, in degrees (-360 to 360)")
      ("length", po::value<double>()->value_name("L")->default_value(10.0), "explorer: the length of a (0 to 1000)")
      ("b-length", po::value<double>()->value_name("L")->default_value(1.0),
       "explorer: the length of b (0.01 to 1000; 1 makes b a unit vector)")
      ("scores", po::value<std::string>()->value_name("LIST"), "softmax sections 5 and 6: your own scores instead "
       "of 4,2,0, shown raw and scaled (1 to 10 numbers, e.g. \"3,1,1,0\")")
      ("d-k", po::value<long long>()->value_name("N")->default_value(4), "softmax sections 5 and 6: the head width; "
       "the scaled scores are the scores / sqrt(N) (1 to 4096)")
      ("samples", po::value<long long>()->value_name("N")->default_value(10000),
       "Monte Carlo: (q, k) pairs per width (100 to 200000)")
      ("seed", po::value<long long>()->value_name("S")->default_value(4),
       "Monte Carlo: seed of its random stream (>= 0)");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  Flags f;
  f.angle = app::cli::real(vm, "angle", -360.0, 360.0);
  f.length = app::cli::real(vm, "length", 0.0, kMaxLength);
  f.b_length = app::cli::real(vm, "b-length", 0.01, kMaxLength);
  f.d_k = static_cast<arma::uword>(app::cli::integer(vm, "d-k", 1, 4096));
  f.samples = static_cast<arma::uword>(app::cli::integer(vm, "samples", 100, static_cast<long long>(kMaxSamples)));
  f.seed = app::cli::seed(vm, "seed", std::numeric_limits<long long>::max());
  f.article = vm.count("scores") == 0 && f.d_k == 4;
  if (vm.count("scores")) {
    const app::Parsed<arma::rowvec> scores = ch04::scores_from_text("--scores", vm["scores"].as<std::string>());
    if (!scores.value) throw app::cli::UsageError(scores.problem);
    f.scores = *scores.value;
  }
  f.plots = app::cli::plot_settings(vm);
  return f;
}

int run(const Flags& flags) {
  app::Plotter plots(flags.plots);

  const ch04::DotCosineTable table = ch04::dot_cosine_table();
  const ch04::Explorer explorer = ch04::explorer(flags.angle, flags.length, flags.b_length);
  const ch04::FixedDivisor divisor = ch04::fixed_divisor();
  const ch04::VarianceSection variance = ch04::variance_section(flags.samples, flags.seed);
  const ch04::SoftmaxScaling scaling = ch04::softmax_scaling(flags.scores, flags.d_k, flags.article);
  const ch04::LearningSignal signal = ch04::learning_signal(flags.scores, scaling.divisor, flags.article);
  const ch04::SharpnessCurves curves = ch04::sharpness_curves(flags.scores, scaling.divisor);
  const ch04::CosineComparison lengths = ch04::cosine_comparison();

  std::cout << "Chapter 04 - Scaling: dot products, cosine similarity, and why divide by sqrt(d_k)\n";
  ch04::print_explorer(std::cout, explorer);
  ch04::print_dot_cosine(std::cout, table);
  ch04::print_fixed_divisor(std::cout, divisor);
  ch04::print_variance(std::cout, variance);
  ch04::print_softmax_scaling(std::cout, scaling);
  ch04::print_learning_signal(std::cout, signal);
  ch04::print_cosine_comparison(std::cout, lengths);

  std::cout << '\n';
  ch04::draw_variance(plots, variance);
  ch04::draw_softmax_sweeps(plots, curves);
  ch04::draw_dot_vs_angle(plots, explorer.sweep);
  ch04::draw_shadow(plots, explorer.shadow);
  ch04::draw_length_effects(plots, lengths);
  plots.report(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
