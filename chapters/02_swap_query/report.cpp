/// \file report.cpp
/// \brief Chapter 02's printers (see report.hpp).
#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <armadillo>
#include <vector>

#include "claims.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/toy.hpp"

namespace ch02 {

using app::format_number;
using app::format_vector;

namespace {

constexpr std::size_t kLineWidth = 96;  // derivations wrap before this, within the 100-column output

/// Row r of M (any width) as "[a, b, ...]" with `precision` decimals.
std::string row(const arma::mat& M, arma::uword r, int precision) {
  return format_vector(arma::rowvec(M.row(r)), precision);
}

/// The receiver's matching table: every token's query and key, the receiver's score and weight.
void print_match(std::ostream& out, const MatchTable& t) {
  app::Table table(
      {"token", "its query x Wq", "its key x Wk", "q_" + t.words[t.receiver] + " . key / sqrt(3)", "weight"});
  for (arma::uword j = 0; j < t.words.size(); ++j) {
    table.add({t.words[j], row(t.Q, j, 2), row(t.K, j, 2), format_number(t.scores(j), 3),
               format_number(100.0 * t.weights(j), 1) + "%"});
  }
  table.print(out, "    ");
}

}  // namespace

std::string query_derivation(const MatchTable& t, const arma::mat& Wq) {
  const std::string who = t.words[t.receiver];
  const std::string result = row(t.Q, t.receiver, 2);
  std::vector<std::string> parts;
  for (const QueryTerm& term : query_terms(t.X.row(t.receiver), Wq))
    parts.push_back(fmt::format("{} x {}", app::format_plain(term.x), format_vector(term.row, 2)));
  if (parts.empty())
    return fmt::format("    q_{0} = x_{0} Wq = {1} (every row of Wq that x_{0} reads is zero)\n", who, result);
  std::string text, line = fmt::format("    q_{} = ", who);
  const std::size_t indent = line.size() - 2;  // continuation lines start "+ " under the first term
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && line.size() + parts[i].size() + 3 > kLineWidth) {
      text += line + "\n";
      line = fmt::format("{:{}}+ {}", "", indent, parts[i]);
    } else {
      line += (i ? " + " : "") + parts[i];
    }
  }
  return text + line + " = " + result + "\n";
}

std::string receiver_input(const MatchTable& t) {
  return fmt::format("    x_{} = {} (its input: the same whatever Wq)\n", t.words[t.receiver],
                     format_vector(arma::rowvec(t.X.row(t.receiver)), 2));
}

namespace {

/// The three claims about the article's first table on one line: "keys [qk_05], scores [qk_06], ...".
void print_table_claims(std::ostream& out, const MatchTable& t) {
  std::string line = "   ";
  for (const app::ClaimCheck& c : {claim_fixed_keys(t), claim_scores(t), claim_weights(t)}) {
    line +=
        fmt::format("{}{} [{}]{}", line.size() > 3 ? ", " : " ", c.evidence, c.id, c.holds ? "" : " (does not hold)");
  }
  fmt::print(out, "{}\n", line);
}

}  // namespace

void print_raw_similarity(std::ostream& out, const TeachingSection& teaching) {
  const arma::rowvec& dots = teaching.tower_dots;
  app::print_heading(out, "1. When raw similarity asks the wrong question (teaching space, Wq = Wk = Wv = I)");
  fmt::print(out,
             "  Axes: structure, Paris identity. the = [0, 0] (a zero filler), Eiffel = [0, 1], tower = [1, 0].\n");
  fmt::print(out, "  tower . Eiffel = {}, tower . the = {}, tower . tower = {}\n", format_number(dots(1), 0),
             format_number(dots(0), 0), format_number(dots(2), 0));
  app::print_claim(out, claim_raw_weights(teaching));
  app::print_claim(out, claim_raw_mixture(teaching));
  app::print_claim(out, claim_eiffel_ties_the_filler(teaching));
  fmt::print(out,
             "  Some Paris identity still arrives (softmax gives every position a share), but nothing in the\n"
             "  rule prefers Eiffel. The matching rule is at fault, not the weighted mixing.\n");
}

void print_producing_a_query(std::ostream& out, const TeachingSection& teaching) {
  app::print_heading(out, "2. Producing a query: Wq = swap = [[0, 1], [1, 0]]");
  const attn::HeadPass& pass = teaching.swapped;
  app::print_claim(out, claim_swap_weights(teaching));
  app::print_claim(out, claim_swap_mixture(teaching));
  app::print_claim(out, claim_queries_row_by_row(teaching));
  app::print_matrix(out, {"the", "Eiffel", "tower"}, pass.Q, 0);
  fmt::print(out, "  tower's query [0, 1] now points along Eiffel's identity coordinate; its input stays [1, 0].\n\n");
  app::Table t({"object", "shape", "here", "what varies"});
  t.add({"embedding table", "vocabulary size x d", attn::shape(attn::teaching_space_2d().E()),
         "one learned row per token ID"});
  t.add({"input X", "n x d", attn::shape(teaching.X2), "the representations in this sequence"});
  t.add({"query projection Wq", "d x d_k", attn::shape(swap_matrix()), "shared parameters, changed by training"});
  t.add({"queries Q = X Wq", "n x d_k", attn::shape(pass.Q), "computed for each position on this pass"});
  t.print(out);
}

