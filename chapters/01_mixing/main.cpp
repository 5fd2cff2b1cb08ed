/// \file chapters/01_mixing/main.cpp
/// \brief Chapter 01 program: watch one head mix "the river bank" and "the money bank".
///
/// Follows the article's "One forward pass, no training", "Why it mixed at all" and
/// "Try the score scale". Run `ch01_mixing --help` for the flags.
#include <armadillo>
#include <cmath>
#include <iomanip>
#include <iostream>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "mixing.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr int kPrecision = 2;  // the article prints this section to two decimals

void print_table(const attn::EmbeddingTable& table) {
  std::vector<std::string> header{"word"};
  header.insert(header.end(), table.axes().begin(), table.axes().end());
  attn::Table t(header);
  for (const auto& w : table.words()) {
    std::vector<std::string> row{w};
    for (double x : table.vector(w)) row.push_back(format_number(x, 1));
    t.add(row);
  }
  t.print(std::cout);
}

/// "sqrt(4)": the divisor of an identity head over d-wide vectors.
std::string sqrt_d(const arma::mat& X) { return "sqrt(" + std::to_string(X.n_cols) + ")"; }

/// One sentence of section 1: bank's input, then its weights and mixture (claims, printed with their tags).
void print_sentence(const ch01::SentencePass& s, const attn::ClaimCheck& weights, const attn::ClaimCheck& mixture) {
  std::cout << "\n  \"" << attn::join_words(s.words) << "\"\n";
  std::cout << "    bank input: " << format_vector(arma::rowvec(s.X.row(s.receiver)), kPrecision) << '\n';
  attn::print_claim(std::cout, weights);
  attn::print_claim(std::cout, mixture);
}

/// Section 1: both sentences, bank's weights and mixture; the residual preview; a plain average.
void print_forward_pass(const ch01::ForwardPassSection& f, const std::vector<std::string>& axes) {
  attn::print_heading(
      std::cout, "1. One forward pass, no training (Wq = Wk = Wv = I, d_k = " + std::to_string(f.river.X.n_cols) + ")");
  std::cout << "Every token's vector is its own query, key and value. bank is the last row.\n";
  print_sentence(f.river, ch01::river_weights_claim(f), ch01::river_mixture_claim(f, axes));
  print_sentence(f.money, ch01::money_weights_claim(f), ch01::money_mixture_claim(f, axes));
  std::cout << "\n  The weights are the same in both sentences: river and money have the same length and\n"
               "  the same dot product with bank. The mixtures differ because the vectors being mixed differ:\n"
               "  river brings water, money brings finance.\n";

  std::cout << "\n  Residual preview (identity output projection): bank input + mixture\n";
  attn::print_claim(std::cout, ch01::river_residual_claim(f));
  attn::print_claim(std::cout, ch01::money_residual_claim(f));

  std::cout << "\n  A plain average separates the sentences too. The mean of \"" << attn::join_words(f.river.words)
            << "\":\n";
  attn::print_claim(std::cout, ch01::plain_average_claim(f));
  std::cout << "  So this experiment shows information mixing, not a task that needs selective weights.\n";
}

/// Section 2: bank's row step by step, then every row at once.
void print_why_it_mixed(const ch01::WhyItMixedSection& w) {
  const ch01::SentencePass& s = w.sentence;
  const ch01::RowTrace& t = w.trace;
  attn::print_heading(std::cout, "2. Why it mixed at all: bank's row in \"" + attn::join_words(s.words) + "\"");
  attn::print_claim(std::cout, ch01::dots_claim(w));
  attn::print_claim(std::cout, ch01::scaled_claim(w));
  attn::print_claim(std::cout, ch01::softmax_claim(w));
  std::cout << "  mixture = " << format_number(t.weights(0), kPrecision) << " x " << s.words[0] << " + "
            << format_number(t.weights(1), kPrecision) << " x " << s.words[1] << " + "
            << format_number(t.weights(2), kPrecision) << " x " << s.words[2]
            << "\n          = " << format_vector(t.mixture, kPrecision)
            << "   (printed rounded; computed in full precision)\n"
            << "  bank's largest weight is on itself because its own vector is the longest here, so its dot\n"
               "  product with itself ("
            << format_number(t.dots(s.receiver), kPrecision)
            << ") beats the others. That is a property of these numbers, not a rule:\n"
               "  other vectors or learned projections can make a token attend elsewhere most.\n";

  const attn::HeadPass& pass = s.pass;
  attn::print_claim(std::cout, ch01::shapes_claim(s));
  std::cout << "  A (row i: how receiving position i shares its attention over the sources):\n";
  attn::print_matrix(std::cout, s.words, pass.A, kPrecision);
  std::cout << "  row sums: " << format_vector(arma::rowvec(arma::sum(pass.A, 1).t()), 12) << '\n';
  std::cout << "  H (row i: the mixture received at position i):\n";
  attn::print_matrix(std::cout, s.words, pass.H, kPrecision);
  std::cout << "  A[i, j] is a distribution over source positions, not over next-token choices.\n";
}

