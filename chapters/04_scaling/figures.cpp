/// \file figures.cpp
/// \brief Chapter 04's figures (see figures.hpp).
#include "figures.hpp"

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "common/print.hpp"

namespace ch04 {

using attn::format_number;
using attn::format_plain;
using attn::format_vector;

void draw_variance(attn::Plotter& plots, const std::vector<VarianceEstimate>& estimates) {
  std::ostringstream data;
  data << "# Var(q.k) and Var(q.k / sqrt(d_k)) by Monte Carlo\n# d_k\tvar_raw\tse_raw\tvar_scaled\tse_scaled\n";
  data.precision(10);
  for (const auto& e : estimates) {
    data << e.d_k << '\t' << e.var_raw << '\t' << e.se_raw << '\t' << e.var_scaled << '\t' << e.se_scaled << '\n';
  }
  plots.figure(
      "ch04_variance", "Spread of q . k as the query/key width grows (Monte Carlo, +-3 SE bars)", {data.str()},
      [](const std::vector<std::string>& dat) {
        return "set xlabel 'd_k (log scale)'\nset ylabel 'variance (log scale)'\n"
               "set logscale xy 2\nset xrange [0.7:730]\nset yrange [0.25:1024]\nset grid\n"
               "set key top left box opaque\n"
               "plot x with lines dashtype 2 linewidth 2 linecolor rgb '#1f77b4' title 'd_k (theory for q . k)', " +
               dat[0] +
               " using 1:2:(3*$3) with yerrorbars pointtype 7 pointsize 1.2 linecolor rgb '#1f77b4' "
               "title 'measured Var(q . k)', "
               "1 with lines dashtype 2 linewidth 2 linecolor rgb '#d62728' title '1 (theory for q . k / "
               "sqrt(d_k))', " +
               dat[0] +
               " using 1:4:(3*$5) with yerrorbars pointtype 5 pointsize 1.2 linecolor rgb '#d62728' "
               "title 'measured Var(q . k / sqrt(d_k))'\n";
      });
}

void draw_softmax_sweeps(attn::Plotter& plots, const arma::rowvec& scores) {
  const arma::vec cs = arma::logspace(std::log10(0.05), std::log10(20.0), 161);
  std::vector<std::string> keys;
  for (arma::uword j = 0; j < scores.n_elem; ++j) {
    std::string key = "key ";  // built by appending: GCC 12 misreports "literal" + std::string as an overflow
    key.append(std::to_string(j + 1)).append(" (score ").append(format_plain(scores(j))).append(")");
    keys.push_back(key);
  }
  const std::vector<std::pair<double, std::string>> marks{{0.5, "c = 1/2"}, {1.0, "c = 1"}};
  plots.lines({.name = "ch04_softmax_sharpness",
               .title = "Weights of softmax(c x " + format_vector(scores, 2) + ") as c grows",
               .xlabel = "score multiplier c (log scale)",
               .ylabel = "weight",
               .x = cs,
               .y = sharpness_sweep(scores, cs),
               .series = keys,
               .logx = true,
               .x_marks = marks,
               .yrange = std::make_pair(0.0, 1.0)});

  const arma::vec norms = jacobian_norm_sweep(scores, cs);
  const arma::vec positive = norms.elem(arma::find(norms > 0.0));  // equal scores keep J constant; huge ones reach 0
  // A log axis needs a positive value: with one score (or all equal to a higher precision than the
  // sweep resolves) |J| is 0 throughout, drawn on a linear axis. Far-apart scores drive |J| towards
  // 1e-300; the axis stops eight decades below the peak, where the curve has long been "zero".
  const bool log_norms = !positive.is_empty();
  std::optional<std::pair<double, double>> norm_range = std::make_pair(0.0, 1.0);
  if (log_norms) {
    norm_range = std::make_pair(std::max(positive.min() / 10.0, positive.max() * 1e-8), positive.max() * 30.0);
  }
  plots.lines({.name = "ch04_jacobian_norm",
               .title = "Size of the softmax Jacobian diag(a) - a^T a at c x " + format_vector(scores, 2),
               .xlabel = "score multiplier c (log scale)",
               .ylabel = log_norms ? "Frobenius norm of J (log scale)" : "Frobenius norm of J",
               .x = cs,
               .y = arma::mat(norms),
               .series = {"|J|, J = d a / d s"},
               .logx = true,
               .logy = log_norms,
               .x_marks = marks,
               .yrange = norm_range});
}

void draw_dot_vs_angle(attn::Plotter& plots, const Shadow& s) {
  const arma::vec angles = arma::linspace(0.0, 360.0, 361);
  arma::mat dots(angles.n_elem, 3);
  const double lengths[3] = {1, 5, 10};
  for (arma::uword i = 0; i < angles.n_elem; ++i) {
    for (int j = 0; j < 3; ++j) dots(i, j) = shadow_of(angles(i), lengths[j]).dot;
  }
  double shown = std::fmod(s.angle_degrees, 360.0);
  if (shown < 0) shown += 360.0;
  plots.lines({.name = "ch04_dot_vs_angle",
               .title = "Dot product of a with the unit vector b as a rotates",
               .xlabel = "angle between a and b (degrees)",
               .ylabel = "a . b = |a| cos(angle)",
               .x = angles,
               .y = dots,
               // clang-format off
               .series = {"|a| = 1", "|a| = 5", "|a| = 10"},
               .x_marks = {{shown, "your angle"}},
               .yrange = std::make_pair(-11.0, 11.0)});
  // clang-format on
}

void draw_shadow(attn::Plotter& plots, const Shadow& s) {
  const double reach = std::max(s.length, 1.0) * 1.15, below = -0.12 * std::max(s.length, 1.0);
  std::ostringstream data;
  data.precision(10);
  data << "# x\ty\tdx\tdy\t(rows: a; its projection on b's line; b, drawn below the line)\n"
       << "0\t0\t" << s.a(0) << '\t' << s.a(1) << "\n0\t0\t" << s.projection << "\t0\n0\t" << below << "\t1\t0\n";
  const std::string title = "At " + format_number(s.angle_degrees, 2) + " degrees, a has length " +
                            format_plain(s.length) + " and signed projection " + format_number(s.projection, 2);
  plots.figure("ch04_shadow", title, {data.str()}, [&](const std::vector<std::string>& dat) {
    std::ostringstream gp;
    gp << "set xlabel 'b direction'\nset ylabel 'perpendicular to b'\nset size ratio -1\nset grid\n"
       << "set xrange [" << -reach << ":" << reach << "]\nset yrange [" << std::min(-reach, 2 * below) << ":" << reach
       << "]\nset xzeroaxis linetype -1\nset key outside right top vertical Left reverse\n"
       << "set arrow from " << s.a(0) << "," << s.a(1) << " to " << s.projection
       << ",0 nohead dashtype 2 linecolor rgb 'gray50'\n"
       << "plot " << dat[0]
       << " every ::0::0 using 1:2:3:4 with vectors head filled linewidth 3 linecolor rgb '#1f77b4' title 'vector a', "
       << dat[0]
       << " every ::1::1 using 1:2:3:4 with vectors head filled linewidth 3 linecolor rgb '#2ca02c' title 'projection "
          "on b (signed)', "
       << dat[0]
       << " every ::2::2 using 1:2:3:4 with vectors head filled linewidth 3 linecolor rgb '#ff7f0e' title 'unit vector "
          "b (drawn below the line)'\n";
    return gp.str();
  });
}

}  // namespace ch04
