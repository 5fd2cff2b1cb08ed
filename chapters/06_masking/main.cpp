/// \file chapters/06_masking/main.cpp
/// \brief Chapter 06 program: the causal mask, the -inf fill, the causal view as renormalization,
/// and cross-attention.
///
/// Follows the article's "Causal masking: a decoder only looks left". Run `ch06_masking --help`.
#include <armadillo>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "common/apparatus/panels.hpp"
#include "common/attention/cross_attention.hpp"
#include "masking.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr int kPrecision = 2;  // the article prints weights to two decimals
const double kNan = std::numeric_limits<double>::quiet_NaN();

arma::rowvec row(const arma::mat& M, arma::uword i) { return M.row(i); }

arma::mat sentence(const std::string& words) { return attn::toy_embeddings().lookup(attn::split_sentence(words)); }

/// Which views of the reader's sentence to show (the widget's toggle).
struct Views {
  bool bidirectional = true;
  bool causal = true;
};

/// Section 1: the mask, the causal weights, and what a 0 fill would leak.
void the_mask(const ch06::MaskSection& m) {
  attn::print_heading(std::cout, "1. The causal mask: a decoder only looks left (\"" + attn::join_words(m.words) +
                                     "\", identity head)");
  std::cout << "  The mask added to the scores before softmax (row: receiving position, column: source):\n";
  attn::print_matrix(std::cout, m.words, m.mask, 0);
  std::cout << "  Unmasked scores X X^T / sqrt(" << m.open.Q.n_cols << "):\n";
  attn::print_matrix(std::cout, m.words, m.open.scores, kPrecision);
  std::cout << "  Causal weights, softmax(scores + mask); exp(-inf) = 0 removes the future exactly:\n";
  attn::print_matrix(std::cout, m.words, m.causal.A, kPrecision);
  attn::print_claim(std::cout, ch06::causal_weights_claim(m.causal.A));

  std::cout << "\n  The wrong fill: set the future scores to 0 instead of -inf. exp(0) = 1, so they keep a share:\n";
  attn::print_matrix(std::cout, m.words, m.leaky, kPrecision);
  attn::print_claim(std::cout, ch06::zero_fill_claim(m.leaky));
  std::cout << "  (\"" << m.words[0] << "\" at position 0 would put "
            << format_number(ch06::future_share(m.leaky)(0), kPrecision) << " of its attention on " << m.words[1]
            << " and " << m.words[2]
            << ", which it must not see)\n"
               "  Every row keeps at least its own position, so no row is left with nothing to normalize.\n";
}

/// Section 2: the article's illustrative five-token table, both views.
void five_tokens(const ch06::TiredCatSection& t) {
  attn::print_heading(std::cout, "2. \"" + attn::join_words(t.words) + "\": the article's illustrative weights");
  std::cout << "  Bidirectional (every row sums to 1; illustrative values, not from a model):\n";
  attn::print_matrix(std::cout, t.words, t.A, kPrecision);
  attn::print_claim(std::cout, ch06::row_sums_claim(t));
  std::cout << "  Causal: keep keys j <= i and divide each row by what survives:\n";
  attn::print_matrix(std::cout, t.words, t.renormalized, kPrecision);
  attn::print_claim(std::cout, ch06::renormalized_row_claim(t, 1));
  attn::print_claim(std::cout, ch06::mask_renormalizes_claim(t));
  std::cout << "  The scores behind that: log A (softmax of each row gives A back), then the mask:\n";
  attn::print_matrix(std::cout, t.words, t.masked_scores, kPrecision);
  std::cout << "  (below the diagonal these are the scores log A; the figure ch06_three_panels shows scores,\n"
               "  masked scores and their softmax side by side)\n";
}

/// Section 3: bank's row in two word orders.
void bank_rows(const ch06::WordOrderSection& s) {
  attn::print_heading(std::cout, "3. The same head, two word orders");
  const ch06::BothViews& last = s.bank_last;
  std::cout << "  \"" << attn::join_words(last.words) << "\": bank is last, so it already sees every position\n"
            << "    bidirectional bank row: " << format_vector(row(last.open.A, 2), kPrecision) << '\n';
  attn::print_claim(std::cout, ch06::unchanged_row_claim(s));
  const ch06::BothViews& middle = s.bank_middle;
  std::cout << "  \"" << attn::join_words(middle.words) << "\": bank is in the middle\n"
            << "    bidirectional bank row: " << format_vector(row(middle.open.A, 1), kPrecision) << "  over ("
            << middle.words[0] << ", " << middle.words[1] << ", " << middle.words[2] << ")\n";
  attn::print_claim(std::cout, ch06::blocked_source_claim(row(middle.causal.A, 1), 2, middle.words[2]));
  std::cout << "  The mask changed which sources are allowed; projecting and mixing did not change.\n";
}