/// Section 3: the score multiplier.
void print_score_scale(const ch01::ScoreScaleSection& sc) {
  attn::print_heading(std::cout, "3. Try the score scale: multiply the scores before softmax");
  std::vector<std::string> header{"multiplier"};
  header.insert(header.end(), sc.words.begin(), sc.words.end());
  header.push_back("largest");
  attn::Table t(header);
  for (arma::uword r = 0; r < sc.multipliers.n_elem; ++r) {
    const arma::rowvec w = sc.weights.row(r);
    std::vector<std::string> row{format_number(sc.multipliers(r), 1)};
    for (const double x : w) row.push_back(format_number(x, 2));
    row.push_back(sc.words[w.index_max()]);
    t.add(row);
  }
  t.print(std::cout);
  attn::print_claim(std::cout, ch01::sharpening_claim(sc));
  std::cout << "      (the largest score wins a larger share)\n";
  attn::print_claim(std::cout, ch01::flattening_claim(sc));
  std::cout << "  The sqrt(d_k) divisor sets the scale of the scores as d_k changes; it does not choose\n"
               "  which token wins (chapter 04 explains why).\n";
}

/// The reader's own experiment: --sentence and --scale.
void print_experiment(const ch01::Experiment& e, const std::vector<std::string>& axes) {
  const ch01::SentencePass& s = e.sentence;
  const ch01::RowTrace& t = e.trace;
  // The multiplier as the shortest text that reads back exactly: -0.0001 is not shown as "0.000".
  const std::string factor = attn::quoted_number(e.multiplier);
  attn::print_heading(std::cout, "Your experiment: \"" + attn::join_words(s.words) + "\", scores x " + factor);
  std::cout << "  receiving token: " << s.words[s.receiver] << " (the last word), input "
            << format_vector(arma::rowvec(s.X.row(s.receiver)), kPrecision) << "\n";
  const std::size_t width = 14;
  attn::print_vector(std::cout, "dot products", t.dots, kPrecision, width);
  attn::print_vector(std::cout, "/ " + sqrt_d(s.X), t.scaled, kPrecision, width);
  attn::print_vector(std::cout, "x " + factor, t.scores, kPrecision, width);
  attn::print_vector(std::cout, "weights", t.weights, kPrecision, width);
  attn::print_vector(std::cout, "mixture", t.mixture, kPrecision, width);
  attn::print_vector(std::cout, "residual", s.residual(), kPrecision, width);
  std::cout << "  (weights over: " << attn::join_words(s.words)
            << ";\n   mixture and residual over: " << ch01::comma_list(axes) << ")\n";
}

