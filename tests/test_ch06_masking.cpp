/// \file test_ch06_masking.cpp
/// \brief Chapter 06: claims mask_01..mask_06 of docs/claims.md, cross-attention shapes and rules,
/// and the program run as a reader would.
///
/// Expected values are the article's at its printed precision, or independent derivations
/// (weights written out from exp() by hand, masks checked entry by entry).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <limits>

#include "claims.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/cross_attention.hpp"
#include "common/attention/random.hpp"
#include "common/attention/toy.hpp"
#include "masking.hpp"
#include "support.hpp"

namespace tt = boost::test_tools;

const std::string kExe = CHAPTER_EXE;  // the chapter program

namespace {

arma::mat sentence(const std::string& words) { return attn::toy_embeddings().lookup(attn::split_sentence(words)); }

void check_printed(const arma::rowvec& got, const std::vector<double>& article, double half_unit) {
  BOOST_REQUIRE_EQUAL(got.n_elem, article.size());
  for (std::size_t k = 0; k < article.size(); ++k) {
    BOOST_TEST(std::abs(got(k) - article[k]) <= half_unit, "entry " << k << ": " << got(k) << " vs " << article[k]);
  }
}

/// A random matrix with a fixed seed (properties are asserted, never the stream itself).
arma::mat random(arma::uword rows, arma::uword cols, int seed) {
  attn::Random rng(seed);
  return rng.normal_matrix(rows, cols);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(claim_mask_01_future_weights_exactly_zero_rows_sum_to_one) {
  for (const char* s : {"the river bank", "bank money the river the", "bank"}) {
    const arma::mat A = ch06::identity_head(sentence(s), true).A;
    for (arma::uword i = 0; i < A.n_rows; ++i) {
      for (arma::uword j = i + 1; j < A.n_cols; ++j) BOOST_TEST(A(i, j) == 0.0);
      BOOST_TEST(arma::accu(A.row(i)) == 1.0, tt::tolerance(1e-12));
    }
    BOOST_TEST(A(0, 0) == 1.0);  // row 0 may only read itself
  }
  // A random head with d_k != d on a longer sequence: same structure.
  const arma::mat X = random(7, 5, 1);
  const attn::HeadPass p = attn::attention(X, random(5, 3, 2), random(5, 3, 3), random(5, 2, 4), {.causal = true});
  BOOST_TEST(arma::trimatu(p.A, 1).max() == 0.0);
  attn::test::check_distributions(p.A);
  // The function the program prints holds on these weights and fails on leaky ones.
  BOOST_TEST(ch06::claim_causal_weights(p.A).holds);
  const app::ClaimCheck claim = ch06::claim_causal_weights(ch06::identity_head(sentence("the river bank"), true).A);
  BOOST_TEST(claim.id == "mask_01");
  BOOST_TEST(claim.holds);
  BOOST_TEST(claim.evidence.find("row 0 = [1.00, 0.00, 0.00]") != std::string::npos);
  BOOST_TEST(!ch06::claim_causal_weights(ch06::identity_head(sentence("the river bank"), false).A).holds);
}

BOOST_AUTO_TEST_CASE(claim_mask_02_zero_fill_leaks_a_share_to_the_future) {
  const attn::HeadPass open = ch06::identity_head(sentence("the river bank"), false);
  const arma::mat leaky = attn::softmax_rows(ch06::zero_fill(open.scores));
  const arma::vec leaked = ch06::future_share(leaky);
  // Row 0 by hand: scores (the.the, 0, 0) = (0.5, 0, 0), so the future gets 2 / (e^0.5 + 2).
  BOOST_TEST(leaked(0) == 2.0 / (std::exp(0.5) + 2.0), tt::tolerance(1e-12));
  BOOST_TEST(leaked(0) > 0.5);
  BOOST_TEST(leaked(1) > 0.0);
  BOOST_TEST(leaked(2) == 0.0);  // the last row has no future
  BOOST_TEST(arma::accu(ch06::future_share(ch06::identity_head(sentence("the river bank"), true).A)) == 0.0);
  const app::ClaimCheck claim = ch06::claim_zero_fill(leaky);
  BOOST_TEST(claim.id == "mask_02");
  BOOST_TEST(claim.holds);
  BOOST_TEST(claim.evidence == "  share leaked to the future, per row: [0.55, 0.26, 0.00]");
  BOOST_TEST(!ch06::claim_zero_fill(ch06::identity_head(sentence("the river bank"), true).A).holds);
}

BOOST_AUTO_TEST_CASE(claim_mask_03_river_bank_last_row_unchanged) {
  const arma::mat X = sentence("the river bank");
  const arma::rowvec causal = ch06::identity_head(X, true).A.row(2);
  const arma::rowvec open = ch06::identity_head(X, false).A.row(2);
  check_printed(causal, {0.26, 0.31, 0.43}, 0.005);  // mix_01
  BOOST_TEST(arma::abs(causal - open).max() == 0.0);
  const ch06::WordOrderSection orders = ch06::word_order_section();  // what the program prints
  const app::ClaimCheck claim = ch06::claim_unchanged_row(orders);
  BOOST_TEST(claim.id == "mask_03");
  BOOST_TEST(claim.holds);
  BOOST_TEST(arma::abs(orders.bank_last.causal.A.row(2) - causal).max() == 0.0);
  // A causal row that differs from the bidirectional one fails the claim.
  ch06::WordOrderSection changed = orders;
  changed.bank_last.causal.A.row(2) = arma::rowvec{0.2, 0.3, 0.5};
  BOOST_TEST(!ch06::claim_unchanged_row(changed).holds);
}

BOOST_AUTO_TEST_CASE(claim_mask_04_bank_river_causal_bank_gives_river_zero) {
  const arma::rowvec bank = ch06::identity_head(sentence("the bank river"), true).A.row(1);
  BOOST_TEST(bank(2) == 0.0);
  // Over (the, bank) only: scores 0.2 / 2 and 1.18 / 2.
  const double the = std::exp(0.10), self = std::exp(0.59);
  BOOST_TEST(bank(0) == the / (the + self), tt::tolerance(1e-12));
  BOOST_TEST(bank(1) == self / (the + self), tt::tolerance(1e-12));
  BOOST_TEST(ch06::identity_head(sentence("the bank river"), false).A(1, 2) > 0.3);  // bidirectional: river visible
  const app::ClaimCheck claim = ch06::claim_blocked_source(bank, 2, "river");
  BOOST_TEST(claim.id == "mask_04");
  BOOST_TEST(claim.holds);
  BOOST_TEST(claim.evidence.find("river gets exactly 0") != std::string::npos);
  const arma::rowvec open = ch06::identity_head(sentence("the bank river"), false).A.row(1);
  BOOST_TEST(!ch06::claim_blocked_source(open, 2, "river").holds);
  BOOST_CHECK_THROW(ch06::claim_blocked_source(bank, 3, "river"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(claim_mask_05_tired_cat_table_and_causal_view) {
  const arma::mat A = ch06::tired_cat_weights();
  BOOST_TEST(A.n_rows == 5u);
  BOOST_TEST(A.n_cols == 5u);
  for (arma::uword i = 0; i < 5; ++i) BOOST_TEST(arma::accu(A.row(i)) == 1.0, tt::tolerance(1e-12));
  const arma::mat C = ch06::renormalize_causal(A);
  // clang-format off
  check_printed(C.row(1), {0.10, 0.90, 0.0, 0.0, 0.0}, 0.005);
  check_printed(C.row(0), {1.0, 0.0, 0.0, 0.0, 0.0}, 0.005);
  // clang-format on
  // cat by hand: (0.18, 0.30, 0.40) / 0.88.
  BOOST_TEST(C(2, 0) == 0.18 / 0.88, tt::tolerance(1e-12));
  BOOST_TEST(C(2, 2) == 0.40 / 0.88, tt::tolerance(1e-12));
  BOOST_TEST(arma::abs(C.row(4) - A.row(4)).max() <= 1e-15);  // the last row already sees everything
  // The mask on log-weights gives the same table.
  const arma::mat M = ch06::mask_log_weights(A);
  BOOST_TEST(arma::abs(M - C).max() <= 1e-12);
  BOOST_TEST(arma::trimatu(M, 1).max() == 0.0);

  // The claims the program prints, on the section it prints them from.
  const ch06::TiredCatSection t = ch06::tired_cat_section();
  for (const app::ClaimCheck& c : {ch06::claim_row_sums(t), ch06::claim_renormalized_row(t, 1),
                                   ch06::claim_renormalized_row(t, 2), ch06::claim_mask_renormalizes(t)}) {
    BOOST_TEST(c.id == "mask_05");
    BOOST_TEST(c.holds, c.evidence);
  }
  BOOST_TEST(ch06::claim_renormalized_row(t, 1).evidence.starts_with("  tired: [0.05, 0.45] / 0.50 -> "));
  BOOST_CHECK_THROW(ch06::claim_renormalized_row(t, 5), std::invalid_argument);
  // And they fail on a table that breaks them: a row summing to 1.1, a wrong renormalized row, a
  // masked table that differs from the renormalized one.
  ch06::TiredCatSection broken = t;
  broken.A(0, 0) += 0.1;
  BOOST_TEST(!ch06::claim_row_sums(broken).holds);
  broken = t;
  broken.renormalized(1, 1) = 0.8;
  BOOST_TEST(!ch06::claim_renormalized_row(broken, 1).holds);
  BOOST_TEST(!ch06::claim_mask_renormalizes(broken).holds);
}

BOOST_AUTO_TEST_CASE(three_panels_scores_masked_softmax) {
  // The figure's panels: scores log A (their row softmax is A), the same with -inf above the
  // diagonal, and the softmax of the masked rows (the causal view, renormalized by hand above).
  const ch06::TiredCatSection t = ch06::tired_cat_section();
  BOOST_TEST(arma::abs(attn::softmax_rows(t.scores) - t.A).max() <= 1e-15);
  for (arma::uword i = 0; i < 5; ++i) {
    for (arma::uword j = 0; j < 5; ++j) {
      if (j > i) {
        BOOST_TEST(t.masked_scores(i, j) == -std::numeric_limits<double>::infinity());
      } else {
        BOOST_TEST(t.masked_scores(i, j) == std::log(t.A(i, j)));
      }
    }
  }
  BOOST_TEST(t.masked_scores(1, 0) == std::log(0.05), tt::tolerance(1e-12));
  BOOST_TEST(arma::abs(attn::softmax_rows(t.masked_scores) - t.renormalized).max() <= 1e-12);
}

BOOST_AUTO_TEST_CASE(claim_mask_06_cross_attention_shapes) {
  const arma::mat Xq = random(3, 4, 5), Xkv = random(6, 5, 6);                       // n_q = 3, n_kv = 6, d_q != d_kv
  const arma::mat Wq = random(4, 2, 7), Wk = random(5, 2, 8), Wv = random(5, 7, 9);  // d_k = 2, d_v = 7
  const attn::HeadPass p = attn::cross_attention(Xq, Xkv, Wq, Wk, Wv);
  BOOST_TEST(p.Q.n_rows == 3u);
  BOOST_TEST(p.K.n_rows == 6u);
  BOOST_TEST(p.A.n_rows == 3u);
  BOOST_TEST(p.A.n_cols == 6u);
  BOOST_TEST(p.H.n_rows == 3u);
  BOOST_TEST(p.H.n_cols == 7u);
  attn::test::check_distributions(p.A);
  // Independent derivation: row 1 written out from exp().
  const arma::rowvec s = (Xq.row(1) * Wq) * (Xkv * Wk).t() / std::sqrt(2.0);
  const arma::rowvec w = arma::exp(s) / arma::accu(arma::exp(s));
  BOOST_TEST(arma::abs(p.A.row(1) - w).max() <= 1e-12);
  BOOST_TEST(arma::abs(p.H.row(1) - w * Xkv * Wv).max() <= 1e-12);
  const app::ClaimCheck claim = ch06::claim_cross_shapes(p, 3, 6);
  BOOST_TEST(claim.id == "mask_06");
  BOOST_TEST(claim.holds);
  BOOST_TEST(claim.evidence == "  Q 3 x 2, K 6 x 2, V 6 x 7, A 3 x 6, H 3 x 7");
  BOOST_TEST(!ch06::claim_cross_shapes(p, 6, 3).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lesson)

BOOST_AUTO_TEST_CASE(cross_attention_of_a_sequence_with_itself_is_self_attention) {
  const arma::mat X = random(5, 4, 10), Wq = random(4, 3, 11), Wk = random(4, 3, 12), Wv = random(4, 2, 13);
  for (bool causal : {false, true}) {
    const attn::HeadPass self = attn::attention(X, Wq, Wk, Wv, {.causal = causal});
    const attn::HeadPass cross = attn::cross_attention(X, X, Wq, Wk, Wv, {.causal = causal});
    BOOST_TEST(arma::abs(self.A - cross.A).max() <= 1e-15);
    BOOST_TEST(arma::abs(self.H - cross.H).max() <= 1e-15);
  }
}

BOOST_AUTO_TEST_CASE(offset_causal_mask_rule) {
  BOOST_TEST(arma::approx_equal(attn::causal_mask(4, 4, 0), attn::causal_mask(4), "absdiff", 0.0));
  const arma::mat M = attn::causal_mask(2, 5, 3);  // 2 x 5: query i reads keys j <= i + 3
  for (arma::uword i = 0; i < 2; ++i) {
    for (arma::uword j = 0; j < 5; ++j) {
      if (j <= i + 3)
        BOOST_TEST(M(i, j) == 0.0);
      else
        BOOST_TEST(M(i, j) == -std::numeric_limits<double>::infinity());
    }
  }
  BOOST_CHECK_THROW(attn::causal_mask(0, 3, 0), std::invalid_argument);
  BOOST_CHECK_THROW(attn::causal_mask(3, 0, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(offset_cross_attention_equals_the_last_rows_of_causal_self_attention) {
  const arma::mat X = random(6, 4, 14), Wq = random(4, 3, 15), Wk = random(4, 3, 16), Wv = random(4, 5, 17);
  const attn::HeadPass self = attn::attention(X, Wq, Wk, Wv, {.causal = true});
  const attn::HeadPass last = attn::cross_attention(X.tail_rows(2), X, Wq, Wk, Wv, {.causal = true, .offset = 4});
  BOOST_TEST(arma::abs(last.A - self.A.tail_rows(2)).max() <= 1e-15);
  BOOST_TEST(arma::abs(last.H - self.H.tail_rows(2)).max() <= 1e-15);
}

BOOST_AUTO_TEST_CASE(cross_attention_rejects_bad_shapes_and_unaligned_causal) {
  const arma::mat Xq = random(2, 4, 18), Xkv = random(5, 4, 19), W = random(4, 3, 20);
  BOOST_CHECK_THROW(attn::cross_attention(Xq, Xkv, W, W, W, {.causal = true}), std::invalid_argument);
  BOOST_CHECK_THROW(attn::cross_attention(Xq, Xkv, W, W, W, {.offset = 1}), std::invalid_argument);
  BOOST_CHECK_THROW(attn::cross_attention(Xq, Xkv, random(3, 3, 21), W, W), std::invalid_argument);
  BOOST_CHECK_THROW(attn::cross_attention(Xq, Xkv, W, random(4, 2, 22), W), std::invalid_argument);
  BOOST_CHECK_THROW(attn::cross_attention(arma::mat(), Xkv, W, W, W), std::invalid_argument);
  arma::mat bad = Xkv;
  bad(1, 1) = std::numeric_limits<double>::quiet_NaN();
  BOOST_CHECK_THROW(attn::cross_attention(Xq, bad, W, W, W), std::invalid_argument);
  try {
    attn::cross_attention(Xq, Xkv, W, random(4, 2, 22), W);
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("4 x 3") != std::string::npos);  // names both shapes
    BOOST_TEST(std::string(e.what()).find("4 x 2") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(single_token_sequences) {
  const attn::HeadPass p = ch06::identity_head(sentence("bank"), true);
  BOOST_TEST(p.A(0, 0) == 1.0);
  BOOST_TEST(arma::abs(p.H - sentence("bank")).max() <= 1e-15);
  const attn::HeadPass c = attn::cross_attention(random(1, 3, 23), random(1, 3, 24), arma::eye(3, 3), arma::eye(3, 3),
                                                 arma::eye(3, 3), {.causal = true});
  BOOST_TEST(c.A(0, 0) == 1.0);
  BOOST_TEST(ch06::renormalize_causal(arma::mat(1, 1, arma::fill::ones))(0, 0) == 1.0);
}

BOOST_AUTO_TEST_CASE(renormalize_rejects_bad_tables) {
  BOOST_CHECK_THROW(ch06::renormalize_causal(arma::mat(2, 3, arma::fill::ones)), std::invalid_argument);
  // clang-format off
  BOOST_CHECK_THROW(ch06::renormalize_causal(arma::mat{{0.0, 1.0}, {0.5, 0.5}}), std::invalid_argument);
  BOOST_CHECK_THROW(ch06::renormalize_causal(arma::mat{{1.0, 0.0}, {-0.5, 1.5}}), std::invalid_argument);
  BOOST_CHECK_THROW(ch06::mask_log_weights(arma::mat{{0.0, 1.0}, {0.5, 0.5}}), std::invalid_argument);
  // clang-format on
  BOOST_CHECK_THROW(ch06::zero_fill(arma::mat(2, 3, arma::fill::zeros)), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

BOOST_AUTO_TEST_CASE(runs_prints_the_article_numbers_and_draws_three_plots) {
  const std::filesystem::path dir = TEST_PLOTS;
  const attn::test::Run r = attn::test::run_with_plots(kExe, dir);
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.err == "");
  attn::test::check_contains(r.out, {"[1.00, 0.00, 0.00]   [mask_01]", "[mask_02]",
                                     "[0.26, 0.31, 0.43]   unchanged   [mask_03]", "river gets exactly 0   [mask_04]",
                                     "-> [0.10, 0.90, 0.00, 0.00, 0.00]   [mask_05]", "A 2 x 5", "[mask_06]"});
  BOOST_TEST(!attn::test::has_nan_word(r.out));
  attn::test::check_plots(dir, {"ch06_tired_cat", "ch06_mask", "ch06_bank_river", "ch06_three_panels"});
}

BOOST_AUTO_TEST_CASE(toggle_flags_choose_the_view) {
  const std::string& exe = kExe;
  const attn::test::Run causal = attn::test::run(exe + " --no-plots --sentence 'the bank river' --causal");
  BOOST_TEST(causal.code == 0);
  BOOST_TEST(causal.out.find("Your sentence: \"the bank river\"") != std::string::npos);
  BOOST_TEST(causal.out.find("Causal weights (zero above") != std::string::npos);
  BOOST_TEST(causal.out.find("Bidirectional weights:") == std::string::npos);
  const attn::test::Run open = attn::test::run(exe + " --no-plots --sentence 'bank the' --bidirectional");
  BOOST_TEST(open.code == 0);
  BOOST_TEST(open.out.find("Bidirectional weights:") != std::string::npos);
  BOOST_TEST(open.out.find("Causal weights (zero above") == std::string::npos);
  // The figure follows the toggle: one panel (one data file) for one view, two for both.
  const std::filesystem::path dir = std::filesystem::path(TEST_PLOTS) / "causal_only";
  BOOST_TEST(attn::test::run_with_plots(exe + " --sentence 'the bank river' --causal", dir).code == 0);
  attn::test::check_plots(dir, {"ch06_bank_river"});
  BOOST_TEST(!std::filesystem::exists(dir / "ch06_bank_river_2.dat"));
  const std::filesystem::path both = std::filesystem::path(TEST_PLOTS) / "both_views";
  BOOST_TEST(attn::test::run_with_plots(exe + " --sentence 'the bank river'", both).code == 0);
  BOOST_TEST(std::filesystem::exists(both / "ch06_bank_river_2.dat"));
}

BOOST_AUTO_TEST_CASE(help_exits_zero) {
  const attn::test::Run r = attn::test::run(kExe + " --help");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("--causal") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_input_is_one_line_and_exit_2) {
  const std::string& exe = kExe;
  for (const std::string args :
       {"--bogus", "--sentence", "--sentence ''", "--sentence 'the cat'", "--causal --bidirectional", "--causal=yes",
        "--plots /dev/null/x", "--no-plots --plots /tmp/x", "stray"}) {
    attn::test::check_usage_error(attn::test::cat(exe, " --no-plots ", args), "ch06_masking");
  }
}

BOOST_AUTO_TEST_SUITE_END()
