/// \file report.hpp
/// \brief Chapter 04's printed sections: each printer takes its section's result (sections.hpp)
/// and writes it to `out`; none computes anything.
///
/// Throws: std::invalid_argument for a claim without an ID (print_line); the others throw nothing
/// beyond std::bad_alloc.
/// Sources: the article, "Dot products, cosine similarity, and scaling" and its subsections.
#pragma once

#include <ostream>

#include "common/apparatus/print.hpp"
#include "sections.hpp"

namespace ch04 {

/// Prints a claim line: with its tag (app::print_claim) when `tagged` (the section runs on the
/// article's numbers), as plain text, the same evidence without the tag, otherwise.
void print_line(std::ostream& out, const app::ClaimCheck& claim, bool tagged);

/// Section 2: the dot product / cosine table.
void print_dot_cosine(std::ostream& out, const DotCosineTable& t);
/// Section 1: the explorer.
void print_explorer(std::ostream& out, const Explorer& e);
/// Section 3: the fixed divisor.
void print_fixed_divisor(std::ostream& out, const FixedDivisor& f);
/// Section 4: the Monte Carlo table.
void print_variance(std::ostream& out, const VarianceSection& v);
/// Section 5: raw and scaled weights.
void print_softmax_scaling(std::ostream& out, const SoftmaxScaling& r);
/// Section 6: the softmax Jacobian as the scores grow.
void print_learning_signal(std::ostream& out, const LearningSignal& r);
/// Section 7: longer queries and keys under dot-product and cosine scores.
void print_cosine_comparison(std::ostream& out, const CosineComparison& r);

}  // namespace ch04
