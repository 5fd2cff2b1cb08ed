/// \file chapters/01_mixing/main.cpp
/// \brief Chapter 01 program: watch one head mix "the river bank" and "the money bank".
///
/// Follows the article's "One forward pass, no training", "Why it mixed at all" and
/// "Try the score scale". Run `ch01_mixing --help` for the flags.
#include <armadillo>
#include <cmath>
#include <iostream>

#include "common/attn.hpp"
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

/// Section 1: both sentences, bank's weights and mixture; the residual preview; a plain average.
void one_forward_pass(const attn::EmbeddingTable& table) {
  attn::print_heading(std::cout, "1. One forward pass, no training (Wq = Wk = Wv = I, d_k = 4)");
  std::cout << "Every token's vector is its own query, key and value. bank is the last row.\n";
  arma::rowvec mixtures[2];
  const char* sentences[2] = {"the river bank", "the money bank"};
  for (int s = 0; s < 2; ++s) {
    const auto words = attn::split_sentence(sentences[s]);
    const arma::mat X = table.lookup(words);  // 3 x 4
    const attn::HeadPass pass = ch01::identity_head(X);
    std::cout << "\n  \"" << sentences[s] << "\"\n";
    std::cout << "    bank input: " << format_vector(arma::rowvec(X.row(2)), kPrecision) << '\n';
    std::cout << "    weights:    " << format_vector(arma::rowvec(pass.A.row(2)), kPrecision) << "  over (the, "
              << words[1] << ", bank)   [mix_0" << (s == 0 ? 1 : 3) << "]\n";
    std::cout << "    mixture:    " << format_vector(arma::rowvec(pass.H.row(2)), kPrecision)
              << "  (finance, water, structure, generic)   [mix_0" << (s == 0 ? 2 : 4) << "]\n";
    mixtures[s] = pass.H.row(2);
  }
  std::cout << "\n  The weights are the same in both sentences: river and money have the same length and\n"
               "  the same dot product with bank. The mixtures differ because the vectors being mixed differ:\n"
               "  river brings water, money brings finance.\n";

  std::cout << "\n  Residual preview (identity output projection): bank input + mixture\n";
  const arma::rowvec bank = table.vector("bank");
  std::cout << "    river sentence: " << format_vector(arma::rowvec(bank + mixtures[0]), kPrecision) << "   [mix_05]\n";
  std::cout << "    money sentence: " << format_vector(arma::rowvec(bank + mixtures[1]), kPrecision) << "   [mix_06]\n";

  const arma::rowvec mean = ch01::plain_average(table.lookup(attn::split_sentence("the river bank")));
  std::cout << "\n  A plain average separates the sentences too. The mean of \"the river bank\":\n"
            << "    water " << format_number(mean(1), kPrecision) << ", finance " << format_number(mean(0), kPrecision)
            << "   [mix_07]\n"
               "  So this experiment shows information mixing, not a task that needs selective weights.\n";
}

/// Section 2: bank's row step by step, then every row at once.
void why_it_mixed(const attn::EmbeddingTable& table) {
  attn::print_heading(std::cout, "2. Why it mixed at all: bank's row in \"the river bank\"");
  const auto words = attn::split_sentence("the river bank");
  const arma::mat X = table.lookup(words);
  const ch01::RowTrace t = ch01::trace_row(X, 2);
  std::cout << "  dot products with the, river, bank: " << format_vector(t.dots, kPrecision) << "   [mix_08]\n"
            << "  divided by sqrt(4) = 2:             " << format_vector(t.scaled, kPrecision) << "   [mix_09]\n"
            << "  softmax (exp, then divide by sum):  " << format_vector(t.weights, kPrecision) << "   [mix_01]\n"
            << "  mixture = " << format_number(t.weights(0), kPrecision) << " x the + "
            << format_number(t.weights(1), kPrecision) << " x river + " << format_number(t.weights(2), kPrecision)
            << " x bank\n          = " << format_vector(t.mixture, kPrecision)
            << "   (printed rounded; computed in full precision)\n";

  const attn::HeadPass pass = ch01::identity_head(X);
  std::cout << "\n  Every row at once: scores = X X^T / sqrt(4) is " << attn::shape(pass.scores)
            << ",\n  A = softmax(scores) is " << attn::shape(pass.A) << ", H = A X is " << attn::shape(pass.H)
            << "   [mix_12]\n"
            << "  A (row i: how receiving position i shares its attention over the sources):\n";
  attn::print_matrix(std::cout, words, pass.A, kPrecision);
  std::cout << "  row sums: " << format_vector(arma::rowvec(arma::sum(pass.A, 1).t()), 12) << '\n';
  std::cout << "  H (row i: the mixture received at position i):\n";
  attn::print_matrix(std::cout, words, pass.H, kPrecision);
  std::cout << "  A[i, j] is a distribution over source positions, not over next-token choices.\n";
}

