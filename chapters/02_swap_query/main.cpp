/// \file chapters/02_swap_query/main.cpp
/// \brief Chapter 02 program: a learned query asks a different question than raw similarity.
///
/// Follows the article's "When raw similarity asks the wrong question", "Producing a query", the
/// query/key space and null-space sections, and "Try three hypothetical matching directions".
/// Run `ch02_swap_query --help` for the flags.
#include <armadillo>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "common/attn.hpp"
#include "common/panels.hpp"
#include "swap_query.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr int kTeaching = 4;  // the article prints the teaching space to four decimals
constexpr arma::uword kMaxWidth = 100000, kMaxDk = 2048, kMaxEntries = 20000000;
constexpr arma::arma_rng::seed_type kSeed = 2017;

std::string row(const arma::mat& M, arma::uword r, int precision) {
  return format_vector(arma::rowvec(M.row(r)), precision);
}

std::string column(const arma::vec& v, int precision) { return format_vector(v, precision); }

/// Section 1: raw similarity in the teaching space.
void raw_similarity(const arma::mat& X2) {
  attn::print_heading(std::cout, "1. When raw similarity asks the wrong question (teaching space, Wq = Wk = Wv = I)");
  std::cout << "  Axes: structure, Paris identity. the = [0, 0] (a zero filler), Eiffel = [0, 1], tower = [1, 0].\n";
  const attn::HeadPass raw = ch02::teaching_head(X2, arma::eye(2, 2));
  std::cout << "  tower . Eiffel = " << format_number(arma::dot(X2.row(2), X2.row(1)), 0)
            << ", tower . the = " << format_number(arma::dot(X2.row(2), X2.row(0)), 0)
            << ", tower . tower = " << format_number(arma::dot(X2.row(2), X2.row(2)), 0) << '\n'
            << "  tower's weights over (the, Eiffel, tower): " << row(raw.A, 2, kTeaching) << "   [swap_01]\n"
            << "  tower's mixture (structure, Paris identity): " << row(raw.H, 2, kTeaching) << "   [swap_02]\n"
            << "  weight(the) == weight(Eiffel): " << (raw.A(2, 0) == raw.A(2, 1) ? "exactly" : "NOT")
            << " (both scores are 0):\n  Eiffel ties with the zero filler   [swap_03]\n"
            << "  Some Paris identity still arrives (softmax gives every position a share), but nothing in the\n"
               "  rule prefers Eiffel. The matching rule is at fault, not the weighted mixing.\n";
}

/// Section 2: the swap query and the shapes of the objects involved.
void producing_a_query(const arma::mat& X2) {
  attn::print_heading(std::cout, "2. Producing a query: Wq = swap = [[0, 1], [1, 0]]");
  const arma::mat swap = ch02::swap_matrix();
  const attn::HeadPass pass = ch02::teaching_head(X2, swap);
  std::cout << "  tower's weights: " << row(pass.A, 2, kTeaching) << "   [swap_04]\n"
            << "  tower's mixture: " << row(pass.H, 2, kTeaching) << "   [swap_05]\n"
            << "  Queries Q = X2 swap, one row per token (the same matrix acts on every row):   [swap_06]\n";
  attn::print_matrix(std::cout, {"the", "Eiffel", "tower"}, pass.Q, 0);
  std::cout << "  tower's query [0, 1] now points along Eiffel's identity coordinate; its input stays [1, 0].\n\n";
  const auto& table = attn::teaching_space_2d();
  attn::Table t({"object", "shape", "here", "what varies"});
  t.add({"embedding table", "vocabulary size x d", attn::shape(table.E()), "one learned row per token ID"});
  t.add({"input X", "n x d", attn::shape(X2), "the representations in this sequence"});
  t.add({"query projection Wq", "d x d_k", attn::shape(swap), "shared parameters, changed by training"});
  t.add({"queries Q = X Wq", "n x d_k", attn::shape(pass.Q), "computed for each position on this pass"});
  t.print(std::cout);
}

