/// \file figures.hpp
/// \brief Chapter 07's figures, drawn from the sections' results (linear_memory.hpp) through
/// common/plot's charts: the memory S after the sentence and the measured cost per token.
/// Nothing here computes a lesson number.
///
/// Throws: nothing beyond std::bad_alloc; a figure gnuplot cannot draw is reported (app::Plotter).
/// Sources: the article, "Learned matching, kernel smoothing, and memory".
#pragma once

#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"
#include "linear_memory.hpp"

namespace ch07 {

/// The memory S after the last token as a heatmap, rows the value coordinates and columns the key
/// coordinates, each named after an embedding axis (ch07_memory).
void draw_memory(app::Plotter& plots, const MemorySection& m, const std::vector<std::string>& axes);

/// Time per generated token and bytes held against the position, both mechanisms, log-log
/// (ch07_cost_time, ch07_cost_memory).
void draw_cost(app::Plotter& plots, const CostSection& c);

}  // namespace ch07
