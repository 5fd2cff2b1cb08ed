/// \file chapters/09_real_heads/compare_view.hpp
/// \brief Printing and drawing `--compare A B` (compare.hpp's Comparison): the two marked
/// sentences, where every head reads at the marked positions side by side, and the readings
/// compared stage by stage against their controls. Nothing here computes a lesson number.
///
/// Source: the article, "Watch real heads" (try two sentences containing different uses of bank,
/// inspect several heads and layers, then compare the corresponding hidden representations).
/// Printers throw nothing of their own (stream errors are the stream's state); the figure throws
/// as draw_report() does.
#pragma once

#include <ostream>
#include <string>

#include "common/apparatus/plot.hpp"
#include "compare.hpp"

namespace ch09 {

/// `m`'s sentence with its span in brackets, a newline shown as "\\n" and any other unprintable byte
/// as '?', cut to at most `width` characters around the span ("..." where cut; `width` >= 12).
/// Throws nothing (beyond std::bad_alloc).
std::string shown(const Marked& m, std::size_t width);

/// The comparison: the sentences and positions, the heads side by side, the table of cosines
/// (raw and centred, with the controls' lowest, mean and highest) and what each stage's rank says.
void print_comparison(std::ostream& out, const Comparison& c);

/// Figures ch09_compare_a and ch09_compare_b (the two head views) and ch09_compare (A vs B's
/// centred cosine after each layer beside the controls' lowest, mean and highest).
void draw_comparison(attn::Plotter& plots, const Comparison& c);

}  // namespace ch09
