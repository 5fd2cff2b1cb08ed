/// \file report.hpp
/// \brief Chapter 06's printed sections: each printer takes its section's result (masking.hpp)
/// and writes it to `out`; none computes anything.
///
/// Throws: nothing beyond std::bad_alloc (stream errors are the stream's state).
/// Sources: the article, "Causal masking: a decoder only looks left" (with its cross-attention).
#pragma once

#include <ostream>

#include "masking.hpp"

namespace ch06 {

/// Decimals for printed and drawn weights: the article prints weights to two decimals.
inline constexpr int kPrecision = 2;

/// Which views of the reader's sentence to show (the widget's toggle): both unless one is asked for.
struct Views {
  bool bidirectional = true;  ///< the bidirectional weights
  bool causal = true;         ///< the causal weights and mixtures
};

/// Section 1: the mask, the causal weights, and what a 0 fill would leak.
void print_mask(std::ostream& out, const MaskSection& m);
/// Section 2: the article's illustrative five-token table in both views.
void print_tired_cat(std::ostream& out, const TiredCatSection& t);
/// Section 3: bank's row in two word orders.
void print_word_orders(std::ostream& out, const WordOrderSection& s);
/// Section 4: cross-attention, and the causal rule for a non-square pair.
void print_cross(std::ostream& out, const CrossSection& c);
/// The reader's sentence, in the chosen view(s).
void print_your_sentence(std::ostream& out, const BothViews& v, const Views& views);

}  // namespace ch06
