/// \file figures.hpp
/// \brief Chapter 01's figures: bank's weights and mixtures in both sentences, and the reader's
/// sentence under a sweep of score multipliers.
///
/// Each turns a lesson result (mixing.hpp) into a common/plot chart; nothing here computes the lesson.
/// Throws: nothing beyond std::bad_alloc.
/// Sources: the article's untitled opening ("Two sentences start with the same bank vector"), "One
/// forward pass, no training" and "Try the score scale".
#pragma once

#include <string>
#include <vector>

#include "common/apparatus/plot.hpp"
#include "mixing.hpp"

namespace ch01 {

/// bank's weights over the three source positions in both article sentences, side by side
/// (ch01_bank_weights): the bars are equal.
app::BarChart bank_weights_chart(const ForwardPassSection& f);

/// bank's input and the two mixtures it receives, over the table's `axes` (ch01_mixtures).
app::BarChart mixtures_chart(const ForwardPassSection& f, const std::vector<std::string>& axes);

/// The article's opening picture (ch01_updates), drawn from section 1's numbers: bank's looked-up
/// vector, the same in both sentences, and each sentence's update (its mixture, through an identity
/// output projection) added head to tail, in the plane of the table's first two `axes` (finance,
/// water). The residual stream is the looked-up vector plus the updates added to it; the two results
/// differ only in these two coordinates (the mixtures' other coordinates are equal).
app::ArrowChart updates_chart(const ForwardPassSection& f, const std::vector<std::string>& axes);

/// The weights the reader's last word receives as the multiplier sweeps 0.05 .. 10 on a log axis
/// (ch01_scale_sweep), one line per source word in that word's colour, marks at x0.1, x1 and x5,
/// and at the reader's multiplier when it is another value inside the sweep.
app::LineChart scale_sweep_chart(const Experiment& e);

}  // namespace ch01
