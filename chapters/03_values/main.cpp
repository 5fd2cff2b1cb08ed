/// \file chapters/03_values/main.cpp
/// \brief Chapter 03 program: values carry the content; counting a multi-head sublayer; the residual.
///
/// Follows the article's "How many tables and vectors are there?", "Three roles: matching and
/// carrying information", "What the weight actually measures" and "Where this leaves us".
/// Run `ch03_values --help` for the flags.
#include <armadillo>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "common/apparatus/panels.hpp"
#include "common/attention/multihead.hpp"
#include "figures.hpp"
#include "values.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr int kTeaching = 4;           // the article prints the teaching space to four decimals
constexpr std::size_t kColumns = 100;  // every printed line fits a 100-column terminal
const std::vector<std::string> kEiffel{"the", "Eiffel", "tower"};

std::string row(const arma::mat& M, arma::uword r, int precision) {
  return format_vector(arma::rowvec(M.row(r)), precision);
}

/// Section 0: which objects are learned and which computed, in one table.
void print_separate_objects(const ch03::ExampleSublayer& example) {
  attn::print_heading(std::cout, "0. The embedding table and the projection matrices are separate");
  const std::vector<ch03::SeparateObject> rows = ch03::separate_objects(example);
  attn::Table t({"object", "purpose", "learned/computed", "shape here"});
  for (const ch03::SeparateObject& r : rows) {
    t.add({r.object, r.purpose, r.learned ? "learned" : "computed per pass", r.here});
  }
  t.print(std::cout);
  const std::string note = "  (\"shape here\": head 1 of section 1's hand-set sublayer on";
  std::string quoted = "\"";
  quoted.append(attn::join_words(example.words)).append("\".)");
  std::cout << note << (note.size() + 1 + quoted.size() <= 100 ? " " : "\n  ") << quoted << '\n';
  attn::print_claim(std::cout, ch03::separate_objects_claim(rows, example));
  std::cout << "  Only the lookup in E is indexed by token ID; the projections have input-coordinate rows, so\n"
               "  every token of a head uses the same Wq, Wk, Wv. Later blocks project updated rows, not E's.\n";
}

