/// \file random.cpp
/// \brief The portable random stream (see random.hpp).
#include "common/random.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace attn {

double Random::normal(UnitMap map) {
  const double k = static_cast<double>(engine_() >> 11);                                        // 53 random bits
  const double u1 = map == UnitMap::one_minus_k ? 1.0 - k * 0x1.0p-53 : (k + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

arma::uword Random::below(arma::uword n) {
  if (n == 0) throw std::invalid_argument("Random::below: n must be > 0");
  return static_cast<arma::uword>(engine_() % n);
}

arma::mat Random::uniform_matrix(arma::uword rows, arma::uword cols, double lo, double hi) {
  arma::mat M(rows, cols);
  for (double& x : M) x = uniform(lo, hi);
  return M;
}

arma::mat Random::normal_matrix(arma::uword rows, arma::uword cols, double std, UnitMap map) {
  arma::mat M(rows, cols);
  for (double& x : M) x = std * normal(map);
  return M;
}

}  // namespace attn