void draw_plots(attn::Plotter& plots, const ch01::ForwardPassSection& f, const ch01::Experiment& e,
                const std::vector<std::string>& axes) {
  std::vector<std::string> sources = f.river.words;  // "the", "river / money", "bank"
  sources[1] += " / " + f.money.words[1];
  plots.bars({.name = "ch01_bank_weights",
              .title = "bank's attention weights: identical in both sentences",
              .xlabel = "source position",
              .ylabel = "weight a_bank,j",
              .categories = sources,
              .series = {attn::join_words(f.river.words), attn::join_words(f.money.words)},
              .values = arma::join_rows(arma::vec(f.river.weights().t()), arma::vec(f.money.weights().t())),
              .yrange = std::make_pair(0.0, 0.6)});

  plots.bars({.name = "ch01_mixtures",
              .title = "bank's input and the two mixtures it receives",
              .xlabel = "coordinate",
              .ylabel = "value",
              .categories = axes,
              .series = {"bank input", "mixture in " + attn::join_words(f.river.words),
                         "mixture in " + attn::join_words(f.money.words)},
              .values = arma::join_rows(arma::vec(f.river.X.row(f.river.receiver).t()),
                                        arma::vec(f.river.mixture().t()), arma::vec(f.money.mixture().t())),
              .yrange = std::make_pair(0.0, 1.0)});

  const std::vector<std::string>& words = e.sentence.words;
  // Each word its own colour in every run; dashes keep coinciding curves (all near 1/3 at x0.1) visible.
  std::vector<attn::LineStyle> styles;
  for (std::size_t k = 0; k < words.size(); ++k) {
    styles.push_back({.colour = attn::word_colour(words[k]), .dashtype = k == 0 ? 1 : static_cast<int>(k) + 1});
  }
  std::vector<std::pair<double, std::string>> marks{{0.1, "x0.1"}, {1.0, "x1"}, {5.0, "x5"}};
  const bool marked = e.multiplier == 0.1 || e.multiplier == 1.0 || e.multiplier == 5.0;
  if (!marked && e.multiplier >= e.sweep.min() && e.multiplier <= e.sweep.max())
    marks.emplace_back(e.multiplier, "yours");
  plots.lines({.name = "ch01_scale_sweep",
               .title = "Weights received by '" + words[e.sentence.receiver] + "' in \"" + attn::join_words(words) +
                        "\" as the scores are multiplied",
               .xlabel = "score multiplier (log scale)",
               .ylabel = "weight",
               .x = e.sweep,
               .y = e.sweep_weights,
               .series = words,
               .logx = true,
               .x_marks = marks,
               .yrange = std::make_pair(0.0, 1.0),
               .styles = styles});
}

const attn::cli::ProgramInfo kProgram{
    "ch01_mixing", "one attention head mixes the words of \"the river bank\" (identity projections)",
    "\"One forward pass, no training\", \"Why it mixed at all\", \"Try the score scale\"",
    "  ch01_mixing\n  ch01_mixing --scale 5\n  ch01_mixing --sentence \"the money river bank\" --scale 0.1\n"
    "  ch01_mixing --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  std::vector<std::string> words;  ///< --sentence (default "the river bank")
  double multiplier = 1.0;         ///< --scale
  bool experiment = false;         ///< print "Your experiment" (a flag of it was given)
  attn::PlotSettings plots;        ///< --plots, --no-plots
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
  f.multiplier = attn::cli::real(vm, "scale", -1000.0, 1000.0);
  if (f.multiplier == 0.0) f.multiplier = 0.0;  // "--scale -0" is the multiplier 0, printed "x 0"
  f.experiment = vm.count("sentence") > 0 || !vm["scale"].defaulted();
  f.words = attn::cli::sentence(vm, "sentence", "the river bank", attn::toy_embeddings());
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

int run(const Flags& flags) {
  const attn::EmbeddingTable& table = attn::toy_embeddings();
  const ch01::Experiment yours = ch01::experiment(table, flags.words, flags.multiplier);  // refuses unknown words
  attn::Plotter plots(flags.plots);

  const ch01::ForwardPassSection forward = ch01::one_forward_pass(table);
  const ch01::WhyItMixedSection why = ch01::why_it_mixed(table);
  const ch01::ScoreScaleSection scale = ch01::score_scale(table);

  std::cout << "Chapter 01 - Mixing: one forward pass, no training\n"
            << "\nThe toy embedding table (hand-set axes; tokens are rows):\n";
  print_table(table);
  print_forward_pass(forward, table.axes());
  print_why_it_mixed(why);
  print_score_scale(scale);
  if (flags.experiment) print_experiment(yours, table.axes());

  std::cout << '\n';
  draw_plots(plots, forward, yours, table.axes());
  plots.report(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
