/// \file claims.cpp
/// \brief Chapter 03's claims, checked on the section results (see claims.hpp).
#include "claims.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "common/attention/toy.hpp"

namespace ch03 {

namespace {

std::string tower_row(const arma::mat& M, int precision) {
  return app::format_vector(arma::rowvec(M.row(2)), precision);
}

}  // namespace

app::ClaimCheck claim_separate_objects(const std::vector<SeparateObject>& rows, const ExampleSublayer& example) {
  bool kinds = rows.size() == 4;
  for (const SeparateObject& r : rows) {
    const bool parameter = r.object == "E" || r.object == "Wq, Wk, Wv";
    kinds = kinds && r.learned == parameter;
  }
  const arma::mat& E = attn::toy_embeddings().E();
  const arma::mat& Wq = example.weights.heads.front().Wq;
  // Separate objects: E is indexed by token ID (vocabulary rows), a projection by input coordinate (d rows).
  const bool separate = E.n_cols == Wq.n_rows && example.X.n_cols == E.n_cols && Wq.n_cols != E.n_cols;
  std::ostringstream evidence;
  evidence << "  learned: E (" << attn::shape(E) << ") and Wq, Wk, Wv (" << attn::shape(Wq)
           << " per head);\n  computed on each pass: X, Q, K, V, A, H";
  return {.id = "heads_04", .holds = kinds && separate, .evidence = evidence.str()};
}

app::ClaimCheck claim_counts_per_block(const Counts& c, long long n, long long h,
                                       const std::optional<BuiltSublayer>& built) {
  const auto un = static_cast<std::uint64_t>(n), uh = static_cast<std::uint64_t>(h);
  bool holds = c.qkv_projections_per_block == 3 * uh && c.qkv_matrices_per_block == 3 * uh &&
               c.qkv_vectors_per_block == 3 * un * uh && c.queries_per_token == uh;
  if (built) {  // the same counts, read off real matrices
    holds = holds && 3 * built->weights.heads.size() == c.qkv_projections_per_block &&
            3 * built->pass.heads.size() == c.qkv_matrices_per_block && built->qkv_rows == c.qkv_vectors_per_block;
  }
  return {"heads_01", holds,
          "  One sublayer: " + std::to_string(c.qkv_projections_per_block) +
              " learned Q/K/V projection matrices (3h), " + std::to_string(c.qkv_matrices_per_block) +
              " computed Q/K/V matrices (3h),\n  " + std::to_string(c.qkv_vectors_per_block) +
              " computed vectors (3nh: " + app::counted(n * h, "query", "queries") + " + " +
              app::counted(n * h, "key") + " + " + app::counted(n * h, "value") + ")"};
}

app::ClaimCheck claim_stack_counts(const Counts& c, long long h, long long N) {
  const auto uh = static_cast<std::uint64_t>(h), uN = static_cast<std::uint64_t>(N);
  return {"heads_02", c.qkv_projections_in_stack == 3 * uN * uh && c.output_projections_in_stack == uN,
          "  3Nh = " + std::to_string(c.qkv_projections_in_stack) + " Q/K/V projection matrices and N = " +
              std::to_string(c.output_projections_in_stack) + " output projection(s)"};
}

app::ClaimCheck claim_sublayer_shapes(const ExampleSublayer& e) {
  const attn::MultiHeadPass& p = e.pass;
  const arma::uword n = e.X.n_rows, d = e.X.n_cols;
  arma::uword width = 0;
  for (const attn::HeadPass& head : p.heads) width += head.H.n_cols;
  const bool shapes = p.concat.n_rows == n && p.concat.n_cols == width && e.weights.Wo.n_rows == width &&
                      e.weights.Wo.n_cols == d && p.delta.n_rows == n && p.delta.n_cols == d;
  const bool residual = arma::approx_equal(p.Y, arma::mat(e.X + p.delta), "absdiff", 0.0);
  return {"heads_03", shapes && residual,
          "  X " + attn::shape(e.X) + " -> Concat(H(1), H(2)) " + attn::shape(p.concat) + " -> Wo " +
              attn::shape(e.weights.Wo) + " -> Delta " + attn::shape(p.delta) + " -> Y = X + Delta " +
              attn::shape(p.Y)};
}

app::ClaimCheck claim_values_keep_weights(const std::vector<Combination>& combos) {
  const attn::HeadPass& raw_values = combination(combos, Choice::swap, Choice::raw);
  const attn::HeadPass& swapped = combination(combos, Choice::swap, Choice::swap);
  return {"val_01", arma::approx_equal(raw_values.A, swapped.A, "absdiff", 0.0),
          "  tower's weights with swapped values: " + tower_row(swapped.A, 4)};
}

app::ClaimCheck claim_values_swap_content(const std::vector<Combination>& combos) {
  const attn::HeadPass& raw_values = combination(combos, Choice::swap, Choice::raw);
  const attn::HeadPass& swapped = combination(combos, Choice::swap, Choice::swap);
  const bool swaps = raw_values.H(2, 0) == swapped.H(2, 1) && raw_values.H(2, 1) == swapped.H(2, 0) &&
                     raw_values.H(2, 0) != raw_values.H(2, 1);
  return {"val_02", swaps, "  tower's mixture with swapped values: " + tower_row(swapped.H, 4)};
}

app::ClaimCheck claim_asymmetry(const Asymmetry& a) {
  const bool differs = std::abs(a.forward - a.backward) > 1e-9;
  const bool asymmetric_M = !arma::approx_equal(a.M, a.M.t(), "absdiff", 1e-12);
  const std::string& wi = a.words[a.i];
  const std::string& wj = a.words[a.j];
  std::ostringstream evidence;
  evidence << "  s(" << wi << " -> " << wj << ") = q_" << wi << " . k_" << wj
           << " / sqrt(3) = " << app::format_number(a.forward, 3) << ", but\n  s(" << wj << " -> " << wi << ") = q_"
           << wj << " . k_" << wi << " / sqrt(3) = " << app::format_number(a.backward, 3);
  return {.id = "val_05", .holds = differs && asymmetric_M, .evidence = evidence.str()};
}

app::ClaimCheck claim_another_key(const AnotherKey& k) {
  const bool unchanged = arma::approx_equal(k.q_before, k.q_after, "absdiff", 0.0) &&
                         arma::approx_equal(k.k_before, k.k_after, "absdiff", 0.0) && k.score_before == k.score_after;
  return {"val_03", unchanged && k.weight_after < k.weight_before,
          "  q_tower and k_Eiffel are unchanged; the new key joins the softmax denominator, so a(tower, Eiffel)\n"
          "  falls from " +
              app::format_number(k.weight_before, 4) + " to " + app::format_number(k.weight_after, 4)};
}

app::ClaimCheck claim_residual(const std::vector<Combination>& combos) {
  const arma::mat X2 = eiffel_sentence();
  const attn::HeadPass& p = combination(combos, Choice::swap, Choice::raw);
  const arma::rowvec y = X2.row(2) + p.H.row(2);
  // tower has no Paris identity of its own: all of it arrives through the mixture; its structure grows.
  return {"val_04", X2(2, 1) == 0.0 && y(1) == p.H(2, 1) && y(0) > X2(2, 0),
          "  tower " + app::format_vector(arma::rowvec(X2.row(2)), 0) + " + swap-query mixture " + tower_row(p.H, 4) +
              " = " + app::format_vector(y, 4)};
}

}  // namespace ch03
