/// \file claims.cpp
/// \brief Chapter 08's claims, checked on the lab's and the skip-trigram example's results (see claims.hpp).
#include "claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>

namespace ch08 {

namespace {

/// The lab claims' verdict words, printed inside their evidence.
std::string verdict(bool holds) { return holds ? "holds" : "does NOT hold"; }
/// Decimals of the lab claims' numbers (as report.cpp prints the lab's tables).
constexpr int kPrecision = 3;

/// The columns of row c (kSkipTrigrams order): the wanted continuation, the unwanted one (the
/// source's continuation after the other query), the query's other continuation, and neither's.
struct Roles {
  arma::uword wanted, unwanted, query_other, neither;
};
Roles roles(arma::uword c) { return {c, c ^ 1u, c ^ 2u, c ^ 3u}; }

std::string word_of(arma::uword column) { return skip_vocabulary()[kSkipTrigrams[column].next]; }

}  // namespace

app::ClaimCheck claim_repeats_predicted(const RegionLosses& l) {
  const bool holds = l.repeat < 0.5 * l.first;
  return {"ind_01", holds,
          "  repeat / first = " + app::format_number(l.repeat / l.first, kPrecision) +
              "\n  (claim: the repeat is predicted far better, ratio below one half: " + verdict(holds) + ")",
          true};
}

app::ClaimCheck claim_induction_in_last_layer(const HeadScores& s) {
  const double first = s.induction.row(0).max(), last = s.induction.row(s.induction.n_rows - 1).max();
  const bool holds = last > 0.3 && last > first;
  return {"ind_02", holds,
          "  highest last-layer induction score " + app::format_number(last, kPrecision) + " vs highest first-layer " +
              app::format_number(first, kPrecision) + "\n  (> 0.3 and above every first-layer head: " + verdict(holds) +
              ")",
          true};
}

app::ClaimCheck claim_both_layers_needed(const AblationSummary& s) {
  const bool holds = s.last_layer_rise > s.advantage / 2 && s.key_first_layer_rise > s.advantage / 2;
  return {
      "ind_03", holds,
      "  both above half the advantage (" + app::format_number(s.advantage / 2, kPrecision) + "): " + verdict(holds),
      true};
}

app::ClaimCheck claim_position_finds_copy(const HeadScores& s) {
  const double first = s.induction.row(0).max();
  const bool holds = first > 0.5;
  return {"ind_04", holds,
          "  fixed offset: highest first-layer induction score " + app::format_number(first, kPrecision) +
              " (high, > 0.5: " + verdict(holds) + "):\n  position alone finds the copy",
          true};
}

app::ClaimCheck claim_skip_trigrams_learned(const SkipTrigramFindings& f) {
  arma::vec right(kSkipTrigrams.size());
  for (arma::uword c = 0; c < right.n_elem; ++c) right(c) = f.probability(c, c);
  const bool holds = right.is_finite() && f.attention.is_finite() && right.min() > 0.5 && f.attention.min() > 0.5;
  return {"skip_01", holds,
          fmt::format("  every skip-trigram completed: the right continuation at least {:.2f} likely (> 0.5),\n"
                      "  the query's weight on the source at least {:.2f} (> 0.5)",
                      right.min(), f.attention.min())};
}

app::ClaimCheck claim_same_message(const SkipTrigramFindings& f) {
  bool holds = f.message.is_finite();
  double worst = std::numeric_limits<double>::infinity();  // the smallest unwanted / wanted gain
  for (arma::uword c = 0; c < kSkipTrigrams.size(); ++c) {
    const Roles r = roles(c);
    const arma::rowvec m = f.message.row(c);
    const double other = std::max(m(r.query_other), m(r.neither));  // the other source's continuations
    const double base = 0.5 * (m(r.query_other) + m(r.neither));
    const double ratio = (m(r.unwanted) - base) / (m(r.wanted) - base);
    holds = holds && std::min(m(r.wanted), m(r.unwanted)) > other && m(r.wanted) > base && ratio >= 0.5;
    worst = std::min(worst, ratio);
  }
  return {"skip_02", holds,
          fmt::format("  the message from a source favours both its continuations over the other source's, after\n"
                      "  either query; the unwanted one gains at least {:.2f} of the wanted one's gain (>= 0.5)",
                      worst)};
}

app::ClaimCheck claim_unwanted_continuation(const SkipTrigramFindings& f) {
  bool holds = f.probability.is_finite();
  double worst = std::numeric_limits<double>::infinity();
  arma::uword worst_row = 0;
  for (arma::uword c = 0; c < kSkipTrigrams.size(); ++c) {
    const Roles r = roles(c);
    const double ratio = f.probability(c, r.unwanted) / f.probability(c, r.neither);
    holds = holds && ratio > 2.0;
    if (ratio < worst) worst = ratio, worst_row = c;
  }
  const Roles r = roles(worst_row);
  return {"skip_03", holds,
          fmt::format("  the unwanted continuation beats the one neither word calls for in every row, at least\n"
                      "  {:.1f} times (> 2; lowest: \"{} {}\" against \"{}\")",
                      worst, skip_name(kSkipTrigrams[worst_row]), word_of(r.unwanted), word_of(r.neither))};
}

}  // namespace ch08