/// Section 3: what a query map ignores.
void null_space(arma::uword width, arma::uword d_k) {
  attn::print_heading(std::cout, "3. What the query map reads and ignores (column form: M = Wq^T, q^T = M x^T)");
  const arma::mat M = ch02::small_query_map();
  const ch02::NullSpace ns = ch02::null_space(M);
  std::cout << "  M = [[1, 0, 1], [0, 1, 1]] reads x1 + x3 and x2 + x3.\n"
            << "  Armadillo: rank(M) = " << ns.rank << ", null space of dimension " << ns.nullity
            << ", unit basis vector " << column(ns.basis.col(0), 4) << '\n';
  const arma::vec n{1.0, 1.0, -1.0}, e{1.0, 2.0, 3.0};
  std::cout << "  n = " << column(n, 0) << " (the basis vector times " << format_number(n(0) / ns.basis(0, 0), 4)
            << "):  M n = " << column(M * n, 0) << "   [qk_01]\n"
            << "  e = " << column(e, 0) << ", e + n = " << column(e + n, 0) << ":  M e = " << column(M * e, 0)
            << ", M (e + n) = " << column(M * (e + n), 0) << "   [qk_02]\n"
            << "  M (e + 2.5 n) = " << column(M * (e + 2.5 * n), 0)
            << ": any multiple of n leaves the query unchanged.\n"
            << "  The map cannot tell e from e + n: it loses how far the input lies along (1, 1, -1), not the\n"
            << "  third coordinate (which feeds both sums). Other heads, keys, values and the residual stream\n"
            << "  still see it.\n";

  std::cout << "\n  The width example: a random " << width << " x " << d_k << " query projection (seed " << kSeed
            << ")\n";
  const ch02::WidthExample w = ch02::width_example(width, d_k, kSeed);
  std::cout << "  rank(Wq) = " << w.rank << ", null space of dimension " << width << " - " << w.rank << " = "
            << w.nullity << "   [qk_03]\n";
  if (w.null_samples > 0) {
    std::cout << "  " << w.null_samples << " sampled null-space rows n: max |n Wq| / max |Wq| "
              << (w.null_query_max < 1e-12 ? "< 1e-12" : "= " + std::to_string(w.null_query_max))
              << "; adding one to a random input\n  changes its query by "
              << (w.query_change_max < 1e-9 ? "< 1e-9" : std::to_string(w.query_change_max)) << " (rounding only)\n";
  }
  std::cout << "  computed in " << format_number(w.seconds, 3) << " s (wall time)\n"
            << "  The query map reads " << w.rank << " independent input directions of " << width << "; ";
  if (w.nullity > 0) {
    std::cout << "the other " << w.nullity << " are invisible.\n";
  } else {
    std::cout << "none is invisible (d_k = " << d_k << " >= width " << width << ").\n";
  }
}

void print_match(const ch02::MatchTable& t) {
  attn::Table table({"token", "its query x Wq", "its key x Wk", "q_" + t.words[t.receiver] + " . key / sqrt(3)",
                     "weight"});
  for (arma::uword j = 0; j < t.words.size(); ++j) {
    table.add({t.words[j], row(t.Q, j, 2), row(t.K, j, 2), format_number(t.scores(j), 3),
               format_number(100.0 * t.weights(j), 1) + "%"});
  }
  table.print(std::cout, "    ");
}

/// Section 4: the matching widget, for both article sentences or the reader's own.
void matching_directions(const std::string& label, const arma::mat& Wq, bool article_preset,
                         const std::vector<std::vector<std::string>>& sentences) {
  // The heading names the preset; its question, when there is one, follows on its own line.
  const std::size_t question = label.find(" (");
  attn::print_heading(std::cout, "4. What could this query match? Wq: " + label.substr(0, question));
  if (question != std::string::npos) std::cout << "  " << label.substr(question + 1) << '\n';
  std::cout << "  Wq (rows: input finance, water, structure, generic; columns: matching finance, water, structure):\n";
  attn::print_matrix(std::cout, attn::toy_embeddings().axes(), Wq, 2);
  std::cout << "  Wk keeps finance, water and structure and drops generic; it stays fixed.\n";
  arma::rowvec first_query;
  for (const auto& words : sentences) {
    const ch02::MatchTable t = ch02::match_last(words, Wq, ch02::fixed_wk());
    const arma::rowvec q = t.Q.row(t.receiver);
    std::cout << "\n  \"" << attn::join_words(words) << "\", receiving token " << t.words[t.receiver] << ": q = "
              << format_vector(q, 2) << (article_preset ? "   [qk_04]" : "") << '\n';
    print_match(t);
    if (article_preset) {
      std::cout << "    keys [qk_05], scores [qk_06], weights [qk_07]\n";
      article_preset = false;  // the claims are about the first (river) sentence
    }
    if (first_query.is_empty()) {
      first_query = q;
    } else {
      std::cout << "    " << t.words[t.receiver] << "'s query is "
                << (arma::approx_equal(q, first_query, "absdiff", 0.0) ? "identical" : "different")
                << " in both sentences; only the available keys changed   [qk_08]\n";
    }
  }
  std::cout << "\n  A hand-set teaching construction: a trained head learns numerical matching directions, not\n"
               "  named questions, and a preset changing Wq is not a head choosing a new matrix per sentence.\n";
}

