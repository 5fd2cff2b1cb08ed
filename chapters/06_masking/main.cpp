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
#include <sstream>

#include "common/attn.hpp"
#include "common/cross_attention.hpp"
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
void the_mask() {
  attn::print_heading(std::cout, "1. The causal mask: a decoder only looks left (\"the river bank\", identity head)");
  const auto words = attn::split_sentence("the river bank");
  const arma::mat X = sentence("the river bank");
  std::cout << "  The mask added to the scores before softmax (row: receiving position, column: source):\n";
  attn::print_matrix(std::cout, words, attn::causal_mask(3), 0);
  const attn::HeadPass causal = ch06::identity_head(X, true);
  const attn::HeadPass open = ch06::identity_head(X, false);
  std::cout << "  Unmasked scores X X^T / sqrt(4):\n";
  attn::print_matrix(std::cout, words, open.scores, kPrecision);
  std::cout << "  Causal weights, softmax(scores + mask); exp(-inf) = 0 removes the future exactly:\n";
  attn::print_matrix(std::cout, words, causal.A, kPrecision);
  std::cout << "  above the diagonal: " << (arma::trimatu(causal.A, 1).max() == 0.0 ? "every entry exactly 0" : "NOT 0")
            << ";\n  row sums " << format_vector(arma::vec(arma::sum(causal.A, 1)), 12) << "; row 0 = "
            << format_vector(row(causal.A, 0), kPrecision) << "   [mask_01]\n";

  const arma::mat leaky = attn::softmax_rows(ch06::zero_fill(open.scores));
  std::cout << "\n  The wrong fill: set the future scores to 0 instead of -inf. exp(0) = 1, so they keep a share:\n";
  attn::print_matrix(std::cout, words, leaky, kPrecision);
  const arma::vec leaked = ch06::future_share(leaky);
  std::cout << "  share leaked to the future, per row: " << format_vector(leaked, kPrecision)
            << "   [mask_02]\n  (\"the\" at position 0 would put " << format_number(leaked(0), kPrecision)
            << " of its attention on river and bank, which it must not see)\n"
               "  Every row keeps at least its own position, so no row is left with nothing to normalize.\n";
}

/// Section 2: the article's illustrative five-token table, both views.
void five_tokens() {
  attn::print_heading(std::cout, "2. \"the tired cat finally slept\": the article's illustrative weights");
  const auto& words = ch06::tired_cat_words();
  const arma::mat A = ch06::tired_cat_weights();
  std::cout << "  Bidirectional (every row sums to 1; illustrative values, not from a model):\n";
  attn::print_matrix(std::cout, words, A, kPrecision);
  std::cout << "  row sums: " << format_vector(arma::vec(arma::sum(A, 1)), kPrecision) << "   [mask_05]\n";
  const arma::mat renorm = ch06::renormalize_causal(A);
  const arma::mat masked = ch06::mask_log_weights(A);
  std::cout << "  Causal: keep keys j <= i and divide each row by what survives:\n";
  attn::print_matrix(std::cout, words, renorm, kPrecision);
  std::cout << "  tired: [0.05, 0.45] / 0.50 -> " << format_vector(row(renorm, 1), kPrecision) << "   [mask_05]\n"
            << "  The same table by the mask: softmax(log A + causal mask); largest difference from the\n"
            << "  renormalized rows: " << std::scientific << std::setprecision(1) << arma::abs(renorm - masked).max()
            << std::defaultfloat << " (equal up to rounding)   [mask_05]\n";
}

/// Section 3: bank's row in two word orders.
void bank_rows() {
  attn::print_heading(std::cout, "3. The same head, two word orders");
  const arma::mat rb = sentence("the river bank");
  std::cout << "  \"the river bank\": bank is last, so it already sees every position\n"
            << "    bidirectional bank row: " << format_vector(row(ch06::identity_head(rb, false).A, 2), kPrecision)
            << "\n    causal bank row:        " << format_vector(row(ch06::identity_head(rb, true).A, 2), kPrecision)
            << "   unchanged [mask_03]\n";
  const arma::mat br = sentence("the bank river");
  const arma::rowvec causal = row(ch06::identity_head(br, true).A, 1);
  std::cout << "  \"the bank river\": bank is in the middle\n"
            << "    bidirectional bank row: " << format_vector(row(ch06::identity_head(br, false).A, 1), kPrecision)
            << "  over (the, bank, river)\n"
            << "    causal bank row:        " << format_vector(causal, kPrecision) << "  river gets "
            << (causal(2) == 0.0 ? "exactly 0" : format_number(causal(2), 17)) << "   [mask_04]\n"
            << "  The mask changed which sources are allowed; projecting and mixing did not change.\n";
}

