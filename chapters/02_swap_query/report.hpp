/// \file report.hpp
/// \brief Chapter 02's printers: each section's result as the article prints it.
///
/// Each printer takes a lesson result (swap_query.hpp) and only lays it out; the numbers come from
/// the lesson, the claims from claims.hpp. All write to `out`.
/// Throws: nothing beyond std::bad_alloc (stream errors are the stream's state).
/// Sources: the article, "When raw similarity asks the wrong question", "Producing a query", "What
/// information does the query map lose?", "What could this query match?" and "One query can combine
/// several matching criteria"; Elhage et al. 2022, "Toy Models of Superposition".
#pragma once

#include <ostream>
#include <string>

#include "swap_query.hpp"

namespace ch02 {

/// Section 1, "When raw similarity asks the wrong question": tower's dot products and its raw
/// weights and mixture (claims swap_01 to swap_03).
void print_raw_similarity(std::ostream& out, const TeachingSection& teaching);

/// Section 2, "Producing a query": the swap query's weights, mixture and queries (swap_04 to
/// swap_06), then the shapes of the embedding table, X, Wq and Q.
void print_producing_a_query(std::ostream& out, const TeachingSection& teaching);

/// Section 3, what the query map reads and ignores: the width example (qk_03), then the small 3-d
/// map, its null space and the article's n and e (qk_01, qk_02).
void print_null_space(std::ostream& out, const SmallNullSpace& small, const WidthExample& width);

/// Section 4, "What could this query match?": Wq, then per sentence the receiver's query, its
/// derivation term by term and the matching table. `query` names Wq in the heading and gives the
/// preset's question; the article's claims (qk_04 to qk_08) are tagged only for the water preset on
/// the article's sentences (`article_sentences`).
void print_matching(std::ostream& out, const QueryChoice& query, const MatchingSection& m, bool article_sentences);

/// The receiver's query as the article derives it, as printed (4-space indent, one line a row, long
/// sums wrapped before column 96): "    q_bank = 0.8 x [0.00, 3.75, 0.00] = [0.00, 3.00, 0.00]\n",
/// one term per input coordinate that is non-zero and meets a non-zero row of Wq (query_terms).
/// Shared with the book's matching widget. Wq: 4 x 3.
std::string query_derivation(const MatchTable& t, const arma::mat& Wq);

/// The receiver's input line, as printed: "    x_bank = [0.50, 0.50, 0.80, 0.20] (its input: ...)\n".
std::string receiver_input(const MatchTable& t);

/// Section 5, first part, "One query can combine several matching criteria": each coordinate
/// pair's share of every score (qk_09) and the split into the two presets' scores.
void print_combined_criteria(std::ostream& out, const CombinedQuery& c);

/// Section 5, second part: the superposition toy's directions, its claim (qk_10) and the linear
/// and ReLU reads with one and with two features active.
void print_superposition(std::ostream& out, const Superposition& s);

}  // namespace ch02