/// Section 3: the score multiplier.
void score_scale(const attn::EmbeddingTable& table) {
  attn::print_heading(std::cout, "3. Try the score scale: multiply the scores before softmax");
  const arma::mat X = table.lookup(attn::split_sentence("the river bank"));
  attn::Table t({"multiplier", "the", "river", "bank", "largest"});
  const char* names[3] = {"the", "river", "bank"};
  for (double c : {0.1, 1.0, 5.0}) {
    const arma::rowvec w = ch01::trace_row(X, 2, c).weights;
    t.add({format_number(c, 1), format_number(w(0), 2), format_number(w(1), 2), format_number(w(2), 2),
           names[w.index_max()]});
  }
  t.print(std::cout);
  const arma::rowvec sharp = ch01::trace_row(X, 2, 5.0).weights, flat = ch01::trace_row(X, 2, 0.1).weights;
  std::cout << "  x5: bank's own weight grows from 0.43 to " << format_number(sharp(2), 2)
            << " and stays the largest   [mix_10]\n"
            << "      (the largest score wins a larger share)\n"
            << "  x0.1: every weight is within " << format_number(arma::abs(flat - 1.0 / 3.0).max(), 3)
            << " of 1/3, close to a plain average   [mix_11]\n"
            << "  The sqrt(d_k) divisor sets the scale of the scores as d_k changes; it does not choose\n"
               "  which token wins (chapter 04 explains why).\n";
}

/// The reader's own experiment: --sentence and --scale.
void your_experiment(const attn::EmbeddingTable& table, const std::vector<std::string>& words, double multiplier) {
  // The multiplier as the shortest text that reads back exactly: -0.0001 is not shown as "0.000".
  const std::string factor = attn::cli::quoted_number(multiplier);
  attn::print_heading(std::cout, "Your experiment: \"" + attn::join_words(words) + "\", scores x " + factor);
  const arma::mat X = table.lookup(words);
  const arma::uword last = X.n_rows - 1;
  const ch01::RowTrace t = ch01::trace_row(X, last, multiplier);
  std::cout << "  receiving token: " << words[last] << " (the last word), input "
            << format_vector(arma::rowvec(X.row(last)), kPrecision) << "\n";
  const std::size_t width = 14;
  attn::print_vector(std::cout, "dot products", t.dots, kPrecision, width);
  attn::print_vector(std::cout, "/ sqrt(4)", t.scaled, kPrecision, width);
  attn::print_vector(std::cout, "x " + factor, t.scores, kPrecision, width);
  attn::print_vector(std::cout, "weights", t.weights, kPrecision, width);
  attn::print_vector(std::cout, "mixture", t.mixture, kPrecision, width);
  attn::print_vector(std::cout, "residual", arma::rowvec(X.row(last) + t.mixture), kPrecision, width);
  std::cout << "  (weights over: " << attn::join_words(words) << "; mixture and residual over: finance, water, "
            << "structure, generic)\n";
}