void draw_plots(attn::Plotter& plots, const arma::mat& X2, const std::string& label, const arma::mat& Wq,
                const std::vector<std::string>& words) {
  const attn::HeadPass raw = ch02::teaching_head(X2, arma::eye(2, 2));
  const attn::HeadPass swapped = ch02::teaching_head(X2, ch02::swap_matrix());
  plots.bars({.name = "ch02_tower_weights",
              .title = "tower's weights: raw similarity ties Eiffel with the filler; the swap query picks Eiffel",
              .xlabel = "source position",
              .ylabel = "weight a_tower,j",
              .categories = {"the", "Eiffel", "tower"},
              .series = {"raw query (Wq = I)", "swap query (Wq = swap)"},
              .values = arma::join_rows(arma::vec(raw.A.row(2).t()), arma::vec(swapped.A.row(2).t())),
              .yrange = std::make_pair(0.0, 0.65),
              .precision = 4});

  // The matching space: every vocabulary word's key, the receiver's query direction.
  const ch02::MatchTable t = ch02::match_last(words, Wq, ch02::fixed_wk());
  const auto& table = attn::toy_embeddings();
  const arma::mat keys = table.E() * ch02::fixed_wk();  // vocabulary x 3
  std::ostringstream in, out;
  in << "# keys of words in the sentence: finance water structure word\n";
  out << "# keys of words not in the sentence: finance water structure word\n";
  for (arma::uword r = 0; r < keys.n_rows; ++r) {
    const std::string& w = table.words()[r];
    const bool present = std::find(words.begin(), words.end(), w) != words.end();
    (present ? in : out) << keys(r, 0) << ' ' << keys(r, 1) << ' ' << keys(r, 2) << " \"k_" << w << "\"\n";
  }
  if (out.str().find('\n') == out.str().size() - 1) out << "NaN NaN NaN \"\"\n";
  const arma::rowvec q = t.Q.row(t.receiver);
  const double qn = arma::norm(q);
  const arma::rowvec dir = qn > 0 ? arma::rowvec(q / qn) : arma::rowvec(3, arma::fill::zeros);
  std::ostringstream qd;
  qd << "# query of " << t.words[t.receiver] << " = " << format_vector(q, 4)
     << ", rescaled to length 1: x y z dx dy dz\n0 0 0 " << dir(0) << ' ' << dir(1) << ' ' << dir(2) << '\n';
  // Axes start at 0 unless a key or the query direction is negative, so points sit above the floor.
  const std::string lo = format_number(std::min({0.0, keys.min(), dir.min()}) - 0.1, 2);
  plots.figure("ch02_matching_space",
               "Matching space (" + label + "): keys, and " + t.words[t.receiver] + "'s query direction",
               {in.str(), out.str(), qd.str()}, [&](const std::vector<std::string>& dat) {
                 return "set xlabel 'finance'\nset ylabel 'water'\nset zlabel 'structure' rotate parallel offset 2, 0\n"
                        "set xrange [" + lo + ":1.1]\nset yrange [" + lo + ":1.1]\nset zrange [" + lo +
                        ":1.1]\nset ticslevel 0\nset xyplane at 0\n"
                        // Scaled up and lifted so the cube fills the canvas below the legend.
                        "set view 62, 35, 1.12, 1.2\nset origin 0.03, 0.04\nset grid\nset key top left\n"
                        "splot " + dat[0] + " using 1:2:3 with impulses dashtype 3 linecolor rgb '#2b8cbe' notitle, " + dat[0] +
                        " using 1:2:3 with points pointtype 7 pointsize 2 linecolor rgb '#2b8cbe'"
                        " title 'keys in the sentence', " + dat[0] +
                        " using 1:2:3:4 with labels offset 1.5, 0.8 notitle, " + dat[1] +
                        " using 1:2:3 with points pointtype 6 pointsize 2 linecolor rgb 'gray60' "
                        "title 'keys of absent words', " + dat[1] +
                        " using 1:2:3:4 with labels offset 1.5, 0.8 textcolor rgb 'gray50' notitle, " + dat[2] +
                        " using 1:2:3:4:5:6 with vectors head filled linewidth 3 linecolor rgb '#e6550d' title "
                        "'query direction (rescaled; scores use the full query)'\n";
               });

  // bank's weights for every preset in both article sentences.
  std::vector<attn::BarChart> panels;
  for (const std::string sentence : {"the river bank", "the money bank"}) {
    const auto ws = attn::split_sentence(sentence);
    std::string title = "\"";
    title.append(sentence).append("\"");
    arma::mat values(3, 3);
    for (const ch02::Preset p : {ch02::Preset::water, ch02::Preset::finance, ch02::Preset::structure}) {
      values.col(static_cast<arma::uword>(p)) =
          ch02::match_last(ws, ch02::preset_wq(p), ch02::fixed_wk()).weights.t();
    }
    panels.push_back({.title = title,
                      .xlabel = "source position",
                      .ylabel = "bank's weight",
                      .categories = ws,
                      .series = {"find water", "find finance", "find structure"},
                      .values = values,
                      .yrange = std::make_pair(0.0, 0.75),
                      .precision = 2});
  }
  attn::bar_panels(plots, "ch02_bank_presets", "bank's weights under the three hand-set queries, in both sentences",
                   panels);
}

