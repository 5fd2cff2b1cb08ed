/// \file gradcheck.hpp
/// \brief Central-difference gradient checking for any parameter group.
///
/// Throws: std::invalid_argument if the shapes differ, h <= 0 or abs_tol < 0 (check_gradient), and
/// whatever `loss` throws; nothing else (beyond std::bad_alloc).
/// Source: the usual check, as in Goodfellow et al. 2016, §11.5.
#pragma once

#include <armadillo>
#include <functional>
#include <stdexcept>
#include "common/attention/checks.hpp"

namespace attn {

/// Result of comparing an analytic gradient with central differences.
struct GradCheck {
  double max_relative_error = 0.0;  ///< max over entries of |g - g_fd| / max(|g| + |g_fd|, 1e-12)
  arma::mat numeric;                ///< the central-difference gradient, same shape as the parameter
};

/// Compares `analytic` (same shape as `param`) with (loss(p + h) - loss(p - h)) / 2h entry by entry.
/// `loss` must read `param` (which is perturbed in place and restored exactly afterwards).
/// h: step, > 0 (1e-6 suits double precision on O(1) values). Entries whose absolute difference is
/// below `abs_tol` count as agreeing: central differences carry round-off of about 1e-16 |loss| / h,
/// which would dominate the relative error of a gradient that is itself nearly zero.
GradCheck check_gradient(const std::function<double()>& loss, arma::mat& param, const arma::mat& analytic,
                         double h = 1e-6, double abs_tol = 1e-9);

// ---- definitions ---------------------------------------------------------------------------------

inline GradCheck check_gradient(const std::function<double()>& loss, arma::mat& param, const arma::mat& analytic,
                                double h, double abs_tol) {
  if (arma::size(param) != arma::size(analytic)) {
    throw std::invalid_argument("check_gradient: parameter is " + shape(param) + " but gradient is " + shape(analytic));
  }
  if (!(h > 0) || !(abs_tol >= 0)) throw std::invalid_argument("check_gradient: need h > 0 and abs_tol >= 0");
  GradCheck out;
  out.numeric.set_size(arma::size(param));
  for (arma::uword k = 0; k < param.n_elem; ++k) {
    const double saved = param(k);
    param(k) = saved + h;
    const double up = loss();
    param(k) = saved - h;
    const double down = loss();
    param(k) = saved;
    out.numeric(k) = (up - down) / (2 * h);
    const double a = analytic(k), n = out.numeric(k);
    const double denom = std::max(std::abs(a) + std::abs(n), 1e-12);
    if (std::abs(a - n) < abs_tol) continue;
    out.max_relative_error = std::max(out.max_relative_error, std::abs(a - n) / denom);
  }
  return out;
}

}  // namespace attn
