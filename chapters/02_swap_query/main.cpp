/// \file chapters/02_swap_query/main.cpp
/// \brief Chapter 02 program: a learned query asks a different question than raw similarity.
///
/// Follows the article's "When raw similarity asks the wrong question", "Producing a query", the
/// query/key space and null-space sections, and "Try three hypothetical matching directions".
/// Run `ch02_swap_query --help` for the flags.
#include <armadillo>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <utility>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "figures.hpp"
#include "swap_query.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

constexpr int kTeaching = 4;  // the article prints the teaching space to four decimals
constexpr arma::uword kMaxWidth = 100000, kMaxDk = 2048, kMaxEntries = 20000000;
constexpr std::uint64_t kSeed = 2017;

std::string row(const arma::mat& M, arma::uword r, int precision) {
  return format_vector(arma::rowvec(M.row(r)), precision);
}

std::string column(const arma::vec& v, int precision) { return format_vector(v, precision); }

/// Section 1: raw similarity in the teaching space.
void raw_similarity(const ch02::TeachingSection& teaching) {
  const arma::mat& X2 = teaching.X2;
  attn::print_heading(std::cout, "1. When raw similarity asks the wrong question (teaching space, Wq = Wk = Wv = I)");
  std::cout << "  Axes: structure, Paris identity. the = [0, 0] (a zero filler), Eiffel = [0, 1], tower = [1, 0].\n";
  std::cout << "  tower . Eiffel = " << format_number(arma::dot(X2.row(2), X2.row(1)), 0)
            << ", tower . the = " << format_number(arma::dot(X2.row(2), X2.row(0)), 0)
            << ", tower . tower = " << format_number(arma::dot(X2.row(2), X2.row(2)), 0) << '\n';
  attn::print_claim(std::cout, ch02::claim_raw_weights(teaching));
  attn::print_claim(std::cout, ch02::claim_raw_mixture(teaching));
  attn::print_claim(std::cout, ch02::claim_eiffel_ties_the_filler(teaching));
  std::cout << "  Some Paris identity still arrives (softmax gives every position a share), but nothing in the\n"
               "  rule prefers Eiffel. The matching rule is at fault, not the weighted mixing.\n";
}

