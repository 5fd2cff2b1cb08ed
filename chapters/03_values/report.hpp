/// \file report.hpp
/// \brief Chapter 03's printers: each section's result as the article prints it.
///
/// Each printer takes a lesson result (values.hpp) and only lays it out; the numbers come from the
/// lesson, the claims from claims.hpp. Every printed line fits 100 columns. All write to `out`.
/// Throws: nothing beyond std::bad_alloc (stream errors are the stream's state).
/// Sources: the article, "The embedding table and the projection matrices are separate", "How many
/// tables and vectors are there?", "Three roles: matching and carrying information", "What the weight
/// actually measures" and "Where this leaves us".
#pragma once

#include <ostream>
#include <vector>

#include "values.hpp"

namespace ch03 {

/// Section 0, "The embedding table and the projection matrices are separate": which objects are
/// learned and which computed, with their shapes in `example`'s head 1 (claim heads_04).
void print_separate_objects(std::ostream& out, const std::vector<SeparateObject>& rows, const ExampleSublayer& example);

/// Section 1, "How many tables and vectors are there?": the counting table (a count too wide for one
/// line puts its vectors on a line below), the totals per block and per stack (heads_01, heads_02;
/// heads_01 tagged only for the article's 3 tokens and 2 heads), the built sublayer's shapes when
/// there is one, and `example`'s two weight matrices and shapes (heads_03).
void print_counting(std::ostream& out, const CountingSection& c, const ExampleSublayer& example);

/// Section 2, "Three roles": tower's weights and mixture under the four query/value combinations,
/// the swap/swap row tagged with val_01 and val_02.
void print_three_roles(std::ostream& out, const std::vector<Combination>& combos);

/// Section 2, added: with Wq != Wk a score need not equal its reverse (val_05).
void print_asymmetry(std::ostream& out, const Asymmetry& a);

/// "Your combination" (--query, --values): tower's weight on each source, the values and the mixture.
void print_your_combination(std::ostream& out, const std::vector<Combination>& combos, Choice query, Choice values);

/// Section 3, "What the weight actually measures": another key changes a_ij, not q_i or k_j (val_03).
void print_another_key(std::ostream& out, const AnotherKey& k);

/// Section 4, "Where this leaves us": the residual addition (val_04).
void print_residual(std::ostream& out, const std::vector<Combination>& combos);

}  // namespace ch03
