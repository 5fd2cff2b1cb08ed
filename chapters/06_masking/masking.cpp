/// \file masking.cpp
/// \brief Chapter 06 computations (see masking.hpp).
#include "masking.hpp"

#include "common/toy.hpp"

#include <stdexcept>

namespace ch06 {

namespace {
void require_square(const arma::mat& M, const char* who) {
  if (M.n_rows != M.n_cols || M.is_empty()) {
    throw std::invalid_argument(std::string(who) + ": needs a non-empty square matrix, got " + attn::shape(M));
  }
}
}  // namespace

attn::HeadPass identity_head(const arma::mat& X, bool causal) {
  const arma::mat I = arma::eye(X.n_cols, X.n_cols);  // d x d
  return attn::attention(X, I, I, I, {.causal = causal});
}

// [zero_fill]
arma::mat zero_fill(const arma::mat& scores) {
  require_square(scores, "zero_fill");
  return arma::trimatl(scores);  // keeps j <= i; the future gets score 0, and exp(0) = 1 is not 0
}
// [zero_fill]

arma::vec future_share(const arma::mat& A) {
  require_square(A, "future_share");
  return arma::sum(arma::trimatu(A, 1), 1);  // strictly above the diagonal
}

const std::vector<std::string>& tired_cat_words() {
  static const std::vector<std::string> words{"the", "tired", "cat", "finally", "slept"};
  return words;
}

arma::mat tired_cat_weights() {
  // clang-format off
  return {{0.55, 0.05, 0.30, 0.03, 0.07},
          {0.05, 0.45, 0.40, 0.03, 0.07},
          {0.18, 0.30, 0.40, 0.04, 0.08},
          {0.04, 0.05, 0.10, 0.41, 0.40},
          {0.05, 0.20, 0.35, 0.20, 0.20}};
  // clang-format on
}

// [renormalize_causal]
arma::mat renormalize_causal(const arma::mat& A) {
  require_square(A, "renormalize_causal");
  if (A.min() < 0.0) throw std::invalid_argument("renormalize_causal: A has a negative weight");
  arma::mat causal = arma::trimatl(A);  // drop the future keys j > i
  for (arma::uword i = 0; i < causal.n_rows; ++i) {
    const double allowed = arma::accu(causal.row(i));
    if (!(allowed > 0.0)) {
      throw std::invalid_argument("renormalize_causal: row " + std::to_string(i) + " has no weight on allowed keys");
    }
    causal.row(i) /= allowed;  // the survivors share the whole row again
  }
  return causal;
}
// [renormalize_causal]

// [mask_log_weights]
arma::mat mask_log_weights(const arma::mat& A) {
  require_square(A, "mask_log_weights");
  // softmax(log a) = a / sum(a): log-weights are scores that reproduce A. Masking them with -inf
  // before softmax leaves exp(log a_ij) = a_ij on the allowed keys and divides by their total.
  return attn::softmax_rows(arma::log(A) + attn::causal_mask(A.n_rows));
}
// [mask_log_weights]

TiredCatSection tired_cat_section() {
  TiredCatSection t{.words = tired_cat_words(), .A = tired_cat_weights()};
  t.renormalized = renormalize_causal(t.A);
  t.masked = mask_log_weights(t.A);
  t.scores = arma::log(t.A);
  t.masked_scores = t.scores + attn::causal_mask(t.A.n_rows);
  return t;
}

BothViews both_views(const std::vector<std::string>& words) {
  const arma::mat X = attn::toy_embeddings().lookup(words);
  return {.words = words, .open = identity_head(X, false), .causal = identity_head(X, true)};
}

attn::ClaimCheck causal_weights_claim(const arma::mat& A) {
  const bool zero_above = arma::trimatu(A, 1).max() == 0.0;
  arma::rowvec first(A.n_cols, arma::fill::zeros);
  first(0) = 1.0;
  const bool rows = arma::abs(arma::sum(A, 1) - 1.0).max() <= 1e-12;
  const bool row0 = arma::abs(A.row(0) - first).max() <= 1e-12;
  return {.id = "mask_01",
          .holds = zero_above && rows && row0,
          .evidence = std::string("  above the diagonal: ") + (zero_above ? "every entry exactly 0" : "NOT 0") +
                      ";\n  row sums " + attn::format_vector(arma::vec(arma::sum(A, 1)), 12) +
                      "; row 0 = " + attn::format_vector(arma::rowvec(A.row(0)), 2)};
}

attn::ClaimCheck zero_fill_claim(const arma::mat& leaky) {
  const arma::vec leaked = future_share(leaky);
  return {.id = "mask_02",
          .holds = leaked(0) > 0.0,
          .evidence = "  share leaked to the future, per row: " + attn::format_vector(leaked, 2)};
}

attn::ClaimCheck blocked_source_claim(const arma::rowvec& row, arma::uword blocked, const std::string& word) {
  if (blocked >= row.n_elem) {
    throw std::invalid_argument("blocked_source_claim: source " + std::to_string(blocked) + " of a row of " +
                                std::to_string(row.n_elem));
  }
  return {.id = "mask_04",
          .holds = row(blocked) == 0.0,
          .evidence = "    causal bank row:        " + attn::format_vector(row, 2) + "  " + word + " gets " +
                      (row(blocked) == 0.0 ? std::string("exactly 0") : attn::format_number(row(blocked), 17))};
}

attn::ClaimCheck cross_shapes_claim(const attn::HeadPass& p, arma::uword n_q, arma::uword n_kv) {
  const bool shapes = p.Q.n_rows == n_q && p.K.n_rows == n_kv && p.V.n_rows == n_kv && p.Q.n_cols == p.K.n_cols &&
                      p.A.n_rows == n_q && p.A.n_cols == n_kv && p.H.n_rows == n_q && p.H.n_cols == p.V.n_cols;
  const bool rows = shapes && arma::abs(arma::sum(p.A, 1) - 1.0).max() <= 1e-12;
  return {.id = "mask_06",
          .holds = rows,
          .evidence = "  Q " + attn::shape(p.Q) + ", K " + attn::shape(p.K) + ", V " + attn::shape(p.V) + ", A " +
                      attn::shape(p.A) + ", H " + attn::shape(p.H)};
}

}  // namespace ch06
