/// \file random.hpp
/// \brief One portable random stream, seeded explicitly and passed in to whatever draws from it.
///
/// It uses std::mt19937_64 directly (no standard-library distributions, whose output differs
/// between implementations), so a seed gives the same numbers with every compiler and library.
/// Nothing here touches Armadillo's global generator.
#pragma once

#include <armadillo>
#include <cstdint>
#include <random>

namespace attn {

/// A seeded random source with portable uniform and normal draws.
class Rng {
 public:
  /// Seeds the Mersenne twister.
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// A uniform integer in [0, n); throws std::invalid_argument for n = 0.
  arma::uword below(arma::uword n);
  /// A uniform real in [0, 1) with 53 random bits.
  double uniform();
  /// A standard normal draw (Box-Muller).
  double normal();
  /// A rows x cols matrix of independent N(0, std^2) draws, filled column by column.
  arma::mat normal_matrix(arma::uword rows, arma::uword cols, double std);

 private:
  std::mt19937_64 engine_;
};

}  // namespace attn