/// Section 2: the swap query and the shapes of the objects involved.
void producing_a_query(const ch02::TeachingSection& teaching) {
  attn::print_heading(std::cout, "2. Producing a query: Wq = swap = [[0, 1], [1, 0]]");
  const arma::mat& X2 = teaching.X2;
  const arma::mat swap = ch02::swap_matrix();
  const attn::HeadPass& pass = teaching.swapped;
  attn::print_claim(std::cout, ch02::claim_swap_weights(teaching));
  attn::print_claim(std::cout, ch02::claim_swap_mixture(teaching));
  attn::print_claim(std::cout, ch02::claim_queries_row_by_row(teaching));
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
void null_space(const ch02::SmallNullSpace& small, const ch02::WidthExample& w) {
  const arma::uword width = w.d, d_k = w.d_k;
  attn::print_heading(std::cout, "3. What the query map reads and ignores (column form: M = Wq^T, q^T = M x^T)");
  // The article's order: query/key space at a model's width first, then what a small map loses.
  std::cout << "  The width example: a random " << width << " x " << d_k << " query projection (seed " << kSeed
            << ")\n";
  attn::print_claim(std::cout, ch02::claim_width_nullity(w));
  if (w.null_samples > 0) {
    std::cout << "  " << w.null_samples << " sampled null-space rows n: max |n Wq| / max |Wq| "
              << (w.null_query_max < 1e-12 ? "< 1e-12" : "= " + std::to_string(w.null_query_max))
              << "; adding one to a random input\n  changes its query by "
              << (w.query_change_max < 1e-9 ? "< 1e-9" : std::to_string(w.query_change_max)) << " (rounding only)\n";
  }
  std::cout << "  The query map reads " << attn::counted(static_cast<long long>(w.rank), "independent input direction")
            << " of " << width << "; ";
  if (w.nullity > 0) {
    std::cout << "the other " << w.nullity << " are invisible.\n";
  } else {
    std::cout << "none is invisible (d_k = " << d_k << " >= width " << width << ").\n";
  }

  const arma::mat& M = small.M;
  const ch02::NullSpace& ns = small.ns;
  std::cout << "\n  A small map: M = [[1, 0, 1], [0, 1, 1]] reads x1 + x3 and x2 + x3.\n"
            << "  Armadillo: rank(M) = " << ns.rank << ", null space of dimension " << ns.nullity
            << ", unit basis vector " << column(ns.basis.col(0), 4) << '\n';
  const arma::vec &n = small.n, &e = small.e;
  attn::print_claim(std::cout, ch02::claim_n_in_null_space(small));
  attn::print_claim(std::cout, ch02::claim_same_query(small));
  std::cout << "  M (e + 2.5 n) = " << column(M * (e + 2.5 * n), 0)
            << ": any multiple of n leaves the query unchanged.\n"
            << "  The map cannot tell e from e + n: it loses how far the input lies along (1, 1, -1), not the\n"
            << "  third coordinate (which feeds both sums). Other heads, keys, values and the residual stream\n"
            << "  still see it.\n";
}

void print_match(const ch02::MatchTable& t) {
  attn::Table table(
      {"token", "its query x Wq", "its key x Wk", "q_" + t.words[t.receiver] + " . key / sqrt(3)", "weight"});
  for (arma::uword j = 0; j < t.words.size(); ++j) {
    table.add({t.words[j], row(t.Q, j, 2), row(t.K, j, 2), format_number(t.scores(j), 3),
               format_number(100.0 * t.weights(j), 1) + "%"});
  }
  table.print(std::cout, "    ");
}

/// The receiver's query as the article derives it: "q_bank = 0.8 x [0.00, 3.75, 0.00] = [0.00, 3.00, 0.00]",
/// one term per input coordinate that is non-zero and meets a non-zero row of Wq.
void print_derivation(const ch02::MatchTable& t, const arma::mat& Wq) {
  const std::string who = t.words[t.receiver];
  const std::vector<ch02::QueryTerm> terms = ch02::query_terms(t.X.row(t.receiver), Wq);
  const std::string result = format_vector(arma::rowvec(t.Q.row(t.receiver)), 2);
  std::vector<std::string> parts;
  for (const ch02::QueryTerm& term : terms)
    parts.push_back(attn::format_plain(term.x) + " x " + format_vector(term.row, 2));
  if (parts.empty()) {
    std::cout << "    q_" << who << " = x_" << who << " Wq = " << result << " (every row of Wq that x_" << who
              << " reads is zero)\n";
    return;
  }
  std::string line = "    q_" + who + " = ";
  const std::string indent(line.size() - 2, ' ');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && line.size() + parts[i].size() + 3 > 96) {  // keep within the 100-column output
      std::cout << line << '\n';
      line = indent + "+ " + parts[i];
    } else {
      line += (i ? " + " : "") + parts[i];
    }
  }
  std::cout << line << " = " << result << '\n';
}

/// Section 4: the matching widget, for both article sentences or the reader's own.
void matching_directions(const std::string& label, const ch02::MatchingSection& m, bool article_preset) {
  const arma::mat& Wq = m.Wq;
  // The heading names the preset; its question, when there is one, follows on its own line.
  const std::size_t question = label.find(" (");
  attn::print_heading(std::cout, "4. What could this query match? Wq: " + label.substr(0, question));
  if (question != std::string::npos) std::cout << "  " << label.substr(question + 1) << '\n';
  std::cout << "  Wq (rows: input finance, water, structure, generic; columns: matching finance, water, structure):\n";
  attn::print_matrix(std::cout, attn::toy_embeddings().axes(), Wq, 2);
  std::cout << "  Wk keeps finance, water and structure and drops generic; it stays fixed.\n";
  arma::rowvec first_query;
  for (const ch02::MatchTable& t : m.tables) {
    const arma::rowvec q = t.Q.row(t.receiver);
    const attn::ClaimCheck query = ch02::claim_query_of(t, Wq);
    std::cout << '\n';
    if (article_preset) {
      attn::print_claim(std::cout, query);  // the claim is about the article's preset and sentence
    } else {
      std::cout << query.evidence << '\n';
    }
    print_derivation(t, Wq);
    print_match(t);
    if (article_preset) {
      // Three claims about the table above, tagged on one line: "keys [qk_05], scores [qk_06], ...".
      std::string line = "   ";
      for (const attn::ClaimCheck& c : {ch02::claim_fixed_keys(t), ch02::claim_scores(t), ch02::claim_weights(t)}) {
        line += (line.size() > 3 ? ", " : " ") + c.evidence + " [" + c.id + "]" + (c.holds ? "" : " (does not hold)");
      }
      std::cout << line << '\n';
      article_preset = false;  // the claims are about the first (river) sentence
    }
    if (first_query.is_empty()) {
      first_query = q;
    } else {
      attn::print_claim(std::cout, ch02::claim_query_same_in_both(m));
    }
  }
  std::cout << "\n  A hand-set teaching construction: a trained head learns numerical matching directions, not\n"
               "  named questions, and a preset changing Wq is not a head choosing a new matrix per sentence.\n";
}