/// Section 4: cross-attention, and the causal rule for a non-square pair.
void cross() {
  attn::print_heading(std::cout, "4. Cross-attention: queries from one sequence, keys and values from another");
  const auto q_words = attn::split_sentence("river bank");
  const auto kv_words = attn::split_sentence("the money bank the river");
  const arma::mat Xq = sentence("river bank"), Xkv = sentence("the money bank the river");
  const arma::mat I = arma::eye(4, 4);
  const attn::HeadPass pass = attn::cross_attention(Xq, Xkv, I, I, I);
  std::cout << "  queries: \"river bank\" (n_q = 2); keys and values: \"the money bank the river\" (n_kv = 5)\n"
            << "  Q " << attn::shape(pass.Q) << ", K " << attn::shape(pass.K) << ", V " << attn::shape(pass.V)
            << ", A " << attn::shape(pass.A) << ", H " << attn::shape(pass.H) << "   [mask_06]\n";
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
void your_sentence(const std::vector<std::string>& words, const Views& views) {
  attn::print_heading(std::cout, "Your sentence: \"" + attn::join_words(words) + "\"");
  const arma::mat X = attn::toy_embeddings().lookup(words);
  if (views.bidirectional) {
    std::cout << "  Bidirectional weights:\n";
    attn::print_matrix(std::cout, words, ch06::identity_head(X, false).A, kPrecision);
  }
  if (views.causal) {
    const attn::HeadPass p = ch06::identity_head(X, true);
    std::cout << "  Causal weights (zero above the diagonal):\n";
    attn::print_matrix(std::cout, words, p.A, kPrecision);
    std::cout << "  causal mixtures H (finance, water, structure, generic):\n";
    attn::print_matrix(std::cout, words, p.H, kPrecision);
  }
}

/// NaN above the diagonal, so the heatmaps mark those cells as masked.
arma::mat mark_future(arma::mat A) {
  for (arma::uword i = 0; i < A.n_rows; ++i) {
    for (arma::uword j = i + 1; j < A.n_cols; ++j) A(i, j) = kNan;
  }
  return A;
}

std::string cells(const arma::mat& M) {
  std::ostringstream out;
  out << "# column\trow\tweight (NaN: masked)\n";
  for (arma::uword r = 0; r < M.n_rows; ++r) {
    for (arma::uword c = 0; c < M.n_cols; ++c) {
      out << c << '\t' << r << '\t';
      if (std::isnan(M(r, c))) out << "NaN\n"; else out << M(r, c) << '\n';
    }
    out << '\n';
  }
  return out.str();
}

std::string tics(const std::vector<std::string>& labels) {
  std::string out = "(";
  for (std::size_t i = 0; i < labels.size(); ++i) out += (i ? ", " : "") + attn::gnuplot_quote(labels[i]) + " " + std::to_string(i);
  return out + ")";
}

/// Two weight heatmaps side by side: bidirectional on the left, causal (masked cells grey) on the right.
void side_by_side(attn::Plotter& plots, const std::string& name, const std::string& title,
                  const std::vector<std::string>& words, const arma::mat& open, const arma::mat& causal) {
  const double n = static_cast<double>(words.size());
  plots.figure(name, title, {cells(open), cells(mark_future(causal))}, [&](const std::vector<std::string>& dat) {
    std::ostringstream gp;
    gp << "unset title\nset multiplot layout 1,2 title " << attn::gnuplot_quote(title) << "\n"
       << "set size ratio 1\nset xrange [-0.5:" << n - 0.5 << "]\nset yrange [" << n - 0.5 << ":-0.5]\n"
       << "set xtics " << tics(words) << " nomirror rotate by -30\nset ytics " << tics(words) << " nomirror\n"
       << "set xlabel 'key (source position)'\nset ylabel 'query (receiving position)'\n"
       << "set palette defined (0 '#f7fbff', 1 '#9ecae1', 2 '#4292c6')\nset cbrange [0:1]\nunset colorbox\nunset key\n"
       << "set object 1 rectangle from -0.5,-0.5 to " << n - 0.5 << "," << n - 0.5
       << " behind fillcolor rgb 'gray70' fillstyle solid noborder\n";
    const char* panel[2] = {"bidirectional", "causal (grey: masked, weight 0)"};
    for (int k = 0; k < 2; ++k) {
      gp << "set title " << attn::gnuplot_quote(panel[k]) << "\nplot " << dat[k] << " using 1:2:3 with image, " << dat[k]
         << " using 1:2:(valid(3) ? sprintf('%.2f', $3) : 'masked') with labels font ',10'\n";
    }
    gp << "unset multiplot\n";
    return gp.str();
  });
}

/// The causal mask as two kinds of cell with a key: allowed (0 added, the score is kept) and
/// blocked (-inf added, the weight becomes exactly 0). A mask has no scale, so no colour bar.
void mask_key(attn::Plotter& plots, const std::vector<std::string>& words) {
  const arma::mat mask = attn::causal_mask(words.size());
  std::ostringstream data;
  data << "# key j\tquery i\tblocked (1: -inf added)\tmask value\n";
  for (arma::uword i = 0; i < mask.n_rows; ++i) {
    for (arma::uword j = 0; j < mask.n_cols; ++j) {
      const bool blocked = std::isinf(mask(i, j));
      data << j << '\t' << i << '\t' << blocked << '\t' << (blocked ? "\"-inf\"" : "\"0\"") << '\n';
    }
  }
  std::vector<std::string> positions;  // "the (0)": the key's j / the query's i
  for (std::size_t k = 0; k < words.size(); ++k) positions.push_back(words[k] + " (" + std::to_string(k) + ")");
  const double n = static_cast<double>(words.size());
  plots.figure("ch06_mask", "The causal mask added to the scores before softmax", {data.str()},
               [&](const std::vector<std::string>& dat) {
                 std::ostringstream gp;
                 gp << "set size ratio 1\nset xrange [-0.5:" << n - 0.5 << "]\nset yrange [" << n - 0.5 << ":-0.5]\n"
                    << "set xtics " << tics(positions) << " nomirror\nset ytics " << tics(positions) << " nomirror\n"
                    << "set xlabel 'key j (column: the position being read)'\n"
                    << "set ylabel 'query i (row: the position reading)'\n"
                    << "set palette defined (0 '#c6dbef', 1 '#4d4d4d')\nset cbrange [0:1]\nunset colorbox\n"
                    << "set key outside right top vertical Left reverse samplen 2 spacing 1.8 box\n"
                    << "set style fill solid 1.0 border rgb 'white'\n"
                    << "plot " << dat[0] << " using 1:2:(0.5):(0.5):3 with boxxyerror fillcolor palette notitle, "
                    << dat[0] << " using 1:2:4:($3 > 0.5 ? 0xffffff : 0x000000) with labels textcolor rgb variable "
                    << "font ',12' notitle, "
                    << "keyentry with boxes fillcolor rgb '#c6dbef' title 'allowed (j <= i): 0 added, score kept', "
                    << "keyentry with boxes fillcolor rgb '#4d4d4d' title 'blocked (j > i): -inf added, weight 0'\n";
                 return gp.str();
               });
}

void draw_plots(attn::Plotter& plots, const std::vector<std::string>& words) {
  const arma::mat A = ch06::tired_cat_weights();
  side_by_side(plots, "ch06_tired_cat", "\"the tired cat finally slept\": illustrative weights, both views",
               ch06::tired_cat_words(), A, ch06::renormalize_causal(A));

  mask_key(plots, ch06::tired_cat_words());

  const arma::mat X = attn::toy_embeddings().lookup(words);
  std::ostringstream title;  // (a stream: GCC 12 misreads a chain of string + here as an overflow)
  title << '"' << attn::join_words(words) << "\": identity head, both views";
  side_by_side(plots, "ch06_bank_river", title.str(), words,
               ch06::identity_head(X, false).A, ch06::identity_head(X, true).A);
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run("ch06_masking", [&] {
    po::options_description options("Options");
    attn::cli::add_common_options(options);
    options.add_options()
        ("sentence", po::value<std::string>()->value_name("WORDS"),
         "show this sentence's weights (words from: the, river, money, bank); default plot: \"the bank river\"")
        ("causal", "show only the causal view of --sentence")
        ("bidirectional", "show only the bidirectional view of --sentence");
    po::variables_map vm;
    const attn::cli::ProgramInfo info{
        "ch06_masking", "the causal mask, why its fill is -inf, the causal view as renormalization, cross-attention",
        "\"Causal masking: a decoder only looks left\"",
        "  ch06_masking\n  ch06_masking --sentence \"the bank river\" --causal\n"
        "  ch06_masking --sentence \"bank the money river\" --bidirectional\n  ch06_masking --no-plots"};
    if (!attn::cli::parse(argc, argv, options, info, vm)) return 0;
    if (vm.count("causal") && vm.count("bidirectional")) {
      throw attn::cli::UsageError("--causal and --bidirectional exclude each other (give neither to see both)");
    }
    const Views views{.bidirectional = vm.count("causal") == 0, .causal = vm.count("bidirectional") == 0};
    const bool custom = vm.count("sentence") || vm.count("causal") || vm.count("bidirectional");
    const std::vector<std::string> words =
        attn::split_sentence(vm.count("sentence") ? vm["sentence"].as<std::string>() : "the bank river");
    attn::toy_embeddings().lookup(words);  // validate the words before printing anything
    attn::Plotter plots(attn::cli::plot_settings(vm));

    std::cout << "Chapter 06 - Causal masking: a decoder only looks left\n";
    the_mask();
    five_tokens();
    bank_rows();
    cross();
    if (custom) your_sentence(words, views);

    std::cout << '\n';
    draw_plots(plots, words);
    plots.report(std::cout);
    return 0;
  });
}
