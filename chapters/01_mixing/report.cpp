/// \file report.cpp
/// \brief Chapter 01's printers (see report.hpp).
#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <armadillo>

#include "common/apparatus/print.hpp"
#include "common/attention/checks.hpp"

namespace ch01 {

using app::format_number;
using app::format_vector;

namespace {

constexpr int kPrecision = 2;  // the article prints this chapter to two decimals

/// One sentence of section 1: bank's input, then its weights and mixture (claims, printed with their tags).
void print_sentence(std::ostream& out, const SentencePass& s, const app::ClaimCheck& weights,
                    const app::ClaimCheck& mixture) {
  fmt::print(out, "\n  \"{}\"\n    bank input: {}\n", attn::join_words(s.words),
             format_vector(arma::rowvec(s.X.row(s.receiver)), kPrecision));
  app::print_claim(out, weights);
  app::print_claim(out, mixture);
}

}  // namespace

void print_embedding_table(std::ostream& out, const attn::EmbeddingTable& table) {
  fmt::print(out, "\nThe toy embedding table (hand-set axes; tokens are rows):\n");
  std::vector<std::string> header{"word"};
  header.insert(header.end(), table.axes().begin(), table.axes().end());
  app::Table t(header);
  for (const auto& w : table.words()) {
    std::vector<std::string> row{w};
    for (double x : table.vector(w)) row.push_back(format_number(x, 1));
    t.add(row);
  }
  t.print(out);
}

void print_forward_pass(std::ostream& out, const ForwardPassSection& f, const std::vector<std::string>& axes) {
  app::print_heading(out,
                     fmt::format("1. One forward pass, no training (Wq = Wk = Wv = I, d_k = {})", f.river.X.n_cols));
  fmt::print(out, "Every token's vector is its own query, key and value. bank is the last row.\n");
  print_sentence(out, f.river, claim_river_weights(f), claim_river_mixture(f, axes));
  print_sentence(out, f.money, claim_money_weights(f), claim_money_mixture(f, axes));
  fmt::print(out,
             "\n  The weights are the same in both sentences: river and money have the same length and\n"
             "  the same dot product with bank. The mixtures differ because the vectors being mixed differ:\n"
             "  river brings water, money brings finance.\n");

  fmt::print(out, "\n  Residual preview (identity output projection): bank input + mixture\n");
  app::print_claim(out, claim_river_residual(f));
  app::print_claim(out, claim_money_residual(f));

  fmt::print(out, "\n  A plain average separates the sentences too. The mean of \"{}\":\n",
             attn::join_words(f.river.words));
  app::print_claim(out, claim_plain_average(f));
  fmt::print(out, "  So this experiment shows information mixing, not a task that needs selective weights.\n");
}

void print_why_it_mixed(std::ostream& out, const WhyItMixedSection& w) {
  const SentencePass& s = w.sentence;
  const RowTrace& t = w.trace;
  app::print_heading(out, fmt::format("2. Why it mixed at all: bank's row in \"{}\"", attn::join_words(s.words)));
  app::print_claim(out, claim_dots(w));
  app::print_claim(out, claim_scaled(w));
  app::print_claim(out, claim_softmax(w));
  fmt::print(out,
             "  mixture = {} x {} + {} x {} + {} x {}\n"
             "          = {}   (printed rounded; computed in full precision)\n"
             "  bank's largest weight is on itself because its own vector is the longest here, so its dot\n"
             "  product with itself ({}) beats the others. That is a property of these numbers, not a rule:\n"
             "  other vectors or learned projections can make a token attend elsewhere most.\n",
             format_number(t.weights(0), kPrecision), s.words[0], format_number(t.weights(1), kPrecision), s.words[1],
             format_number(t.weights(2), kPrecision), s.words[2], format_vector(t.mixture, kPrecision),
             format_number(t.dots(s.receiver), kPrecision));

  app::print_claim(out, claim_shapes(s));
  fmt::print(out, "  A (row i: how receiving position i shares its attention over the sources):\n");
  app::print_matrix(out, s.words, s.pass.A, kPrecision);
  fmt::print(out, "  row sums: {}\n", format_vector(s.row_sums(), 12));
  fmt::print(out, "  H (row i: the mixture received at position i):\n");
  app::print_matrix(out, s.words, s.pass.H, kPrecision);
  fmt::print(out, "  A[i, j] is a distribution over source positions, not over next-token choices.\n");
}

void print_score_scale(std::ostream& out, const ScoreScaleSection& s) {
  app::print_heading(out, "3. Try the score scale: multiply the scores before softmax");
  std::vector<std::string> header{"multiplier"};
  header.insert(header.end(), s.words.begin(), s.words.end());
  header.push_back("largest");
  app::Table t(header);
  for (arma::uword r = 0; r < s.multipliers.n_elem; ++r) {
    const arma::rowvec w = s.weights.row(r);
    std::vector<std::string> row{format_number(s.multipliers(r), 1)};
    for (const double x : w) row.push_back(format_number(x, 2));
    row.push_back(s.words[w.index_max()]);
    t.add(row);
  }
  t.print(out);
  app::print_claim(out, claim_sharpening(s));
  fmt::print(out, "      (the largest score wins a larger share)\n");
  app::print_claim(out, claim_flattening(s));
  fmt::print(out,
             "  The sqrt(d_k) divisor sets the scale of the scores as d_k changes; it does not choose\n"
             "  which token wins (chapter 04 explains why).\n");
}

void print_experiment(std::ostream& out, const Experiment& e, const std::vector<std::string>& axes) {
  const SentencePass& s = e.sentence;
  const RowTrace& t = e.trace;
  // The multiplier as the shortest text that reads back exactly: -0.0001 is not shown as "0.000".
  const std::string factor = attn::quoted_number(e.multiplier);
  app::print_heading(out, fmt::format("Your experiment: \"{}\", scores x {}", attn::join_words(s.words), factor));
  fmt::print(out, "  receiving token: {} (the last word), input {}\n", s.words[s.receiver],
             format_vector(arma::rowvec(s.X.row(s.receiver)), kPrecision));
  const std::size_t width = 14;  // every label padded to one width, so the vectors line up
  app::print_vector(out, "dot products", t.dots, kPrecision, width);
  app::print_vector(out, fmt::format("/ sqrt({})", s.X.n_cols), t.scaled, kPrecision, width);
  app::print_vector(out, "x " + factor, t.scores, kPrecision, width);
  app::print_vector(out, "weights", t.weights, kPrecision, width);
  app::print_vector(out, "mixture", t.mixture, kPrecision, width);
  app::print_vector(out, "residual", s.residual(), kPrecision, width);
  fmt::print(out, "  (weights over: {};\n   mixture and residual over: {})\n", attn::join_words(s.words),
             comma_list(axes));
}

}  // namespace ch01