arma::uword checked_size(const po::variables_map& vm, const char* flag, arma::uword max) {
  const long long v = vm[flag].as<long long>();
  if (v <= 0 || static_cast<unsigned long long>(v) > max) {
    throw attn::cli::UsageError(std::string("--") + flag + " must be between 1 and " + std::to_string(max) +
                                " (got " + std::to_string(v) + ")");
  }
  return static_cast<arma::uword>(v);
}

/// The reader's --wq as the 4 x 3 query matrix; a malformed one is a usage error naming the flag.
arma::mat custom_query_matrix(const std::string& text) {
  try {
    return ch02::parse_matrix(text, 4, 3);
  } catch (const std::invalid_argument& e) {
    throw attn::cli::UsageError(std::string("--wq: ") + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run("ch02_swap_query", [&] {
    po::options_description options("Options");
    attn::cli::add_common_options(options);
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
         "query width of the random query map in the null-space example");
    po::variables_map vm;
    const attn::cli::ProgramInfo info{
        "ch02_swap_query", "a learned query asks a different question than raw similarity",
        "\"When raw similarity asks the wrong question\", \"Producing a query\", \"What is query/key space\", "
        "\"What information does the query map lose?\", \"Try three hypothetical matching directions\"",
        "  ch02_swap_query\n  ch02_swap_query --preset finance\n"
        "  ch02_swap_query --wq \"0 0 0; 0 0 0; 2 2 0; 0 0 0\" --sentence \"the money river bank\"\n"
        "  ch02_swap_query --width 4096 --dk 64 --no-plots"};
    if (!attn::cli::parse(argc, argv, options, info, vm)) return 0;

    const arma::uword width = checked_size(vm, "width", kMaxWidth), d_k = checked_size(vm, "dk", kMaxDk);
    if (width * d_k > kMaxEntries) {
      throw attn::cli::UsageError("--width x --dk must be at most " + std::to_string(kMaxEntries) + " entries (got " +
                                  std::to_string(width * d_k) + ")");
    }
    const ch02::Preset preset = ch02::parse_preset(vm["preset"].as<std::string>());
    const bool custom_wq = vm.count("wq") > 0;
    if (custom_wq && !vm["preset"].defaulted()) throw attn::cli::UsageError("give either --preset or --wq, not both");
    const arma::mat Wq = custom_wq ? custom_query_matrix(vm["wq"].as<std::string>()) : ch02::preset_wq(preset);
    const std::string label = custom_wq ? "custom" : "find " + ch02::preset_name(preset) + " evidence";
    std::vector<std::vector<std::string>> sentences;
    if (vm.count("sentence")) {
      sentences.push_back(attn::split_sentence(vm["sentence"].as<std::string>()));
      attn::toy_embeddings().lookup(sentences[0]);  // validate the words before printing anything
    } else {
      sentences = {attn::split_sentence("the river bank"), attn::split_sentence("the money bank")};
    }
    attn::Plotter plots(attn::cli::plot_settings(vm));

    std::cout << "Chapter 02 - Swap query: learned projections change what a token matches\n";
    const arma::mat X2 = ch02::eiffel_sentence();
    raw_similarity(X2);
    producing_a_query(X2);
    null_space(width, d_k);
    const bool article_preset = !custom_wq && preset == ch02::Preset::water && !vm.count("sentence");
    matching_directions(label + (custom_wq ? "" : " (" + ch02::preset_question(preset) + ")"), Wq, article_preset,
                        sentences);

    std::cout << '\n';
    draw_plots(plots, X2, label, Wq, sentences[0]);
    plots.report(std::cout);
    return 0;
  });
}