/// The counting table as printed. When a count "h matrices; nh query vectors" would push a line past
/// 100 columns (large --tokens and --heads), its vectors go on a line of their own below it.
std::string counting_text(const std::vector<ch03::CountRow>& rows) {
  const auto render = [&](bool split) {
    attn::Table t({"object", "kind", "how many", "shape of each"});
    for (const ch03::CountRow& r : rows) {
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

/// Section 1: the counting table, the totals, and a sublayer built and run with those shapes.
void counting(long long n, long long h, long long N, const std::optional<ch03::BuiltSublayer>& built,
              const ch03::ExampleSublayer& example) {
  attn::print_heading(std::cout, "1. How many tables and vectors? " + attn::counted(n, "token") + ", " +
                                     attn::counted(h, "head") + ", " + std::to_string(N) + " block(s)");
  std::cout << counting_text(ch03::counting_table(n, h));
  const ch03::Counts c = ch03::count_objects(n, h, N);
  const bool article = n == 3 && h == 2;
  const attn::ClaimCheck per_block = ch03::claim_counts_per_block(c, n, h, built);
  std::cout << '\n';
  if (article) {
    attn::print_claim(std::cout, per_block);  // the claim is about the article's 3 tokens and 2 heads
  } else {
    std::cout << per_block.evidence << '\n';
  }
  const auto per_token = static_cast<long long>(c.queries_per_token);
  std::cout << "  Each token has " << attn::counted(per_token, "query", "queries") << ", "
            << attn::counted(per_token, "key") << " and " << attn::counted(per_token, "value") << " in a block.\n"
            << "  A stack of N = " << N << " block(s):\n";
  attn::print_claim(std::cout, ch03::claim_stack_counts(c, h, N));
  std::cout << "  (Logical matrices, no biases; implementations often pack several into one tensor.)\n";

  // A built sublayer with exactly these shapes, when small enough to run, confirms the counts.
  if (built) {
    const ch03::BuiltSublayer& b = *built;
    std::cout << "  Built and run with d = " << b.d << ", d_k = " << b.d_k << ", d_v = " << b.d_v << ": "
              << 3 * b.weights.heads.size() << " projection matrices,\n  " << 3 * b.pass.heads.size()
              << " Q/K/V matrices holding " << b.qkv_rows << " rows; Concat " << attn::shape(b.pass.concat) << ", Wo "
              << attn::shape(b.weights.Wo) << ", Y " << attn::shape(b.pass.Y) << '\n';
  }

  std::cout << "\n  A hand-set example sublayer on \"" << attn::join_words(example.words)
            << "\":\n  head 1 asks bank's water question, head 2 its finance question\n"
               "  (d = 4, d_k = d_v = 3, Wo adds half of each head's mixture back onto finance, water, structure):\n";
  const std::vector<std::string>& words = example.words;
  const arma::mat& X = example.X;
  const attn::MultiHeadPass& p = example.pass;
  for (std::size_t k = 0; k < p.heads.size(); ++k) {
    std::cout << "  A(" << k + 1 << "), rows = receiving tokens:\n";
    attn::print_matrix(std::cout, words, p.heads[k].A, 2);
  }
  attn::print_claim(std::cout, ch03::claim_sublayer_shapes(example));
  std::cout << "  " << words.back() << ": input " << row(X, X.n_rows - 1, 2) << " + Delta "
            << row(p.delta, X.n_rows - 1, 2) << " = Y " << row(p.Y, X.n_rows - 1, 2) << '\n';
}

/// Section 2: queries and keys choose the weights, values the content.
void three_roles(const std::vector<ch03::Combination>& combos) {
  attn::print_heading(std::cout,
                      "2. Three roles: Q and K set the weights, V sets the content (receiving token: tower)");
  attn::Table t({"query", "values", "weights (the, Eiffel, tower)", "mixture (structure, Paris id.)", "claims"});
  // The swap/swap row carries val_01 and val_02 (their evidence is this row of the table).
  const attn::ClaimCheck same = ch03::claim_values_keep_weights(combos);
  const attn::ClaimCheck swapped = ch03::claim_values_swap_content(combos);
  const std::string tags =
      "[" + same.id + "] [" + swapped.id + "]" + (same.holds && swapped.holds ? "" : " (does not hold here)");
  for (const auto& [q, v, p] : combos) {
    const bool both = q == ch03::Choice::swap && v == ch03::Choice::swap;
    t.add({ch03::choice_name(q), ch03::choice_name(v), row(p.A, 2, kTeaching), row(p.H, 2, kTeaching),
           both ? tags : "-"});
  }
  t.print(std::cout);
  const attn::HeadPass& sq = ch03::combination(combos, ch03::Choice::swap, ch03::Choice::raw);
  const attn::HeadPass& sv = ch03::combination(combos, ch03::Choice::swap, ch03::Choice::swap);
  std::cout << "  Swapping the values leaves tower's weights "
            << (arma::approx_equal(sq.A, sv.A, "absdiff", 0.0) ? "exactly as they were" : "CHANGED")
            << "\n  and swaps the mixture: " << row(sq.H, 2, kTeaching) << " -> " << row(sv.H, 2, kTeaching) << ".\n"
            << "  A large weight on Eiffel does not say which way the output moves; Eiffel's value does.\n";
}

/// Section 2, added: with Wq != Wk a score need not equal its reverse.
void print_asymmetry(const ch03::Asymmetry& a) {
  std::cout << "  Q and K come from separate projections, so a score need not equal its reverse. In head 1 of\n"
            << "  section 1 on \"" << attn::join_words(a.words)
            << "\" (Wq reads structure into water, Wk keeps finance, water, structure):\n";
  attn::print_claim(std::cout, ch03::asymmetry_claim(a));
  std::cout << "  M = Wq Wk^T has M(structure, water) = " << format_number(a.M(2, 1), 2)
            << " but M(water, structure) = " << format_number(a.M(1, 2), 2)
            << ",\n  so s_ij = x_i M x_j^T / sqrt(3) is not symmetric,\n  nor are the weights: a(" << a.words[a.i]
            << ", " << a.words[a.j] << ") = " << format_number(a.weight_forward, 3) << ", a(" << a.words[a.j] << ", "
            << a.words[a.i] << ") = " << format_number(a.weight_backward, 3) << ".\n";
}

/// The reader's combination (--query, --values).
void your_combination(const std::vector<ch03::Combination>& combos, ch03::Choice q, ch03::Choice v) {
  attn::print_heading(std::cout,
                      "Your combination: --query " + ch03::choice_name(q) + " --values " + ch03::choice_name(v));
  const attn::HeadPass& p = ch03::combination(combos, q, v);
  std::cout << "  tower's input x:   [1.0000, 0.0000]\n";
  for (arma::uword j = 0; j < 3; ++j) {
    std::cout << "  " << kEiffel[j] << std::string(7 - kEiffel[j].size(), ' ') << "weight "
              << format_number(100.0 * p.A(2, j), 2) << "%, value " << row(p.V, j, kTeaching) << '\n';
  }
  std::cout << "  mixture h = A V:   " << row(p.H, 2, kTeaching) << "   (structure, Paris identity; no residual)\n";
}

/// Section 3: a weight depends on the whole row.
void what_the_weight_measures() {
  attn::print_heading(std::cout, "3. What the weight measures: another key changes a_ij, not q_i or k_j");
  const ch03::AnotherKey k = ch03::add_another_key({0.0, 1.0});
  attn::Table t({"", "q_tower", "k_Eiffel", "score s", "weight a(tower, Eiffel)"});
  t.add({"the Eiffel tower", format_vector(k.q_before, 0), format_vector(k.k_before, 0),
         format_number(k.score_before, 4), format_number(k.weight_before, 4)});
  t.add({"+ a second Eiffel-like token [0, 1]", format_vector(k.q_after, 0), format_vector(k.k_after, 0),
         format_number(k.score_after, 4), format_number(k.weight_after, 4)});
  t.print(std::cout);
  attn::print_claim(std::cout, ch03::claim_another_key(k));
  std::cout << "  A weight compares one score with every other allowed score in its row;\n"
               "  it is not a co-occurrence count.\n";
}

/// Section 4: the residual addition.
void where_this_leaves_us(const std::vector<ch03::Combination>& combos) {
  attn::print_heading(std::cout, "4. Where this leaves us: add the contribution (identity output projection)");
  attn::print_claim(std::cout, ch03::claim_residual(combos));
  std::cout << "  The mixture is one contribution to an existing representation; a real block adds an output\n"
               "  projection, several heads, normalization and a feed-forward update.\n";
}

void draw_bars(attn::Plotter& plots, const std::vector<ch03::Combination>& combinations);
void draw_heads(attn::Plotter& plots, const ch03::ExampleSublayer& example);

/// Every figure: the bars, the heat maps and the two diagrams, from the sections' results.
void draw_plots(attn::Plotter& plots, const std::vector<ch03::Combination>& combinations,
                const ch03::ExampleSublayer& example, const ch03::Counts& example_counts) {
  draw_bars(plots, combinations);
  draw_heads(plots, example);
  plots.diagram("ch03_counting", ch03::counting_diagram(example, example_counts));
  plots.diagram("ch03_full_head", ch03::full_head_diagram(example));
}

/// The four query/value combinations as two bar panels (ch03_query_value_combos).
void draw_bars(attn::Plotter& plots, const std::vector<ch03::Combination>& combinations) {
  arma::mat weights(3, combinations.size()), mixtures(2, combinations.size());
  std::vector<std::string> combos;
  for (arma::uword c = 0; c < combinations.size(); ++c) {
    const auto& [q, v, p] = combinations[c];
    weights.col(c) = p.A.row(2).t();
    mixtures.col(c) = p.H.row(2).t();
    combos.push_back(ch03::choice_name(q) + " query, " + ch03::choice_name(v) + " values");
  }
  attn::bar_panels(plots, "ch03_query_value_combos",
                   "tower: the query chooses the weights, the values choose the content",
                   {{.title = "weights over the sources",
                     .xlabel = "source position",
                     .ylabel = "weight a_tower,j",
                     .categories = kEiffel,
                     .series = combos,
                     .values = weights,
                     .yrange = std::make_pair(0.0, 0.75),
                     .value_labels = false},
                    {.title = "mixture h = A V",
                     .xlabel = "coordinate",
                     .ylabel = "value",
                     .categories = {"structure", "Paris identity"},
                     .series = combos,
                     .values = mixtures,
                     .yrange = std::make_pair(0.0, 0.75),
                     .value_labels = false}});
}

/// The example sublayer's two weight matrices as heat maps (ch03_head1_weights, ch03_head2_weights).
void draw_heads(attn::Plotter& plots, const ch03::ExampleSublayer& example) {
  const std::vector<std::string>& words = example.words;
  const attn::MultiHeadPass& p = example.pass;
  const char* questions[2] = {"head 1 (bank asks for water)", "head 2 (bank asks for finance)"};
  for (std::size_t k = 0; k < 2; ++k) {
    plots.heatmap({.name = "ch03_head" + std::to_string(k + 1) + "_weights",
                   .title = std::string(questions[k]) + ": A(" + std::to_string(k + 1) + ") on \"" +
                            attn::join_words(words) + "\"",
                   .xlabel = "source position j",
                   .ylabel = "receiving position i",
                   .col_labels = words,
                   .row_labels = words,
                   .values = p.heads[k].A,
                   .cbrange = std::make_pair(0.0, 1.0)});
  }
}

const attn::cli::ProgramInfo kProgram{
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
  attn::PlotSettings plots;                 ///< --plots, --no-plots
};

po::options_description options() {
  po::options_description options("Options");
  attn::cli::add_common_options(options);
  // The ranges read_flags() enforces, stated from the same constants.
  const auto range = [](std::uint64_t most) { return " (1 to " + std::to_string(most) + ")"; };
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
  return options;
}

/// The flags, or nothing after --help.
std::optional<Flags> read_flags(int argc, char** argv) {
  po::variables_map vm;
  if (!attn::cli::parse(argc, argv, options(), kProgram, vm)) return std::nullopt;
  Flags f;
  f.sizes = {.tokens = attn::cli::integer(vm, "tokens", 1, ch03::kMaxTokens),
             .heads = attn::cli::integer(vm, "heads", 1, ch03::kMaxHeads),
             .blocks = attn::cli::integer(vm, "blocks", 1, ch03::kMaxBlocks)};
  f.custom = vm.count("query") || vm.count("values");
  if (vm.count("query")) f.query = ch03::parse_choice(attn::cli::choice(vm, "query", {"raw", "swap"}));
  if (vm.count("values")) f.values = ch03::parse_choice(attn::cli::choice(vm, "values", {"raw", "swap"}));
  f.words = attn::cli::sentence(vm, "sentence", "the river bank", attn::toy_embeddings());
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run(kProgram.name, [&] {
    const std::optional<Flags> flags = read_flags(argc, argv);
    if (!flags) return 0;
    const auto [n, h, N] = flags->sizes;
    const ch03::ExampleSublayer example = ch03::example_sublayer(flags->words);  // refuses unknown words first
    attn::Plotter plots(flags->plots);

    const std::optional<ch03::BuiltSublayer> built = ch03::build_sublayer(n, h);
    const std::vector<ch03::Combination> combos = ch03::three_roles();
    const ch03::Asymmetry asymmetric = ch03::asymmetric_scores();
    const ch03::Counts example_counts =  // the diagram's counts: the example's tokens and heads, one block
        ch03::count_objects(static_cast<long long>(example.words.size()),
                            static_cast<long long>(example.weights.heads.size()), 1);

    std::cout << "Chapter 03 - Values: matching sets the weights, values carry the content\n";
    print_separate_objects(example);
    counting(n, h, N, built, example);
    three_roles(combos);
    print_asymmetry(asymmetric);
    if (flags->custom) your_combination(combos, flags->query, flags->values);
    what_the_weight_measures();
    where_this_leaves_us(combos);

    std::cout << '\n';
    draw_plots(plots, combos, example, example_counts);
    plots.report(std::cout);
    return 0;
  });
}
