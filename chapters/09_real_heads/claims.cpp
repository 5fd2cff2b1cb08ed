/// \file chapters/09_real_heads/claims.cpp
/// \brief Chapter 09's claims, as functions of the sections' results (see program.hpp).
#include "program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ch09 {

namespace {

/// " < ", " > " or " = ": how `a` stands to `b`, so the printed numbers never state a false inequality
/// (a short run's numbers can fall on either side).
std::string versus(double a, double b) { return a < b ? " < " : a > b ? " > " : " = "; }

/// A claim whose evidence is its statement, then the numbers behind it.
app::ClaimCheck checked(const char* id, const std::string& statement, const std::string& numbers, bool holds) {
  return {id, holds, statement + ": " + numbers};
}

}  // namespace

// [claims]
app::ClaimCheck claim_beats_bigram(const Baselines& b) {
  return checked("real_01", "the model beats the bigram baseline on held-out text",
                 "model " + app::format_number(b.model, 3) + versus(b.model, b.bigram) + "bigram " +
                     app::format_number(b.bigram, 3) + " nats/char",
                 b.model < b.bigram);
}

app::ClaimCheck claim_previous_token_head(const Roles& r) {
  const arma::uword h = r.previous_token.row(0).index_max();
  const double top = r.previous_token(0, h);
  return checked("real_02", "a first-layer head is a previous-token head",
                 head_name(0, h) + " previous-token score " + app::format_number(top, 3) + versus(top, 0.5) + "0.5",
                 top > 0.5);
}

app::ClaimCheck claim_induction_head(const Roles& r, const Ablation& zeroed) {
  const arma::uword L = r.induction_random.n_rows;
  const double score = r.induction_random.row(L - 1).max();
  const double advantage = r.random.first - r.random.repeat;
  const double rise = zeroed.random.repeat - r.random.repeat;
  return checked("real_03",
                 "a second-layer head is an induction head, and zeroing the induction heads costs the repeats",
                 head_name(L - 1, r.induction_random.row(L - 1).index_max()) + " induction score " +
                     app::format_number(score, 3) + versus(score, 0.3) + "0.3; zeroing " + zeroed.name +
                     " raises the random-repeat loss by " + app::format_number(rise, 3) + versus(rise, advantage / 2) +
                     "half the in-context advantage " + app::format_number(advantage / 2, 3),
                 score > 0.3 && rise > advantage / 2);
}

app::ClaimCheck claim_contribution_differs(const Contributions& c) {
  std::string numbers = std::to_string(c.disagree) + " of " + std::to_string(c.cases) +
                        " (head, position) pairs have a top weight that is not the top contribution";
  if (c.found) {
    const ContributionCase& e = c.example;
    numbers += "; e.g. " + head_name(e.layer, e.head) + " at position " + std::to_string(e.query) + ": weight " +
               app::format_number(e.weights(e.top_weight), 2) + " on " + std::to_string(e.top_weight) + " gives " +
               app::format_number(e.norms(e.top_weight), 2) + ", weight " +
               app::format_number(e.weights(e.top_contribution), 2) + " on " + std::to_string(e.top_contribution) +
               " gives " + app::format_number(e.norms(e.top_contribution), 2);
  }
  return checked("real_04", "a head's largest weight need not be its largest contribution", numbers, c.disagree > 0);
}

app::ClaimCheck claim_head_copies(const CopyingSection& c) {
  return checked("real_06", "what a head writes, decoded: the induction heads raise the repeating character most",
                 "the write of " + c.head + " raises the next character of the earlier copy above every other at " +
                     std::to_string(c.copies) + " of " + std::to_string(c.cases) + " repeat positions (" +
                     app::format_number(c.share, 3) + (c.share > 0.5 ? " > " : " <= ") + "0.5)",
                 c.share > 0.5);
}

app::ClaimCheck claim_circuit(const CircuitSection& c) {
  const arma::uword top = c.k_composition.index_max();
  const arma::uword prev = c.previous_head;
  const arma::uword rank = 1 + arma::accu(c.k_composition > c.k_composition(prev));
  const double rise = c.patched_repeat - c.clean_repeat, half = (c.first - c.clean_repeat) / 2;
  // Asserted: the intervention. Printed beside it: where the weights rank the partner, which the
  // robustness study found largest in only some of the runs that formed the circuit.
  return checked("real_07",
                 "the circuit: the induction head needs the previous-token head; patched from shuffled windows, the "
                 "repeats break",
                 "the previous-token head " + c.previous +
                     "'s output from shuffled windows raises the repeat loss by " + app::format_number(rise, 3) +
                     (rise > half ? " > " : " <= ") + "half the in-context advantage " + app::format_number(half, 3) +
                     "; its K-composition with " + c.induction + " ranks " + std::to_string(rank) + " of " +
                     std::to_string(c.k_composition.n_elem) + " (" + app::format_number(c.k_composition(prev), 4) +
                     "; largest " + head_name(0, top) + " " + app::format_number(c.k_composition(top), 4) + ")",
                 rise > half);
}

