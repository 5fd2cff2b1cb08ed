/// \file report.cpp
/// \brief Chapter 03's printers (see report.hpp).
#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <armadillo>
#include <sstream>
#include <string>
#include <utility>

#include "claims.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/toy.hpp"

namespace ch03 {

using app::format_number;
using app::format_vector;

namespace {

constexpr int kTeaching = 4;           // the article prints the teaching space to four decimals
constexpr std::size_t kColumns = 100;  // every printed line fits a 100-column terminal
const std::vector<std::string> kEiffel{"the", "Eiffel", "tower"};

/// Row r of M (any width) as "[a, b, ...]" with `precision` decimals.
std::string row(const arma::mat& M, arma::uword r, int precision) {
  return format_vector(arma::rowvec(M.row(r)), precision);
}

/// The counting table as printed. When a count "h matrices; nh query vectors" would push a line past
/// 100 columns (large --tokens and --heads), its vectors go on a line of their own below it.
std::string counting_text(const std::vector<CountRow>& rows) {
  const auto render = [&](bool split) {
    app::Table t({"object", "kind", "how many", "shape of each"});
    for (const CountRow& r : rows) {
      const std::size_t semicolon = split ? r.count.find("; ") : std::string::npos;
      if (semicolon == std::string::npos) {
        t.add({r.object, r.kind, r.count, r.shape});
      } else {
        t.add({r.object, r.kind, r.count.substr(0, semicolon + 1), r.shape});
        t.add({"", "", r.count.substr(semicolon + 2), ""});
      }
    }
    std::ostringstream printed;
    t.print(printed);
    std::istringstream lines(printed.str());
    std::string text;
    bool fits = true;
    for (std::string line; std::getline(lines, line);) {
      line.erase(line.find_last_not_of(' ') + 1);  // a continuation line ends in an empty cell
      fits = fits && line.size() <= kColumns;
      text += line + '\n';
    }
    return std::make_pair(text, fits);
  };
  const auto [text, fits] = render(false);
  return fits ? text : render(true).first;
}

/// Section 1's hand-set example: both heads' weights, the shapes claim and the last token's update.
void print_example_sublayer(std::ostream& out, const ExampleSublayer& example) {
  const std::vector<std::string>& words = example.words;
  const arma::mat& X = example.X;
  const attn::MultiHeadPass& p = example.pass;
  fmt::print(
      out,
      "\n  A hand-set example sublayer on \"{}\":\n  head 1 asks bank's water question, head 2 its finance question\n"
      "  (d = 4, d_k = d_v = 3, Wo adds half of each head's mixture back onto finance, water, structure):\n",
      attn::join_words(words));
  for (std::size_t k = 0; k < p.heads.size(); ++k) {
    fmt::print(out, "  A({}), rows = receiving tokens:\n", k + 1);
    app::print_matrix(out, words, p.heads[k].A, 2);
  }
  app::print_claim(out, claim_sublayer_shapes(example));
  fmt::print(out, "  {}: input {} + Delta {} = Y {}\n", words.back(), row(X, X.n_rows - 1, 2),
             row(p.delta, X.n_rows - 1, 2), row(p.Y, X.n_rows - 1, 2));
}

}  // namespace

void print_separate_objects(std::ostream& out, const std::vector<SeparateObject>& rows,
                            const ExampleSublayer& example) {
  app::print_heading(out, "0. The embedding table and the projection matrices are separate");
  app::Table t({"object", "purpose", "learned/computed", "shape here"});
  for (const SeparateObject& r : rows)
    t.add({r.object, r.purpose, r.learned ? "learned" : "computed per pass", r.here});
  t.print(out);
  const std::string note = "  (\"shape here\": head 1 of section 1's hand-set sublayer on";
  const std::string sentence = fmt::format("\"{}\".)", attn::join_words(example.words));
  fmt::print(out, "{}{}{}\n", note, note.size() + 1 + sentence.size() <= kColumns ? " " : "\n  ", sentence);
  app::print_claim(out, claim_separate_objects(rows, example));
  fmt::print(out,
             "  Only the lookup in E is indexed by token ID; the projections have input-coordinate rows, so\n"
             "  every token of a head uses the same Wq, Wk, Wv. Later blocks project updated rows, not E's.\n");
}

void print_counting(std::ostream& out, const CountingSection& c, const ExampleSublayer& example) {
  app::print_heading(out, fmt::format("1. How many tables and vectors? {}, {}, {} block(s)", app::counted(c.n, "token"),
                                      app::counted(c.h, "head"), c.N));
  fmt::print(out, "{}", counting_text(c.table));
  const app::ClaimCheck per_block = claim_counts_per_block(c.counts, c.n, c.h, c.built);
  fmt::print(out, "\n");
  if (c.n == 3 && c.h == 2) {
    app::print_claim(out, per_block);  // the claim is about the article's 3 tokens and 2 heads
  } else {
    fmt::print(out, "{}\n", per_block.evidence);
  }
  const auto per_token = static_cast<long long>(c.counts.queries_per_token);
  fmt::print(out, "  Each token has {}, {} and {} in a block.\n  A stack of N = {} block(s):\n",
             app::counted(per_token, "query", "queries"), app::counted(per_token, "key"),
             app::counted(per_token, "value"), c.N);
  app::print_claim(out, claim_stack_counts(c.counts, c.h, c.N));
  fmt::print(out, "  (Logical matrices, no biases; implementations often pack several into one tensor.)\n");

  // A built sublayer with exactly these shapes, when small enough to run, confirms the counts.
  if (c.built) {
    const BuiltSublayer& b = *c.built;
    fmt::print(out,
               "  Built and run with d = {}, d_k = {}, d_v = {}: {} projection matrices,\n"
               "  {} Q/K/V matrices holding {} rows; Concat {}, Wo {}, Y {}\n",
               b.d, b.d_k, b.d_v, 3 * b.weights.heads.size(), 3 * b.pass.heads.size(), b.qkv_rows,
               attn::shape(b.pass.concat), attn::shape(b.weights.Wo), attn::shape(b.pass.Y));
  }
  print_example_sublayer(out, example);
}

void print_three_roles(std::ostream& out, const std::vector<Combination>& combos) {
  app::print_heading(out, "2. Three roles: Q and K set the weights, V sets the content (receiving token: tower)");
  app::Table t({"query", "values", "weights (the, Eiffel, tower)", "mixture (structure, Paris id.)", "claims"});
  // The swap/swap row carries val_01 and val_02 (their evidence is this row of the table).
  const app::ClaimCheck same = claim_values_keep_weights(combos);
  const app::ClaimCheck swapped = claim_values_swap_content(combos);
  const std::string tags =
      fmt::format("[{}] [{}]{}", same.id, swapped.id, same.holds && swapped.holds ? "" : " (does not hold here)");
  for (const auto& [q, v, p] : combos) {
    const bool both = q == Choice::swap && v == Choice::swap;
    t.add({choice_name(q), choice_name(v), row(p.A, 2, kTeaching), row(p.H, 2, kTeaching), both ? tags : "-"});
  }
  t.print(out);
  const attn::HeadPass& sq = combination(combos, Choice::swap, Choice::raw);
  const attn::HeadPass& sv = combination(combos, Choice::swap, Choice::swap);
  fmt::print(out,
             "  Swapping the values leaves tower's weights {}\n  and swaps the mixture: {} -> {}.\n"
             "  A large weight on Eiffel does not say which way the output moves; Eiffel's value does.\n",
             arma::approx_equal(sq.A, sv.A, "absdiff", 0.0) ? "exactly as they were" : "CHANGED",
             row(sq.H, 2, kTeaching), row(sv.H, 2, kTeaching));
}

void print_asymmetry(std::ostream& out, const Asymmetry& a) {
  fmt::print(out,
             "  Q and K come from separate projections, so a score need not equal its reverse. In head 1 of\n"
             "  section 1 on \"{}\" (Wq reads structure into water, Wk keeps finance, water, structure):\n",
             attn::join_words(a.words));
  app::print_claim(out, claim_asymmetry(a));
  fmt::print(out,
             "  M = Wq Wk^T has M(structure, water) = {} but M(water, structure) = {},\n"
             "  so s_ij = x_i M x_j^T / sqrt(3) is not symmetric,\n"
             "  nor are the weights: a({}, {}) = {}, a({}, {}) = {}.\n",
             format_number(a.M(2, 1), 2), format_number(a.M(1, 2), 2), a.words[a.i], a.words[a.j],
             format_number(a.weight_forward, 3), a.words[a.j], a.words[a.i], format_number(a.weight_backward, 3));
}

void print_your_combination(std::ostream& out, const std::vector<Combination>& combos, Choice query, Choice values) {
  app::print_heading(out,
                     fmt::format("Your combination: --query {} --values {}", choice_name(query), choice_name(values)));
  const attn::HeadPass& p = combination(combos, query, values);
  fmt::print(out, "  tower's input x:   [1.0000, 0.0000]\n");
  for (arma::uword j = 0; j < 3; ++j) {
    fmt::print(out, "  {:<7}weight {}%, value {}\n", kEiffel[j], format_number(100.0 * p.A(2, j), 2),
               row(p.V, j, kTeaching));
  }
  fmt::print(out, "  mixture h = A V:   {}   (structure, Paris identity; no residual)\n", row(p.H, 2, kTeaching));
}

void print_another_key(std::ostream& out, const AnotherKey& k) {
  app::print_heading(out, "3. What the weight measures: another key changes a_ij, not q_i or k_j");
  app::Table t({"", "q_tower", "k_Eiffel", "score s", "weight a(tower, Eiffel)"});
  t.add({"the Eiffel tower", format_vector(k.q_before, 0), format_vector(k.k_before, 0),
         format_number(k.score_before, 4), format_number(k.weight_before, 4)});
  t.add({"+ a second Eiffel-like token [0, 1]", format_vector(k.q_after, 0), format_vector(k.k_after, 0),
         format_number(k.score_after, 4), format_number(k.weight_after, 4)});
  t.print(out);
  app::print_claim(out, claim_another_key(k));
  fmt::print(out,
             "  A weight compares one score with every other allowed score in its row;\n"
             "  it is not a co-occurrence count.\n");
}

void print_residual(std::ostream& out, const std::vector<Combination>& combos) {
  app::print_heading(out, "4. Where this leaves us: add the contribution (identity output projection)");
  app::print_claim(out, claim_residual(combos));
  fmt::print(out,
             "  The mixture is one contribution to an existing representation; a real block adds an output\n"
             "  projection, several heads, normalization and a feed-forward update.\n");
}

}  // namespace ch03
