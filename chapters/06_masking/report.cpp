/// \file report.cpp
/// \brief Chapter 06's printed sections (see report.hpp).
#include "report.hpp"

#include <string>

#include <fmt/ostream.h>

#include "claims.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/toy.hpp"

namespace ch06 {
namespace {

arma::rowvec row(const arma::mat& M, arma::uword i) { return M.row(i); }

}  // namespace

void print_mask(std::ostream& out, const MaskSection& m) {
  app::print_heading(out, fmt::format("1. The causal mask: a decoder only looks left (\"{}\", identity head)",
                                      attn::join_words(m.words)));
  out << "  The mask added to the scores before softmax (row: receiving position, column: source):\n";
  app::print_matrix(out, m.words, m.mask, 0);
  fmt::print(out, "  Unmasked scores X X^T / sqrt({}):\n", m.open.Q.n_cols);
  app::print_matrix(out, m.words, m.open.scores, kPrecision);
  out << "  Causal weights, softmax(scores + mask); exp(-inf) = 0 removes the future exactly:\n";
  app::print_matrix(out, m.words, m.causal.A, kPrecision);
  app::print_claim(out, claim_causal_weights(m.causal.A));

  out << "\n  The wrong fill: set the future scores to 0 instead of -inf. exp(0) = 1, so they keep a share:\n";
  app::print_matrix(out, m.words, m.leaky, kPrecision);
  app::print_claim(out, claim_zero_fill(m.leaky));
  fmt::print(out, "  (\"{}\" at position 0 would put {} of its attention on {} and {}, which it must not see)\n",
             m.words[0], app::format_number(m.leaked(0), kPrecision), m.words[1], m.words[2]);
  out << "  Every row keeps at least its own position, so no row is left with nothing to normalize.\n";
}

void print_tired_cat(std::ostream& out, const TiredCatSection& t) {
  app::print_heading(out, fmt::format("2. \"{}\": the article's illustrative weights", attn::join_words(t.words)));
  out << "  Bidirectional (every row sums to 1; illustrative values, not from a model):\n";
  app::print_matrix(out, t.words, t.A, kPrecision);
  app::print_claim(out, claim_row_sums(t));
  out << "  Causal: keep keys j <= i and divide each row by what survives:\n";
  app::print_matrix(out, t.words, t.renormalized, kPrecision);
  app::print_claim(out, claim_renormalized_row(t, 1));
  app::print_claim(out, claim_mask_renormalizes(t));
  out << "  The scores behind that: log A (softmax of each row gives A back), then the mask:\n";
  app::print_matrix(out, t.words, t.masked_scores, kPrecision);
  out << "  (below the diagonal these are the scores log A; the figure ch06_three_panels shows scores,\n"
         "  masked scores and their softmax side by side)\n";
}

void print_word_orders(std::ostream& out, const WordOrderSection& s) {
  app::print_heading(out, "3. The same head, two word orders");
  const BothViews& last = s.bank_last;
  fmt::print(out, "  \"{}\": bank is last, so it already sees every position\n", attn::join_words(last.words));
  fmt::print(out, "    bidirectional bank row: {}\n", app::format_vector(row(last.open.A, 2), kPrecision));
  app::print_claim(out, claim_unchanged_row(s));
  const BothViews& middle = s.bank_middle;
  fmt::print(out, "  \"{}\": bank is in the middle\n", attn::join_words(middle.words));
  fmt::print(out, "    bidirectional bank row: {}  over ({}, {}, {})\n",
             app::format_vector(row(middle.open.A, 1), kPrecision), middle.words[0], middle.words[1], middle.words[2]);
  app::print_claim(out, claim_blocked_source(row(middle.causal.A, 1), 2, middle.words[2]));
  out << "  The mask changed which sources are allowed; projecting and mixing did not change.\n";
}

void print_cross(std::ostream& out, const CrossSection& c) {
  app::print_heading(out, "4. Cross-attention: queries from one sequence, keys and values from another");
  fmt::print(out, "  queries: \"{}\" (n_q = {}); keys and values: \"{}\" (n_kv = {})\n", attn::join_words(c.q_words),
             c.q_words.size(), attn::join_words(c.kv_words), c.kv_words.size());
  app::print_claim(out, claim_cross_shapes(c.pass, c.q_words.size(), c.kv_words.size()));
  app::print_matrix(out, c.q_words, c.pass.A, kPrecision);
  fmt::print(out, "  (columns: {})\n", attn::join_words(c.kv_words));
  fmt::print(out,
             "  Causal needs an alignment. Queries \"{}\" = positions {} and {} of the key sequence (as\n"
             "  when generating with a key/value cache), offset {}: query i may read keys j <= i + {}\n",
             attn::join_words(c.newest_words), c.offset, c.offset + 1, c.offset, c.offset);
  app::print_matrix(out, c.newest_words, c.offset_pass.A, kPrecision);
  fmt::print(out, "  (these rows equal rows {} and {} of causal self-attention on the key sequence)\n", c.offset,
             c.offset + 1);
  if (c.refusal.empty()) return;
  const std::size_t cut = c.refusal.find(" (");  // a long message: its parenthesis goes on a line of its own
  fmt::print(out, "  Causal without an offset is refused:\n    {}\n", c.refusal.substr(0, cut));
  if (cut != std::string::npos) fmt::print(out, "    {}\n", c.refusal.substr(cut + 1));
}

void print_your_sentence(std::ostream& out, const BothViews& v, const Views& views) {
  app::print_heading(out, fmt::format("Your sentence: \"{}\"", attn::join_words(v.words)));
  if (views.bidirectional) {
    out << "  Bidirectional weights:\n";
    app::print_matrix(out, v.words, v.open.A, kPrecision);
  }
  if (views.causal) {
    out << "  Causal weights (zero above the diagonal):\n";
    app::print_matrix(out, v.words, v.causal.A, kPrecision);
    out << "  causal mixtures H (finance, water, structure, generic):\n";
    app::print_matrix(out, v.words, v.causal.H, kPrecision);
  }
}

}  // namespace ch06