namespace {

/// A rank-deficient query map and two maps reading different input directions (section 3's end).
void print_reading_directions(std::ostream& out, const ReadingDirections& r) {
  const std::vector<std::string>& axes = attn::toy_embeddings().axes();
  fmt::print(out,
             "\n  A map of lower rank: section 4's water Wq ({}) has rank {} of d_k = {}. Every query it\n"
             "  can produce is a multiple of {}; the query {} lies {}\n"
             "  from all of them, so no input makes this Wq ask for finance.\n",
             attn::shape(r.Wq), r.rank_q, r.Wq.n_cols, format_vector(arma::vec(r.reachable.col(0)), 2),
             format_vector(r.target, 2), format_number(r.target_distance, 4));
  fmt::print(out,
             "  Wq and Wk read different input directions (rank {} and {}; the share of each input axis\n"
             "  that a map reads, 1 read, 0 ignored):\n",
             r.rank_q, r.rank_k);
  std::vector<std::string> header{"map"};
  header.insert(header.end(), axes.begin(), axes.end());
  app::Table table(header);
  for (arma::uword i = 0; i < 2; ++i) {
    std::vector<std::string> cells{i == 0 ? "Wq (water)" : "Wk (fixed)"};
    for (arma::uword c = 0; c < r.read_share.n_cols; ++c) cells.push_back(format_number(r.read_share(i, c), 2));
    table.add(cells);
  }
  table.print(out, "    ");
  fmt::print(out,
             "  Adding {} to an input moves its key by {}\n"
             "  and its query by {}: the key sees water, this query does not.\n",
             format_vector(r.nudge, 0), format_vector(r.key_change, 2), format_vector(r.query_change, 2));
}

}  // namespace

void print_null_space(std::ostream& out, const SmallNullSpace& small, const WidthExample& w) {
  app::print_heading(out, "3. What the query map reads and ignores (column form: M = Wq^T, q^T = M x^T)");
  // The article's order: query/key space at a model's width first, then what a small map loses.
  fmt::print(out, "  The width example: a random {} x {} query projection (seed {})\n", w.d, w.d_k, w.seed);
  app::print_claim(out, claim_width_nullity(w));
  if (w.null_samples > 0) {
    fmt::print(out,
               "  {} sampled null-space rows n: max |n Wq| / max |Wq| {}; adding one to a random input\n"
               "  changes its query by {} (rounding only)\n",
               w.null_samples, w.null_query_max < 1e-12 ? "< 1e-12" : fmt::format("= {:f}", w.null_query_max),
               w.query_change_max < 1e-9 ? "< 1e-9" : fmt::format("{:f}", w.query_change_max));
  }
  fmt::print(out, "  The query map reads {} of {}; ",
             app::counted(static_cast<long long>(w.rank), "independent input direction"), w.d);
  if (w.nullity > 0) {
    fmt::print(out, "the other {} are invisible.\n", w.nullity);
  } else {
    fmt::print(out, "none is invisible (d_k = {} >= width {}).\n", w.d_k, w.d);
  }

  const NullSpace& ns = small.ns;
  fmt::print(out,
             "\n  A small map: M = [[1, 0, 1], [0, 1, 1]] reads x1 + x3 and x2 + x3.\n"
             "  Armadillo: rank(M) = {}, null space of dimension {}, unit basis vector {}\n",
             ns.rank, ns.nullity, format_vector(arma::vec(ns.basis.col(0)), 4));
  app::print_claim(out, claim_n_in_null_space(small));
  app::print_claim(out, claim_same_query(small));
  fmt::print(out,
             "  M (e + 2.5 n) = {}: any multiple of n leaves the query unchanged.\n"
             "  The map cannot tell e from e + n: it loses how far the input lies along (1, 1, -1), not the\n"
             "  third coordinate (which feeds both sums). Other heads, keys, values and the residual stream\n"
             "  still see it.\n",
             format_vector(small.far_query, 0));
  print_reading_directions(out, small.reading);
}