/// Section 4: cross-attention, and the causal rule for a non-square pair.
void cross() {
  attn::print_heading(std::cout, "4. Cross-attention: queries from one sequence, keys and values from another");
  const auto q_words = attn::split_sentence("river bank");
  const auto kv_words = attn::split_sentence("the money bank the river");
  const arma::mat Xq = sentence("river bank"), Xkv = sentence("the money bank the river");
  const arma::mat I = arma::eye(4, 4);
  const attn::HeadPass pass = attn::cross_attention(Xq, Xkv, I, I, I);
  std::cout << "  queries: \"river bank\" (n_q = 2); keys and values: \"the money bank the river\" (n_kv = 5)\n";
  attn::print_claim(std::cout, ch06::cross_shapes_claim(pass, Xq.n_rows, Xkv.n_rows));
  attn::print_matrix(std::cout, q_words, pass.A, kPrecision);
  std::cout << "  (columns: " << attn::join_words(kv_words) << ")\n";
  // The newest two positions of the key sequence as queries, as when generating with a key/value cache.
  const arma::mat newest = Xkv.tail_rows(2);
  const attn::HeadPass offset = attn::cross_attention(newest, Xkv, I, I, I, {.causal = true, .offset = 3});
  std::cout << "  Causal needs an alignment. Queries \"the river\" = positions 3 and 4 of the key sequence (as\n"
               "  when generating with a key/value cache), offset 3: query i may read keys j <= i + 3\n";
  attn::print_matrix(std::cout, {"the", "river"}, offset.A, kPrecision);
  std::cout << "  (these rows equal rows 3 and 4 of causal self-attention on the key sequence)\n";
  try {
    attn::cross_attention(Xq, Xkv, I, I, I, {.causal = true});
  } catch (const std::invalid_argument& e) {
    const std::string why = e.what();  // long: its parenthesis goes on a line of its own
    const std::size_t cut = why.find(" (");
    std::cout << "  Causal without an offset is refused:\n    " << why.substr(0, cut) << "\n"
              << (cut == std::string::npos ? "" : "    " + why.substr(cut + 1) + "\n");
  }
}

/// The reader's sentence, in the chosen view(s).
void your_sentence(const ch06::BothViews& v, const Views& views) {
  const auto& words = v.words;
  attn::print_heading(std::cout, "Your sentence: \"" + attn::join_words(words) + "\"");
  if (views.bidirectional) {
    std::cout << "  Bidirectional weights:\n";
    attn::print_matrix(std::cout, words, v.open.A, kPrecision);
  }
  if (views.causal) {
    std::cout << "  Causal weights (zero above the diagonal):\n";
    attn::print_matrix(std::cout, words, v.causal.A, kPrecision);
    std::cout << "  causal mixtures H (finance, water, structure, generic):\n";
    attn::print_matrix(std::cout, words, v.causal.H, kPrecision);
  }
}

/// NaN above the diagonal, so the heatmaps mark those cells as masked.
arma::mat mark_future(arma::mat A) {
  for (arma::uword i = 0; i < A.n_rows; ++i) {
    for (arma::uword j = i + 1; j < A.n_cols; ++j) A(i, j) = kNan;
  }
  return A;
}

/// Weight heatmaps side by side: bidirectional on the left, causal (masked cells grey) on the right;
/// only the views asked for (the widget's toggle).
void side_by_side(attn::Plotter& plots, const std::string& name, const std::string& title,
                  const std::vector<std::string>& words, const arma::mat& open, const arma::mat& causal,
                  const Views& views = {}) {
  const auto panel = [&](const std::string& view, const arma::mat& A) {
    return attn::Heatmap{.title = view,
                         .xlabel = "key (source position)",
                         .ylabel = "query (receiving position)",
                         .col_labels = words,
                         .row_labels = words,
                         .values = A,
                         .cbrange = std::make_pair(0.0, 1.0),
                         .colorbox = false,
                         .xtics_rotation = -30};
  };
  std::vector<attn::Heatmap> panels;
  if (views.bidirectional) panels.push_back(panel("bidirectional", open));
  if (views.causal) panels.push_back(panel("causal (grey: masked, weight 0)", mark_future(causal)));
  attn::heatmap_panels(plots, name, title, panels);
}

/// The causal mask as two kinds of cell with a key: allowed (0 added, the score is kept) and
/// blocked (-inf added, the weight becomes exactly 0). A mask has no scale, so no colour bar.
void mask_key(attn::Plotter& plots, const std::vector<std::string>& words) {
  const arma::mat mask = attn::causal_mask(words.size());
  const arma::mat blocked = arma::conv_to<arma::mat>::from(mask == -arma::datum::inf);  // kind 1: -inf added
  std::vector<std::string> positions;  // "the (0)": the key's j / the query's i
  for (std::size_t k = 0; k < words.size(); ++k) positions.push_back(words[k] + " (" + std::to_string(k) + ")");
  plots.heatmap({.name = "ch06_mask",
                 .title = "The causal mask added to the scores before softmax",
                 .xlabel = "key j (column: the position being read)",
                 .ylabel = "query i (row: the position reading)",
                 .col_labels = positions,
                 .row_labels = positions,
                 .values = blocked,
                 .kinds = {{.label = "0", .colour = "#c6dbef", .key = "allowed (j <= i): 0 added, score kept"},
                           {.label = "-inf",
                            .colour = "#4d4d4d",
                            .text_colour = "white",
                            .key = "blocked (j > i): -inf added, weight 0"}}});
}

