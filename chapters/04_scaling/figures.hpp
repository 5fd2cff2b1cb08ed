/// \file figures.hpp
/// \brief Chapter 04's figures, drawn from the sections' results: the Monte Carlo variances, the
/// softmax sweeps over a score multiplier, the dot product against the angle and the explorer's
/// shadow. The plotting code lives here, beside the result types, so the program only calls it.
#pragma once

#include <vector>

#include "common/plot.hpp"
#include "scaling.hpp"

namespace ch04 {

/// "Spread of q .\ k": measured Var(q .\ k) and Var(q .\ k / sqrt(d_k)) with +-3 SE bars against
/// their theory lines d_k and 1 (log-log). Writes ch04_variance.png and .dat.
/// Throws nothing; a figure gnuplot cannot draw is reported (attn::Plotter::bars).
/// Source: the article, "Why divide by the square root of the dimension?".
void draw_variance(attn::Plotter& plots, const std::vector<VarianceEstimate>& estimates);

/// The weights of softmax(c x scores) and the size of their Jacobian as c sweeps 0.05 to 20
/// (ch04_softmax_sharpness, ch04_jacobian_norm). scores: 1 x m, finite; throws
/// std::invalid_argument otherwise (as softmax()); a figure that cannot be drawn is reported.
/// Source: the article, "Scaling changes how sharply softmax chooses".
void draw_softmax_sweeps(attn::Plotter& plots, const arma::rowvec& scores);

/// a .\ b against the angle for |a| = 1, 5, 10, the explorer's angle marked (ch04_dot_vs_angle).
/// Throws nothing; a figure gnuplot cannot draw is reported (attn::Plotter::bars).
/// Source: the article, "Scaling preserves the influence of lengths".
void draw_dot_vs_angle(attn::Plotter& plots, const Shadow& shadow);

/// The explorer's picture: a, its signed projection on b's line, and b (ch04_shadow).
/// Throws nothing; a figure gnuplot cannot draw is reported (attn::Plotter::bars).
/// Source: the article, "A dot product includes vector length" (its shadow explorer).
void draw_shadow(attn::Plotter& plots, const Shadow& shadow);

}  // namespace ch04
