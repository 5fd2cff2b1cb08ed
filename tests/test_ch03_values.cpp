/// \file test_ch03_values.cpp
/// \brief Chapter 03: claims val_01..val_05 and heads_01..heads_04 of docs/claims.md, the
/// multi-head sublayer in common/attention/multihead.hpp, and the program run as a reader would.
///
/// Expected values are the article's, at its printed precision (half a unit in the last digit),
/// or derived independently in closed form.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "claims.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/multihead.hpp"
#include "common/attention/random.hpp"
#include "common/attention/toy.hpp"
#include "figures.hpp"
#include "support.hpp"
#include "values.hpp"

namespace {

using ch03::Choice;

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(claim_val_01_swapping_values_keeps_the_weights) {
  BOOST_TEST(ch03::claim_values_keep_weights(ch03::three_roles()).holds);
  const attn::HeadPass swapped = ch03::tower_head(Choice::swap, Choice::swap);
  attn::test::check_printed(swapped.A.row(2), {0.2483, 0.5035, 0.2483}, 0.00005);
  // Exactly the swap-query weights of swap_04, in every row, not only tower's.
  BOOST_TEST(arma::approx_equal(swapped.A, ch03::tower_head(Choice::swap, Choice::raw).A, "absdiff", 0.0));
  BOOST_TEST(arma::approx_equal(ch03::tower_head(Choice::raw, Choice::swap).A,
                                ch03::tower_head(Choice::raw, Choice::raw).A, "absdiff", 0.0));
}

BOOST_AUTO_TEST_CASE(claim_val_02_swapping_values_changes_the_content) {
  BOOST_TEST(ch03::claim_values_swap_content(ch03::three_roles()).holds);
  const arma::rowvec h = ch03::tower_head(Choice::swap, Choice::swap).H.row(2);
  attn::test::check_printed(h, {0.5035, 0.2483}, 0.00005);
  const arma::rowvec before = ch03::tower_head(Choice::swap, Choice::raw).H.row(2);
  BOOST_TEST(h(0) == before(1));  // the swap exchanges the two coordinates of the mixture
  BOOST_TEST(h(1) == before(0));
}

BOOST_AUTO_TEST_CASE(claim_val_03_another_key_changes_the_weight_only) {
  BOOST_TEST(ch03::claim_another_key(ch03::add_another_key({0.0, 1.0})).holds);
  const ch03::AnotherKey k = ch03::add_another_key({0.0, 1.0});
  BOOST_TEST(arma::approx_equal(k.q_before, k.q_after, "absdiff", 0.0));
  BOOST_TEST(arma::approx_equal(k.k_before, k.k_after, "absdiff", 0.0));
  BOOST_TEST(k.score_before == k.score_after);
  // Closed form: scores of tower's row are 0, s, 0 (+ s for the extra key), s = 1/sqrt(2).
  const double e = std::exp(1.0 / std::sqrt(2.0));
  BOOST_TEST(k.weight_before == e / (2 + e), boost::test_tools::tolerance(1e-14));
  BOOST_TEST(k.weight_after == e / (2 + 2 * e), boost::test_tools::tolerance(1e-14));
  BOOST_TEST(k.weight_after < k.weight_before);
  // A key scoring below the others takes less, but still changes a_ij.
  const ch03::AnotherKey low = ch03::add_another_key({0.0, -3.0});
  BOOST_TEST(low.weight_after < low.weight_before);
  BOOST_TEST(low.weight_after > k.weight_after);
  BOOST_CHECK_THROW(ch03::add_another_key({1.0, 2.0, 3.0}), std::invalid_argument);
  BOOST_CHECK_THROW(ch03::add_another_key({arma::datum::inf, 0.0}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(claim_val_04_residual_addition) {
  BOOST_TEST(ch03::claim_residual(ch03::three_roles()).holds);
  const arma::rowvec tower = ch03::eiffel_sentence().row(2);
  // clang-format off
  attn::test::check_printed(tower, {1, 0}, 0.0);
  attn::test::check_printed(tower + ch03::tower_head(Choice::swap, Choice::raw).H.row(2), {1.2483, 0.5035}, 0.00005);
  // clang-format on
}

BOOST_AUTO_TEST_CASE(claim_heads_01_three_tokens_two_heads) {
  BOOST_TEST(ch03::claim_counts_per_block(ch03::count_objects(3, 2, 1), 3, 2, ch03::build_sublayer(3, 2)).holds);
  const ch03::Counts c = ch03::count_objects(3, 2, 1);
  BOOST_TEST(c.qkv_projections_per_block == 6u);
  BOOST_TEST(c.qkv_matrices_per_block == 6u);
  BOOST_TEST(c.qkv_vectors_per_block == 18u);
  BOOST_TEST(c.queries_per_token == 2u);
  // The same counts, read off a built and run sublayer (d = 5, d_k = 2, d_v = 3).
  attn::Random rng(11);
  const attn::MultiHeadWeights w = attn::random_multi_head(5, 2, 2, 3, rng);
  const attn::MultiHeadPass p = attn::multi_head_self_attention(rng.normal_matrix(3, 5), w);
  BOOST_TEST(3 * w.heads.size() == 6u);
  arma::uword vectors = 0;
  for (const auto& h : p.heads) vectors += h.Q.n_rows + h.K.n_rows + h.V.n_rows;
  BOOST_TEST(3 * p.heads.size() == 6u);
  BOOST_TEST(vectors == 18u);
}

BOOST_AUTO_TEST_CASE(claim_heads_02_stack_of_blocks) {
  BOOST_TEST(ch03::claim_stack_counts(ch03::count_objects(3, 2, 24), 2, 24).holds);
  for (const long long N : {1LL, 2LL, 12LL, 96LL}) {
    for (const long long h : {1LL, 2LL, 8LL, 96LL}) {
      const ch03::Counts c = ch03::count_objects(7, h, N);
      BOOST_TEST(c.qkv_projections_in_stack == static_cast<std::uint64_t>(3 * N * h));
      BOOST_TEST(c.output_projections_in_stack == static_cast<std::uint64_t>(N));
    }
  }
  // clang-format off
  for (const auto& bad : {std::array<long long, 3>{0, 2, 1}, {3, 0, 1}, {3, 2, 0}, {-1, 2, 1}, {3, 2, -4},
                          {3, 2000, 1}, {3, 2, 5000}, {2000000, 2, 1}}) {
    BOOST_CHECK_THROW(ch03::count_objects(bad[0], bad[1], bad[2]), std::invalid_argument);
    // clang-format on
  }
}

BOOST_AUTO_TEST_CASE(claim_heads_03_sublayer_shapes) {
  BOOST_TEST(ch03::claim_sublayer_shapes(ch03::example_sublayer({"the", "river", "bank"})).holds);
  // n = 5 tokens, d = 7, h = 3 heads, d_k = 2, d_v = 4: Concat 5 x 12, Wo 12 x 7, Delta and Y 5 x 7.
  attn::Random rng(5);
  const arma::mat X = rng.normal_matrix(5, 7);
  const attn::MultiHeadWeights w = attn::random_multi_head(7, 3, 2, 4, rng);
  BOOST_TEST(w.Wo.n_rows == 12u);
  BOOST_TEST(w.Wo.n_cols == 7u);
  BOOST_TEST(attn::concat_width(w) == 12u);
  const attn::MultiHeadPass p = attn::multi_head_self_attention(X, w);
  BOOST_TEST(p.concat.n_rows == 5u);
  BOOST_TEST(p.concat.n_cols == 12u);
  BOOST_TEST(p.delta.n_rows == 5u);
  BOOST_TEST(p.delta.n_cols == 7u);
  BOOST_TEST(p.Y.n_rows == 5u);
  BOOST_TEST(p.Y.n_cols == 7u);
  for (const auto& h : p.heads) {
    BOOST_TEST(h.A.n_rows == 5u);
    BOOST_TEST(h.A.n_cols == 5u);
    BOOST_TEST(h.H.n_cols == 4u);
  }
  // The article's table rows carry the same shapes.
  const auto table = ch03::counting_table(3, 2);
  BOOST_TEST(table.size() == 14u);
  BOOST_TEST(table[11].shape == "3 x (2 d_v)");
  BOOST_TEST(table[12].shape == "(2 d_v) x d");
  BOOST_TEST(table[13].shape == "3 x d");
  BOOST_TEST(table[5].count == "2 matrices; 6 query vectors");
}

BOOST_AUTO_TEST_CASE(claim_heads_04_embedding_table_and_projections_are_separate) {
  const ch03::ExampleSublayer example = ch03::example_sublayer({"the", "river", "bank"});
  const std::vector<ch03::SeparateObject> rows = ch03::separate_objects(example);
  const app::ClaimCheck claim = ch03::claim_separate_objects(rows, example);
  BOOST_TEST(claim.id == "heads_04");
  BOOST_TEST(claim.holds);
  // The article's table: E and the projections learned; X, Q, K, V and A, H computed on each pass.
  BOOST_TEST_REQUIRE(rows.size() == 4u);
  const std::array<const char*, 4> objects{"E", "Wq, Wk, Wv", "X, Q, K, V", "A, H"};
  const std::array<bool, 4> learned{true, true, false, false};
  for (std::size_t r = 0; r < 4; ++r) {
    BOOST_TEST(rows[r].object == objects[r]);
    BOOST_TEST(rows[r].learned == learned[r], rows[r].object);
  }
  // Shapes: E is vocabulary x d = 4 x 4 (the, river, money, bank; finance, water, structure, generic),
  // each projection d x d_k = 4 x 3, X n x d = 3 x 4, Q, K, V n x d_k = 3 x 3, A n x n, H n x d_v.
  BOOST_TEST(rows[0].here == "4 x 4");
  BOOST_TEST(rows[1].here == "4 x 3 each");
  BOOST_TEST(rows[2].here == "3 x 4; 3 x 3 each");
  BOOST_TEST(rows[3].here == "3 x 3 each");
  // A table that calls the projections computed makes the claim fail.
  std::vector<ch03::SeparateObject> wrong = rows;
  wrong[1].learned = false;
  BOOST_TEST(!ch03::claim_separate_objects(wrong, example).holds);
}

BOOST_AUTO_TEST_CASE(claim_val_05_score_from_i_to_j_differs_from_j_to_i) {
  const ch03::Asymmetry a = ch03::asymmetric_scores();
  const app::ClaimCheck claim = ch03::claim_asymmetry(a);
  BOOST_TEST(claim.id == "val_05");
  BOOST_TEST(claim.holds);
  BOOST_TEST(a.words[a.i] == "bank");
  BOOST_TEST(a.words[a.j] == "river");
  // By hand: q_bank = 0.8 x 3.75 along water = [0, 3, 0], k_river = [0, 1, 0]: s = 3 / sqrt 3 = sqrt 3.
  // q_river = 0 (river has no structure, the only row Wq reads), so s(river -> bank) = 0.
  BOOST_TEST(a.forward == std::sqrt(3.0), boost::test_tools::tolerance(1e-14));
  BOOST_TEST(a.backward == 0.0);
  // a(bank, river) = e^sqrt3 / (1 + e^sqrt3 + e^(0.5 x 3 / sqrt3)); river's row is uniform.
  const double e3 = std::exp(std::sqrt(3.0)), eb = std::exp(1.5 / std::sqrt(3.0));
  BOOST_TEST(a.weight_forward == e3 / (1.0 + e3 + eb), boost::test_tools::tolerance(1e-14));
  BOOST_TEST(a.weight_backward == 1.0 / 3.0, boost::test_tools::tolerance(1e-14));
  // M = Wq Wk^T: only M(structure, water) = 3.75 is non-zero.
  BOOST_TEST(a.M(2, 1) == 3.75);
  BOOST_TEST(arma::accu(arma::abs(a.M)) == 3.75);
  // With Wq = Wk (a symmetric M) the reverse score is the same and the claim fails.
  ch03::Asymmetry symmetric = a;
  symmetric.M = arma::eye(4, 4);
  symmetric.backward = symmetric.forward;
  BOOST_TEST(!ch03::claim_asymmetry(symmetric).holds);
}

BOOST_AUTO_TEST_CASE(the_claim_functions_fail_on_numbers_that_contradict_them) {
  ch03::Counts c = ch03::count_objects(3, 2, 1);
  c.qkv_vectors_per_block = 12;  // 2nh instead of 3nh
  BOOST_TEST(!ch03::claim_counts_per_block(c, 3, 2, std::nullopt).holds);
  c = ch03::count_objects(3, 2, 1);
  std::optional<ch03::BuiltSublayer> built = ch03::build_sublayer(3, 2);
  built->qkv_rows = 17;  // a built sublayer that disagrees with the counts
  BOOST_TEST(!ch03::claim_counts_per_block(c, 3, 2, built).holds);
  c.output_projections_in_stack = 2;
  BOOST_TEST(!ch03::claim_stack_counts(c, 2, 1).holds);
  ch03::ExampleSublayer e = ch03::example_sublayer({"the", "river", "bank"});
  e.pass.Y(0, 0) += 1.0;  // Y is no longer X + Delta
  BOOST_TEST(!ch03::claim_sublayer_shapes(e).holds);
  std::vector<ch03::Combination> combos = ch03::three_roles();
  for (ch03::Combination& k : combos) {
    if (k.query == Choice::swap && k.values == Choice::swap) k.pass = ch03::tower_head(Choice::raw, Choice::raw);
  }
  BOOST_TEST(!ch03::claim_values_keep_weights(combos).holds);  // the raw query's weights
  for (ch03::Combination& k : combos) {
    if (k.query == Choice::swap && k.values == Choice::swap) k.pass = ch03::tower_head(Choice::swap, Choice::raw);
  }
  BOOST_TEST(!ch03::claim_values_swap_content(combos).holds);  // the same content as with raw values
  ch03::AnotherKey k = ch03::add_another_key({0.0, 1.0});
  k.weight_after = k.weight_before;
  BOOST_TEST(!ch03::claim_another_key(k).holds);
  for (ch03::Combination& m : combos) {
    if (m.query == Choice::swap && m.values == Choice::raw) m.pass.H(2, 1) = -1.0;  // a residual that shrinks
  }
  BOOST_TEST(ch03::claim_residual(combos).holds);  // the sum is still exact ...
  for (ch03::Combination& m : combos) {
    if (m.query == Choice::swap && m.values == Choice::raw) m.pass.H(2, 0) = -2.0;
  }
  BOOST_TEST(!ch03::claim_residual(combos).holds);  // ... but tower's structure no longer grows
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(multihead)

BOOST_AUTO_TEST_CASE(one_head_with_identity_output_is_the_head_plus_x) {
  attn::Random rng(21);
  const arma::mat X = rng.normal_matrix(4, 6);
  const arma::mat Wq = rng.normal_matrix(6, 3), Wk = rng.normal_matrix(6, 3), Wv = rng.normal_matrix(6, 6);
  const attn::MultiHeadPass p = attn::multi_head_self_attention(X, {.heads = {{Wq, Wk, Wv}}, .Wo = arma::eye(6, 6)});
  const attn::HeadPass single = attn::attention(X, Wq, Wk, Wv);
  BOOST_TEST(arma::abs(p.Y - (X + single.H)).max() < 1e-14);
  BOOST_TEST(arma::abs(p.delta - single.H).max() < 1e-14);
}

BOOST_AUTO_TEST_CASE(output_projection_blocks_act_per_head) {
  // Delta = Concat Wo = sum over heads of H(k) Wo(k), Wo(k) the k-th block of d_v rows.
  attn::Random rng(22);
  const arma::mat X = rng.normal_matrix(3, 5);
  const attn::MultiHeadWeights w = attn::random_multi_head(5, 3, 4, 2, rng);
  const attn::MultiHeadPass p = attn::multi_head_self_attention(X, w);
  arma::mat delta(3, 5, arma::fill::zeros);
  for (arma::uword k = 0; k < 3; ++k) {
    const attn::HeadPass head = attn::attention(X, w.heads[k].Wq, w.heads[k].Wk, w.heads[k].Wv);
    delta += head.H * w.Wo.rows(2 * k, 2 * k + 1);
  }
  BOOST_TEST(arma::abs(p.delta - delta).max() < 1e-13);
  BOOST_TEST(arma::abs(p.Y - X - delta).max() < 1e-13);
}

BOOST_AUTO_TEST_CASE(causal_option_reaches_every_head) {
  attn::Random rng(24);
  const arma::mat X = rng.normal_matrix(4, 3);
  const attn::MultiHeadPass p =
      attn::multi_head_self_attention(X, attn::random_multi_head(3, 2, 2, 2, rng), {.causal = true});
  for (const auto& h : p.heads) BOOST_TEST(h.A(0, 3) == 0.0);
}

BOOST_AUTO_TEST_CASE(mismatches_throw) {
  const arma::mat X(3, 4, arma::fill::ones);
  const arma::mat W43(4, 3, arma::fill::ones), W42(4, 2, arma::fill::ones);
  BOOST_CHECK_THROW(attn::multi_head_self_attention(X, {.heads = {}, .Wo = arma::eye(4, 4)}), std::invalid_argument);
  // Wo must be (h d_v) x d = 6 x 4.
  BOOST_CHECK_THROW(
      attn::multi_head_self_attention(X, {.heads = {{W43, W43, W43}, {W43, W43, W43}}, .Wo = arma::mat(3, 4)}),
      std::invalid_argument);
  BOOST_CHECK_THROW(
      attn::multi_head_self_attention(X, {.heads = {{W43, W43, W43}, {W43, W43, W43}}, .Wo = arma::mat(6, 3)}),
      std::invalid_argument);
  // Head 2's Wq and Wk disagree on d_k; its Wq has the wrong number of rows.
  BOOST_CHECK_THROW(
      attn::multi_head_self_attention(X, {.heads = {{W43, W43, W43}, {W43, W42, W43}}, .Wo = arma::mat(6, 4)}),
      std::invalid_argument);
  BOOST_CHECK_THROW(attn::multi_head_self_attention(X, {.heads = {{arma::mat(3, 3), W43, W43}}, .Wo = arma::mat(3, 4)}),
                    std::invalid_argument);
  arma::mat bad(3, 4, arma::fill::zeros);
  bad(1, 1) = arma::datum::nan;
  BOOST_CHECK_THROW(attn::multi_head_self_attention(X, {.heads = {{W43, W43, W43}}, .Wo = bad}), std::invalid_argument);
  try {
    attn::multi_head_self_attention(X, {.heads = {{W43, W43, W43}, {W43, W42, W43}}, .Wo = arma::mat(6, 4)});
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("head 2") != std::string::npos, e.what());
    BOOST_TEST(std::string(e.what()).find("4 x 2") != std::string::npos, e.what());
  }
  attn::Random rng(1);
  BOOST_CHECK_THROW(attn::random_multi_head(4, 0, 2, 2, rng), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(river_bank_sublayer_heads_ask_different_questions) {
  const arma::mat X = attn::toy_embeddings().lookup(attn::split_sentence("the river bank"));
  const attn::MultiHeadPass p = attn::multi_head_self_attention(X, ch03::river_bank_sublayer());
  attn::test::check_printed(p.heads[0].A.row(2), {0.111, 0.626, 0.263}, 0.0005);  // chapter 02's water preset (qk_07)
  BOOST_TEST(p.heads[1].A(2, 2) > p.heads[1].A(2, 1));                            // the finance question prefers bank
  BOOST_TEST(p.Y.n_cols == 4u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

const std::string exe = CHAPTER_EXE;

BOOST_AUTO_TEST_CASE(runs_prints_the_article_numbers_and_draws_its_plots) {
  const std::filesystem::path dir = TEST_PLOTS;
  const attn::test::Run r = attn::test::run_with_plots(exe, dir);
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.err == "");
  attn::test::check_contains(
      r.out,
      {"6 learned Q/K/V projection matrices", "6 computed Q/K/V matrices", "18 computed vectors", "[heads_01]",
       "3Nh = 6 Q/K/V projection matrices and N = 1 output", "[heads_02]", "Concat(H(1), H(2)) 3 x 6", "Wo 6 x 4",
       "Y = X + Delta 3 x 4   [heads_03]", "[0.2483, 0.5035, 0.2483]", "[0.5035, 0.2483]  [val_01] [val_02]",
       "exactly as they were", "0.5035 to 0.3349   [val_03]", "= [1.2483, 0.5035]   [val_04]"});
  BOOST_TEST(!attn::test::has_nan_word(r.out));
  attn::test::check_plots(dir, {"ch03_query_value_combos", "ch03_head1_weights", "ch03_head2_weights"});
  attn::test::check_contains(r.out, {"0. The embedding table and the projection matrices are separate", "[heads_04]",
                                     "= 1.732, but", "/ sqrt(3) = 0.000   [val_05]"});
  BOOST_TEST(r.out.find("does not hold") == std::string::npos);
  // The two diagrams: source and PNG together, or (without Graphviz) neither, and a line saying so.
  for (const char* name : {"ch03_counting", "ch03_full_head", "ch03_communication"}) {
    const bool drawn = app::is_valid_png(dir / (std::string(name) + ".png"));
    BOOST_TEST(drawn == std::filesystem::exists(dir / (std::string(name) + ".dot")), name);
    BOOST_TEST((drawn || r.out.find("diagrams: 3 skipped") != std::string::npos), name);
  }
}

BOOST_AUTO_TEST_CASE(diagrams_follow_the_example_shapes) {
  const ch03::ExampleSublayer e = ch03::example_sublayer({"the", "river", "bank"});
  const std::string counting = ch03::counting_diagram(e, ch03::count_objects(3, 2, 1));
  for (const char* part :
       {"E: token embedding table,\\n4 x 4", "X 3 x 4", "Wq(1)\\n4 x 3", "Wv(2)\\n4 x 3", "<TD>q_the(1)</TD>",
        "<TD>q_river(1)</TD>", "<TD BGCOLOR=\"#ffd92f\"><B>q_bank(1)</B>", "<TD BGCOLOR=\"#ffd92f\"><B>v_bank(2)</B>",
        "A(2) 3 x 3", "yellow: bank's 2 q,\\n2 k and 2 v", "Y -> FFN", "FFN -> next", "next block: its own",
        "Concat(H(1) .. H(2))\\n3 x 6", "Wo 6 x 4", "Delta = Concat Wo 3 x 4", "6 learned Q/K/V\\nprojection matrices",
        "18 computed vectors"}) {
    BOOST_TEST(counting.find(part) != std::string::npos, part);
  }
  const std::string head = ch03::full_head_diagram(e);
  for (const char* part : {"S = Q K^T / sqrt(d_k)\\n3 x 3", "Wo, head 1's rows\\n3 x 4", "H = A V\\n3 x 3",
                           "pre-norm block: U = norm(X)", "X -> U", "U -> Wq", "U -> Wv"}) {
    BOOST_TEST(head.find(part) != std::string::npos, part);
  }
  BOOST_TEST(head.find("X -> Wq") == std::string::npos);  // the projections read U, not X
  // Only the receiving token's rows are highlighted: one q, k and v per head.
  std::size_t highlighted = 0;
  for (std::size_t at = counting.find("BGCOLOR"); at != std::string::npos; at = counting.find("BGCOLOR", at + 1))
    ++highlighted;
  BOOST_TEST(highlighted == 6u);
}

// The communication figure: tower's swap-query weights on the edges of panel 1, each value and the
// mixture in panel 2 (the article's numbers: weights [0.2483, 0.5035, 0.2483], raw values the rows of
// X2, h = [0.2483, 0.5035]), and one MLP per position in panel 3, with no edge between positions.
BOOST_AUTO_TEST_CASE(communication_figure_carries_the_computed_weights_and_messages) {
  const std::vector<ch03::Combination> combos = ch03::three_roles();
  const std::string dot = ch03::communication_diagram(ch03::combination(combos, ch03::Choice::swap, ch03::Choice::raw),
                                                      {"the", "Eiffel", "tower"});
  for (const char* part : {"the\\nk_the\\na = 0.25", "Eiffel\\nk_Eiffel\\na = 0.50", "tower\\nk_tower\\na = 0.25",
                           "Eiffel\\nv = [0.00, 1.00]\\nsends 0.50 v", "tower\\nv = [1.00, 0.00]\\nsends 0.25 v",
                           "h = A V = [0.25, 0.50]", "s1_0 -> r1", "s2_2 -> r2", "s3_0 -> m3_0", "s3_2 -> m3_2"}) {
    BOOST_TEST(dot.find(part) != std::string::npos, part);
  }
  for (const char* cross : {"s3_0 -> m3_1", "s3_1 -> m3_0", "-> r3"}) BOOST_TEST(dot.find(cross) == std::string::npos);
  if (attn::test::run("command -v dot >/dev/null").code != 0) return;
  for (const bool narrow : {false, true}) {
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("attn-ch03-comm-" + std::to_string(::getpid()) + ".dot");
    std::ofstream(file) << ch03::communication_diagram(ch03::combination(combos, ch03::Choice::swap, ch03::Choice::raw),
                                                       {"the", "Eiffel", "tower"}, narrow);
    const attn::test::Run laid = attn::test::run("dot -Tplain " + attn::test::quote(file.string()));
    std::filesystem::remove(file);
    BOOST_TEST_REQUIRE(laid.code == 0, laid.err);
    if (narrow) {  // a phone's 380 px column at 12 px text: 443 pt of 14 pt text
      std::istringstream words(laid.out);
      std::string kind;
      double scale = 0, width = 0;
      words >> kind >> scale >> width;
      BOOST_TEST(width * 72 <= 443.0, "the phone's communication figure is " << width * 72 << " pt wide");
    }
  }
}

BOOST_AUTO_TEST_CASE(flags_change_the_counts_and_the_combination) {
  attn::test::Run r = attn::test::run(exe + " --no-plots --tokens 5 --heads 12 --blocks 24");
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("36 learned Q/K/V projection matrices") != std::string::npos);
  BOOST_TEST(r.out.find("180 computed vectors") != std::string::npos);
  BOOST_TEST(r.out.find("3Nh = 864 Q/K/V projection matrices and N = 24 output") != std::string::npos);
  BOOST_TEST(r.out.find("5 x (12 d_v)") != std::string::npos);
  BOOST_TEST(r.out.find("[heads_01]") == std::string::npos);  // that claim is about 3 tokens and 2 heads
  r = attn::test::run(exe + " --no-plots --query raw --values swap");
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("Your combination: --query raw --values swap") != std::string::npos);
  BOOST_TEST(r.out.find("mixture h = A V:   [0.2483, 0.5035]") != std::string::npos);
  r = attn::test::run(exe + " --no-plots --values swap");  // --query defaults to raw
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("Your combination: --query raw --values swap") != std::string::npos);
  r = attn::test::run(exe + " --no-plots --sentence 'the money bank'");
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("on \"the money bank\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(help_exits_zero) {
  const attn::test::Run r = attn::test::run(exe + " --help");
  BOOST_TEST(r.code == 0);
  for (const char* flag : {"--query", "--values", "--tokens", "--heads", "--blocks", "--sentence", "--plots"}) {
    BOOST_TEST(r.out.find(flag) != std::string::npos, flag);
  }
}

// The widest accepted sizes: the counting table's vector counts move to a line of their own.
BOOST_AUTO_TEST_CASE(every_line_fits_100_columns_at_the_largest_sizes) {
  const std::string largest =
      attn::test::cat(" --tokens ", ch03::kMaxTokens, " --heads ", ch03::kMaxHeads, " --blocks ", ch03::kMaxBlocks);
  for (const std::string& sizes : {largest, std::string(" --tokens 100000 --heads 1000 --blocks 1000"),
                                   std::string(" --tokens 999999 --heads 1 --blocks 1")}) {
    const attn::test::Run r = attn::test::run(exe + " --no-plots" + sizes);
    BOOST_TEST_REQUIRE(r.code == 0, sizes << ": " << r.err);
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      BOOST_TEST(line.size() <= 100u, sizes << ": " << line.size() << " columns: " << line);
      BOOST_TEST((line.empty() || line.back() != ' '), sizes << ": trailing space: " << line);
    }
  }
  // Nothing is lost: n h = 1024000000 vectors of each kind are still counted in the table.
  const attn::test::Run r = attn::test::run(exe + " --no-plots" + largest);
  for (const char* kind : {"query", "key", "value"}) {
    BOOST_TEST(
        r.out.find(attn::test::cat(ch03::kMaxTokens * ch03::kMaxHeads, " ", kind, " vectors\n")) != std::string::npos,
        kind);
  }
}

// One token and one head: every count of one reads in the singular.
BOOST_AUTO_TEST_CASE(counts_of_one_are_singular) {
  const attn::test::Run r = attn::test::run(exe + " --no-plots --tokens 1 --heads 1 --blocks 1");
  BOOST_TEST_REQUIRE(r.code == 0, r.err);
  attn::test::check_contains(r.out, {"1 token, 1 head, 1 block(s)", "1 matrix; 1 query vector ",
                                     "(3nh: 1 query + 1 key + 1 value)", "Each token has 1 query, 1 key and 1 value"});
  for (const char* slip : {"1 tokens", "1 heads", "1 matrices", "1 query vectors", "1 queries", "1 keys", "1 values"}) {
    BOOST_TEST(r.out.find(slip) == std::string::npos, slip);
  }
}

// --help states each size's range, and the program enforces exactly that range.
BOOST_AUTO_TEST_CASE(help_states_the_ranges_it_enforces) {
  const std::string help = attn::test::run(exe + " --help").out;
  const std::array<std::pair<const char*, std::uint64_t>, 3> sizes{
      {{"tokens", ch03::kMaxTokens}, {"heads", ch03::kMaxHeads}, {"blocks", ch03::kMaxBlocks}}};
  for (const auto& [flag, most] : sizes) {
    // The flag's entry: from its line to the next option's, a wrapped description read as one line.
    const std::size_t at = help.find(attn::test::cat("\n  --", flag, " "));
    BOOST_TEST_REQUIRE(at != std::string::npos, flag);
    std::string entry = help.substr(at + 1, help.find("\n  -", at + 1) - at - 1);
    std::replace(entry.begin(), entry.end(), '\n', ' ');
    entry = attn::test::squeeze_spaces(entry);
    BOOST_TEST(entry.find(attn::test::cat("(1 to ", most, ")")) != std::string::npos, entry);
    BOOST_TEST(attn::test::run(attn::test::cat(exe, " --no-plots --", flag, " ", most)).code == 0, flag);
    for (const std::uint64_t outside : {std::uint64_t{0}, most + 1}) {
      attn::test::check_usage_error(attn::test::cat(exe, " --no-plots --", flag, " ", outside), "ch03_values");
    }
  }
}

// The counting diagram draws the heads in order, left to right, each with Wq, Wk, Wv in that order.
BOOST_AUTO_TEST_CASE(counting_diagram_draws_head_1_left_of_head_2) {
  if (attn::test::run("command -v dot >/dev/null").code != 0) {
    BOOST_TEST_MESSAGE("Graphviz's dot is not on PATH: layout not checked");
    return;
  }
  const ch03::ExampleSublayer e = ch03::example_sublayer({"the", "river", "bank"});
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("attn-ch03-counting-" + std::to_string(::getpid()) + ".dot");
  std::ofstream(file) << ch03::counting_diagram(e, ch03::count_objects(3, 2, 1));
  const attn::test::Run laid = attn::test::run("dot -Tplain " + attn::test::quote(file.string()));
  std::filesystem::remove(file);
  BOOST_TEST_REQUIRE(laid.code == 0, laid.err);
  std::map<std::string, double> x;  // "node NAME X Y ...": each node's centre
  std::istringstream lines(laid.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind, name;
    double at = 0;
    if (words >> kind >> name >> at && kind == "node") x[name] = at;
  }
  for (const std::string row : {"W", ""}) {  // the projections' row, then the Q/K/V row
    std::vector<std::string> order;
    for (const char* head : {"_1", "_2"}) {
      for (const char* m : {"q", "k", "v"}) {
        std::string name = row.empty() ? std::string(1, static_cast<char>(std::toupper(m[0]))) : row + m;
        order.push_back(name + head);
      }
    }
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      BOOST_TEST_REQUIRE((x.count(order[i]) && x.count(order[i + 1])), order[i]);
      BOOST_TEST(x[order[i]] < x[order[i + 1]], order[i] << " is not left of " << order[i + 1]);
    }
  }
}

// The phone's counting diagram: each head below the one before it, Wq, Wk, Wv still in order, and
// narrow enough for a 380 px column at the book's 12 px text (its text is 14 pt: 380 px is 443 pt).
BOOST_AUTO_TEST_CASE(counting_diagram_for_a_phone_stacks_the_heads) {
  if (attn::test::run("command -v dot >/dev/null").code != 0) {
    BOOST_TEST_MESSAGE("Graphviz's dot is not on PATH: layout not checked");
    return;
  }
  const ch03::ExampleSublayer e = ch03::example_sublayer({"the", "river", "bank"});
  const std::string narrow = ch03::counting_diagram(e, ch03::count_objects(3, 2, 1), true);
  for (const char* part : {"X_2 [label=\"X 3 x 4 (the same input)\"", "H_1 -> X_2", "X_2 -> Wq_2", "Wv(2)\\n4 x 3"})
    BOOST_TEST(narrow.find(part) != std::string::npos, part);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("attn-ch03-narrow-" + std::to_string(::getpid()) + ".dot");
  std::ofstream(file) << narrow;
  const attn::test::Run laid = attn::test::run("dot -Tplain " + attn::test::quote(file.string()));
  std::filesystem::remove(file);
  BOOST_TEST_REQUIRE(laid.code == 0, laid.err);
  std::map<std::string, std::pair<double, double>> at;  // "node NAME X Y ...", in inches, y upwards
  double width = 0;
  std::istringstream lines(laid.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind, name;
    double x = 0, y = 0;
    if (line.rfind("graph ", 0) == 0)
      words >> kind >> x >> width;
    else if (words >> kind >> name >> x >> y && kind == "node")
      at[name] = {x, y};
  }
  BOOST_TEST(width * 72 <= 443.0, "the phone's diagram is " << width * 72 << " pt wide");
  BOOST_TEST_REQUIRE((at.count("H_1") && at.count("Wq_2")));
  BOOST_TEST(at["Wq_2"].second < at["H_1"].second, "head 2 is not below head 1");
  for (const char* head : {"_1", "_2"}) {
    const std::string h = head;
    BOOST_TEST(at["Wq" + h].first < at["Wk" + h].first, h);
    BOOST_TEST(at["Wk" + h].first < at["Wv" + h].first, h);
  }
}

BOOST_AUTO_TEST_CASE(bad_input_is_one_line_and_exit_2) {
  for (const std::string args : {"--bogus", "--query", "--query sideways", "--values ''", "--tokens 0", "--tokens -3",
                                 "--tokens abc", "--tokens 2.5", "--tokens 99999999999", "--heads 0", "--heads 5000",
                                 "--blocks 0", "--blocks -1", "--blocks 1e9", "--sentence ''", "--sentence 'the lake'",
                                 "--plots /dev/null/x", "--no-plots --plots /tmp/x", "stray"}) {
    attn::test::check_usage_error(attn::test::cat(exe, " --no-plots ", args), "ch03_values");
  }
}

BOOST_AUTO_TEST_SUITE_END()
