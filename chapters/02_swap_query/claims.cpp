/// \file claims.cpp
/// \brief Chapter 02's claims, checked on the section results (see claims.hpp).
#include "claims.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "common/attention/toy.hpp"

namespace ch02 {

namespace {

constexpr int kTeaching = 4;  // the article prints the teaching space to four decimals

std::string tower_row(const arma::mat& M) { return app::format_vector(arma::rowvec(M.row(2)), kTeaching); }

}  // namespace

app::ClaimCheck claim_raw_weights(const TeachingSection& t) {
  const arma::mat& A = t.raw.A;
  return {"swap_01", A(2, 0) == A(2, 1) && A(2, 2) > A(2, 1) && std::abs(arma::accu(A.row(2)) - 1.0) <= 1e-12,
          "  tower's weights over (the, Eiffel, tower): " + tower_row(A)};
}

app::ClaimCheck claim_raw_mixture(const TeachingSection& t) {
  // V = X2 (Wv = I): the = [0, 0], Eiffel = [0, 1], tower = [1, 0], so h = [a_tower, a_Eiffel].
  const attn::HeadPass& p = t.raw;
  return {"swap_02", std::abs(p.H(2, 0) - p.A(2, 2)) <= 1e-15 && std::abs(p.H(2, 1) - p.A(2, 1)) <= 1e-15,
          "  tower's mixture (structure, Paris identity): " + tower_row(p.H)};
}

app::ClaimCheck claim_eiffel_ties_the_filler(const TeachingSection& t) {
  const arma::mat& X2 = t.X2;
  const bool tie = t.raw.A(2, 0) == t.raw.A(2, 1);
  const bool orthogonal = arma::dot(X2.row(2), X2.row(1)) == 0.0 && arma::dot(X2.row(2), X2.row(0)) == 0.0;
  return {"swap_03", tie && orthogonal,
          std::string("  weight(the) == weight(Eiffel): ") + (tie ? "exactly" : "NOT") +
              " (both scores are 0):\n  Eiffel ties with the zero filler"};
}

app::ClaimCheck claim_swap_weights(const TeachingSection& t) {
  const arma::mat& A = t.swapped.A;
  return {"swap_04", A(2, 1) > A(2, 0) && A(2, 0) == A(2, 2), "  tower's weights: " + tower_row(A)};
}

app::ClaimCheck claim_swap_mixture(const TeachingSection& t) {
  const attn::HeadPass& p = t.swapped;
  return {"swap_05", std::abs(p.H(2, 1) - p.A(2, 1)) <= 1e-15 && p.H(2, 1) > p.H(2, 0),
          "  tower's mixture: " + tower_row(p.H)};
}

app::ClaimCheck claim_queries_row_by_row(const TeachingSection& t) {
  const arma::mat& Q = t.swapped.Q;
  bool rows = Q.n_rows == t.X2.n_rows;
  for (arma::uword r = 0; rows && r < Q.n_rows; ++r) {
    rows = arma::approx_equal(Q.row(r), t.X2.row(r) * swap_matrix(), "absdiff", 0.0);
  }
  return {"swap_06", rows && Q(2, 0) == 0.0 && Q(2, 1) == 1.0,
          "  Queries Q = X2 swap, one row per token (the same matrix acts on every row):"};
}

app::ClaimCheck claim_n_in_null_space(const SmallNullSpace& s) {
  const arma::vec Mn = s.M * s.n;
  return {"qk_01", s.ns.rank == 2 && s.ns.nullity == 1 && arma::abs(Mn).max() == 0.0,
          "  n = " + app::format_vector(s.n, 0) + " (the basis vector times " +
              app::format_number(s.n(0) / s.ns.basis(0, 0), 4) + "):  M n = " + app::format_vector(Mn, 0)};
}

app::ClaimCheck claim_same_query(const SmallNullSpace& s) {
  const arma::vec Me = s.M * s.e, Men = s.M * (s.e + s.n);
  return {"qk_02", arma::approx_equal(Me, Men, "absdiff", 0.0),
          "  e = " + app::format_vector(s.e, 0) + ", e + n = " + app::format_vector(arma::vec(s.e + s.n), 0) +
              ":  M e = " + app::format_vector(Me, 0) + ", M (e + n) = " + app::format_vector(Men, 0)};
}

app::ClaimCheck claim_width_nullity(const WidthExample& w) {
  const bool counts = w.rank + w.nullity == w.d && w.rank <= std::min(w.d, w.d_k);
  const bool ignored = w.null_samples == 0 || w.null_query_max < 1e-12;
  return {"qk_03", counts && ignored,
          "  rank(Wq) = " + std::to_string(w.rank) + ", null space of dimension " + std::to_string(w.d) + " - " +
              std::to_string(w.rank) + " = " + std::to_string(w.nullity)};
}

app::ClaimCheck claim_query_of(const MatchTable& t, const arma::mat& Wq) {
  const arma::rowvec q = t.Q.row(t.receiver);
  arma::rowvec sum(q.n_elem, arma::fill::zeros);
  for (const QueryTerm& term : query_terms(t.X.row(t.receiver), Wq)) sum += term.x * term.row;
  const bool water_only =
      !arma::approx_equal(Wq, preset_wq(Preset::water), "absdiff", 0.0) || (q(1) > 0.0 && q(0) == 0.0 && q(2) == 0.0);
  return {"qk_04", arma::approx_equal(q, sum, "absdiff", 1e-12) && water_only,
          "  \"" + attn::join_words(t.words) + "\", receiving token " + t.words[t.receiver] +
              ": q = " + app::format_vector(q, 2)};
}

app::ClaimCheck claim_fixed_keys(const MatchTable& t) {
  const bool kept = arma::approx_equal(t.K, arma::mat(t.X.cols(0, 2)), "absdiff", 0.0);
  return {"qk_05", kept, "keys"};
}

app::ClaimCheck claim_scores(const MatchTable& t) {
  const double root = std::sqrt(static_cast<double>(t.K.n_cols));
  bool dot = true;
  for (arma::uword j = 0; j < t.K.n_rows; ++j) {
    dot = dot && std::abs(t.scores(j) - arma::dot(t.Q.row(t.receiver), t.K.row(j)) / root) <= 1e-14;
  }
  return {"qk_06", dot, "scores"};
}

app::ClaimCheck claim_weights(const MatchTable& t) {
  const bool distribution = t.weights.min() > 0.0 && std::abs(arma::accu(t.weights) - 1.0) <= 1e-12;
  return {"qk_07", distribution && t.weights.index_max() == t.scores.index_max(), "weights"};
}

app::ClaimCheck claim_query_same_in_both(const MatchingSection& m) {
  bool same = m.tables.size() >= 2;
  for (const MatchTable& t : m.tables) {
    same = same &&
           arma::approx_equal(t.Q.row(t.receiver), m.tables.front().Q.row(m.tables.front().receiver), "absdiff", 0.0);
  }
  const MatchTable& last = m.tables.back();
  return {"qk_08", same,
          "    " + last.words[last.receiver] + "'s query is " + (same ? "identical" : "different") +
              " in both sentences; only the available keys changed"};
}

app::ClaimCheck claim_combined_query(const CombinedQuery& c) {
  const MatchTable& t = c.table;
  bool scores_from_match = true;  // a key with water or structure earns a positive share there
  for (arma::uword j = 0; j < t.K.n_rows; ++j) {
    for (const arma::uword axis : {arma::uword{1}, arma::uword{2}}) {
      if (t.K(j, axis) > 0.0 && !(c.shares(j, axis) > 0.0)) scores_from_match = false;
    }
  }
  const bool adds_up = c.largest_gap <= 1e-12;
  std::ostringstream evidence;
  evidence << "  the shares add up to every score (largest gap " << app::format_plain(c.largest_gap)
           << (adds_up ? " <= " : " > ") << "1e-12), and every key matching\n  water or structure scores from "
           << (scores_from_match ? "that share" : "it? NO");
  return {.id = "qk_09", .holds = adds_up && scores_from_match, .evidence = evidence.str()};
}

app::ClaimCheck claim_superposition(const Superposition& s) {
  const arma::uword dims = s.W.n_cols, features = s.W.n_rows;
  const bool holds = s.rank == dims && features > dims && s.max_interference > 1e-9;
  std::ostringstream evidence;
  evidence << "  rank(W) = " << s.rank << " for " << features << " directions in " << dims
           << "-d; reading one active feature\n  picks up interference up to "
           << app::format_number(s.max_interference, 3) << " from the others";
  return {.id = "qk_10", .holds = holds, .evidence = evidence.str()};
}

}  // namespace ch02
