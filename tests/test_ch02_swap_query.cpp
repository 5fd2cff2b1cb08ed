/// \file test_ch02_swap_query.cpp
/// \brief Chapter 02: claims swap_01..swap_06 and qk_01..qk_10 of docs/claims.md, the lesson's
/// helpers (null space, custom Wq parsing, matching), and the program run as a reader would.
///
/// Expected values are the article's, at its printed precision (half a unit in the last digit),
/// or derived independently in closed form.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "claims.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/random.hpp"
#include "common/attention/toy.hpp"
#include "figures.hpp"
#include "support.hpp"
#include "swap_query.hpp"

namespace {

/// softmax([0, 0, 1/sqrt(2)]) in closed form: the two zero scores share 1/(2 + e^(1/sqrt 2)) each.
double low() { return 1.0 / (2.0 + std::exp(1.0 / std::sqrt(2.0))); }
double high() { return std::exp(1.0 / std::sqrt(2.0)) / (2.0 + std::exp(1.0 / std::sqrt(2.0))); }

arma::rowvec water_row(const std::string& sentence, arma::mat ch02::MatchTable::*field, arma::uword r) {
  const ch02::MatchTable t =
      ch02::match_last(attn::split_sentence(sentence), ch02::preset_wq(ch02::Preset::water), ch02::fixed_wk());
  return (t.*field).row(r);
}

ch02::MatchTable water_table(const std::string& sentence) {
  return ch02::match_last(attn::split_sentence(sentence), ch02::preset_wq(ch02::Preset::water), ch02::fixed_wk());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(claim_swap_01_raw_similarity_weights) {
  BOOST_TEST(ch02::claim_raw_weights(ch02::teaching_section()).holds);
  const attn::HeadPass p = ch02::teaching_head(ch02::eiffel_sentence(), arma::eye(2, 2));
  // clang-format off
  attn::test::check_printed(p.A.row(2), {0.2483, 0.2483, 0.5035}, 0.00005);
  attn::test::check_printed(p.A.row(2), {low(), low(), high()}, 1e-15);
  // clang-format on
}

BOOST_AUTO_TEST_CASE(claim_swap_02_raw_similarity_mixture) {
  BOOST_TEST(ch02::claim_raw_mixture(ch02::teaching_section()).holds);
  const attn::HeadPass p = ch02::teaching_head(ch02::eiffel_sentence(), arma::eye(2, 2));
  attn::test::check_printed(p.H.row(2), {0.5035, 0.2483}, 0.00005);
}

BOOST_AUTO_TEST_CASE(claim_swap_03_eiffel_ties_with_the_zero_filler) {
  BOOST_TEST(ch02::claim_eiffel_ties_the_filler(ch02::teaching_section()).holds);
  const arma::mat X2 = ch02::eiffel_sentence();
  BOOST_TEST(arma::dot(X2.row(2), X2.row(1)) == 0.0);  // tower . Eiffel
  const attn::HeadPass p = ch02::teaching_head(X2, arma::eye(2, 2));
  BOOST_TEST(p.A(2, 0) == p.A(2, 1));  // exactly equal, not just close
}

BOOST_AUTO_TEST_CASE(claim_swap_04_swap_query_weights) {
  BOOST_TEST(ch02::claim_swap_weights(ch02::teaching_section()).holds);
  const attn::HeadPass p = ch02::teaching_head(ch02::eiffel_sentence(), ch02::swap_matrix());
  // clang-format off
  attn::test::check_printed(p.A.row(2), {0.2483, 0.5035, 0.2483}, 0.00005);
  attn::test::check_printed(p.A.row(2), {low(), high(), low()}, 1e-15);
  // clang-format on
}

BOOST_AUTO_TEST_CASE(claim_swap_05_swap_query_mixture) {
  BOOST_TEST(ch02::claim_swap_mixture(ch02::teaching_section()).holds);
  const attn::HeadPass p = ch02::teaching_head(ch02::eiffel_sentence(), ch02::swap_matrix());
  attn::test::check_printed(p.H.row(2), {0.2483, 0.5035}, 0.00005);
}

BOOST_AUTO_TEST_CASE(claim_swap_06_queries_row_by_row) {
  BOOST_TEST(ch02::claim_queries_row_by_row(ch02::teaching_section()).holds);
  const attn::HeadPass p = ch02::teaching_head(ch02::eiffel_sentence(), ch02::swap_matrix());
  const arma::mat expected{{0, 0}, {1, 0}, {0, 1}};
  BOOST_TEST(arma::approx_equal(p.Q, expected, "absdiff", 0.0));
}

BOOST_AUTO_TEST_CASE(claim_qk_01_n_is_in_the_null_space) {
  BOOST_TEST(ch02::claim_n_in_null_space(ch02::small_null_space()).holds);
  const arma::mat M = ch02::small_query_map();
  const arma::vec Mn = M * arma::vec{1, 1, -1};
  BOOST_TEST(Mn(0) == 0.0);
  BOOST_TEST(Mn(1) == 0.0);
  const ch02::NullSpace ns = ch02::null_space(M);
  BOOST_TEST(ns.rank == 2u);
  BOOST_TEST(ns.nullity == 1u);
  BOOST_REQUIRE(ns.basis.n_cols == 1u);
  // Armadillo's unit basis vector is +-n / |n|.
  BOOST_TEST(std::abs(std::abs(arma::dot(ns.basis.col(0), arma::vec{1, 1, -1})) - std::sqrt(3.0)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(claim_qk_02_adding_n_leaves_the_query_unchanged) {
  BOOST_TEST(ch02::claim_same_query(ch02::small_null_space()).holds);
  const arma::mat M = ch02::small_query_map();
  // clang-format off
  const arma::vec e{1, 2, 3}, n{1, 1, -1};
  attn::test::check_printed((e + n).t(), {2, 3, 2}, 0.0);
  attn::test::check_printed((M * e).t(), {4, 5}, 0.0);
  attn::test::check_printed((M * (e + n)).t(), {4, 5}, 0.0);
  attn::test::check_printed((M * (e - 7.5 * n)).t(), {4, 5}, 1e-12);
  // clang-format on
}

BOOST_AUTO_TEST_CASE(claim_qk_03_width_12288_rank_128_nullity_12160) {
  const auto start = std::chrono::steady_clock::now();
  const ch02::WidthExample w = ch02::width_example(12288, 128, 2017);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST_MESSAGE("width_example(12288, 128) took " << seconds << " s");
  BOOST_TEST(w.rank == 128u);
  BOOST_TEST(w.nullity == 12160u);
  BOOST_TEST(w.null_query_max < 1e-12);
  BOOST_TEST(w.query_change_max < 1e-9);
  BOOST_TEST(ch02::claim_width_nullity(w).holds);
  // Cross-check the rank-nullity count against an explicit null-space basis on a smaller map.
  attn::Random rng(7);
  const arma::mat Wq = rng.normal_matrix(300, 20);
  const ch02::NullSpace ns = ch02::null_space(Wq.t());
  BOOST_TEST(ns.basis.n_cols == 280u);
  BOOST_TEST(ns.nullity == 280u);
  BOOST_TEST(arma::abs(Wq.t() * ns.basis).max() < 1e-12);
}

BOOST_AUTO_TEST_CASE(claim_qk_04_water_query_of_bank) {
  BOOST_TEST(ch02::claim_query_of(water_table("the river bank"), ch02::preset_wq(ch02::Preset::water)).holds);
  attn::test::check_printed(water_row("the river bank", &ch02::MatchTable::Q, 2), {0.00, 3.00, 0.00}, 0.005);
}

BOOST_AUTO_TEST_CASE(claim_qk_05_fixed_keys) {
  BOOST_TEST(ch02::claim_fixed_keys(water_table("the river bank")).holds);
  // clang-format off
  attn::test::check_printed(water_row("the river bank", &ch02::MatchTable::K, 0), {0, 0, 0}, 0.0);
  attn::test::check_printed(water_row("the river bank", &ch02::MatchTable::K, 1), {0, 1, 0}, 0.0);
  attn::test::check_printed(water_row("the river bank", &ch02::MatchTable::K, 2), {0.5, 0.5, 0.8}, 0.0);
  // clang-format on
}

BOOST_AUTO_TEST_CASE(claim_qk_06_scores_over_sqrt_3) {
  BOOST_TEST(ch02::claim_scores(water_table("the river bank")).holds);
  const ch02::MatchTable t =
      ch02::match_last(attn::split_sentence("the river bank"), ch02::preset_wq(ch02::Preset::water), ch02::fixed_wk());
  // clang-format off
  attn::test::check_printed(t.scores, {0.000, 1.732, 0.866}, 0.0005);
  attn::test::check_printed(t.scores, {0.0, 3.0 / std::sqrt(3.0), 1.5 / std::sqrt(3.0)}, 1e-15);
  // clang-format on
}

BOOST_AUTO_TEST_CASE(claim_qk_07_weights_in_percent) {
  BOOST_TEST(ch02::claim_weights(water_table("the river bank")).holds);
  const ch02::MatchTable t =
      ch02::match_last(attn::split_sentence("the river bank"), ch02::preset_wq(ch02::Preset::water), ch02::fixed_wk());
  attn::test::check_printed(100.0 * t.weights, {11.1, 62.6, 26.3}, 0.05);
}

BOOST_AUTO_TEST_CASE(claim_qk_08_same_query_in_both_sentences) {
  const ch02::MatchingSection both =
      ch02::matching_section(ch02::preset_wq(ch02::Preset::water),
                             {attn::split_sentence("the river bank"), attn::split_sentence("the money bank")});
  BOOST_TEST(ch02::claim_query_same_in_both(both).holds);
  for (const ch02::Preset p : {ch02::Preset::water, ch02::Preset::finance, ch02::Preset::structure}) {
    const ch02::MatchTable river =
        ch02::match_last(attn::split_sentence("the river bank"), ch02::preset_wq(p), ch02::fixed_wk());
    const ch02::MatchTable money =
        ch02::match_last(attn::split_sentence("the money bank"), ch02::preset_wq(p), ch02::fixed_wk());
    BOOST_TEST(arma::approx_equal(river.Q.row(2), money.Q.row(2), "absdiff", 0.0));
    BOOST_TEST(!arma::approx_equal(river.K.row(1), money.K.row(1), "absdiff", 0.0));  // the keys differ
  }
}

BOOST_AUTO_TEST_CASE(claim_qk_09_one_score_is_the_sum_of_coordinate_shares) {
  const ch02::CombinedQuery c = ch02::combined_query(attn::split_sentence("the river bank"));
  const app::ClaimCheck claim = ch02::claim_combined_query(c);
  BOOST_TEST(claim.id == "qk_09");
  BOOST_TEST(claim.holds);
  // By hand: q_bank = 0.8 x [0, 3.75, 3.75] = [0, 3, 3]; keys the [0,0,0], river [0,1,0], bank [0.5,0.5,0.8].
  const double r3 = std::sqrt(3.0);
  attn::test::check_printed(c.table.Q.row(2), {0.0, 3.0, 3.0}, 1e-15);
  attn::test::check_printed(c.shares.row(1), {0.0, 3.0 / r3, 0.0}, 1e-15);       // river: water only
  attn::test::check_printed(c.shares.row(2), {0.0, 1.5 / r3, 2.4 / r3}, 1e-15);  // bank: both
  attn::test::check_printed(c.table.scores, {0.0, 3.0 / r3, 3.9 / r3}, 1e-14);   // the sums
  attn::test::check_printed(c.water, {0.0, 3.0 / r3, 1.5 / r3}, 1e-14);          // water preset alone
  attn::test::check_printed(c.structure, {0.0, 0.0, 2.4 / r3}, 1e-14);           // structure preset alone
  BOOST_TEST(c.largest_gap <= 1e-12);
  BOOST_TEST(c.largest_split_gap <= 1e-12);
  // The article's printed form: river 1.732 from water; bank 0.866 + 1.386 = 2.252.
  attn::test::check_printed(c.table.scores, {0.000, 1.732, 2.252}, 0.0005);
  // A share that does not add up makes the claim fail.
  ch02::CombinedQuery broken = c;
  broken.largest_gap = 1e-6;
  BOOST_TEST(!ch02::claim_combined_query(broken).holds);
}

BOOST_AUTO_TEST_CASE(claim_qk_10_five_directions_in_two_dimensions_interfere) {
  const ch02::Superposition s = ch02::superposition();
  const app::ClaimCheck claim = ch02::claim_superposition(s);
  BOOST_TEST(claim.id == "qk_10");
  BOOST_TEST(claim.holds);
  BOOST_TEST(s.W.n_rows == 5u);
  BOOST_TEST(s.W.n_cols == 2u);
  BOOST_TEST(s.rank == 2u);
  // Closed forms: cos 72 = (sqrt 5 - 1) / 4, cos 144 = -(sqrt 5 + 1) / 4.
  const double c72 = (std::sqrt(5.0) - 1.0) / 4.0, c144 = -(std::sqrt(5.0) + 1.0) / 4.0;
  attn::test::check_printed(s.one_active, {1.0, c72, c144, c144, c72}, 1e-12);
  attn::test::check_printed(s.two_active, {1.0 + c144, 2.0 * c72, 1.0 + c144, c144 + c72, c72 + c144}, 1e-12);
  BOOST_TEST(s.max_interference == -c144, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(s.bias == -c72, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(s.one_active_relu(0) == 1.0 - c72, boost::test_tools::tolerance(1e-12));
  BOOST_CHECK_SMALL(arma::abs(s.one_active_relu.tail(4)).max(), 1e-12);  // a lone feature reads clean
  BOOST_TEST(s.two_active_relu(1) > 0.3);                                // two at once: f2 appears
  // As many directions as dimensions: no superposition, so the claim does not hold.
  ch02::Superposition square = s;
  square.W = arma::eye(2, 2);
  square.rank = 2;
  square.max_interference = 0.0;
  BOOST_TEST(!ch02::claim_superposition(square).holds);
  BOOST_CHECK_THROW(ch02::superposition(2), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(the_claim_functions_fail_on_numbers_that_contradict_them) {
  ch02::TeachingSection t = ch02::teaching_section();
  std::swap(t.raw, t.swapped);  // each query's numbers where the other's claims expect them
  BOOST_TEST(!ch02::claim_raw_weights(t).holds);
  BOOST_TEST(!ch02::claim_eiffel_ties_the_filler(t).holds);
  BOOST_TEST(!ch02::claim_swap_weights(t).holds);
  BOOST_TEST(!ch02::claim_swap_mixture(t).holds);
  BOOST_TEST(!ch02::claim_queries_row_by_row(t).holds);
  ch02::SmallNullSpace s = ch02::small_null_space();
  s.n = {1.0, 1.0, 1.0};  // not in the null space
  BOOST_TEST(!ch02::claim_n_in_null_space(s).holds);
  BOOST_TEST(!ch02::claim_same_query(s).holds);
  ch02::WidthExample w = ch02::width_example(64, 8, 1);
  w.nullity += 1;  // rank + nullity no longer d
  BOOST_TEST(!ch02::claim_width_nullity(w).holds);
  ch02::MatchTable m = water_table("the river bank");
  m.Q(2, 0) = 1.0;  // a query that is not x Wq
  BOOST_TEST(!ch02::claim_query_of(m, ch02::preset_wq(ch02::Preset::water)).holds);
  BOOST_TEST(!ch02::claim_scores(m).holds);
  m = water_table("the river bank");
  m.K(1, 1) = 2.0;
  BOOST_TEST(!ch02::claim_fixed_keys(m).holds);
  m.weights = {0.5, 0.25, 0.25};  // largest where the score is not
  BOOST_TEST(!ch02::claim_weights(m).holds);
  ch02::MatchingSection one =
      ch02::matching_section(ch02::preset_wq(ch02::Preset::water), {attn::split_sentence("the river bank")});
  BOOST_TEST(!ch02::claim_query_same_in_both(one).holds);  // one sentence: nothing to compare
  one.tables.push_back(ch02::match_last(attn::split_sentence("the money bank"), ch02::preset_wq(ch02::Preset::finance),
                                        ch02::fixed_wk()));
  BOOST_TEST(!ch02::claim_query_same_in_both(one).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lesson)

BOOST_AUTO_TEST_CASE(query_terms_follow_the_article_derivation) {
  const arma::rowvec x_bank{0.5, 0.5, 0.8, 0.2};
  const std::vector<ch02::QueryTerm> water = ch02::query_terms(x_bank, ch02::preset_wq(ch02::Preset::water));
  BOOST_TEST_REQUIRE(water.size() == 1u);  // q_bank = 0.8 x [0.00, 3.75, 0.00]
  BOOST_TEST(water[0].input == 2u);
  BOOST_TEST(water[0].x == 0.8);
  attn::test::check_printed(water[0].row, {0.0, 3.75, 0.0}, 0.0);
  const arma::mat full = ch02::parse_matrix("1 0 0; 0 1 0; 0 0 1; 1 1 1", 4, 3);
  BOOST_TEST(ch02::query_terms(x_bank, full).size() == 4u);
  BOOST_TEST(ch02::query_terms(arma::rowvec{0.0, 0.0, 0.0, 1.0}, ch02::preset_wq(ch02::Preset::water)).empty());
  BOOST_CHECK_THROW(ch02::query_terms(arma::rowvec{1.0, 2.0}, full), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(vector_figures_refuse_bad_shapes) {
  app::VectorFigure f{.name = "x", .axes = {"a", "b", "c"}, .points = {{.points = arma::mat(2, 2)}}};
  BOOST_CHECK_THROW(app::vector_figure_data(f), std::invalid_argument);  // 2 columns in a 3-d figure
  f.points = {{.points = arma::mat(2, 3, arma::fill::zeros), .labels = {"one"}}};
  BOOST_CHECK_THROW(app::vector_figure_data(f), std::invalid_argument);  // 2 points, 1 label
  f.points = {{.points = arma::mat(2, 3, arma::fill::zeros), .labels = {"one", "two"}}};
  BOOST_TEST(app::vector_figure_data(f).size() == 1u);
  f.views = {};
  BOOST_CHECK_THROW(app::vector_figure_data(f), std::invalid_argument);  // a 3-d figure needs a view
  f.axes = {"a"};
  BOOST_CHECK_THROW(app::vector_figure_data(f), std::invalid_argument);
}

// The superposition figure's labels sit beyond their arrowheads, clear of every arrow and of the input.
BOOST_AUTO_TEST_CASE(superposition_labels_stay_clear_of_the_arrows) {
  const app::VectorFigure f = ch02::superposition_figure(ch02::superposition());
  BOOST_TEST_REQUIRE(f.arrows.size() == 1u);
  const app::ArrowSet& a = f.arrows.front();
  BOOST_TEST_REQUIRE(a.label_gap > 0.0);
  // Distance from p to the segment from the origin to w (every arrow starts at the origin).
  const auto to_segment = [](const arma::rowvec& p, const arma::rowvec& w) {
    const double t = std::clamp(arma::dot(p, w) / arma::dot(w, w), 0.0, 1.0);
    return arma::norm(p - t * w);
  };
  for (arma::uword i = 0; i < a.to.n_rows; ++i) {
    const arma::rowvec w = a.to.row(i);
    const arma::rowvec label = w * (1.0 + a.label_gap / arma::norm(w));  // as vector_figure_commands places it
    for (arma::uword j = 0; j < a.to.n_rows; ++j) {
      BOOST_TEST(to_segment(label, a.to.row(j)) >= 0.1, "f" << i + 1 << "'s label is near arrow f" << j + 1);
    }
    BOOST_TEST(arma::norm(label - f.points.front().points.row(0)) >= 0.3, "f" << i + 1 << " near x");
  }
  // The input's label goes to the right of its dot, off f2's line through it.
  BOOST_TEST(f.points.front().label_offset.first >= 7.0);
  BOOST_TEST(f.points.front().label_offset.second == 0.0);
}

// Seen along an axis (the side and top panels), keys that land on the same spot keep their labels
// apart: k_money behind k_the looking along finance.
BOOST_AUTO_TEST_CASE(matching_views_keep_coinciding_labels_apart) {
  const ch02::MatchTable t =
      ch02::match_last(attn::split_sentence("the river bank"), ch02::preset_wq(ch02::Preset::water), ch02::fixed_wk());
  const app::VectorFigure f = ch02::matching_views_figure("water", t, {});
  std::size_t coinciding = 0;
  for (const app::View3d& v : f.views) {
    // The depth axis of an axis-aligned view: z from above, x (finance) from azimuth 90, y from azimuth 0.
    const int depth = v.elevation == 90 ? 2 : v.elevation == 0 && v.azimuth == 90 ? 0 : v.elevation == 0 ? 1 : -1;
    if (depth < 0) continue;
    for (std::size_t s1 = 0; s1 < f.points.size(); ++s1) {
      for (std::size_t s2 = s1; s2 < f.points.size(); ++s2) {
        const app::PointSet &a = f.points[s1], &b = f.points[s2];
        for (arma::uword i = 0; i < a.points.n_rows; ++i) {
          for (arma::uword j = s1 == s2 ? i + 1 : 0; j < b.points.n_rows; ++j) {
            arma::rowvec d = a.points.row(i) - b.points.row(j);
            d(depth) = 0;
            if (arma::norm(d) > 1e-9) continue;
            ++coinciding;
            BOOST_TEST(std::abs(a.label_offset.second - b.label_offset.second) >= 1.0,
                       a.labels[i] << " and " << b.labels[j] << " print on one spot");
          }
        }
      }
    }
  }
  BOOST_TEST(coinciding >= 1u);  // k_the and k_money in the side panel
  // The query arrow starts at a key (k_the is the origin): a label centred beside its dot clears the
  // arrow's shaft when it starts at least half its width to the right.
  std::size_t at_tail = 0;
  for (arma::uword i = 0; i < f.points.front().points.n_rows; ++i) {
    if (arma::norm(f.points.front().points.row(i) - f.arrows.front().from.row(0)) > 1e-12) continue;
    ++at_tail;
    const double half_width = 0.5 * static_cast<double>(f.points.front().labels[i].size());
    BOOST_TEST(f.points.front().label_offset.first - half_width >= 0.5, f.points.front().labels[i]);
  }
  BOOST_TEST(at_tail == 1u);  // k_the
  // From straight above, the vertical axis is a point: no floating "structure" label in that panel.
  const std::string commands = app::vector_figure_commands(f, {"\"a\"", "\"b\"", "\"c\""});
  BOOST_TEST(commands.find("set zlabel \"\" rotate parallel") != std::string::npos);
  BOOST_TEST(commands.find("set zlabel \"structure\" rotate parallel") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_query_map_diagram_carries_the_width_example_sizes) {
  const ch02::WidthExample w{.d = 12288, .d_k = 128, .rank = 128, .nullity = 12160};
  const std::string dot = ch02::query_map_diagram(w);
  for (const char* part :
       {"12,288 x 128", "1 x 12,288", "1 x 128", "ignores", "12,160 input directions", "sqrt(128)"}) {
    BOOST_TEST(dot.find(part) != std::string::npos, part);
  }
  BOOST_TEST(app::graphviz_quote("a \"b\"\n\\") == "\"a \\\"b\\\"\\n\\\\\"");
}

BOOST_AUTO_TEST_CASE(null_space_of_a_rank_deficient_non_square_map) {
  const arma::mat M{{1, 2, 0, -1, 3}, {2, 4, 0, -2, 6}};  // 2 x 5, rank 1
  const ch02::NullSpace ns = ch02::null_space(M);
  BOOST_TEST(ns.rank == 1u);
  BOOST_TEST(ns.nullity == 4u);
  BOOST_TEST(ns.basis.n_rows == 5u);
  BOOST_TEST(ns.basis.n_cols == 4u);
  BOOST_TEST(arma::abs(M * ns.basis).max() < 1e-12);
  BOOST_TEST(arma::abs(ns.basis.t() * ns.basis - arma::eye(4, 4)).max() < 1e-12);
  BOOST_CHECK_THROW(ch02::null_space(arma::mat()), std::invalid_argument);
  BOOST_CHECK_THROW(ch02::null_space(arma::mat{{1, arma::datum::nan}}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(width_example_counts_for_other_widths) {
  const ch02::WidthExample w = ch02::width_example(500, 37, 1);
  BOOST_TEST(w.rank == 37u);
  BOOST_TEST(w.nullity == 463u);
  const ch02::WidthExample wide = ch02::width_example(10, 16, 1);  // d_k > d: rank at most d
  BOOST_TEST(wide.rank == 10u);
  BOOST_TEST(wide.nullity == 0u);
  BOOST_TEST(wide.null_samples == 0u);  // nothing to sample in a null space of dimension 0
  BOOST_TEST(w.null_samples == 4u);
  BOOST_CHECK_THROW(ch02::width_example(0, 4, 1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(presets_ask_along_their_axis) {
  const arma::rowvec bank = attn::toy_embeddings().vector("bank");
  // clang-format off
  attn::test::check_printed(bank * ch02::preset_wq(ch02::Preset::finance), {3, 0, 0}, 1e-15);
  attn::test::check_printed(bank * ch02::preset_wq(ch02::Preset::structure), {0, 0, 3}, 1e-15);
  // clang-format on
  BOOST_TEST(ch02::preset_name(ch02::parse_preset("structure")) == "structure");
  BOOST_CHECK_THROW(ch02::parse_preset("ocean"), std::invalid_argument);
  BOOST_CHECK_THROW(ch02::parse_preset(""), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(parse_matrix_good_input) {
  const arma::mat W = ch02::parse_matrix("0 0 0; 0, 0, 0;0 3.75 0 ;  -1e-1 2 +4", 4, 3);
  BOOST_TEST(W(2, 1) == 3.75);
  BOOST_TEST(W(3, 0) == -0.1);
  BOOST_TEST(W(3, 2) == 4.0);
  BOOST_TEST(arma::accu(arma::abs(W)) == 3.75 + 0.1 + 2 + 4);
  const arma::mat R = ch02::parse_matrix("1 2 3 4 5", 1, 5);  // non-square shapes parse too
  BOOST_TEST(R.n_cols == 5u);
}

BOOST_AUTO_TEST_CASE(parse_matrix_bad_input) {
  for (const char* bad :
       {"", "1 2 3", "0 0 0; 0 0 0; 0 0 0", "0 0 0; 0 0 0; 0 0 0; 0 0 0; 0 0 0", "0 0 0; 0 0; 0 0 0; 0 0 0",
        "0 0 0; 0 0 0 0; 0 0 0; 0 0 0", "0 0 0; 0 x 0; 0 0 0; 0 0 0", "0 0 0; 0 1.5.2 0; 0 0 0; 0 0 0",
        "0 0 0; 0 nan 0; 0 0 0; 0 0 0", "0 0 0; 0 inf 0; 0 0 0; 0 0 0", "0 0 0; 0 1e999 0; 0 0 0; 0 0 0",
        "0 0 0; 0 1e308 0; 0 0 0; 0 0 0", "0 0 0; 0 -2e6 0; 0 0 0; 0 0 0"}) {
    BOOST_CHECK_THROW(ch02::parse_matrix(bad, 4, 3), std::invalid_argument);
  }
}

BOOST_AUTO_TEST_CASE(match_last_with_a_narrow_custom_projection) {
  // d = 4 -> d_k = 2: the scores divide by sqrt(2), the receiver is the last word.
  const arma::mat Wq{{1, 0}, {0, 1}, {0, 0}, {0, 0}}, Wk{{0, 1}, {1, 0}, {0, 0}, {0, 0}};
  const ch02::MatchTable t = ch02::match_last(attn::split_sentence("money river"), Wq, Wk);
  BOOST_TEST(t.receiver == 1u);
  // q_river = [0, 1]; k_money = [0, 1], k_river = [1, 0].
  attn::test::check_printed(t.scores, {1.0 / std::sqrt(2.0), 0.0}, 1e-15);
  BOOST_TEST(std::abs(arma::accu(t.weights) - 1.0) < 1e-15);
  // clang-format off
  BOOST_CHECK_THROW(ch02::match_last({"the", "lake"}, Wq, Wk), std::invalid_argument);
  BOOST_CHECK_THROW(ch02::match_last({"bank"}, arma::mat(3, 2, arma::fill::zeros), Wk), std::invalid_argument);
  // clang-format on
}

// The water preset's Wq has one non-zero entry (structure row, water column): by hand its rank is 1,
// every query it produces lies on the water axis, pure finance [1, 0, 0] is at distance 1 from that
// axis, it reads only the structure input axis, while the fixed Wk (an identity on the first three
// axes) has rank 3 and reads finance, water and structure but not generic; more water moves the
// key by [0, 1, 0] and the query not at all.
BOOST_AUTO_TEST_CASE(a_rank_deficient_query_map_and_different_read_directions) {
  const ch02::ReadingDirections r = ch02::reading_directions();
  BOOST_TEST(r.rank_q == 1u);
  BOOST_TEST(r.rank_k == 3u);
  BOOST_TEST_REQUIRE(r.reachable.n_cols == 1u);
  BOOST_TEST(arma::abs(arma::vec(r.reachable.col(0)) - arma::vec{0.0, 1.0, 0.0}).max() < 1e-12);
  BOOST_TEST(r.target_distance == 1.0, boost::test_tools::tolerance(1e-12));
  const arma::mat expected_share{{0, 0, 1, 0}, {1, 1, 1, 0}};
  BOOST_TEST(arma::abs(r.read_share - expected_share).max() < 1e-12);
  BOOST_TEST(arma::abs(r.key_change - arma::rowvec{0.0, 1.0, 0.0}).max() == 0.0);
  BOOST_TEST(arma::abs(r.query_change).max() == 0.0);
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
      r.out, {"[0.2483, 0.2483, 0.5035]   [swap_01]", "[0.5035, 0.2483]   [swap_02]", "exactly", "[swap_03]",
              "[0.2483, 0.5035, 0.2483]   [swap_04]", "[0.2483, 0.5035]   [swap_05]", "Eiffel  [1, 0]",
              "tower   [0, 1]", "M n = [0, 0]   [qk_01]", "M (e + n) = [4, 5]   [qk_02]",
              "12288 - 128 = 12160   [qk_03]", "q = [0.00, 3.00, 0.00]   [qk_04]", "1.732   62.6%", "0.866   26.3%",
              "0.000   11.1%", "identical in both sentences", "[qk_08]"});
  BOOST_TEST(!attn::test::has_nan_word(r.out));
  attn::test::check_plots(dir, {"ch02_tower_weights", "ch02_matching_space", "ch02_bank_presets", "ch02_matching_views",
                                "ch02_combined_shares", "ch02_superposition", "ch02_superposition_reads"});
  // The article's derivation of bank's water query, and the new section's claims.
  attn::test::check_contains(
      r.out, {"q_bank = 0.8 x [0.00, 3.75, 0.00] = [0.00, 3.00, 0.00]",
              "q_bank = 0.8 x [0.00, 3.75, 3.75] = [0.00, 3.00, 3.00]", "[qk_09]", "[qk_10]", "Toy Models of"});
  BOOST_TEST(r.out.find("does not hold") == std::string::npos);
  // The query map is a Graphviz diagram: its source and PNG appear together (or, without dot, neither).
  const bool drawn = app::is_valid_png(dir / "ch02_query_map.png");
  BOOST_TEST(drawn == std::filesystem::exists(dir / "ch02_query_map.dot"));
  BOOST_TEST((drawn || r.out.find("diagrams: 1 skipped") != std::string::npos));
}

BOOST_AUTO_TEST_CASE(view_turns_the_matching_space_and_wq_reaches_the_presets_figure) {
  const std::filesystem::path dir = std::string(TEST_PLOTS) + "_view";
  const attn::test::Run r =
      attn::test::run_with_plots(exe + " --width 64 --dk 8 --view 120,-10 --wq '0 0 0; 0 0 0; 2 2 0; 0 0 0'", dir);
  BOOST_TEST(r.code == 0, r.err);
  attn::test::check_plots(dir, {"ch02_matching_space", "ch02_matching_views", "ch02_bank_presets"});
  std::ifstream presets(dir / "ch02_bank_presets.dat");
  const std::string data((std::istreambuf_iterator<char>(presets)), std::istreambuf_iterator<char>());
  BOOST_TEST(data.find("your --wq") != std::string::npos);
  // q_bank = 0.8 x [2, 2, 0] = [1.6, 1.6, 0]
  BOOST_TEST(r.out.find("q_bank = 0.8 x [2.00, 2.00, 0.00] = [1.60, 1.60, 0.00]") != std::string::npos);
  // Several non-zero rows: one term per input coordinate bank has.
  const attn::test::Run all = attn::test::run(exe + " --no-plots --width 64 --dk 8 --wq '1 0 0; 0 1 0; 0 0 1; 1 1 1'");
  BOOST_TEST(all.code == 0, all.err);
  BOOST_TEST(all.out.find("q_bank = 0.5 x [1.00, 0.00, 0.00] + 0.5 x [0.00, 1.00, 0.00] + 0.8 x [0.00, 0.00, 1.00]") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(presets_custom_wq_and_sentence) {
  const std::string fast = exe + " --no-plots --width 256 --dk 16";
  attn::test::Run r = attn::test::run(fast + " --preset finance");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("find finance evidence") != std::string::npos);
  BOOST_TEST(r.out.find("q = [3.00, 0.00, 0.00]") != std::string::npos);
  BOOST_TEST(r.out.find("256 - 16 = 240") != std::string::npos);
  BOOST_TEST(r.out.find("reads 16 independent input directions of 256; the other 240 are invisible") !=
             std::string::npos);
  // A zero query gives equal scores, hence uniform weights.
  r = attn::test::run(fast + " --wq '0 0 0; 0 0 0; 0 0 0; 0 0 0' --sentence 'the river money bank'");
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("Wq: custom") != std::string::npos);
  BOOST_TEST(r.out.find("25.0%") != std::string::npos);
  BOOST_TEST(r.out.find("[qk_04]") == std::string::npos);  // the claims belong to the article's preset only
  // d_k above the width: the null space is {0}, so no null-space rows are sampled or reported.
  r = attn::test::run(exe + " --no-plots --width 8 --dk 16");
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("8 - 8 = 0") != std::string::npos);
  BOOST_TEST(r.out.find("sampled null-space rows") == std::string::npos);
  BOOST_TEST(r.out.find("reads 8 independent input directions of 8; none is invisible") != std::string::npos);
  r = attn::test::run(fast + " --wq '0,0,0; 0,0,0; 0,-3.75,0; 0,0,0'");  // opposing water
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("q = [0.00, -3.00, 0.00]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(help_exits_zero) {
  const attn::test::Run r = attn::test::run(exe + " --help");
  BOOST_TEST(r.code == 0);
  for (const char* flag : {"--preset", "--wq", "--sentence", "--width", "--dk", "--view", "--plots", "--no-plots"}) {
    BOOST_TEST(r.out.find(flag) != std::string::npos, flag);
  }
}

BOOST_AUTO_TEST_CASE(bad_input_is_one_line_and_exit_2) {
  for (const std::string args : {"--bogus",
                                 "--preset",
                                 "--preset ocean",
                                 "--wq '1 2 3'",
                                 "--wq '0 0 0; 0 0 0; 0 x 0; 0 0 0'",
                                 "--wq '0 0 0; 0 0 0; 0 nan 0; 0 0 0'",
                                 "--wq '0 0 0; 0 0 0; 0 inf 0; 0 0 0'",
                                 "--wq '0 0; 0 0; 0 0; 0 0'",
                                 "--wq '1e308 0 0; 0 1e308 0; 1 1 1; 1 1 1'",
                                 "--preset finance --wq '0 0 0; 0 0 0; 0 0 0; 0 0 0'",
                                 "--width 0",
                                 "--width -5",
                                 "--width abc",
                                 "--width 1e3",
                                 "--width 10000000",
                                 "--dk 0",
                                 "--dk 5000",
                                 "--width 100000 --dk 2000",
                                 "--sentence ''",
                                 "--sentence 'the lake'",
                                 "--plots /dev/null/x",
                                 "--no-plots --plots /tmp/x",
                                 "--view 35",
                                 "--view 35,28,1",
                                 "--view 400,20",
                                 "--view 35,91",
                                 "--view a,b",
                                 "--view nan,0",
                                 "--view '35,28,'",
                                 "--view ',28'",
                                 "--view '35,,28'",
                                 "--wq '1,,0; 0 1 0; 0 0 1; 1 1 1'",
                                 "--wq '1,0,0,; 0 1 0; 0 0 1; 1 1 1'",
                                 "stray"}) {
    attn::test::check_usage_error(attn::test::cat(exe, " --no-plots ", args), "ch02_swap_query");
  }
}

// The list rule (app::split_list): spaces around a comma are allowed, an empty entry is refused.
BOOST_AUTO_TEST_CASE(comma_lists_allow_spaces_and_refuse_empty_entries) {
  // The run's own wall time is left out of the comparison (it varies with the machine's load).
  const std::string fast = exe + " --no-plots --width 64 --dk 8";
  const auto without_time = [](const std::string& out) {
    std::istringstream lines(out);
    std::string kept;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("wall time", 0) != 0) kept += line + '\n';
    }
    return kept;
  };
  const attn::test::Run plain = attn::test::run(fast + " --view 35,28");
  BOOST_TEST_REQUIRE(plain.code == 0, plain.err);
  for (const char* spaced : {"'35, 28'", "' 35 ,28 '", "\"$(printf '35,\\t28')\""}) {
    const attn::test::Run r = attn::test::run(fast + " --view " + spaced);
    BOOST_TEST(r.code == 0, spaced << ": " << r.err);
    BOOST_TEST((without_time(r.out) == without_time(plain.out)), spaced);
  }
  const attn::test::Run rows = attn::test::run(fast + " --wq '0, 0, 0; 0,0,0; 0 , -3.75 , 0; 0 0 0'");
  BOOST_TEST(rows.code == 0, rows.err);
  BOOST_TEST(rows.out.find("q = [0.00, -3.00, 0.00]") != std::string::npos);
  const attn::test::Run trailing = attn::test::run(fast + " --view '35,28,'");
  BOOST_TEST(trailing.err ==
             "ch02_swap_query: error: --view '35,28,' has an empty entry (entry 3 of 3; separate entries by single "
             "commas) (see --help)\n");
  const attn::test::Run row = attn::test::run(fast + " --wq '0 0 0; 0,,0; 0 0 0; 0 0 0'");
  BOOST_TEST(row.code == 2);
  BOOST_TEST(row.err.find("--wq: matrix row 2 ' 0,,0' has an empty entry (entry 2 of 3") != std::string::npos, row.err);
}

BOOST_AUTO_TEST_SUITE_END()
