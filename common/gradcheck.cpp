/// \file gradcheck.cpp
/// \brief Central-difference gradient checking (see gradcheck.hpp).
#include "common/gradcheck.hpp"

#include <stdexcept>

#include "common/checks.hpp"

namespace attn {

GradCheck check_gradient(const std::function<double()>& loss, arma::mat& param, const arma::mat& analytic, double h,
                         double abs_tol) {
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
