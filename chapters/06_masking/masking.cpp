/// \file masking.cpp
/// \brief Chapter 06 computations (see masking.hpp).
#include "masking.hpp"

#include "common/attention/toy.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>
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

MaskSection mask_section() {
  MaskSection m{.words = attn::split_sentence("the river bank")};
  const arma::mat X = attn::toy_embeddings().lookup(m.words);
  m.mask = attn::causal_mask(X.n_rows);
  m.open = identity_head(X, false);
  m.causal = identity_head(X, true);
  m.leaky = attn::softmax_rows(zero_fill(m.open.scores));
  return m;
}

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

WordOrderSection word_order_section() {
  return {.bank_last = both_views(attn::split_sentence("the river bank")),
          .bank_middle = both_views(attn::split_sentence("the bank river"))};
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

attn::ClaimCheck unchanged_row_claim(const WordOrderSection& s) {
  const arma::uword bank = s.bank_last.words.size() - 1;
  const arma::rowvec causal = s.bank_last.causal.A.row(bank), open = s.bank_last.open.A.row(bank);
  return {.id = "mask_03",
          .holds = arma::abs(causal - open).max() <= 1e-15,  // the bidirectional row is mix_01's
          .evidence = "    causal bank row:        " + attn::format_vector(causal, 2) + "   unchanged"};
}

attn::ClaimCheck row_sums_claim(const TiredCatSection& t) {
  const arma::vec sums = arma::sum(t.A, 1);
  return {.id = "mask_05",
          .holds = arma::abs(sums - 1.0).max() <= 1e-12,
          .evidence = "  row sums: " + attn::format_vector(sums, 2)};
}

attn::ClaimCheck renormalized_row_claim(const TiredCatSection& t, arma::uword i) {
  if (i >= t.A.n_rows) {
    throw std::invalid_argument("renormalized_row_claim: row " + std::to_string(i) + " of a " + attn::shape(t.A) +
                                " table");
  }
  const arma::rowvec allowed = t.A(i, arma::span(0, i));  // keys j <= i
  const double total = arma::accu(allowed);
  arma::rowvec expected(t.A.n_cols, arma::fill::zeros);
  expected.head(i + 1) = allowed / total;
  const arma::rowvec got = t.renormalized.row(i);
  bool holds = arma::abs(got - expected).max() <= 1e-12;
  if (t.words[i] == "tired") {  // the article's example row
    holds = holds && arma::abs(got - arma::rowvec{0.10, 0.90, 0.0, 0.0, 0.0}).max() <= 0.005 + 1e-12;
  }
  return {.id = "mask_05",
          .holds = holds,
          .evidence = "  " + t.words[i] + ": " + attn::format_vector(allowed, 2) + " / " +
                      attn::format_number(total, 2) + " -> " + attn::format_vector(got, 2)};
}

attn::ClaimCheck mask_renormalizes_claim(const TiredCatSection& t) {
  const double difference = arma::abs(t.renormalized - t.masked).max();
  std::ostringstream text;
  text << "  The same table by the mask: softmax(log A + causal mask); largest difference from the\n"
       << "  renormalized rows: " << std::scientific << std::setprecision(1) << difference << " (equal up to rounding)";
  return {.id = "mask_05", .holds = difference <= 1e-12, .evidence = text.str()};
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
