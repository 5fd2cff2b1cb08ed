/// \file gradcheck.hpp
/// \brief Central-difference gradient checking for any parameter group.
#pragma once

#include <armadillo>
#include <functional>

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
/// Throws std::invalid_argument if the shapes differ, h <= 0 or abs_tol < 0.
/// Source: the usual check, as in Goodfellow et al. 2016, §11.5.
GradCheck check_gradient(const std::function<double()>& loss, arma::mat& param, const arma::mat& analytic,
                         double h = 1e-6, double abs_tol = 1e-9);

}  // namespace attn