app::ClaimCheck claim_ablations_agree(const AblationCompare& c, const std::vector<std::string>& induction,
                                      const std::string& previous) {
  const std::string layer = induction.front().substr(0, induction.front().find('.'));  // "L2"
  const auto is_induction = [&](arma::uword i) {
    return std::find(induction.begin(), induction.end(), c.heads[i]) != induction.end();
  };
  // The head with the largest random-repeat rise, over all heads or over the induction heads' layer.
  const auto top = [&](const arma::mat& rises, bool in_layer) {
    arma::uword best = c.heads.size();
    for (arma::uword i = 0; i < c.heads.size(); ++i) {
      if (in_layer && c.heads[i].rfind(layer + ".", 0) != 0) continue;
      if (best == c.heads.size() || rises(i, 1) > rises(best, 1)) best = i;
    }
    return best;
  };
  const arma::uword z = top(c.zero, false), m = top(c.mean, false);
  const arma::uword zl = top(c.zero, true), ml = top(c.mean, true);
  const auto rise = [&](const arma::mat& rises, arma::uword i) {
    return c.heads[i] + " (" + app::format_number(rises(i, 1), 3) + ")";
  };
  const std::string circuit = fmt::format("{}", fmt::join(induction, ", "));
  return checked("real_08", "mean ablation agrees with zero ablation on where the repeats are computed",
                 "largest random-repeat rise zeroed: " + rise(c.zero, z) + ", mean-ablated: " + rise(c.mean, m) +
                     "; in " + layer + " zeroed: " + rise(c.zero, zl) + ", mean-ablated: " + rise(c.mean, ml) +
                     "; the circuit: " + previous + " read by " + circuit,
                 (is_induction(z) || c.heads[z] == previous) && (is_induction(m) || c.heads[m] == previous) &&
                     is_induction(zl) && is_induction(ml));
}
// [claims]

// [claim_bank]
app::ClaimCheck claim_bank_controls(const BankStudy& b) {
  const arma::uword n = b.sense.n_rows, last = b.sense.n_cols - 1;
  bool sense_shows = false;
  std::string layers;
  for (arma::uword k = 1; k <= last; ++k) {
    sense_shows = sense_shows || b.p_value(k) < kSenseLevel;
    layers += (k > 1 ? "; " : "") + std::string("after layer ") + std::to_string(k) + " in " +
              std::to_string(b.apart(k)) + " of " + std::to_string(n) + " (p = " + app::format_number(b.p_value(k), 3) +
              (b.p_value(k) < kSenseLevel ? " < " : " >= ") + app::format_number(kSenseLevel, 2) + ")";
  }
  const bool seen = b.letters >= kLettersSeen;  // NaN (a reading without direction) is not seen
  const std::string moved = std::isfinite(b.letters)
                                ? "1 - cos = " + app::format_number(b.letters, 3) + (seen ? " >= " : " < ")
                                : "an amount that cannot be measured (nothing is left once centred), not 1 - cos >= ";
  return checked("real_05", "bank's reading separates its two senses no more than letter controls do",
                 "the sense pair is further apart than its letter controls " + layers +
                     "; the controls move the reading after the last layer by " + moved +
                     app::format_number(kLettersSeen, 2),
                 seen && !sense_shows);
}
// [claim_bank]

std::vector<app::ClaimCheck> check_claims(const Report& r) {
  const arma::uword last = r.view.layers - 1;
  std::vector<std::string> induction_names;
  for (const arma::uword h : r.induction_heads) induction_names.push_back(head_name(last, h));
  return {claim_beats_bigram(r.baselines),
          claim_previous_token_head(r.roles),
          claim_induction_head(r.roles, r.induction_zeroed),
          claim_contribution_differs(r.contributions),
          claim_bank_controls(r.bank),
          claim_head_copies(r.copying),
          claim_circuit(r.circuit),
          claim_ablations_agree(r.zero_vs_mean, induction_names, r.circuit.previous)};
}

}  // namespace ch09