/// Section 5, first part: one score as a sum of coordinate pairs, for a query with two preferences.
void combined_criteria(const ch02::CombinedQuery& c) {
  const ch02::MatchTable& t = c.table;
  const std::string who = t.words[t.receiver];
  attn::print_heading(std::cout, "5. One query can combine several matching criteria");
  std::cout << "  A score adds one share per coordinate pair: s_ij = (q_i1 k_j1 + q_i2 k_j2 + q_i3 k_j3) / sqrt(3).\n"
            << "  Wq = find water + find structure (section 4's presets added), so " << who
            << " asks along two axes:\n";
  print_derivation(t, ch02::combined_wq());
  std::cout << "  \"" << attn::join_words(t.words) << "\", each pair's share q_" << who << ",r k_j,r / sqrt(3):\n";
  attn::Table table({"token", "its key x Wk", "finance", "water", "structure", "score", "weight"});
  for (arma::uword j = 0; j < t.words.size(); ++j) {
    table.add({t.words[j], row(t.K, j, 2), format_number(c.shares(j, 0), 3), format_number(c.shares(j, 1), 3),
               format_number(c.shares(j, 2), 3), format_number(t.scores(j), 3),
               format_number(100.0 * t.weights(j), 1) + "%"});
  }
  table.print(std::cout, "    ");
  attn::print_claim(std::cout, ch02::combined_query_claim(c));
  std::cout << "  By linearity each score is the water preset's plus the structure preset's (largest gap "
            << attn::format_plain(c.largest_split_gap) << "):\n  ";
  for (arma::uword j = 0; j < t.words.size(); ++j) {
    std::cout << (j ? "; " : "") << t.words[j] << " " << format_number(c.water(j), 3) << " + "
              << format_number(c.structure(j), 3) << " = " << format_number(t.scores(j), 3);
  }
  std::cout << ".\n  One score per key, one distribution per receiver: the preferences are blended, not answered\n"
               "  one by one; several heads are what give separate distributions.\n";
}

/// Section 5, second part: more feature directions than dimensions.
void superposition(const ch02::Superposition& s) {
  const arma::uword features = s.W.n_rows, dims = s.W.n_cols;
  std::cout << "\n  Superposition, a representational possibility (after Elhage et al. 2022, \"Toy Models of\n"
            << "  Superposition\"), not a claim about what trained heads hold: " << features
            << " unit feature directions\n  in " << dims << "-d, "
            << format_number(360.0 / static_cast<double>(features), 0) << " degrees apart (W: " << features << " x "
            << dims << ", one feature per row):\n";
  std::vector<std::string> names;
  for (arma::uword i = 0; i < features; ++i) names.push_back("w_" + std::to_string(i + 1));
  attn::print_matrix(std::cout, names, s.W, 3);
  attn::print_claim(std::cout, ch02::superposition_claim(s));
  std::cout << "  " << dims << " dimensions hold at most " << dims << " linearly independent directions, so the "
            << features << " strengths cannot all be\n  recovered by a linear read x W^T:\n"
            << "    only f1 active (x = w_1):         " << format_vector(s.one_active, 3) << '\n'
            << "    f1 and f3 active (x = w_1 + w_3): " << format_vector(s.two_active, 3)
            << "\n    (f2, inactive, reads most: w_1 + w_3 points near w_2)\n"
            << "  A ReLU read with bias " << format_number(s.bias, 3)
            << " (the paper's toy model) cleans up a lone feature but not two at once:\n"
            << "    only f1 active:                   " << format_vector(s.one_active_relu, 3) << '\n'
            << "    f1 and f3 active:                 " << format_vector(s.two_active_relu, 3) << '\n'
            << "  Sparse features (rarely active together) can share directions; dense ones collide.\n";
}