void draw_plots(attn::Plotter& plots, const attn::EmbeddingTable& table, const std::vector<std::string>& words,
                double multiplier) {
  const arma::mat river = table.lookup(attn::split_sentence("the river bank"));
  const arma::mat money = table.lookup(attn::split_sentence("the money bank"));
  const attn::HeadPass r = ch01::identity_head(river), m = ch01::identity_head(money);

  plots.bars({.name = "ch01_bank_weights",
              .title = "bank's attention weights: identical in both sentences",
              .xlabel = "source position",
              .ylabel = "weight a_bank,j",
              .categories = {"the", "river / money", "bank"},
              .series = {"the river bank", "the money bank"},
              .values = arma::join_rows(arma::vec(r.A.row(2).t()), arma::vec(m.A.row(2).t())),
              .yrange = std::make_pair(0.0, 0.6)});

  plots.bars({.name = "ch01_mixtures",
              .title = "bank's input and the two mixtures it receives",
              .xlabel = "coordinate",
              .ylabel = "value",
              .categories = table.axes(),
              .series = {"bank input", "mixture in the river bank", "mixture in the money bank"},
              .values = arma::join_rows(arma::vec(river.row(2).t()), arma::vec(r.H.row(2).t()), arma::vec(m.H.row(2).t())),
              .yrange = std::make_pair(0.0, 1.0)});

  const arma::mat X = table.lookup(words);
  const arma::vec multipliers = arma::logspace(std::log10(0.05), 1.0, 121);  // 0.05 .. 10
  std::vector<std::pair<double, std::string>> marks{{0.1, "x0.1"}, {1.0, "x1"}, {5.0, "x5"}};
  const bool marked = multiplier == 0.1 || multiplier == 1.0 || multiplier == 5.0;
  if (!marked && multiplier >= 0.05 && multiplier <= 10) marks.emplace_back(multiplier, "yours");
  plots.lines({.name = "ch01_scale_sweep",
               .title = "Weights received by '" + words.back() + "' in \"" + attn::join_words(words) +
                        "\" as the scores are multiplied",
               .xlabel = "score multiplier (log scale)",
               .ylabel = "weight",
               .x = multipliers,
               .y = ch01::multiplier_sweep(X, X.n_rows - 1, multipliers),
               .series = words,
               .logx = true,
               .x_marks = marks,
               .yrange = std::make_pair(0.0, 1.0)});
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run("ch01_mixing", [&] {
    po::options_description options("Options");
    attn::cli::add_common_options(options);
    options.add_options()
        ("sentence", po::value<std::string>()->value_name("WORDS"),
         "also trace the last word of this sentence (words from: the, river, money, bank)")
        ("scale", po::value<double>()->value_name("FACTOR")->default_value(1.0),
         "multiply the scores by FACTOR before softmax in your experiment (-1000 to 1000)");
    po::variables_map vm;
    const attn::cli::ProgramInfo info{
        "ch01_mixing", "one attention head mixes the words of \"the river bank\" (identity projections)",
        "\"One forward pass, no training\", \"Why it mixed at all\", \"Try the score scale\"",
        "  ch01_mixing\n  ch01_mixing --scale 5\n  ch01_mixing --sentence \"the money river bank\" --scale 0.1\n"
        "  ch01_mixing --no-plots"};
    if (!attn::cli::parse(argc, argv, options, info, vm)) return 0;

    const double multiplier = attn::cli::bounded("--scale", vm["scale"].as<double>(), 1000.0);
    const attn::EmbeddingTable& table = attn::toy_embeddings();
    const bool custom = vm.count("sentence") > 0 || !vm["scale"].defaulted();
    const std::vector<std::string> words =
        attn::split_sentence(vm.count("sentence") ? vm["sentence"].as<std::string>() : "the river bank");
    table.lookup(words);  // validate the words before printing anything
    attn::Plotter plots(attn::cli::plot_settings(vm));

    std::cout << "Chapter 01 - Mixing: one forward pass, no training\n"
              << "\nThe toy embedding table (hand-set axes; tokens are rows):\n";
    print_table(table);
    one_forward_pass(table);
    why_it_mixed(table);
    score_scale(table);
    if (custom) your_experiment(table, words, multiplier);

    std::cout << '\n';
    draw_plots(plots, table, words, multiplier);
    plots.report(std::cout);
    return 0;
  });
}
