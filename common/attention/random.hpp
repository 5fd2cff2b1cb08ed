/// \file random.hpp
/// \brief One portable random stream: seeded explicitly, passed by reference, the same numbers with
/// every standard library.
///
/// The engine is std::mt19937_64, whose output the C++ standard fixes bit for bit. The standard's
/// distributions (std::normal_distribution, std::uniform_real_distribution) are not fixed and differ
/// between libraries, so the draws below turn the engine's 64-bit words into numbers by hand.
/// Nothing here touches Armadillo's global generator: a caller owns its stream and hands it on.
///
/// Throws: std::invalid_argument if n is 0 (Random::below); the other draws throw nothing (beyond
/// std::bad_alloc for a matrix).
/// Sources: Matsumoto & Nishimura 1998 (MT19937, 64-bit variant as fixed by C++ [rand.predef]);
/// Box & Muller 1958 for the normals.
#pragma once

#include <armadillo>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <stdexcept>

namespace attn {

/// How normal() turns the top 53 bits k of its first engine word into Box-Muller's u1 in (0, 1]
/// (its log must be finite). Both maps give exactly the same distribution; they differ only in
/// which normal a given word becomes, so a stream's numbers depend on the map it was drawn with.
enum class UnitMap {
  one_minus_k,  ///< u1 = 1 - k / 2^53: the default
  k_plus_one,   ///< u1 = (k + 1) / 2^53: the attention-only model's initial weights (chapters 08 and 09
                ///< trained and measured their models with it, so it stays)
};

/// A seeded stream of uniform and normal numbers (see the file's description).
class Random {
 public:
  /// Seeds the Mersenne twister with `seed` (any value).
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  /// U[0, 1) from the top 53 bits of one engine word (every double step 2^-53 equally likely).
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// U[lo, hi) (a scalar; lo > hi gives (hi, lo]).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// N(0, 1) by Box-Muller from two uniforms, keeping one of the pair (simplicity over thrift);
  /// `map` says how the first word becomes u1 (see UnitMap). A scalar.
  double normal(UnitMap map = UnitMap::one_minus_k);
  /// A uniform integer in [0, n), n > 0 (engine word modulo n; bias below 2^-50 for n <= 2^14).
  arma::uword below(arma::uword n);
  /// rows x cols of independent U[lo, hi) draws, filled column by column.
  arma::mat uniform_matrix(arma::uword rows, arma::uword cols, double lo, double hi);
  /// rows x cols of independent N(0, std^2) draws (normal() with `map`), filled column by column.
  arma::mat normal_matrix(arma::uword rows, arma::uword cols, double std = 1.0, UnitMap map = UnitMap::one_minus_k);

 private:
  std::mt19937_64 engine_;
};

// ---- definitions ---------------------------------------------------------------------------------

inline double Random::normal(UnitMap map) {
  const double k = static_cast<double>(engine_() >> 11);                                        // 53 random bits
  const double u1 = map == UnitMap::one_minus_k ? 1.0 - k * 0x1.0p-53 : (k + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

inline arma::uword Random::below(arma::uword n) {
  if (n == 0) throw std::invalid_argument("Random::below: n must be > 0");
  return static_cast<arma::uword>(engine_() % n);
}

inline arma::mat Random::uniform_matrix(arma::uword rows, arma::uword cols, double lo, double hi) {
  arma::mat M(rows, cols);
  for (double& x : M) x = uniform(lo, hi);
  return M;
}

inline arma::mat Random::normal_matrix(arma::uword rows, arma::uword cols, double std, UnitMap map) {
  arma::mat M(rows, cols);
  for (double& x : M) x = std * normal(map);
  return M;
}

}  // namespace attn