/// Every section's result, computed once; the printers and the plots read them.
struct Sections {
  ch02::TeachingSection teaching{};     ///< sections 1 and 2
  ch02::SmallNullSpace small{};         ///< section 3's 3-d example
  ch02::WidthExample width{};           ///< section 3's width example
  ch02::MatchingSection matching{};     ///< section 4
  ch02::PresetWeights presets{};        ///< section 4's figure: bank's weights under every preset
  ch02::CombinedQuery combined{};       ///< section 5, first part
  ch02::Superposition superposition{};  ///< section 5, second part
};

void draw_plots(attn::Plotter& plots, const Sections& r, const std::string& label, attn::View3d view) {
  const attn::HeadPass& raw = r.teaching.raw;
  const attn::HeadPass& swapped = r.teaching.swapped;
  plots.bars({.name = "ch02_tower_weights",
              .title = "tower's weights: raw similarity ties Eiffel with the filler; the swap query picks Eiffel",
              .xlabel = "source position",
              .ylabel = "weight a_tower,j",
              // clang-format off
              .categories = {"the", "Eiffel", "tower"},
              .series = {"raw query (Wq = I)", "swap query (Wq = swap)"},
              .values = arma::join_rows(arma::vec(raw.A.row(2).t()), arma::vec(swapped.A.row(2).t())),
              .yrange = std::make_pair(0.0, 0.65),
              .precision = 4});
  // clang-format on

  plots.vectors(ch02::matching_space_figure(label, r.matching.tables.front(), view));
  ch02::draw_bank_presets(plots, r.presets);
  plots.vectors(ch02::matching_views_figure(label, r.matching.tables.front(), view));
  plots.bars(ch02::combined_shares_chart(r.combined));
  plots.vectors(ch02::superposition_figure(r.superposition));
  plots.bars(ch02::superposition_reads_chart(r.superposition));
  plots.diagram("ch02_query_map", ch02::query_map_diagram(r.width));
}

/// --view AZIMUTH,ELEVATION: degrees, azimuth 0..360 about the vertical axis, elevation -90..90.
/// A comma list by the list rule (attn::cli::list): "35, 28" is accepted, "35,28," refused.
attn::View3d read_view(const std::string& text) {
  const std::vector<std::string> angles = attn::cli::list("--view", text);
  if (angles.size() != 2) {
    throw attn::cli::UsageError("--view must be AZIMUTH,ELEVATION in degrees, e.g. 35,28 (got " + attn::quoted(text) +
                                ")");
  }
  const double azimuth = attn::cli::real_value("--view", angles[0]);
  const double elevation = attn::cli::real_value("--view", angles[1]);
  if (azimuth < 0 || azimuth > 360) {
    throw attn::cli::UsageError("--view azimuth must be between 0 and 360 degrees (got " + attn::quoted(text) + ")");
  }
  if (elevation < -90 || elevation > 90) {
    throw attn::cli::UsageError("--view elevation must be between -90 and 90 degrees (got " + attn::quoted(text) + ")");
  }
  return {.azimuth = azimuth, .elevation = elevation};
}

/// The reader's --wq as the 4 x 3 query matrix; a malformed one is a usage error naming the flag.
arma::mat custom_query_matrix(const std::string& text) {
  try {
    return ch02::parse_matrix(text, 4, 3);
  } catch (const std::invalid_argument& e) {
    throw attn::cli::UsageError(std::string("--wq: ") + e.what());
  }
}

