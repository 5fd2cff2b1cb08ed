/// \file figures.hpp
/// \brief Chapter 04's figures, drawn from the sections' results (sections.hpp) through
/// common/plot's charts: the Monte Carlo variances, the softmax sweeps over a score multiplier,
/// the dot product against the angle, the explorer's shadow and the length effects of section 7.
/// Nothing here computes a lesson number; each function turns a result into a chart.
///
/// Throws: nothing beyond std::bad_alloc; a figure gnuplot cannot draw is reported (app::Plotter).
/// Sources: the article, "A dot product includes vector length" (its shadow explorer), "Why divide by
/// the square root of the dimension?", "Scaling changes how sharply softmax chooses" and "Why not use
/// cosine similarity instead?".
#pragma once

#include "common/apparatus/plot.hpp"
#include "sections.hpp"

namespace ch04 {

/// "Spread of q .\ k": measured Var(q .\ k) and Var(q .\ k / sqrt(d_k)) with +-3 SE bars against
/// their theory lines d_k and 1 (log-log). Writes ch04_variance.png and .dat.
void draw_variance(app::Plotter& plots, const VarianceSection& v);

/// The weights of softmax(c x scores) and the size of their Jacobian as c sweeps 0.05 to 20
/// (ch04_softmax_sharpness, ch04_jacobian_norm).
void draw_softmax_sweeps(app::Plotter& plots, const SharpnessCurves& curves);

/// a .\ b against the angle for |a| = 1, 5, 10, the explorer's angle marked (ch04_dot_vs_angle).
void draw_dot_vs_angle(app::Plotter& plots, const AngleSweep& sweep);

/// The explorer's picture: a, its signed projection on b's line, and b (ch04_shadow).
void draw_shadow(app::Plotter& plots, const Shadow& shadow);

/// Section 7: the weights as the query grows (ch04_longer_query) and as k1 or k3 alone grows
/// (ch04_longer_key), dot-product scores solid and cosine scores dashed, one colour per key.
void draw_length_effects(app::Plotter& plots, const CosineComparison& r);

}  // namespace ch04