/// The article's three panels for the five-token table: scores, the scores with the future masked
/// (-inf, grey), and the softmax of each masked row (the causal weights, exactly 0 above the diagonal).
void three_panels(attn::Plotter& plots, const ch06::TiredCatSection& t) {
  const auto panel = [&](const std::string& title, const arma::mat& values,
                         std::optional<std::pair<double, double>> range, int precision) {
    return attn::Heatmap{.title = title,
                         .xlabel = "key (row: the query reading)",
                         .col_labels = t.words,
                         .row_labels = t.words,
                         .values = values,
                         .precision = precision,
                         .cbrange = range,
                         .nan_label = "-inf",
                         .colorbox = false,  // every cell prints its number; three bars would crowd them
                         .xtics_rotation = -30};
  };
  const double lo = std::floor(t.scores.min()), hi = std::ceil(t.scores.max());
  std::ostringstream title;  // (a stream: GCC 12 misreads a chain of string + here as an overflow)
  title << '"' << attn::join_words(t.words) << "\": scores, masked, softmax (illustrative values)";
  attn::heatmap_panels(
      plots, "ch06_three_panels", title.str(),
      {panel("scores (log A)", t.scores, std::make_pair(lo, hi), 1),
       panel("masked: -inf above the diagonal", mark_future(t.masked_scores), std::make_pair(lo, hi), 1),
       panel("softmax of each row", t.masked, std::make_pair(0.0, 1.0), kPrecision)});
}

void draw_plots(attn::Plotter& plots, const ch06::TiredCatSection& cat, const ch06::BothViews& yours,
                const Views& views) {
  std::ostringstream title;  // (a stream: GCC 12 misreads a chain of string + here as an overflow)
  title << '"' << attn::join_words(cat.words) << "\": illustrative weights, both views";
  side_by_side(plots, "ch06_tired_cat", title.str(), cat.words, cat.A, cat.renormalized);

  mask_key(plots, cat.words);
  three_panels(plots, cat);

  std::ostringstream yours_title;
  yours_title << '"' << attn::join_words(yours.words) << "\": identity head, "
              << (!views.causal          ? "bidirectional view"
                  : !views.bidirectional ? "causal view"
                                         : "both views");
  side_by_side(plots, "ch06_bank_river", yours_title.str(), yours.words, yours.open.A, yours.causal.A, views);
}

const attn::cli::ProgramInfo kProgram{
    "ch06_masking", "the causal mask, why its fill is -inf, the causal view as renormalization, cross-attention",
    "\"Causal masking: a decoder only looks left\"",
    "  ch06_masking\n  ch06_masking --sentence \"the bank river\" --causal\n"
    "  ch06_masking --sentence \"bank the money river\" --bidirectional\n  ch06_masking --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  std::vector<std::string> words;  ///< --sentence (default "the bank river", the plotted one)
  Views views;                     ///< --causal, --bidirectional (neither: both)
  bool custom = false;             ///< print "Your sentence" (one of those flags was given)
  attn::PlotSettings plots;        ///< --plots, --no-plots
};

/// The flags, or nothing after --help.
std::optional<Flags> read_flags(int argc, char** argv) {
  po::options_description options("Options");
  attn::cli::add_common_options(options);
  // clang-format off
  options.add_options()
      ("sentence", po::value<std::string>()->value_name("WORDS"),
       "show this sentence's weights (words from: the, river, money, bank); default plot: \"the bank river\"")
      ("causal", "show and plot only the causal view of --sentence")
      ("bidirectional", "show and plot only the bidirectional view of --sentence");
  // clang-format on
  po::variables_map vm;
  if (!attn::cli::parse(argc, argv, options, kProgram, vm)) return std::nullopt;
  if (vm.count("causal") && vm.count("bidirectional")) {
    throw attn::cli::UsageError("--causal and --bidirectional exclude each other (give neither to see both)");
  }
  Flags f;
  f.views = {.bidirectional = vm.count("causal") == 0, .causal = vm.count("bidirectional") == 0};
  f.custom = vm.count("sentence") || vm.count("causal") || vm.count("bidirectional");
  f.words = attn::cli::sentence(vm, "sentence", "the bank river", attn::toy_embeddings());
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run(kProgram.name, [&] {
    const std::optional<Flags> flags = read_flags(argc, argv);
    if (!flags) return 0;
    const ch06::BothViews yours = ch06::both_views(flags->words);  // refuses unknown words before printing anything
    attn::Plotter plots(flags->plots);
    const ch06::MaskSection mask = ch06::mask_section();
    const ch06::TiredCatSection cat = ch06::tired_cat_section();
    const ch06::WordOrderSection orders = ch06::word_order_section();

    std::cout << "Chapter 06 - Causal masking: a decoder only looks left\n";
    the_mask(mask);
    five_tokens(cat);
    bank_rows(orders);
    cross();
    if (flags->custom) your_sentence(yours, flags->views);

    std::cout << '\n';
    draw_plots(plots, cat, yours, flags->views);
    plots.report(std::cout);
    return 0;
  });
}
