/// \file claims.cpp
/// \brief Chapter 07's claims, checked on the section results (see claims.hpp).
#include "claims.hpp"

#include <cmath>
#include <cstddef>
#include <string>

namespace ch07 {

app::ClaimCheck claim_bilinear_form(const BilinearSection& b, arma::uword d_k) {
  const bool asymmetric = std::abs(b.S(0, 1) - b.S(1, 0)) > 1e-9 && b.asymmetry > 1e-9;
  const bool holds = b.rank <= d_k && b.largest_difference <= 1e-12 * (1.0 + arma::abs(b.S).max()) && asymmetric;
  return {"mem_01", holds,
          "  s_01 = " + app::format_number(b.S(0, 1), 4) + " but s_10 = " + app::format_number(b.S(1, 0), 4) +
              ": how token 0 matches token 1 is not how 1 matches 0"};
}

app::ClaimCheck claim_factors_not_unique(const FactorSection& f) {
  return {"mem_02", f.score_change <= 1e-10 && f.factor_change > 1e-6,
          "  Wq changed by up to " + app::format_number(f.factor_change, 2) + ", yet the scores differ by at most " +
              scientific(f.score_change)};
}

app::ClaimCheck claim_kernel_smoothing(const KernelSection& k) {
  const std::string root = "sqrt(" + std::to_string(k.pass.K.n_cols) + ")";
  return {"mem_03", k.largest_difference <= 1e-12,
          "  sum_j exp(q_i.k_j / " + root + ") v_j / sum_j exp(q_i.k_j / " + root + "):\n  largest difference " +
              scientific(k.largest_difference)};
}

app::ClaimCheck claim_running_memory(const MemorySection& m) {
  return {"mem_04", m.largest_difference <= 1e-10, "  largest difference: " + scientific(m.largest_difference)};
}

app::ClaimCheck claim_memory_fixed_size(const MemorySection& m) {
  bool fixed = !m.memories.empty();
  for (const arma::mat& S : m.memories) fixed = fixed && arma::size(S) == arma::size(m.memories.front());
  return {"mem_05", fixed,
          "  S stays " + attn::shape(m.memories.back()) + " while the cache grows by one key and one value per token"};
}

app::ClaimCheck claim_memory_at_scale() {
  const std::size_t memory = linear_memory_bytes(64, 64), cache = kv_cache_bytes(16384, 64, 64);
  return {"mem_05", memory < cache,
          "  At d_k = d_v = 64 and position 16384: S holds " + std::to_string(memory) + " bytes, the cache " +
              std::to_string(cache) + " bytes"};
}

}  // namespace ch07
