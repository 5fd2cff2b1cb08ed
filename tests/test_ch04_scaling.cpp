/// \file test_ch04_scaling.cpp
/// \brief Chapter 04: claims scale_01..scale_09 of docs/claims.md, and the program run as a reader would.
///
/// Each claim test asserts the claim function (claims.hpp) the program prints the claim from (its
/// ClaimCheck's `holds`) and the numbers behind it, derived here by hand.
///
/// Expected values are the article's, at its printed precision (half a unit in the last digit), or
/// derived independently here (the variance of a sum of products, finite differences of softmax).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "claims.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/gradcheck.hpp"
#include "common/attention/random.hpp"
#include "scaling.hpp"
#include "sections.hpp"
#include "support.hpp"

namespace tt = boost::test_tools;

namespace {

/// Every entry of `got` within `half_unit` of the article's printed value.
void check_printed(const arma::rowvec& got, const std::vector<double>& article, double half_unit) {
  BOOST_REQUIRE_EQUAL(got.n_elem, article.size());
  for (std::size_t k = 0; k < article.size(); ++k) {
    BOOST_TEST(std::abs(got(k) - article[k]) <= half_unit, "entry " << k << ": " << got(k) << " vs " << article[k]);
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(claim_scale_01_dot_product_vs_cosine_table) {
  // clang-format off
  BOOST_TEST(ch04::dot({1, 0}, {1, 0}) == 1.0);
  BOOST_TEST(ch04::dot({10, 0}, {10, 0}) == 100.0);
  BOOST_TEST(ch04::dot({1, 0}, {0, 1}) == 0.0);
  BOOST_TEST(ch04::dot({1, 0}, {-1, 0}) == -1.0);
  BOOST_TEST(ch04::cosine_similarity({1, 0}, {1, 0}) == 1.0, tt::tolerance(1e-12));
  BOOST_TEST(ch04::cosine_similarity({10, 0}, {10, 0}) == 1.0, tt::tolerance(1e-12));
  BOOST_TEST(ch04::cosine_similarity({1, 0}, {0, 1}) == 0.0);
  BOOST_TEST(ch04::cosine_similarity({1, 0}, {-1, 0}) == -1.0, tt::tolerance(1e-12));
  // clang-format on
  const ch04::DotCosineTable t = ch04::dot_cosine_table();
  BOOST_TEST(ch04::claim_dot_cosine(t).id == "scale_01");
  BOOST_TEST(ch04::claim_dot_cosine(t).holds);
  BOOST_REQUIRE_EQUAL(t.rows.size(), 4u);
  BOOST_TEST(t.rows[1].dot == 10.0 * 10.0);  // (10, 0) . (10, 0) = 10 x 10 + 0 x 0
}

BOOST_AUTO_TEST_CASE(claim_scale_02_shadow_at_20_degrees_length_10) {
  const ch04::Shadow s = ch04::shadow_of(20.0, 10.0);
  BOOST_TEST(std::abs(s.projection - 9.40) <= 0.005);
  BOOST_TEST(std::abs(s.dot - 9.40) <= 0.005);
  BOOST_TEST(s.dot == s.projection, tt::tolerance(1e-12));  // b is a unit vector
  BOOST_TEST(arma::norm(s.a) == 10.0, tt::tolerance(1e-12));
  BOOST_TEST(arma::norm(s.b) == 1.0);
  BOOST_TEST((s.side == ch04::Side::positive));
  // The program's lines: tagged at the article's setting, holding 10 cos(20 degrees) = 9.3969.
  const ch04::Explorer e = ch04::explorer(20.0, 10.0, 1.0);
  BOOST_TEST(e.article);
  for (const app::ClaimCheck& claim : {ch04::claim_projection(e), ch04::claim_shadow_dot(e)}) {
    BOOST_TEST(claim.id == "scale_02");
    BOOST_TEST(claim.holds);
  }
  BOOST_TEST(ch04::claim_shadow_dot(e).evidence.find("= 9.40") != std::string::npos);
  BOOST_TEST(!ch04::explorer(20.0, 10.0, 2.0).article);  // another |b| is not the article's
}

BOOST_AUTO_TEST_CASE(claim_scale_03_dk_64_divides_by_8) {
  const double dots[] = {1, 8, 40, 100}, article[] = {0.125, 1, 5, 12.5};
  for (int i = 0; i < 4; ++i) BOOST_TEST(ch04::scaled_dot(dots[i], 64) == article[i], tt::tolerance(1e-12));
  // Ten times one vector: ten times the scaled dot product.
  BOOST_TEST(ch04::scaled_dot(10 * 40.0, 64) == 10 * 5.0, tt::tolerance(1e-12));
  const ch04::FixedDivisor f = ch04::fixed_divisor();
  BOOST_TEST(ch04::claim_fixed_divisor(f).id == "scale_03");
  BOOST_TEST(ch04::claim_fixed_divisor(f).holds);
  BOOST_TEST(f.divisor == 8.0);  // sqrt(64)
  BOOST_TEST(f.longer_scaled == 400.0 / 8.0);
}

BOOST_AUTO_TEST_CASE(claim_scale_04_variances_within_3_standard_errors) {
  const arma::uword samples = 4000;
  for (arma::uword d_k : {1u, 3u, 16u, 64u, 200u, 512u}) {
    const ch04::VarianceEstimate e = ch04::dot_product_variance(d_k, samples, 1234 + d_k);
    const double d = static_cast<double>(d_k), n = static_cast<double>(samples);
    BOOST_TEST(ch04::within_three_standard_errors(e), "d_k " << d_k << ": " << e.var_raw << " +- " << e.se_raw);
    BOOST_TEST(std::abs(e.mean) <= 3 * std::sqrt(d / n), "d_k " << d_k << ": mean " << e.mean);
    // Independent derivation of the standard error: E[(q.k)^4] = 3 d^2 + 6 d (each q_r k_r has
    // fourth moment 9), so Var((q.k)^2) = 2 d^2 + 6 d and SE(var) ~ sqrt((2 d^2 + 6 d) / n).
    const double se_theory = std::sqrt((2 * d * d + 6 * d) / n);
    BOOST_TEST(e.se_raw == se_theory, tt::tolerance(0.25));
  }
}

BOOST_AUTO_TEST_CASE(claim_scale_04_the_program_table_is_within_3_standard_errors) {
  // The program's own widths and default settings (10000 pairs, seed 4), as its table prints them.
  const std::vector<ch04::VarianceEstimate> sweep = ch04::variance_sweep(ch04::variance_widths(), 10000, 4);
  for (const ch04::VarianceEstimate& e : sweep) BOOST_TEST(ch04::within_three_standard_errors(e), "d_k " << e.d_k);
  const app::ClaimCheck claim = ch04::claim_scaled_variance(ch04::variance_section(10000, 4).estimates);
  BOOST_TEST(claim.id == "scale_04");
  BOOST_TEST(claim.holds);
  // The predicate can fail: a variance off by 4 standard errors is caught.
  ch04::VarianceEstimate off{
      .d_k = 64, .samples = 100, .var_raw = 64 + 4 * 9.0, .se_raw = 9.0, .var_scaled = 1.0, .se_scaled = 0.1};
  BOOST_TEST(!ch04::within_three_standard_errors(off));
  std::vector<ch04::VarianceEstimate> spoiled = sweep;
  spoiled[6] = off;
  BOOST_TEST(!ch04::claim_scaled_variance(spoiled).holds);  // one bad width fails the claim
}

BOOST_AUTO_TEST_CASE(claim_scale_05_softmax_raw_and_scaled) {
  // clang-format off
  check_printed(ch04::softmax({4, 2, 0}), {0.867, 0.117, 0.016}, 0.0005);
  check_printed(ch04::softmax({2, 1, 0}), {0.665, 0.245, 0.090}, 0.0005);
  // clang-format on
  // By hand: exp(4), exp(2), exp(0) over their sum.
  const double z = std::exp(4.0) + std::exp(2.0) + 1.0;
  const ch04::SoftmaxScaling r = ch04::softmax_scaling({4, 2, 0}, 4, true);
  BOOST_TEST(r.a_raw(0) == std::exp(4.0) / z, tt::tolerance(1e-12));
  BOOST_TEST(r.scaled(1) == 1.0);
  BOOST_TEST(r.article);
  for (const app::ClaimCheck& claim : {ch04::claim_raw_weights(r), ch04::claim_scaled_weights(r)}) {
    BOOST_TEST(claim.id == "scale_05");
    BOOST_TEST(claim.holds);
  }
  BOOST_TEST(!ch04::claim_scaled_weights(ch04::softmax_scaling({4, 2, 0}, 16, false)).holds);  // divided by 4 instead
}

BOOST_AUTO_TEST_CASE(claim_scale_06_ratio_is_exp_of_difference_and_shifts_change_nothing) {
  const arma::rowvec raw = ch04::softmax({4, 2, 0}), scaled = ch04::softmax({2, 1, 0});
  BOOST_TEST(raw(0) / raw(1) == std::exp(2.0), tt::tolerance(1e-12));
  BOOST_TEST(scaled(0) / scaled(1) == std::exp(1.0), tt::tolerance(1e-12));
  const arma::rowvec two = ch04::softmax({0.3, -1.9});
  BOOST_TEST(two(0) / two(1) == std::exp(2.2), tt::tolerance(1e-12));
  const arma::rowvec s{1.5, -0.25, 3.0, 0.0, -2.0};
  const arma::rowvec a = ch04::softmax(s);
  for (double shift : {-100.0, -1.0, 0.5, 7.0, 1000.0}) {
    BOOST_TEST(arma::abs(ch04::softmax(s + shift) - a).max() <= 1e-12, "shift " << shift);
  }
  const ch04::SoftmaxScaling r = ch04::softmax_scaling({4, 2, 0}, 4, true);
  for (const app::ClaimCheck& claim : {ch04::claim_raw_ratio(r), ch04::claim_scaled_ratio(r), ch04::claim_shift(r)}) {
    BOOST_TEST(claim.id == "scale_06");
    BOOST_TEST(claim.holds, claim.evidence);
  }
  BOOST_TEST(ch04::claim_raw_ratio(r).evidence.find("exp(2) = 7.389056") != std::string::npos);
  BOOST_CHECK_THROW(ch04::claim_raw_ratio(ch04::softmax_scaling({4}, 4, false)), std::invalid_argument);  // one key
}

BOOST_AUTO_TEST_CASE(claim_scale_07_jacobian_norm_falls_as_scores_grow) {
  for (const arma::rowvec& scores : {arma::rowvec{4, 2, 0}, arma::rowvec{1, -0.5, 0.2, 3}}) {
    const arma::vec cs = arma::logspace(-2, std::log10(50.0), 200);
    const arma::vec norms = ch04::jacobian_norm_sweep(scores, cs);
    BOOST_TEST(arma::all(arma::diff(norms) < 0.0));
    BOOST_TEST(norms.back() < 1e-6 * norms(0));
  }
  // The article's pair: scaling [4, 2, 0] down to [2, 1, 0] gives softmax larger derivatives.
  const auto J = [](const arma::rowvec& s) { return arma::norm(ch04::softmax_jacobian(ch04::softmax(s)), "fro"); };
  BOOST_TEST(J({2, 1, 0}) > J({4, 2, 0}));
  const ch04::LearningSignal signal = ch04::learning_signal({4, 2, 0}, 2.0, true);
  BOOST_TEST(ch04::claim_jacobian_falls(signal).id == "scale_07");
  BOOST_TEST(ch04::claim_jacobian_falls(signal).holds);
  BOOST_TEST(signal.article);
  BOOST_TEST(signal.at[0].norm == J({2, 1, 0}), tt::tolerance(1e-12));
  const ch04::LearningSignal tied = ch04::learning_signal({1, 1, 0}, 2.0, true);
  BOOST_TEST(!ch04::claim_jacobian_falls(tied).holds);  // tied winners: no claim
}

namespace {

/// softmax by hand: exp of each score over the sum of the exps.
arma::rowvec by_hand(const std::vector<double>& s) {
  arma::rowvec e(s.size());
  for (std::size_t j = 0; j < s.size(); ++j) e(j) = std::exp(s[j]);
  return e / arma::accu(e);
}

}  // namespace

BOOST_AUTO_TEST_CASE(claim_scale_08_a_longer_query_scales_its_row_and_sharpens) {
  const ch04::CosineComparison r = ch04::cosine_comparison();
  // By hand, with d_k = 4 (divisor 2): q . k1 = 2*2 = 4, q . k2 = 1*2 = 2, q . k3 = 2*(-1) = -2.
  check_printed(r.scores, {2.0, 1.0, -1.0}, 1e-15);
  // |q| = sqrt(5), |k1| = |k2| = sqrt(5), |k3| = sqrt(2): cosines 4/5, 2/5, -2/sqrt(10).
  check_printed(r.cosines, {0.8, 0.4, -2.0 / std::sqrt(10.0)}, 1e-12);
  BOOST_REQUIRE_EQUAL(r.query_rows.size(), 4u);
  const double cs[] = {0.5, 1, 2, 4};
  double previous_max = 0.0;
  for (std::size_t i = 0; i < 4; ++i) {
    const ch04::QueryScaleRow& row = r.query_rows[i];
    BOOST_TEST(row.c == cs[i]);
    check_printed(row.scores, {2 * cs[i], cs[i], -cs[i]}, 1e-12);
    const arma::rowvec cosine = by_hand({0.8, 0.4, -2.0 / std::sqrt(10.0)});
    BOOST_TEST(arma::abs(row.weights - by_hand({2 * cs[i], cs[i], -cs[i]})).max() <= 1e-12);
    BOOST_TEST(arma::abs(row.cosine_weights - cosine).max() <= 1e-12);
    BOOST_TEST(row.weights.max() > previous_max);
    previous_max = row.weights.max();
  }
  BOOST_TEST(std::abs(r.query_rows[1].weights(0) - 0.705) <= 0.0005);  // e^2 / (e^2 + e + e^-1)
  BOOST_TEST(ch04::claim_query_length(r.example, r.query_rows).id == "scale_08");
  BOOST_TEST(ch04::claim_query_length(r.example, r.query_rows).holds);
  // The claim can fail: rows whose largest weight falls, or whose scores are not c times the row.
  std::vector<ch04::QueryScaleRow> reversed(r.query_rows.rbegin(), r.query_rows.rend());
  BOOST_TEST(!ch04::claim_query_length(r.example, reversed).holds);
  std::vector<ch04::QueryScaleRow> off = r.query_rows;
  off[2].scores(1) += 0.01;
  BOOST_TEST(!ch04::claim_query_length(r.example, off).holds);
}

BOOST_AUTO_TEST_CASE(claim_scale_09_a_longer_key_moves_its_weight_by_its_sign) {
  const ch04::CosineComparison r = ch04::cosine_comparison();
  BOOST_REQUIRE_EQUAL(r.key_rows.size(), 6u);
  const double e = std::exp(1.0);
  for (const ch04::KeyScaleRow& row : r.key_rows) {
    BOOST_TEST_CONTEXT("k" << row.key + 1 << " x " << row.c) {
      if (row.key == 0) {  // k1 scores 2: made c times longer it scores 2c against k2's 1 and k3's -1
        BOOST_TEST(row.score == 2 * row.c, tt::tolerance(1e-12));
        BOOST_TEST(row.weight == std::exp(2 * row.c) / (std::exp(2 * row.c) + e + 1 / e), tt::tolerance(1e-12));
      } else {  // k3 scores -1: made c times longer it scores -c against k1's 2 and k2's 1
        BOOST_TEST(row.key == 2u);
        BOOST_TEST(row.score == -row.c, tt::tolerance(1e-12));
        BOOST_TEST(row.weight == std::exp(-row.c) / (e * e + e + std::exp(-row.c)), tt::tolerance(1e-12));
      }
      // Cosine scores ignore the key's length: softmax of [0.8, 0.4, -0.632] whatever c is.
      const arma::rowvec cosine = by_hand({0.8, 0.4, -2.0 / std::sqrt(10.0)});
      BOOST_TEST(row.cosine_weight == cosine(row.key), tt::tolerance(1e-12));
    }
  }
  BOOST_TEST(r.key_rows[1].weight > r.key_rows[0].weight);  // k1 (score > 0) gains
  BOOST_TEST(r.key_rows[4].weight < r.key_rows[3].weight);  // k3 (score < 0) loses
  BOOST_TEST(ch04::claim_key_length(r.example, r.key_rows).id == "scale_09");
  BOOST_TEST(ch04::claim_key_length(r.example, r.key_rows).holds);
  // Both signs must be shown: k1's rows alone do not make the claim.
  const std::vector<ch04::KeyScaleRow> only_k1(r.key_rows.begin(), r.key_rows.begin() + 3);
  BOOST_TEST(!ch04::claim_key_length(r.example, only_k1).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lesson)

BOOST_AUTO_TEST_CASE(softmax_jacobian_matches_finite_differences) {
  attn::Random rng(11);
  for (arma::uword m : {2u, 3u, 5u}) {
    arma::mat s(1, m);
    for (double& x : s) x = 2.0 * rng.normal();
    const arma::mat J = ch04::softmax_jacobian(ch04::softmax(s));
    BOOST_TEST(J.n_rows == m);
    BOOST_TEST(J.n_cols == m);
    for (arma::uword i = 0; i < m; ++i) {
      // Row i of J is the gradient of a_i with respect to the scores.
      const auto a_i = [&] { return attn::softmax_rows(s)(0, i); };
      const attn::GradCheck g = attn::check_gradient(a_i, s, arma::mat(J.row(i)));
      BOOST_TEST(g.max_relative_error < 1e-6, "m " << m << ", row " << i);
    }
    BOOST_TEST(arma::abs(J - J.t()).max() == 0.0);
    BOOST_TEST(arma::abs(arma::sum(J, 1)).max() <= 1e-15);
  }
}

BOOST_AUTO_TEST_CASE(softmax_jacobian_at_uniform_weights) {
  const arma::uword m = 4;
  const arma::mat J = ch04::softmax_jacobian(arma::rowvec(m, arma::fill::value(0.25)));
  const arma::mat expected = arma::eye(m, m) / 4.0 - arma::ones(m, m) / 16.0;
  BOOST_TEST(arma::abs(J - expected).max() <= 1e-15);
  BOOST_CHECK_THROW(ch04::softmax_jacobian(arma::rowvec()), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(dot_and_cosine_in_wider_spaces_and_their_errors) {
  const arma::vec q{1, 2, 3, 4, 5}, k{-2, 0, 1, 0.5, 1};
  BOOST_TEST(ch04::dot(q, k) == 8.0, tt::tolerance(1e-12));
  BOOST_TEST(ch04::cosine_similarity(3.0 * q, 0.5 * k) == ch04::cosine_similarity(q, k), tt::tolerance(1e-12));
  BOOST_TEST(ch04::dot(3.0 * q, k) == 3.0 * ch04::dot(q, k), tt::tolerance(1e-12));
  BOOST_CHECK_THROW(ch04::dot(arma::vec{1, 2, 3}, q), std::invalid_argument);
  BOOST_CHECK_THROW(ch04::dot(arma::vec(), arma::vec()), std::invalid_argument);
  BOOST_CHECK_THROW(ch04::cosine_similarity(arma::vec{0, 0}, arma::vec{1, 0}), std::invalid_argument);
  BOOST_CHECK_THROW(ch04::scaled_dot(1.0, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(shadow_signs_lengths_and_errors) {
  const ch04::Shadow right = ch04::shadow_of(90.0, 5.0);
  BOOST_TEST((right.side == ch04::Side::zero));
  BOOST_CHECK_SMALL(right.dot, 1e-12);
  const ch04::Shadow back = ch04::shadow_of(180.0, 7.0);
  BOOST_TEST((back.side == ch04::Side::negative));
  BOOST_TEST(back.dot == -7.0, tt::tolerance(1e-12));
  const ch04::Shadow odd = ch04::shadow_of(137.0, 3.0);
  BOOST_TEST(*odd.cosine == std::cos(137.0 * std::numbers::pi / 180.0), tt::tolerance(1e-12));
  BOOST_TEST(ch04::shadow_of(380.0, 2.0).dot == ch04::shadow_of(20.0, 2.0).dot, tt::tolerance(1e-12));
  BOOST_TEST(ch04::shadow_of(-30.0, 2.0).dot == ch04::shadow_of(30.0, 2.0).dot, tt::tolerance(1e-12));
  const ch04::Shadow none = ch04::shadow_of(45.0, 0.0);
  BOOST_TEST(!none.cosine.has_value());
  BOOST_TEST((none.side == ch04::Side::zero));
  BOOST_CHECK_THROW(ch04::shadow_of(20.0, -1.0), std::invalid_argument);
  BOOST_CHECK_THROW(ch04::shadow_of(20.0, std::nan("")), std::invalid_argument);
  BOOST_CHECK_THROW(ch04::shadow_of(HUGE_VAL, 1.0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(monte_carlo_is_seeded_and_checks_its_arguments) {
  const ch04::VarianceEstimate a = ch04::dot_product_variance(8, 500, 7), b = ch04::dot_product_variance(8, 500, 7);
  BOOST_TEST(a.var_raw == b.var_raw);
  BOOST_TEST(ch04::dot_product_variance(8, 500, 8).var_raw != a.var_raw);
  BOOST_TEST(a.var_scaled == a.var_raw / 8.0, tt::tolerance(1e-12));
  const auto sweep = ch04::variance_sweep({1, 2, 4}, 300, 5);
  BOOST_TEST(sweep.size() == 3u);
  BOOST_TEST(sweep[2].d_k == 4u);
  BOOST_CHECK_THROW(ch04::dot_product_variance(0, 100, 1), std::invalid_argument);
  BOOST_CHECK_THROW(ch04::dot_product_variance(4, 1, 1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(sharpness_rows_are_distributions_and_sharpen) {
  const arma::mat W = ch04::sharpness_sweep({0.5, 2, -1, 1.5}, arma::vec{0.0, 1.0, 10.0});
  BOOST_TEST(W.n_rows == 3u);
  BOOST_TEST(W.n_cols == 4u);
  attn::test::check_distributions(W);
  BOOST_TEST(arma::abs(W.row(0) - 0.25).max() <= 1e-15);  // c = 0: uniform
  BOOST_TEST(W(2, 1) > W(1, 1));
  BOOST_TEST(W(2, 1) > 0.99);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

BOOST_AUTO_TEST_CASE(runs_prints_the_article_numbers_and_draws_seven_plots) {
  const std::filesystem::path dir = TEST_PLOTS;
  const attn::test::Run r = attn::test::run_with_plots(CHAPTER_EXE, dir);
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.err == "");
  attn::test::check_contains(r.out, {"= 9.40   [scale_02]", "12.5", "0.125", "[86.7%, 11.7%, 1.6%]   [scale_05]",
                                     "[66.5%, 24.5%, 9.0%]   [scale_05]", "exp(2) = 7.389056", "[scale_04]",
                                     "[scale_07]", "same in every row.   [scale_08]", "neither moves.   [scale_09]"});
  BOOST_TEST(!contains(r.out, "does not hold"));
  BOOST_TEST(contains(attn::test::squeeze_spaces(r.out), "[10, 0] [10, 0] 100 1 [scale_01]"));
  BOOST_TEST(!contains(r.out, "NO"));  // every width within 3 standard errors
  BOOST_TEST(!attn::test::has_nan_word(r.out));
  attn::test::check_plots(dir, {"ch04_variance", "ch04_softmax_sharpness", "ch04_jacobian_norm", "ch04_dot_vs_angle",
                                "ch04_shadow", "ch04_longer_query", "ch04_longer_key"});
}

BOOST_AUTO_TEST_CASE(explorer_flags_report_the_sign) {
  const std::string exe = std::string(CHAPTER_EXE) + " --no-plots --samples 100 ";
  const attn::test::Run perpendicular = attn::test::run(exe + "--angle 90 --length 5");
  BOOST_TEST(perpendicular.code == 0);
  BOOST_TEST(contains(perpendicular.out, "The projection is zero"));
  BOOST_TEST(!contains(perpendicular.out, "[scale_02]"));
  const attn::test::Run against = attn::test::run(exe + "--angle=-150 --length 2");
  BOOST_TEST(against.code == 0);
  BOOST_TEST(contains(against.out, "The projection is negative"));
  BOOST_TEST(contains(against.out, "= -1.73"));  // 2 cos(150 degrees)
  const attn::test::Run zero = attn::test::run(exe + "--length 0");
  BOOST_TEST(zero.code == 0);
  BOOST_TEST(contains(zero.out, "undefined"));
}

BOOST_AUTO_TEST_CASE(b_length_changes_the_dot_product_not_the_projection) {
  // a of length 4 at 60 degrees: projection 4 cos(60) = 2; with |b| = 2.5 the dot product is 5.
  const attn::test::Run r =
      attn::test::run(std::string(CHAPTER_EXE) + " --no-plots --samples 100 --angle 60 --length 4 --b-length 2.5");
  BOOST_TEST(r.code == 0);
  attn::test::check_contains(r.out, {"b = (2.5, 0)", "|b| = 2.5", "|a| cos(theta)      = 2.00",
                                     "projection x |b|    = 5.00", "is 2.5 times the signed projection"});
  BOOST_TEST(!contains(r.out, "[scale_02]"));
  BOOST_TEST(contains(attn::test::squeeze_spaces(r.out), "10 12.50 0.50"));  // |a| = 10: 10 x 0.5 x 2.5
}

BOOST_AUTO_TEST_CASE(own_scores_replace_4_2_0) {
  const attn::test::Run r = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots --samples 100 --scores '3, 1,1,0'");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "Multiply the scores [3.00, 1.00, 1.00, 0.00] by c"));
  // Section 5 too: exp(3) / (exp(3) + 2 e + 1) = 75.7%, and the scores halved.
  attn::test::check_contains(r.out,
                             {"raw    [3, 1, 1, 0] -> [75.7%, 10.2%, 10.2%, 3.8%]", "scaled [1.5, 0.5, 0.5, 0] -> [",
                              "exp(2) = 7.389056", "at scores [1.50, 0.50, 0.50, 0.00]"});
  for (const char* tag : {"[scale_05]", "[scale_06]", "[scale_07]"}) BOOST_TEST(!contains(r.out, tag), tag);
}

// The list rule (app::split_list), as for ch02's --view: spaces around commas allowed, no empty entry.
BOOST_AUTO_TEST_CASE(scores_allow_spaces_around_commas_and_refuse_a_trailing_comma) {
  const std::string run = std::string(CHAPTER_EXE) + " --no-plots --samples 100 --scores ";
  const attn::test::Run plain = attn::test::run(run + "3,1,1,0");
  BOOST_TEST_REQUIRE(plain.code == 0, plain.err);
  const attn::test::Run spaced = attn::test::run(run + "' 3 , 1 , 1 , 0 '");
  BOOST_TEST(spaced.code == 0, spaced.err);
  BOOST_TEST((spaced.out == plain.out));
  // One number an entry: spaces alone do not separate scores.
  const attn::test::Run missing_commas = attn::test::run(run + "'3 1 1 0'");
  BOOST_TEST(missing_commas.code == 2);
  BOOST_TEST(missing_commas.err.find("entry '3 1 1 0' holds several numbers") != std::string::npos, missing_commas.err);
  const attn::test::Run trailing = attn::test::run(run + "'1,2,'");
  BOOST_TEST(trailing.code == 2);
  BOOST_TEST(trailing.out == "");
  BOOST_TEST(trailing.err ==
             "ch04_scaling: error: --scores '1,2,' has an empty entry (entry 3 of 3; separate entries by single "
             "commas) (see --help)\n");
}

BOOST_AUTO_TEST_CASE(d_k_sets_the_divisor_of_the_softmax_sections) {
  const attn::test::Run r = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots --samples 100 --d-k 16");
  BOOST_TEST(r.code == 0);
  // [4, 2, 0] / sqrt(16) = [1, 0.5, 0]: e / (e + e^0.5 + 1) = 50.6%.
  attn::test::check_contains(r.out, {"(d_k = 16: divide by 4)", "scaled [1, 0.5, 0] -> [50.6%, 30.7%, 18.6%]",
                                     "exp(0.5) = 1.648721", "at scores [1.00, 0.50, 0.00]"});
  BOOST_TEST(!contains(r.out, "[scale_05]"));
}

BOOST_AUTO_TEST_CASE(one_score_or_far_apart_scores_still_draw_every_plot) {
  // One score: softmax is 1 whatever c is, so |J| = 0 everywhere (no log axis possible).
  // Far-apart scores: |J| falls towards 1e-300 as c grows.
  for (const std::string scores : {"5", "100,0"}) {
    const std::filesystem::path dir = std::filesystem::path(TEST_PLOTS) / ("scores-" + scores);
    std::filesystem::remove_all(dir);
    const attn::test::Run r = attn::test::run(
        attn::test::cat(CHAPTER_EXE, " --samples 100 --scores ", scores, " --plots ", attn::test::quote(dir.string())));
    BOOST_TEST(r.code == 0, scores << ": " << r.err);
    BOOST_TEST(app::is_valid_png(dir / "ch04_jacobian_norm.png"), scores);
  }
}

BOOST_AUTO_TEST_CASE(help_exits_zero) {
  const attn::test::Run r = attn::test::run(std::string(CHAPTER_EXE) + " --help");
  BOOST_TEST(r.code == 0);
  // Every flag, and an example of each widget interaction: angle, either length, scores, divisor.
  for (const char* flag :
       {"--angle", "--length", "--b-length", "--scores", "--d-k", "--samples", "--seed", "ch04_scaling --angle 120",
        "--length 3 --b-length 2", "ch04_scaling --scores \"3,1,1,0\"", "--d-k 16"}) {
    BOOST_TEST(contains(r.out, flag), flag);
  }
}

BOOST_AUTO_TEST_CASE(bad_input_is_one_line_and_exit_2) {
  const std::string exe = CHAPTER_EXE;
  for (const std::string args : {"--bogus",
                                 "--angle",
                                 "--angle abc",
                                 "--angle nan",
                                 "--angle inf",
                                 "--length -1",
                                 "--length=-1",
                                 "--length inf",
                                 "--length nan",
                                 "--length 1e6",
                                 "--samples 0",
                                 "--samples 10",
                                 "--samples 1e9",
                                 "--samples 99999999",
                                 "--seed=-1",
                                 "--seed x",
                                 "--scores ''",
                                 "--scores 'a,b'",
                                 "--scores '1,nan'",
                                 "--scores '1,2x'",
                                 "--scores 1,2,3,4,5,6,7,8,9,10,11",
                                 "--scores '1,2,'",
                                 "--scores ',1'",
                                 "--scores '1, ,2'",
                                 "--scores ' , '",
                                 "--b-length 0",
                                 "--b-length -2",
                                 "--b-length inf",
                                 "--b-length 1001",
                                 "--d-k 0",
                                 "--d-k 4097",
                                 "--d-k 2.5",
                                 "--d-k x",
                                 "--plots /dev/null/x",
                                 "--no-plots --plots /tmp/x",
                                 "stray"}) {
    attn::test::check_usage_error(attn::test::cat(exe, " --no-plots ", args), "ch04_scaling");
  }
}

BOOST_AUTO_TEST_CASE(without_gnuplot_the_arithmetic_still_prints) {
  const attn::test::Run r =
      attn::test::run("PATH=/nonexistent " + std::string(CHAPTER_EXE) + " --samples 100 --plots " +
                      attn::test::quote(std::string(TEST_PLOTS) + "-nognuplot"));
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "[86.7%, 11.7%, 1.6%]"));
  BOOST_TEST(contains(r.out, "plots: skipped (gnuplot is not on PATH; scripts/install-deps.sh installs gnuplot)\n"));
}

BOOST_AUTO_TEST_SUITE_END()