const attn::cli::ProgramInfo kProgram{
    "ch02_swap_query", "a learned query asks a different question than raw similarity",
    "\"When raw similarity asks the wrong question\", \"Producing a query\", \"What is query/key space\", "
    "\"What information does the query map lose?\", \"Try three hypothetical matching directions\", "
    "\"One query can combine several matching criteria\"",
    "  ch02_swap_query\n  ch02_swap_query --preset finance\n"
    "  ch02_swap_query --wq \"0 0 0; 0 0 0; 2 2 0; 0 0 0\" --sentence \"the money river bank\"\n"
    "  ch02_swap_query --view 120,20                    # turn the matching space (\"Rotate view\")\n"
    "  ch02_swap_query --view 0,90 --preset structure   # look straight down on it\n"
    "  ch02_swap_query --width 4096 --dk 64 --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  ch02::Preset preset = ch02::Preset::water;        ///< --preset
  std::optional<arma::mat> custom_wq;               ///< --wq (4 x 3), instead of the preset
  std::vector<std::vector<std::string>> sentences;  ///< --sentence, or both article sentences
  bool own_sentence = false;                        ///< --sentence was given
  arma::uword width = 12288;                        ///< --width
  arma::uword d_k = 128;                            ///< --dk
  attn::View3d view{};                              ///< --view (azimuth 35, elevation 28)
  attn::PlotSettings plots;                         ///< --plots, --no-plots
  /// The query projection the matching widget uses.
  arma::mat Wq() const { return custom_wq ? *custom_wq : ch02::preset_wq(preset); }
  /// How the widget names it: "custom" or "find water evidence".
  std::string label() const { return custom_wq ? "custom" : "find " + ch02::preset_name(preset) + " evidence"; }
};

po::options_description options() {
  po::options_description options("Options");
  attn::cli::add_common_options(options);
  // clang-format off
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
       "query width of the random query map in the null-space example")
      ("view", po::value<std::string>()->value_name("AZ,EL")->default_value("35,28"),
       "viewpoint of the 3-d matching-space figures, in degrees: azimuth AZ 0..360 about the "
       "structure axis, elevation EL -90..90 above the floor (90 looks straight down)");
  // clang-format on
  return options;
}

/// The flags, or nothing after --help.
std::optional<Flags> read_flags(int argc, char** argv) {
  po::variables_map vm;
  if (!attn::cli::parse(argc, argv, options(), kProgram, vm)) return std::nullopt;
  Flags f;
  f.width = static_cast<arma::uword>(attn::cli::integer(vm, "width", 1, kMaxWidth));
  f.d_k = static_cast<arma::uword>(attn::cli::integer(vm, "dk", 1, kMaxDk));
  if (f.width * f.d_k > kMaxEntries) {
    throw attn::cli::UsageError("--width x --dk must be at most " + std::to_string(kMaxEntries) + " entries (got " +
                                std::to_string(f.width * f.d_k) + ")");
  }
  f.preset = ch02::parse_preset(attn::cli::choice(vm, "preset", {"water", "finance", "structure"}));
  if (vm.count("wq")) {
    if (!vm["preset"].defaulted()) throw attn::cli::UsageError("give either --preset or --wq, not both");
    f.custom_wq = custom_query_matrix(vm["wq"].as<std::string>());
  }
  f.own_sentence = vm.count("sentence") > 0;
  if (f.own_sentence) {
    f.sentences.push_back(attn::cli::sentence(vm, "sentence", "", attn::toy_embeddings()));
  } else {
    f.sentences = {attn::split_sentence("the river bank"), attn::split_sentence("the money bank")};
  }
  f.view = read_view(vm["view"].as<std::string>());
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run(kProgram.name, [&] {
    const std::optional<Flags> flags = read_flags(argc, argv);
    if (!flags) return 0;
    ch02::MatchingSection matching = ch02::matching_section(flags->Wq(), flags->sentences);  // refuses unknown words
    attn::Plotter plots(flags->plots);
    const Sections r{.teaching = ch02::teaching_section(),
                     .small = ch02::small_null_space(),
                     .width = ch02::width_example(flags->width, flags->d_k, kSeed),
                     .matching = std::move(matching),
                     .presets = ch02::preset_weights(flags->custom_wq),
                     .combined = ch02::combined_query(attn::split_sentence("the river bank")),
                     .superposition = ch02::superposition()};

    std::cout << "Chapter 02 - Swap query: learned projections change what a token matches\n";
    raw_similarity(r.teaching);
    producing_a_query(r.teaching);
    null_space(r.small, r.width);
    const bool custom = flags->custom_wq.has_value();
    const bool article_preset = !custom && flags->preset == ch02::Preset::water && !flags->own_sentence;
    matching_directions(flags->label() + (custom ? "" : " (" + ch02::preset_question(flags->preset) + ")"), r.matching,
                        article_preset);
    combined_criteria(r.combined);
    superposition(r.superposition);

    std::cout << '\n';
    draw_plots(plots, r, flags->label(), flags->view);
    plots.report(std::cout);
    std::cout << "wall time of the width example: " << format_number(r.width.seconds, 3) << " s\n";
    return 0;
  });
}
