/// \file figures.hpp
/// \brief Chapter 03's figures: tower's four query/value combinations as bar panels, the example
/// sublayer's weights as heat maps, and two schematic diagrams (Graphviz DOT sources) generated from
/// the shapes of the example sublayer the chapter computes: nothing here is drawn by hand or
/// computes the lesson.
///
/// Throws: nothing beyond std::bad_alloc; a figure gnuplot or Graphviz cannot draw is reported by
/// `plots` (draw_figures).
/// Sources: the article, "How many tables and vectors are there?" (its diagram of 2 heads over 3
/// tokens), "Three roles: matching and carrying information" (its communication figure) and "Where
/// this leaves us"; Vaswani et al. 2017, §3.2.2.
#pragma once

#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"
#include "values.hpp"

namespace ch03 {

/// The counting diagram (ch03_counting): E, X, every head's Wq, Wk, Wv (learned) and Q, K, V, A, H
/// (computed, one row per token), Concat, Wo, Delta and Y = X + Delta, each with its shape in
/// `example`, and the counts of `c` underneath. Amber boxes are learned, blue ones computed.
/// Long labels are on several lines (one row of Q, K and V a line), so the heads side by side fit a
/// desktop column; `narrow`: the phone's layout (ch03_counting.narrow.svg), each head below the one
/// before it, with the same boxes and numbers.
std::string counting_diagram(const ExampleSublayer& example, const Counts& c, bool narrow = false);

/// One full head from its input to the output projection (ch03_full_head): X, Wq, Wk, Wv, Q, K, V,
/// the scores S = Q K^T / sqrt(d_k), A = softmax(S), H = A V, head 1's block of Wo (d_v rows),
/// its share of Delta, and Y = X + Delta, with `example`'s shapes.
std::string full_head_diagram(const ExampleSublayer& example);

/// The article's communication analogy (ch03_communication), in three panels drawn from one computed
/// head `pass` over `words` (n of them, the last receiving): (1) the receiver's query meets every
/// key, each edge labelled with its weight a (and drawn as thick as it is large); (2) each source's
/// value v travels with its weight and the receiver gets h = A V; (3) the MLP, which the next
/// article builds, works on each position alone (no edge between positions; not computed here).
/// `narrow`: the panels one below the other for a phone.
std::string communication_diagram(const attn::HeadPass& pass, const std::vector<std::string>& words,
                                  bool narrow = false);

/// Every figure of the chapter: the four combinations as two bar panels, weights and mixtures
/// (ch03_query_value_combos), each head's A of `example` as a heat map (ch03_head1_weights,
/// ch03_head2_weights), and the two diagrams (ch03_counting with `example_counts`, ch03_full_head).
void draw_figures(app::Plotter& plots, const std::vector<Combination>& combinations, const ExampleSublayer& example,
                  const Counts& example_counts);

}  // namespace ch03
