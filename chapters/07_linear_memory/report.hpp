/// \file report.hpp
/// \brief Chapter 07's printed sections: each printer takes its section's result
/// (linear_memory.hpp), writes it to `out` with its claims checked on it (claims.hpp); none computes
/// the mathematics.
///
/// Throws: nothing beyond std::bad_alloc (stream errors are the stream's state).
/// Sources: the article, "Learned matching, kernel smoothing, and memory".
#pragma once

#include <ostream>

#include "claims.hpp"
#include "linear_memory.hpp"

namespace ch07 {

/// Section 1: M = Wq Wk^T and the scores as a bilinear form; `seed` drew the head.
void print_matching(std::ostream& out, const RandomHead& h, const BilinearSection& b, unsigned seed);
/// Section 2: the factors Wq R and Wk R^-T give the same scores.
void print_not_unique(std::ostream& out, const RandomHead& h, const FactorSection& f);
/// Section 3: softmax attention as normalized exp-kernel smoothing.
void print_kernel(std::ostream& out, const KernelSection& k);
/// Section 4: causal linear attention as a running memory, and what each method holds.
void print_memory(std::ostream& out, const MemorySection& m);
/// Section 5 (--bench): the measured cost per generated token.
void print_cost(std::ostream& out, const CostSection& c);

}  // namespace ch07
