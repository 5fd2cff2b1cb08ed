/// \file values.cpp
/// \brief Chapter 03 computations (see values.hpp).
#include "values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "common/apparatus/print.hpp"
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
  const std::string matrices = app::counted(h, "matrix", "matrices");
  const std::string hdv = h != 1 ? fmt::format("{} d_v", h) : "d_v";  // "h d_v" with h substituted
  const std::string concat_shape = fmt::format("{} x ({})", ns, hdv);
  const std::string wo_shape = fmt::format("({}) x d", hdv);
  return {
      // clang-format off
      {"token embedding table E", "learned", "1, before the stack", "vocabulary size x d"},
      {"input X", "computed", "1, shared by all heads", ns + " x d"},
      {"query projections Wq", "learned", per_head, "d x d_k"},
      {"key projections Wk", "learned", per_head, "d x d_k"},
      {"value projections Wv", "learned", per_head, "d x d_v"},
      {"queries Q", "computed", matrices + "; " + app::counted(n * h, "query vector"), ns + " x d_k"},
      {"keys K", "computed", matrices + "; " + app::counted(n * h, "key vector"), ns + " x d_k"},
      {"values V", "computed", matrices + "; " + app::counted(n * h, "value vector"), ns + " x d_v"},
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
    std::vector<std::string> shapes;
    for (const arma::mat* m : ms) shapes.push_back(attn::shape(*m));
    if (std::count(shapes.begin(), shapes.end(), shapes.front()) == static_cast<std::ptrdiff_t>(shapes.size()))
      return shapes.front() + (shapes.size() > 1 ? " each" : "");
    return fmt::format("{}", fmt::join(shapes, ", "));
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

std::optional<BuiltSublayer> build_sublayer(long long n, long long h) {
  if (n > 64 || h > 16) return std::nullopt;  // too large to run in a moment, and nothing more to learn
  BuiltSublayer b;
  attn::Random rng(3);
  b.weights = attn::random_multi_head(b.d, static_cast<arma::uword>(h), b.d_k, b.d_v, rng);
  b.pass = attn::multi_head_self_attention(rng.normal_matrix(static_cast<arma::uword>(n), b.d), b.weights);
  for (const auto& head : b.pass.heads) b.qkv_rows += head.Q.n_rows + head.K.n_rows + head.V.n_rows;
  return b;
}

CountingSection counting_section(long long n, long long h, long long N) {
  return {.n = n,
          .h = h,
          .N = N,
          .table = counting_table(n, h),
          .counts = count_objects(n, h, N),
          .built = build_sublayer(n, h)};
}

}  // namespace ch03