void print_matching(std::ostream& out, const QueryChoice& query, const MatchingSection& m, bool article_sentences) {
  const bool article_preset = !query.custom && query.preset == Preset::water && article_sentences;
  app::print_heading(out, "4. What could this query match? Wq: " + query.label());
  if (!query.question().empty()) fmt::print(out, "  ({})\n", query.question());
  fmt::print(out,
             "  Wq (rows: input finance, water, structure, generic; columns: matching finance, water, structure):\n");
  app::print_matrix(out, attn::toy_embeddings().axes(), m.Wq, 2);
  fmt::print(out, "  Wk keeps finance, water and structure and drops generic; it stays fixed.\n");
  for (std::size_t k = 0; k < m.tables.size(); ++k) {
    const MatchTable& t = m.tables[k];
    const bool claims = article_preset && k == 0;  // the claims are about the article's first (river) sentence
    const app::ClaimCheck query = claim_query_of(t, m.Wq);
    fmt::print(out, "\n");
    if (claims) {
      app::print_claim(out, query);
    } else {
      fmt::print(out, "{}\n", query.evidence);
    }
    fmt::print(out, "{}{}", receiver_input(t), query_derivation(t, m.Wq));
    print_match(out, t);
    if (claims) print_table_claims(out, t);
    if (k > 0) app::print_claim(out, claim_query_same_in_both(m));
  }
  fmt::print(out,
             "\n  A hand-set teaching construction: a trained head learns numerical matching directions, not\n"
             "  named questions, and a preset changing Wq is not a head choosing a new matrix per sentence.\n");
}

void print_combined_criteria(std::ostream& out, const CombinedQuery& c) {
  const MatchTable& t = c.table;
  const std::string who = t.words[t.receiver];
  app::print_heading(out, "5. One query can combine several matching criteria");
  fmt::print(out,
             "  A score adds one share per coordinate pair: s_ij = (q_i1 k_j1 + q_i2 k_j2 + q_i3 k_j3) / sqrt(3).\n"
             "  Wq = find water + find structure (section 4's presets added), so {} asks along two axes:\n",
             who);
  fmt::print(out, "{}", query_derivation(t, combined_wq()));
  fmt::print(out, "  \"{}\", each pair's share q_{},r k_j,r / sqrt(3):\n", attn::join_words(t.words), who);
  app::Table table({"token", "its key x Wk", "finance", "water", "structure", "score", "weight"});
  for (arma::uword j = 0; j < t.words.size(); ++j) {
    table.add({t.words[j], row(t.K, j, 2), format_number(c.shares(j, 0), 3), format_number(c.shares(j, 1), 3),
               format_number(c.shares(j, 2), 3), format_number(t.scores(j), 3),
               format_number(100.0 * t.weights(j), 1) + "%"});
  }
  table.print(out, "    ");
  app::print_claim(out, claim_combined_query(c));
  fmt::print(out, "  By linearity each score is the water preset's plus the structure preset's (largest gap {}):\n  ",
             app::format_plain(c.largest_split_gap));
  for (arma::uword j = 0; j < t.words.size(); ++j) {
    fmt::print(out, "{}{} {} + {} = {}", j ? "; " : "", t.words[j], format_number(c.water(j), 3),
               format_number(c.structure(j), 3), format_number(t.scores(j), 3));
  }
  fmt::print(out,
             ".\n  One score per key, one distribution per receiver: the preferences are blended, not answered\n"
             "  one by one; several heads are what give separate distributions.\n");
}

void print_superposition(std::ostream& out, const Superposition& s) {
  const arma::uword features = s.W.n_rows, dims = s.W.n_cols;
  fmt::print(out,
             "\n  Superposition, a representational possibility (after Elhage et al. 2022, \"Toy Models of\n"
             "  Superposition\"), not a claim about what trained heads hold: {0} unit feature directions\n"
             "  in {1}-d, {2} degrees apart (W: {0} x {1}, one feature per row):\n",
             features, dims, format_number(360.0 / static_cast<double>(features), 0));
  std::vector<std::string> names;
  for (arma::uword i = 0; i < features; ++i) names.push_back(fmt::format("w_{}", i + 1));
  app::print_matrix(out, names, s.W, 3);
  app::print_claim(out, claim_superposition(s));
  fmt::print(out,
             "  {0} dimensions hold at most {0} linearly independent directions, so the {1} strengths cannot all be\n"
             "  recovered by a linear read x W^T:\n",
             dims, features);
  const auto read = [&](const std::string& label, const arma::rowvec& v) {
    fmt::print(out, "    {:<34}{}\n", label, format_vector(v, 3));
  };
  read("only f1 active (x = w_1):", s.one_active);
  read("f1 and f3 active (x = w_1 + w_3):", s.two_active);
  fmt::print(out, "    (f2, inactive, reads most: w_1 + w_3 points near w_2)\n");
  fmt::print(out, "  A ReLU read with bias {} (the paper's toy model) cleans up a lone feature but not two at once:\n",
             format_number(s.bias, 3));
  read("only f1 active:", s.one_active_relu);
  read("f1 and f3 active:", s.two_active_relu);
  fmt::print(out, "  Sparse features (rarely active together) can share directions; dense ones collide.\n");
}

}  // namespace ch02
