/// \file rng.cpp
/// \brief The portable random stream (see random.hpp).
#include "common/rng.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace attn {

arma::uword Rng::below(arma::uword n) {
  if (n == 0) throw std::invalid_argument("Rng::below: n must be > 0");
  return static_cast<arma::uword>(engine_() % n);  // bias below 2^-40 for n <= 2^24
}

double Rng::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  // 53 random bits into (0, 1], then Box-Muller.
  const double u1 = (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

arma::mat Rng::normal_matrix(arma::uword rows, arma::uword cols, double std) {
  arma::mat M(rows, cols);
  for (double& x : M) x = std * normal();
  return M;
}

}  // namespace attn
