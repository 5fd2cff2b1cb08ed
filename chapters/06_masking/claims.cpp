/// \file claims.cpp
/// \brief Chapter 06's claims, checked on the section results (see claims.hpp).
#include "claims.hpp"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "common/attention/checks.hpp"

namespace ch06 {

app::ClaimCheck claim_causal_weights(const arma::mat& A) {
  const bool zero_above = arma::trimatu(A, 1).max() == 0.0;
  arma::rowvec first(A.n_cols, arma::fill::zeros);
  first(0) = 1.0;
  const bool rows = arma::abs(arma::sum(A, 1) - 1.0).max() <= 1e-12;
  const bool row0 = arma::abs(A.row(0) - first).max() <= 1e-12;
  return {.id = "mask_01",
          .holds = zero_above && rows && row0,
          .evidence = std::string("  above the diagonal: ") + (zero_above ? "every entry exactly 0" : "NOT 0") +
                      ";\n  row sums " + app::format_vector(arma::vec(arma::sum(A, 1)), 12) +
                      "; row 0 = " + app::format_vector(arma::rowvec(A.row(0)), 2)};
}

app::ClaimCheck claim_zero_fill(const arma::mat& leaky) {
  const arma::vec leaked = future_share(leaky);
  return {.id = "mask_02",
          .holds = leaked(0) > 0.0,
          .evidence = "  share leaked to the future, per row: " + app::format_vector(leaked, 2)};
}

app::ClaimCheck claim_unchanged_row(const WordOrderSection& s) {
  const arma::uword bank = s.bank_last.words.size() - 1;
  const arma::rowvec causal = s.bank_last.causal.A.row(bank), open = s.bank_last.open.A.row(bank);
  return {.id = "mask_03",
          .holds = arma::abs(causal - open).max() <= 1e-15,  // the bidirectional row is mix_01's
          .evidence = "    causal bank row:        " + app::format_vector(causal, 2) + "   unchanged"};
}

app::ClaimCheck claim_row_sums(const TiredCatSection& t) {
  const arma::vec sums = arma::sum(t.A, 1);
  return {.id = "mask_05",
          .holds = arma::abs(sums - 1.0).max() <= 1e-12,
          .evidence = "  row sums: " + app::format_vector(sums, 2)};
}

app::ClaimCheck claim_renormalized_row(const TiredCatSection& t, arma::uword i) {
  if (i >= t.A.n_rows) {
    throw std::invalid_argument("claim_renormalized_row: row " + std::to_string(i) + " of a " + attn::shape(t.A) +
                                " table");
  }
  const arma::rowvec allowed = t.A(i, arma::span(0, i));  // keys j <= i
  const double total = arma::accu(allowed);
  arma::rowvec expected(t.A.n_cols, arma::fill::zeros);
  expected.head(i + 1) = allowed / total;
  const arma::rowvec got = t.renormalized.row(i);
  bool holds = arma::abs(got - expected).max() <= 1e-12;
  if (t.words[i] == "tired") {  // the article's example row
    holds = holds && app::as_printed(got, {0.10, 0.90, 0.0, 0.0, 0.0}, 2);
  }
  return {.id = "mask_05",
          .holds = holds,
          .evidence = "  " + t.words[i] + ": " + app::format_vector(allowed, 2) + " / " + app::format_number(total, 2) +
                      " -> " + app::format_vector(got, 2)};
}

app::ClaimCheck claim_mask_renormalizes(const TiredCatSection& t) {
  const double difference = arma::abs(t.renormalized - t.masked).max();
  return {.id = "mask_05",
          .holds = difference <= 1e-12,
          .evidence = fmt::format("  The same table by the mask: softmax(log A + causal mask); largest difference from "
                                  "the\n  renormalized rows: {:.1e} (equal up to rounding)",
                                  difference)};
}

app::ClaimCheck claim_blocked_source(const arma::rowvec& row, arma::uword blocked, const std::string& word) {
  if (blocked >= row.n_elem) {
    throw std::invalid_argument("claim_blocked_source: source " + std::to_string(blocked) + " of a row of " +
                                std::to_string(row.n_elem));
  }
  return {.id = "mask_04",
          .holds = row(blocked) == 0.0,
          .evidence = "    causal bank row:        " + app::format_vector(row, 2) + "  " + word + " gets " +
                      (row(blocked) == 0.0 ? std::string("exactly 0") : app::format_number(row(blocked), 17))};
}

app::ClaimCheck claim_cross_shapes(const attn::HeadPass& p, arma::uword n_q, arma::uword n_kv) {
  const bool shapes = p.Q.n_rows == n_q && p.K.n_rows == n_kv && p.V.n_rows == n_kv && p.Q.n_cols == p.K.n_cols &&
                      p.A.n_rows == n_q && p.A.n_cols == n_kv && p.H.n_rows == n_q && p.H.n_cols == p.V.n_cols;
  const bool rows = shapes && arma::abs(arma::sum(p.A, 1) - 1.0).max() <= 1e-12;
  return {.id = "mask_06",
          .holds = rows,
          .evidence = "  Q " + attn::shape(p.Q) + ", K " + attn::shape(p.K) + ", V " + attn::shape(p.V) + ", A " +
                      attn::shape(p.A) + ", H " + attn::shape(p.H)};
}

}  // namespace ch06
