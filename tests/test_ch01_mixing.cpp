/// \file test_ch01_mixing.cpp
/// \brief Chapter 01: claims mix_01..mix_12 of docs/claims.md, and the program run as a reader would.
///
/// Expected values are the article's, at its printed precision (half a unit in the last digit).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "claims.hpp"
#include "common/apparatus/plot.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/toy.hpp"
#include "figures.hpp"
#include "mixing.hpp"
#include "support.hpp"

namespace tt = boost::test_tools;

namespace {

arma::mat sentence(const std::string& words) { return attn::toy_embeddings().lookup(attn::split_sentence(words)); }

ch01::ForwardPassSection forward() { return ch01::one_forward_pass(attn::toy_embeddings()); }

/// A value claim the program prints: the right ID, holding on the article's numbers, and printed
/// by the program with its tag.
void expect_holds(const app::ClaimCheck& claim, const std::string& id) {
  BOOST_TEST(claim.id == id);
  BOOST_TEST(claim.holds, id);
  static const std::string out = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots").out;
  BOOST_TEST(out.find(claim.evidence + "   [" + id + "]\n") != std::string::npos, id);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

// Claims mix_01 to mix_12 are asserted on the section results the program prints, and through the
// claim functions the program prints them with.

BOOST_AUTO_TEST_CASE(claim_mix_01_river_bank_weights) {
  attn::test::check_printed(forward().river.weights(), {0.26, 0.31, 0.43}, 0.005);
  expect_holds(ch01::claim_river_weights(forward()), "mix_01");
  // Section 2 prints the same weights from the step-by-step trace.
  const ch01::WhyItMixedSection why = ch01::why_it_mixed(attn::toy_embeddings());
  attn::test::check_printed(why.trace.weights, {0.26, 0.31, 0.43}, 0.005);
  expect_holds(ch01::claim_softmax(why), "mix_01");
}

BOOST_AUTO_TEST_CASE(claim_mix_02_river_bank_mixture) {
  attn::test::check_printed(forward().river.mixture(), {0.21, 0.52, 0.34, 0.41}, 0.005);
  expect_holds(ch01::claim_river_mixture(forward(), attn::toy_embeddings().axes()), "mix_02");
}

BOOST_AUTO_TEST_CASE(claim_mix_03_money_bank_weights_identical) {
  const arma::rowvec money = forward().money.weights(), river = forward().river.weights();
  attn::test::check_printed(money, {0.26, 0.31, 0.43}, 0.005);
  BOOST_TEST(arma::abs(money - river).max() < 1e-15);
  expect_holds(ch01::claim_money_weights(forward()), "mix_03");
}

BOOST_AUTO_TEST_CASE(claim_mix_04_money_bank_mixture) {
  attn::test::check_printed(forward().money.mixture(), {0.52, 0.21, 0.34, 0.41}, 0.005);
  expect_holds(ch01::claim_money_mixture(forward(), attn::toy_embeddings().axes()), "mix_04");
}

BOOST_AUTO_TEST_CASE(claim_mix_05_residual_preview_river) {
  attn::test::check_printed(forward().river.residual(), {0.71, 1.02, 1.14, 0.61}, 0.005);
  expect_holds(ch01::claim_river_residual(forward()), "mix_05");
}

BOOST_AUTO_TEST_CASE(claim_mix_06_residual_preview_money) {
  attn::test::check_printed(forward().money.residual(), {1.02, 0.71, 1.14, 0.61}, 0.005);
  expect_holds(ch01::claim_money_residual(forward()), "mix_06");
}

BOOST_AUTO_TEST_CASE(claim_mix_07_plain_average) {
  const arma::rowvec mean = forward().mean;
  BOOST_TEST(std::abs(mean(1) - 0.50) <= 0.005);  // water
  BOOST_TEST(std::abs(mean(0) - 0.17) <= 0.005);  // finance
  expect_holds(ch01::claim_plain_average(forward()), "mix_07");
}

BOOST_AUTO_TEST_CASE(claim_mix_08_unscaled_dot_products) {
  const ch01::WhyItMixedSection why = ch01::why_it_mixed(attn::toy_embeddings());
  attn::test::check_printed(why.trace.dots, {0.20, 0.54, 1.18}, 0.005);
  // By hand: bank = [0.5, 0.5, 0.8, 0.2] against the = [0,0,0,1], river = [0,1,0,0.2] and itself.
  BOOST_TEST(why.trace.dots(2) == 0.25 + 0.25 + 0.64 + 0.04, tt::tolerance(1e-12));
  expect_holds(ch01::claim_dots(why), "mix_08");
}

BOOST_AUTO_TEST_CASE(claim_mix_09_divided_by_sqrt_4) {
  const ch01::WhyItMixedSection why = ch01::why_it_mixed(attn::toy_embeddings());
  attn::test::check_printed(why.trace.scaled, {0.10, 0.27, 0.59}, 0.005);
  expect_holds(ch01::claim_scaled(why), "mix_09");
  BOOST_TEST(ch01::claim_scaled(why).evidence.starts_with("  divided by sqrt(4) = 2:"));
}

// The value claims compare with the article's numbers, so other embeddings make them fail: a longer
// bank changes every number; a longer money changes only the money sentence's weights.
BOOST_AUTO_TEST_CASE(claims_mix_01_to_09_fail_on_other_embeddings) {
  const attn::EmbeddingTable& toy = attn::toy_embeddings();
  arma::mat E = toy.E();
  E.row(toy.index("bank"))(3) = 0.6;
  const attn::EmbeddingTable longer_bank(toy.words(), toy.axes(), E);
  const ch01::ForwardPassSection f = ch01::one_forward_pass(longer_bank);
  const ch01::WhyItMixedSection w = ch01::why_it_mixed(longer_bank);
  for (const app::ClaimCheck& c :
       {ch01::claim_river_weights(f), ch01::claim_river_mixture(f, toy.axes()), ch01::claim_money_weights(f),
        ch01::claim_money_mixture(f, toy.axes()), ch01::claim_river_residual(f), ch01::claim_money_residual(f),
        ch01::claim_dots(w), ch01::claim_scaled(w), ch01::claim_softmax(w)}) {
    BOOST_TEST(!c.holds, c.id);
  }
  E = toy.E();
  E.row(toy.index("money"))(3) = 0.3;
  const ch01::ForwardPassSection m = ch01::one_forward_pass(attn::EmbeddingTable(toy.words(), toy.axes(), E));
  BOOST_TEST(ch01::claim_river_weights(m).holds);
  BOOST_TEST(!ch01::claim_money_weights(m).holds);
  // The plain average moves when a word of the sentence moves.
  E = toy.E();
  E.row(toy.index("river"))(1) = 0.7;
  BOOST_TEST(
      !ch01::claim_plain_average(ch01::one_forward_pass(attn::EmbeddingTable(toy.words(), toy.axes(), E))).holds);
}

BOOST_AUTO_TEST_CASE(claim_mix_10_times_5_sharpens_toward_bank) {
  const ch01::ScoreScaleSection scale = ch01::score_scale(attn::toy_embeddings());
  const arma::rowvec w = scale.at(5.0);
  BOOST_TEST(w(2) > scale.at(1.0)(2));
  BOOST_TEST(std::abs(scale.at(1.0)(2) - 0.43) <= 0.005);
  BOOST_TEST(w.index_max() == 2u);
  const app::ClaimCheck claim = ch01::claim_sharpening(scale);  // the program prints this one
  BOOST_TEST(claim.id == "mix_10");
  BOOST_TEST(claim.holds);
  BOOST_TEST(claim.evidence == "  x5: bank's own weight grows from 0.43 to 0.78 and stays the largest");
  // By hand: bank's scaled scores [0.10, 0.27, 0.59] times 5, softmax.
  const arma::rowvec s5 = 5.0 * arma::rowvec{0.20, 0.54, 1.18} / 2.0;
  BOOST_TEST(w(2) == std::exp(s5(2)) / arma::accu(arma::exp(s5)), tt::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(claim_mix_11_times_0_1_nearly_uniform) {
  const arma::rowvec w = ch01::score_scale(attn::toy_embeddings()).at(0.1);
  for (double x : w) BOOST_TEST(std::abs(x - 1.0 / 3.0) <= 0.02);
  // The printed bound is never below the deviation it bounds (0.00905... is printed 0.0091, not 0.009).
  const double deviation = arma::abs(w - 1.0 / 3.0).max();
  BOOST_TEST(std::stod(app::format_upper_bound(deviation, 4)) >= deviation);
  const attn::test::Run r = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots");
  BOOST_TEST(r.out.find("within " + app::format_upper_bound(deviation, 4) + " of 1/3") != std::string::npos);
  const app::ClaimCheck claim = ch01::claim_flattening(ch01::score_scale(attn::toy_embeddings()));
  BOOST_TEST(claim.id == "mix_11");
  BOOST_TEST(claim.holds);
  BOOST_TEST(r.out.find(claim.evidence + "   [mix_11]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_printed_bound_is_never_below_its_value) {
  BOOST_TEST(app::format_upper_bound(0.00905, 4) == "0.0091");
  BOOST_TEST(app::format_upper_bound(0.00905, 3) == "0.010");
  BOOST_TEST(app::format_upper_bound(0.25, 2) == "0.25");
  BOOST_TEST(app::format_upper_bound(0.0, 3) == "0.000");
  for (int k = 1; k < 2000; ++k) {
    const double x = 1e-4 * k + 3e-7 * (k % 7);
    for (int digits : {2, 3, 4}) {
      const double printed = std::stod(app::format_upper_bound(x, digits));
      BOOST_TEST(printed >= x, x << " printed " << printed);
      BOOST_TEST(printed <= x + std::pow(10.0, -digits) + 1e-15, x << " printed " << printed);
    }
  }
}

BOOST_AUTO_TEST_CASE(claim_mix_12_shapes_and_row_sums) {
  for (const char* s : {"the river bank", "the money bank", "bank", "the river money bank the"}) {
    const arma::mat X = sentence(s);
    const attn::HeadPass p = ch01::identity_head(X);
    BOOST_TEST(p.A.n_rows == X.n_rows);
    BOOST_TEST(p.A.n_cols == X.n_rows);
    BOOST_TEST(p.H.n_rows == X.n_rows);
    BOOST_TEST(p.H.n_cols == X.n_cols);
    attn::test::check_distributions(p.A);
    const ch01::SentencePass pass = ch01::sentence_pass(attn::toy_embeddings(), attn::split_sentence(s));
    BOOST_TEST(ch01::claim_shapes(pass).holds, s);
  }
  const ch01::SentencePass rb = ch01::sentence_pass(attn::toy_embeddings(), attn::split_sentence("the river bank"));
  const app::ClaimCheck claim = ch01::claim_shapes(rb);
  BOOST_TEST(claim.id == "mix_12");
  BOOST_TEST(claim.evidence.find("A = softmax(scores) is 3 x 3, H = A X is 3 x 4") != std::string::npos);
  // A pass whose rows do not sum to 1 fails the claim.
  ch01::SentencePass broken = rb;
  broken.pass.A(0, 0) += 0.1;
  BOOST_TEST(!ch01::claim_shapes(broken).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lesson)

BOOST_AUTO_TEST_CASE(trace_matches_the_head_and_mixture_is_weights_times_x) {
  const arma::mat X = sentence("money the river bank");
  const ch01::RowTrace t = ch01::trace_row(X, 3, 2.5);
  BOOST_TEST(arma::abs(t.scores - 2.5 * t.scaled).max() < 1e-14);
  BOOST_TEST(arma::abs(t.mixture - t.weights * X).max() < 1e-14);
  BOOST_CHECK_THROW(ch01::trace_row(X, 4), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(sweep_rows_are_distributions) {
  const arma::mat W = ch01::multiplier_sweep(sentence("the river bank"), 2, arma::vec{0.05, 1.0, 10.0});
  BOOST_TEST(W.n_rows == 3u);
  BOOST_TEST(arma::abs(arma::sum(W, 1) - 1.0).max() < 1e-12);
  BOOST_TEST(W(2, 2) > W(1, 2));  // sharper at x10 than x1
}

// The opening picture: bank's vector [0.5, 0.5] in the (finance, water) plane, each update drawn
// from its tip, ending at the article's residual previews (finance, water) = (0.71, 1.02) and (1.02, 0.71).
BOOST_AUTO_TEST_CASE(opening_picture_adds_each_update_to_the_same_bank_vector) {
  const app::ArrowChart c = ch01::updates_chart(forward(), attn::toy_embeddings().axes());
  BOOST_TEST(c.xlabel == "finance");
  BOOST_TEST(c.ylabel == "water");
  BOOST_TEST_REQUIRE(c.arrows.size() == 5u);
  BOOST_TEST(c.arrows[0].x0 == 0.0);
  BOOST_TEST(c.arrows[0].x1 == 0.5);
  BOOST_TEST(c.arrows[0].y1 == 0.5);
  const double ends[2][2] = {{0.71, 1.02}, {1.02, 0.71}};
  for (int s = 0; s < 2; ++s) {
    const app::Arrow& update = c.arrows[1 + 2 * s];
    const app::Arrow& result = c.arrows[2 + 2 * s];
    BOOST_TEST(update.x0 == 0.5);  // drawn from bank's tip
    BOOST_TEST(update.y0 == 0.5);
    BOOST_TEST(std::abs(update.x1 - ends[s][0]) <= 0.005);
    BOOST_TEST(std::abs(update.y1 - ends[s][1]) <= 0.005);
    BOOST_TEST(result.x0 == 0.0);  // the sum, from the origin
    BOOST_TEST(result.x1 == update.x1);
    BOOST_TEST(result.y1 == update.y1);
  }
  // Both results fit the drawn square.
  BOOST_TEST(c.xrange.second >= 1.02);
  BOOST_TEST(c.yrange.second >= 1.02);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

BOOST_AUTO_TEST_CASE(runs_prints_the_article_numbers_and_draws_three_plots) {
  const std::filesystem::path dir = TEST_PLOTS;
  const attn::test::Run r = attn::test::run_with_plots(CHAPTER_EXE, dir);
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.err == "");
  attn::test::check_contains(r.out, {"[0.26, 0.31, 0.43]", "[0.21, 0.52, 0.34, 0.41]", "[0.52, 0.21, 0.34, 0.41]",
                                     "[0.71, 1.02, 1.14, 0.61]", "[0.20, 0.54, 1.18]", "[0.10, 0.27, 0.59]"});
  BOOST_TEST(!attn::test::has_nan_word(r.out));
  attn::test::check_plots(dir, {"ch01_updates", "ch01_bank_weights", "ch01_mixtures", "ch01_scale_sweep"});
}

BOOST_AUTO_TEST_CASE(flags_change_the_experiment) {
  const attn::test::Run r =
      attn::test::run(std::string(CHAPTER_EXE) + " --no-plots --sentence 'the money bank' --scale 0");
  BOOST_TEST(r.code == 0);
  // Multiplier 0 makes every score 0, so the weights are exactly uniform.
  BOOST_TEST(r.out.find("weights:        [0.33, 0.33, 0.33]") != std::string::npos);
  BOOST_TEST(r.out.find("plots: skipped (--no-plots was given)") != std::string::npos);
  // -0 is the multiplier 0: the same uniform weights, and no "-0" printed.
  const attn::test::Run negative_zero = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots --scale -0");
  BOOST_TEST(negative_zero.code == 0);
  BOOST_TEST(negative_zero.out.find("scores x 0\n") != std::string::npos);
  BOOST_TEST(negative_zero.out.find("-0") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(help_exits_zero) {
  const attn::test::Run r = attn::test::run(std::string(CHAPTER_EXE) + " --help");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("--scale") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_input_is_one_line_and_exit_2) {
  const std::string exe = CHAPTER_EXE;
  for (const std::string args :
       {"--bogus", "--scale", "--scale abc", "--scale nan", "--scale inf", "--sentence ''", "--sentence 'the lake'",
        "--plots /dev/null/x", "--no-plots --plots /tmp/x", "stray"}) {
    attn::test::check_usage_error(attn::test::cat(exe, " --no-plots ", args), "ch01_mixing");
  }
}

BOOST_AUTO_TEST_CASE(without_gnuplot_the_arithmetic_still_prints) {
  const attn::test::Run r = attn::test::run("PATH=/nonexistent " + std::string(CHAPTER_EXE) + " --plots " +
                                            attn::test::quote(std::string(TEST_PLOTS) + "-nognuplot"));
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("[0.26, 0.31, 0.43]") != std::string::npos);
  BOOST_TEST(r.out.find("\nplots: skipped (gnuplot is not on PATH; scripts/install-deps.sh installs gnuplot)\n") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
