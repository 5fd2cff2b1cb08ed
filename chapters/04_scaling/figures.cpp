/// \file figures.cpp
/// \brief Chapter 04's figures (see figures.hpp).
#include "figures.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "common/apparatus/print.hpp"

namespace ch04 {
namespace {

using app::format_number;
using app::format_plain;
using app::format_vector;

// One colour per key across the chapter's figures (key 1, key 2, key 3, ...).
const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

}  // namespace

void draw_variance(app::Plotter& plots, const VarianceSection& v) {
  const arma::uword n = v.estimates.size();
  arma::vec widths(n);
  arma::mat y(n, 4), errors(n, 4, arma::fill::zeros);
  for (arma::uword i = 0; i < n; ++i) {
    const VarianceEstimate& e = v.estimates[i];
    widths(i) = static_cast<double>(e.d_k);
    y.row(i) = arma::rowvec{widths(i), e.var_raw, 1.0, e.var_scaled};
    errors(i, 1) = 3 * e.se_raw;  // the bars reach 3 standard errors, the claim's band
    errors(i, 3) = 3 * e.se_scaled;
  }
  plots.lines({.name = "ch04_variance",
               .title = "Spread of q . k as the query/key width grows (Monte Carlo, +-3 SE bars)",
               .xlabel = "d_k (log scale)",
               .ylabel = "variance (log scale)",
               .x = widths,
               .y = y,
               .series = {"d_k (theory for q . k)", "measured Var(q . k)", "1 (theory for q . k / sqrt(d_k))",
                          "measured Var(q . k / sqrt(d_k))"},
               .logx = true,
               .logy = true,
               .yrange = std::make_pair(0.25, 1024.0),
               .key = "top left box opaque",
               .styles = {{.colour = kColours[0], .dashed = true},
                          {.colour = kColours[0], .error_bars = true},
                          {.colour = kColours[3], .dashed = true},
                          {.colour = kColours[3], .error_bars = true}},
               .errors = errors,
               .xrange = std::make_pair(0.7, 730.0),
               .log_base = 2});
}

void draw_softmax_sweeps(app::Plotter& plots, const SharpnessCurves& c) {
  plots.lines({.name = "ch04_softmax_sharpness",
               .title = "Weights of softmax(c x " + format_vector(c.scores, 2) + ") as c grows",
               .xlabel = "score multiplier c (log scale)",
               .ylabel = "weight",
               .x = c.cs,
               .y = c.weights,
               .series = c.keys,
               .logx = true,
               .x_marks = c.marks,
               .yrange = std::make_pair(0.0, 1.0)});

  const arma::vec positive = c.norms.elem(arma::find(c.norms > 0.0));  // equal scores keep J constant
  // A log axis needs a positive value: with one score (or all equal to a higher precision than the
  // sweep resolves) |J| is 0 throughout, drawn on a linear axis. Far-apart scores drive |J| towards
  // 1e-300; the axis stops eight decades below the peak, where the curve has long been "zero".
  const bool log_norms = !positive.is_empty();
  std::optional<std::pair<double, double>> norm_range = std::make_pair(0.0, 1.0);
  if (log_norms) {
    norm_range = std::make_pair(std::max(positive.min() / 10.0, positive.max() * 1e-8), positive.max() * 30.0);
  }
  plots.lines({.name = "ch04_jacobian_norm",
               .title = "Size of the softmax Jacobian diag(a) - a^T a at c x " + format_vector(c.scores, 2),
               .xlabel = "score multiplier c (log scale)",
               .ylabel = log_norms ? "Frobenius norm of J (log scale)" : "Frobenius norm of J",
               .x = c.cs,
               .y = arma::mat(c.norms),
               .series = {"|J|, J = d a / d s"},
               .logx = true,
               .logy = log_norms,
               .x_marks = c.marks,
               .yrange = norm_range});
}

void draw_dot_vs_angle(app::Plotter& plots, const AngleSweep& sweep) {
  std::vector<std::string> series;
  for (double length : sweep.lengths) series.push_back("|a| = " + format_plain(length));
  const bool unit = sweep.b_length == 1.0;
  const double reach = 1.1 * sweep.lengths.max() * sweep.b_length;
  plots.lines({.name = "ch04_dot_vs_angle",
               .title = unit ? "Dot product of a with the unit vector b as a rotates"
                             : "Dot product of a with b (|b| = " + format_plain(sweep.b_length) + ") as a rotates",
               .xlabel = "angle between a and b (degrees)",
               .ylabel = unit ? "a . b = |a| cos(angle)" : "a . b = |a| |b| cos(angle)",
               .x = sweep.angles,
               .y = sweep.dots,
               .series = series,
               .x_marks = {{sweep.shown_angle, "your angle"}},
               .yrange = std::make_pair(-reach, reach)});
}

void draw_shadow(app::Plotter& plots, const Shadow& s) {
  const double size = std::max({s.length, s.b_length, 1.0});
  const double reach = 1.15 * size, below = -0.12 * size;
  const std::string b_label =
      s.b_length == 1.0 ? "unit vector b (drawn below the line)" : "vector b (drawn below the line)";
  plots.arrows(
      {.name = "ch04_shadow",
       .title = "At " + format_number(s.angle_degrees, 2) + " degrees, a has length " + format_plain(s.length) +
                " and signed projection " + format_number(s.projection, 2) +
                (s.b_length == 1.0 ? std::string()
                                   : "; |b| = " + format_plain(s.b_length) + ", a . b = " + format_number(s.dot, 2)),
       .xlabel = "b direction",
       .ylabel = "perpendicular to b",
       .arrows = {{.x0 = s.a(0),
                   .y0 = s.a(1),
                   .x1 = s.projection,
                   .colour = "gray50",
                   .head = false,
                   .dashed = true,
                   .width = 1},
                  {.x1 = s.a(0), .y1 = s.a(1), .colour = kColours[0], .label = "vector a"},
                  {.x1 = s.projection, .colour = kColours[2], .label = "projection on b (signed)"},
                  {.y0 = below, .x1 = s.b(0), .y1 = below, .colour = kColours[1], .label = b_label}},
       .xrange = {-reach, reach},
       .yrange = {std::min(-reach, 2 * below), reach}});
}

void draw_length_effects(app::Plotter& plots, const CosineComparison& r) {
  const LengthCurves& c = r.curves;
  const std::size_t m = c.keys.size();
  std::vector<std::string> series;
  std::vector<app::LineStyle> styles;
  for (int cosine = 0; cosine < 2; ++cosine) {
    for (std::size_t j = 0; j < m; ++j) {
      series.push_back(c.keys[j] + (cosine ? ", cosine scores" : ", scaled dot products"));
      styles.push_back({.colour = kColours[j], .dashed = cosine == 1});
    }
  }
  plots.lines({.name = "ch04_longer_query",
               .title = "Weights as the query is made c times longer, keys fixed",
               .xlabel = "query length factor c (log scale)",
               .ylabel = "weight",
               .x = c.cs,
               .y = c.query_weights,
               .series = series,
               .logx = true,
               .x_marks = {{1.0, "c = 1"}},
               .yrange = std::make_pair(0.0, 1.0),
               .styles = styles});
  const std::string first = c.keys.front(), last = c.keys.back();
  plots.lines({.name = "ch04_longer_key",
               .title = "Weight of one key as that key alone is made c times longer",
               .xlabel = "key length factor c (log scale)",
               .ylabel = "weight of the key made longer",
               .x = c.cs,
               .y = c.key_weights,
               .series = {first + " grown, scaled dot products", first + " grown, cosine scores",
                          last + " grown, scaled dot products", last + " grown, cosine scores"},
               .logx = true,
               .x_marks = {{1.0, "c = 1"}},
               .yrange = std::make_pair(0.0, 1.0),
               .styles = {{.colour = kColours[0]},
                          {.colour = kColours[0], .dashed = true},
                          {.colour = kColours[m - 1]},
                          {.colour = kColours[m - 1], .dashed = true}}});
}

}  // namespace ch04
