/// \file values.cpp
/// \brief Chapter 03 computations (see values.hpp).
#include "values.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "common/attention/checks.hpp"
#include "common/attention/toy.hpp"

namespace ch03 {

Choice parse_choice(const std::string& text) {
  if (text == "raw") return Choice::raw;
  if (text == "swap") return Choice::swap;
  throw std::invalid_argument("a choice must be raw or swap (got " + attn::quoted(text) + ")");
}

std::string choice_name(Choice choice) { return choice == Choice::raw ? "raw" : "swap"; }

arma::mat choice_matrix(Choice choice) {
  return choice == Choice::raw ? arma::mat(arma::eye(2, 2)) : arma::mat{{0.0, 1.0}, {1.0, 0.0}};
}

arma::mat eiffel_sentence() { return attn::teaching_space_2d().lookup({"the", "Eiffel", "tower"}); }

// [tower_head]
attn::HeadPass tower_head(Choice query, Choice values) {
  // X2: 3 x 2; Wq and Wv: 2 x 2; Wk = I. Wq decides the weights, Wv the content they mix.
  return attn::attention(eiffel_sentence(), choice_matrix(query), arma::eye(2, 2), choice_matrix(values));
}
// [tower_head]

// [add_another_key]
AnotherKey add_another_key(const arma::rowvec& extra) {
  if (extra.n_elem != 2) throw std::invalid_argument("add_another_key: the extra token must be 1 x 2");
  attn::require_finite(extra, "add_another_key: the extra token");
  const arma::mat X2 = eiffel_sentence();           // 3 x 2
  const arma::mat X3 = arma::join_cols(X2, extra);  // 4 x 2: one more key in every row
  const arma::mat swap = choice_matrix(Choice::swap), I = arma::eye(2, 2);
  const attn::HeadPass before = attn::attention(X2, swap, I, I), after = attn::attention(X3, swap, I, I);
  return {.q_before = before.Q.row(2),
          .q_after = after.Q.row(2),
          .k_before = before.K.row(1),
          .k_after = after.K.row(1),
          .score_before = before.scores(2, 1),
          .score_after = after.scores(2, 1),
          .weight_before = before.A(2, 1),
          .weight_after = after.A(2, 1)};
}
// [add_another_key]

namespace {

void check_size(const char* what, long long value, std::uint64_t max) {
  if (value <= 0 || static_cast<std::uint64_t>(value) > max) {
    throw std::invalid_argument(std::string(what) + " must be between 1 and " + std::to_string(max) + " (got " +
                                std::to_string(value) + ")");
  }
}

}  // namespace

// [count_objects]
Counts count_objects(long long n, long long h, long long N) {
  check_size("the number of tokens", n, kMaxTokens);
  check_size("the number of heads", h, kMaxHeads);
  check_size("the number of blocks", N, kMaxBlocks);
  const auto un = static_cast<std::uint64_t>(n), uh = static_cast<std::uint64_t>(h), uN = static_cast<std::uint64_t>(N);
  Counts c;
  c.qkv_projections_per_block = 3 * uh;   // Wq, Wk, Wv for every head
  c.qkv_matrices_per_block = 3 * uh;      // Q, K, V for every head
  c.qkv_vectors_per_block = 3 * un * uh;  // one row of each per token
  c.qkv_projections_in_stack = 3 * uN * uh;
  c.output_projections_in_stack = uN;  // one Wo per sublayer
  c.queries_per_token = uh;
  return c;
}
// [count_objects]

std::vector<CountRow> counting_table(long long n, long long h) {
  count_objects(n, h, 1);
  const std::string ns = std::to_string(n), hs = std::to_string(h);
  const std::string per_head = hs + ", one per head";
  const std::string matrices = attn::counted(h, "matrix", "matrices");
  std::string hdv = "d_v";  // "h d_v" with h substituted (GCC 12 misreads "(" + ... + ")" chains, so build it)
  if (h != 1) hdv.insert(0, hs + " ");
  std::string concat_shape = ns;
  concat_shape.append(" x (").append(hdv).append(")");
  std::string wo_shape = "(";
  wo_shape.append(hdv).append(") x d");
  return {
      // clang-format off
      {"token embedding table E", "learned", "1, before the stack", "vocabulary size x d"},
      {"input X", "computed", "1, shared by all heads", ns + " x d"},
      {"query projections Wq", "learned", per_head, "d x d_k"},
      {"key projections Wk", "learned", per_head, "d x d_k"},
      {"value projections Wv", "learned", per_head, "d x d_v"},
      {"queries Q", "computed", matrices + "; " + attn::counted(n * h, "query vector"), ns + " x d_k"},
      {"keys K", "computed", matrices + "; " + attn::counted(n * h, "key vector"), ns + " x d_k"},
      {"values V", "computed", matrices + "; " + attn::counted(n * h, "value vector"), ns + " x d_v"},
      {"scores S", "computed", per_head, ns + " x " + ns},
      {"attention weights A", "computed", per_head, ns + " x " + ns},
      {"head mixtures H", "computed", per_head, ns + " x d_v"},
      {"concatenated head outputs", "computed", "1", concat_shape},
      {"output projection Wo", "learned", "1 for this sublayer", wo_shape},
      {"update Delta, result Y = X + Delta", "computed", "1 of each", ns + " x d"},
  };
  // clang-format on
}

// [river_bank_sublayer]
attn::MultiHeadWeights river_bank_sublayer() {
  // d = 4 (finance, water, structure, generic) -> d_k = d_v = 3 (finance, water, structure) per head
  arma::mat keep(4, 3, arma::fill::zeros);
  keep(0, 0) = keep(1, 1) = keep(2, 2) = 1.0;  // drops generic
  arma::mat water_q(4, 3, arma::fill::zeros), finance_q(4, 3, arma::fill::zeros);
  water_q(2, 1) = 3.75;                   // bank's structure asks along water
  finance_q(2, 0) = 3.75;                 // ... or along finance
  arma::mat Wo(6, 4, arma::fill::zeros);  // (h d_v) x d: half of each head's mixture, back onto its axis
  for (arma::uword head = 0; head < 2; ++head) {
    for (arma::uword axis = 0; axis < 3; ++axis) Wo(3 * head + axis, axis) = 0.5;
  }
  return {.heads = {{water_q, keep, keep}, {finance_q, keep, keep}}, .Wo = Wo};
}
// [river_bank_sublayer]

std::vector<Combination> three_roles() {
  std::vector<Combination> combos;
  for (const Choice q : {Choice::raw, Choice::swap}) {
    for (const Choice v : {Choice::raw, Choice::swap})
      combos.push_back({.query = q, .values = v, .pass = tower_head(q, v)});
  }
  return combos;
}

const attn::HeadPass& combination(const std::vector<Combination>& combos, Choice query, Choice values) {
  for (const Combination& c : combos) {
    if (c.query == query && c.values == values) return c.pass;
  }
  throw std::invalid_argument("combination: no " + choice_name(query) + " query with " + choice_name(values) +
                              " values");
}

ExampleSublayer example_sublayer(const std::vector<std::string>& words) {
  ExampleSublayer e{.words = words, .X = attn::toy_embeddings().lookup(words), .weights = river_bank_sublayer()};
  e.pass = attn::multi_head_self_attention(e.X, e.weights);
  return e;
}

// [separate_objects]
std::vector<SeparateObject> separate_objects(const ExampleSublayer& example) {
  const attn::HeadProjections& w = example.weights.heads.front();
  const attn::HeadPass& p = example.pass.heads.front();
  // One shape for several matrices when they agree ("4 x 3 each"), else each in turn.
  const auto each = [](const std::vector<const arma::mat*>& ms) {
    std::string out = attn::shape(*ms.front());
    bool same = true;
    for (const arma::mat* m : ms) same = same && attn::shape(*m) == out;
    if (same) return out + (ms.size() > 1 ? " each" : "");
    for (std::size_t k = 1; k < ms.size(); ++k) out += ", " + attn::shape(*ms[k]);
    return out;
  };
  return {
      {"E", "supplies the starting vector for each token ID", true, attn::shape(attn::toy_embeddings().E())},
      {"Wq, Wk, Wv", "transform the current representations", true, each({&w.Wq, &w.Wk, &w.Wv})},
      {"X, Q, K, V", "represent this input and its transformed views", false,
       attn::shape(example.X) + "; " + each({&p.Q, &p.K, &p.V})},
      {"A, H", "weight and mix the values for this input", false, each({&p.A, &p.H})},
  };
}
// [separate_objects]

attn::ClaimCheck separate_objects_claim(const std::vector<SeparateObject>& rows, const ExampleSublayer& example) {
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

// [asymmetric_scores]
Asymmetry asymmetric_scores() {
  const ExampleSublayer e = example_sublayer({"the", "river", "bank"});
  const attn::HeadProjections& w = e.weights.heads.front();
  const attn::HeadPass& p = e.pass.heads.front();
  Asymmetry a{.words = e.words, .i = 2, .j = 1, .M = w.Wq * w.Wk.t()};  // s_ij = x_i Wq Wk^T x_j^T / sqrt(d_k)
  a.forward = p.scores(a.i, a.j);
  a.backward = p.scores(a.j, a.i);
  a.weight_forward = p.A(a.i, a.j);
  a.weight_backward = p.A(a.j, a.i);
  return a;
}
// [asymmetric_scores]

attn::ClaimCheck asymmetry_claim(const Asymmetry& a) {
  const bool differs = std::abs(a.forward - a.backward) > 1e-9;
  const bool asymmetric_M = !arma::approx_equal(a.M, a.M.t(), "absdiff", 1e-12);
  const std::string& wi = a.words[a.i];
  const std::string& wj = a.words[a.j];
  std::ostringstream evidence;
  evidence << "  s(" << wi << " -> " << wj << ") = q_" << wi << " . k_" << wj
           << " / sqrt(3) = " << attn::format_number(a.forward, 3) << ", but\n  s(" << wj << " -> " << wi << ") = q_"
           << wj << " . k_" << wi << " / sqrt(3) = " << attn::format_number(a.backward, 3);
  return {.id = "val_05", .holds = differs && asymmetric_M, .evidence = evidence.str()};
}

std::optional<BuiltSublayer> build_sublayer(long long n, long long h) {
  if (n > 64 || h > 16) return std::nullopt;  // too large to run in a moment, and nothing more to learn
  BuiltSublayer b;
  attn::Random rng(3);
  b.weights = attn::random_multi_head(b.d, static_cast<arma::uword>(h), b.d_k, b.d_v, rng);
  b.pass = attn::multi_head_self_attention(rng.normal_matrix(static_cast<arma::uword>(n), b.d), b.weights);
  for (const auto& head : b.pass.heads) b.qkv_rows += head.Q.n_rows + head.K.n_rows + head.V.n_rows;
  return b;
}

}  // namespace ch03

namespace ch03 {

namespace {

std::string tower_row(const arma::mat& M, int precision) {
  return attn::format_vector(arma::rowvec(M.row(2)), precision);
}

}  // namespace

attn::ClaimCheck claim_counts_per_block(const Counts& c, long long n, long long h,
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
              " computed vectors (3nh: " + attn::counted(n * h, "query", "queries") + " + " +
              attn::counted(n * h, "key") + " + " + attn::counted(n * h, "value") + ")"};
}

attn::ClaimCheck claim_stack_counts(const Counts& c, long long h, long long N) {
  const auto uh = static_cast<std::uint64_t>(h), uN = static_cast<std::uint64_t>(N);
  return {"heads_02", c.qkv_projections_in_stack == 3 * uN * uh && c.output_projections_in_stack == uN,
          "  3Nh = " + std::to_string(c.qkv_projections_in_stack) + " Q/K/V projection matrices and N = " +
              std::to_string(c.output_projections_in_stack) + " output projection(s)"};
}

attn::ClaimCheck claim_sublayer_shapes(const ExampleSublayer& e) {
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

attn::ClaimCheck claim_values_keep_weights(const std::vector<Combination>& combos) {
  const attn::HeadPass& raw_values = combination(combos, Choice::swap, Choice::raw);
  const attn::HeadPass& swapped = combination(combos, Choice::swap, Choice::swap);
  return {"val_01", arma::approx_equal(raw_values.A, swapped.A, "absdiff", 0.0),
          "  tower's weights with swapped values: " + tower_row(swapped.A, 4)};
}

attn::ClaimCheck claim_values_swap_content(const std::vector<Combination>& combos) {
  const attn::HeadPass& raw_values = combination(combos, Choice::swap, Choice::raw);
  const attn::HeadPass& swapped = combination(combos, Choice::swap, Choice::swap);
  const bool swaps = raw_values.H(2, 0) == swapped.H(2, 1) && raw_values.H(2, 1) == swapped.H(2, 0) &&
                     raw_values.H(2, 0) != raw_values.H(2, 1);
  return {"val_02", swaps, "  tower's mixture with swapped values: " + tower_row(swapped.H, 4)};
}

attn::ClaimCheck claim_another_key(const AnotherKey& k) {
  const bool unchanged = arma::approx_equal(k.q_before, k.q_after, "absdiff", 0.0) &&
                         arma::approx_equal(k.k_before, k.k_after, "absdiff", 0.0) && k.score_before == k.score_after;
  return {"val_03", unchanged && k.weight_after < k.weight_before,
          "  q_tower and k_Eiffel are unchanged; the new key joins the softmax denominator, so a(tower, Eiffel)\n"
          "  falls from " +
              attn::format_number(k.weight_before, 4) + " to " + attn::format_number(k.weight_after, 4)};
}

attn::ClaimCheck claim_residual(const std::vector<Combination>& combos) {
  const arma::mat X2 = eiffel_sentence();
  const attn::HeadPass& p = combination(combos, Choice::swap, Choice::raw);
  const arma::rowvec y = X2.row(2) + p.H.row(2);
  // tower has no Paris identity of its own: all of it arrives through the mixture; its structure grows.
  return {"val_04", X2(2, 1) == 0.0 && y(1) == p.H(2, 1) && y(0) > X2(2, 0),
          "  tower " + attn::format_vector(arma::rowvec(X2.row(2)), 0) + " + swap-query mixture " + tower_row(p.H, 4) +
              " = " + attn::format_vector(y, 4)};
}

}  // namespace ch03
