/// \file claims.cpp
/// \brief Chapter 01's claims, checked on the section results (see claims.hpp).
#include "claims.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ch01 {

namespace {

// The article's printed values (claims mix_01 to mix_09).
const std::vector<double> kBankWeights{0.26, 0.31, 0.43};
const std::vector<double> kRiverMixture{0.21, 0.52, 0.34, 0.41}, kMoneyMixture{0.52, 0.21, 0.34, 0.41};
const std::vector<double> kRiverResidual{0.71, 1.02, 1.14, 0.61}, kMoneyResidual{1.02, 0.71, 1.14, 0.61};
const std::vector<double> kDots{0.20, 0.54, 1.18}, kScaled{0.10, 0.27, 0.59};

/// Whether `value` rounds to the article's `printed` numbers (two decimals).
bool as_printed(const arma::rowvec& value, const std::vector<double>& printed) {
  return app::as_printed(value, printed, kArticleDecimals);
}

std::string vector_text(const arma::rowvec& v) { return app::format_vector(v, kArticleDecimals); }

app::ClaimCheck weights_line(const char* id, const SentencePass& s, bool holds) {
  return {id, holds, "    weights:    " + vector_text(s.weights()) + "  over (" + comma_list(s.words) + ")"};
}

app::ClaimCheck mixture_line(const char* id, const SentencePass& s, const std::vector<std::string>& axes,
                             const std::vector<double>& printed) {
  return {id, as_printed(s.mixture(), printed),
          "    mixture:    " + vector_text(s.mixture()) + "  (" + comma_list(axes) + ")"};
}

}  // namespace

app::ClaimCheck claim_river_weights(const ForwardPassSection& f) {
  return weights_line("mix_01", f.river, as_printed(f.river.weights(), kBankWeights));
}

app::ClaimCheck claim_river_mixture(const ForwardPassSection& f, const std::vector<std::string>& axes) {
  return mixture_line("mix_02", f.river, axes, kRiverMixture);
}

app::ClaimCheck claim_money_weights(const ForwardPassSection& f) {
  const arma::rowvec money = f.money.weights(), river = f.river.weights();
  const bool same = money.n_elem == river.n_elem && arma::abs(money - river).max() <= 1e-15;
  return weights_line("mix_03", f.money, same && as_printed(money, kBankWeights));
}

app::ClaimCheck claim_money_mixture(const ForwardPassSection& f, const std::vector<std::string>& axes) {
  return mixture_line("mix_04", f.money, axes, kMoneyMixture);
}

app::ClaimCheck claim_river_residual(const ForwardPassSection& f) {
  return {"mix_05", as_printed(f.river.residual(), kRiverResidual),
          "    river sentence: " + vector_text(f.river.residual())};
}

app::ClaimCheck claim_money_residual(const ForwardPassSection& f) {
  return {"mix_06", as_printed(f.money.residual(), kMoneyResidual),
          "    money sentence: " + vector_text(f.money.residual())};
}

app::ClaimCheck claim_plain_average(const ForwardPassSection& f) {
  const double water = f.mean(1), finance = f.mean(0);
  return {"mix_07", as_printed({water, finance}, {0.50, 0.17}),
          "    water " + app::format_number(water, kArticleDecimals) + ", finance " +
              app::format_number(finance, kArticleDecimals)};
}

app::ClaimCheck claim_dots(const WhyItMixedSection& w) {
  return {"mix_08", as_printed(w.trace.dots, kDots),
          "  dot products with " + comma_list(w.sentence.words) + ": " + vector_text(w.trace.dots)};
}

app::ClaimCheck claim_scaled(const WhyItMixedSection& w) {
  const arma::uword d = w.sentence.X.n_cols;
  const std::string label =
      fmt::format("  divided by sqrt({}) = {}:", d, app::format_number(std::sqrt(static_cast<double>(d)), 0));
  // padded to claim_dots's label, so the two vectors line up
  const std::size_t width = ("  dot products with " + comma_list(w.sentence.words) + ": ").size();
  return {"mix_09", as_printed(w.trace.scaled, kScaled),
          fmt::format("{:<{}}{}", label, width, vector_text(w.trace.scaled))};
}

app::ClaimCheck claim_softmax(const WhyItMixedSection& w) {
  return {"mix_01", as_printed(w.trace.weights, kBankWeights),
          "  softmax (exp, then divide by sum):  " + vector_text(w.trace.weights)};
}

app::ClaimCheck claim_sharpening(const ScoreScaleSection& s) {
  const arma::rowvec sharp = s.at(5.0), plain = s.at(1.0);
  const arma::uword bank = s.words.size() - 1;
  return {.id = "mix_10",
          .holds = sharp(bank) > plain(bank) && sharp.index_max() == bank,
          .evidence = "  x5: " + s.words[bank] + "'s own weight grows from " + app::format_number(plain(bank), 2) +
                      " to " + app::format_number(sharp(bank), 2) + " and stays the largest"};
}

app::ClaimCheck claim_flattening(const ScoreScaleSection& s) {
  const arma::rowvec flat = s.at(0.1);
  const double deviation = arma::abs(flat - 1.0 / static_cast<double>(flat.n_elem)).max();
  return {.id = "mix_11",
          .holds = deviation <= 0.02,
          .evidence = "  x0.1: every weight is within " + app::format_upper_bound(deviation, 4) + " of 1/" +
                      std::to_string(flat.n_elem) + ", close to a plain average"};
}

app::ClaimCheck claim_shapes(const SentencePass& s) {
  const attn::HeadPass& p = s.pass;
  const arma::uword n = s.X.n_rows;
  const bool shapes = p.scores.n_rows == n && p.scores.n_cols == n && p.A.n_rows == n && p.A.n_cols == n &&
                      p.H.n_rows == n && p.H.n_cols == s.X.n_cols;
  const bool rows = shapes && p.A.min() >= 0.0 && arma::abs(arma::sum(p.A, 1) - 1.0).max() <= 1e-12;
  return {.id = "mix_12",
          .holds = rows,
          .evidence = "\n  Every row at once: scores = X X^T / sqrt(" + std::to_string(s.X.n_cols) + ") is " +
                      attn::shape(p.scores) + ",\n  A = softmax(scores) is " + attn::shape(p.A) + ", H = A X is " +
                      attn::shape(p.H)};
}

}  // namespace ch01
