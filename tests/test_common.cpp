/// \file test_common.cpp
/// \brief The shared library's properties: softmax, one head, toy tables, printing, losses,
/// optimizers, gradient checking and plotting. Random inputs use fixed seeds.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "common/apparatus/numbers.hpp"
#include "common/apparatus/panels.hpp"
#include "common/apparatus/plot.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/gradcheck.hpp"
#include "common/attention/loss.hpp"
#include "common/attention/optim.hpp"
#include "common/attention/random.hpp"
#include "common/attention/toy.hpp"

namespace tt = boost::test_tools;
constexpr double inf = std::numeric_limits<double>::infinity();

namespace {

/// True if every row of A is non-negative and sums to 1 within 1e-12.
bool rows_are_distributions(const arma::mat& A) {
  if (A.min() < 0.0) return false;
  return arma::abs(arma::sum(A, 1) - 1.0).max() < 1e-12;
}

bool throws_invalid_with(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return std::string(e.what()).find(needle) != std::string::npos;
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(softmax)

BOOST_AUTO_TEST_CASE(hand_worked_row) {
  // exp(0) : exp(ln 3) = 1 : 3, so the weights are 1/4 and 3/4.
  const arma::mat A = attn::softmax_rows(arma::mat{{0.0, std::log(3.0)}});
  BOOST_TEST(A(0, 0) == 0.25, tt::tolerance(1e-15));
  BOOST_TEST(A(0, 1) == 0.75, tt::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(random_rows_are_distributions) {
  attn::Random rng(7);
  for (arma::uword rows : {1u, 3u, 5u}) {
    for (arma::uword cols : {1u, 2u, 7u}) {
      const arma::mat S = 4.0 * rng.normal_matrix(rows, cols);
      BOOST_TEST(rows_are_distributions(attn::softmax_rows(S)));
    }
  }
}

BOOST_AUTO_TEST_CASE(adding_a_constant_to_a_row_changes_no_weight) {
  attn::Random rng(11);
  const arma::mat S = rng.normal_matrix(4, 6);
  arma::mat shifted = S;
  shifted.row(2) += 123.5;
  shifted.row(0) -= 7.25;
  BOOST_TEST(arma::abs(attn::softmax_rows(S) - attn::softmax_rows(shifted)).max() < 1e-13);
}

BOOST_AUTO_TEST_CASE(extreme_finite_scores_stay_finite) {
  const arma::mat A = attn::softmax_rows(arma::mat{{1e4, 0.0, -1e4}, {1e300, -1e300, 0.0}, {-1e4, -1e4, -1e4}});
  BOOST_TEST(A.is_finite());
  BOOST_TEST(A(0, 0) == 1.0);
  BOOST_TEST(A(1, 0) == 1.0);
  BOOST_TEST(A(2, 1) == 1.0 / 3.0, tt::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(minus_infinity_gives_exactly_zero_weight) {
  const arma::mat A = attn::softmax_rows(arma::mat{{1.0, -inf, 1.0}});
  BOOST_TEST(A(0, 1) == 0.0);
  BOOST_TEST(A(0, 0) == 0.5, tt::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(a_row_of_all_minus_infinity_throws) {
  BOOST_TEST(throws_invalid_with([] { attn::softmax_rows(arma::mat{{0.0, 1.0}, {-inf, -inf}}); }, "row 1"));
}

BOOST_AUTO_TEST_CASE(nan_plus_infinity_and_empty_throw) {
  // clang-format off
  BOOST_CHECK_THROW(attn::softmax_rows(arma::mat{{0.0, std::nan("")}}), std::invalid_argument);
  BOOST_CHECK_THROW(attn::softmax_rows(arma::mat{{0.0, inf}}), std::invalid_argument);
  // clang-format on
  BOOST_CHECK_THROW(attn::softmax_rows(arma::mat()), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(head)

BOOST_AUTO_TEST_CASE(shapes_rows_and_mixtures_for_random_inputs) {
  attn::Random rng(3);
  struct Case {
    arma::uword n, d, d_k, d_v;
  };
  for (const Case c : {Case{1, 4, 4, 4}, Case{3, 5, 2, 4}, Case{6, 3, 7, 1}, Case{4, 8, 3, 8}}) {
    const arma::mat X = rng.normal_matrix(c.n, c.d), Wq = rng.normal_matrix(c.d, c.d_k),
                    Wk = rng.normal_matrix(c.d, c.d_k), Wv = rng.normal_matrix(c.d, c.d_v);
    const attn::HeadPass p = attn::attention(X, Wq, Wk, Wv);
    BOOST_TEST(p.A.n_rows == c.n);
    BOOST_TEST(p.A.n_cols == c.n);
    BOOST_TEST(p.H.n_rows == c.n);
    BOOST_TEST(p.H.n_cols == c.d_v);
    BOOST_TEST(rows_are_distributions(p.A));
    BOOST_TEST(arma::abs(p.H - p.A * (X * Wv)).max() < 1e-12);
    // Score (i, j) from its definition, q_i . k_j / sqrt(d_k), one entry at a time.
    for (arma::uword i = 0; i < c.n; ++i) {
      for (arma::uword j = 0; j < c.n; ++j) {
        const double s = arma::dot(X.row(i) * Wq, X.row(j) * Wk) / std::sqrt(double(c.d_k));
        BOOST_TEST(p.scores(i, j) == s, tt::tolerance(1e-12));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(cross_shapes_score_n_q_by_n_kv) {
  attn::Random rng(5);
  const arma::mat Q = rng.normal_matrix(3, 4), K = rng.normal_matrix(5, 4);
  const arma::mat A = attn::softmax_rows(attn::scaled_scores(Q, K));
  BOOST_TEST(A.n_rows == 3u);
  BOOST_TEST(A.n_cols == 5u);
  BOOST_TEST(rows_are_distributions(A));
  BOOST_TEST(throws_invalid_with([&] { attn::scaled_scores(Q, rng.normal_matrix(5, 3)); }, "5 x 3"));
}

BOOST_AUTO_TEST_CASE(causal_mask_zeroes_the_future_exactly) {
  attn::Random rng(9);
  const arma::mat X = rng.normal_matrix(4, 3), W = rng.normal_matrix(3, 3);
  const attn::HeadPass p = attn::attention(X, W, W, W, {.causal = true});
  for (arma::uword i = 0; i < 4; ++i) {
    for (arma::uword j = i + 1; j < 4; ++j) BOOST_TEST(p.A(i, j) == 0.0);
  }
  BOOST_TEST(p.A(0, 0) == 1.0);
  BOOST_TEST(rows_are_distributions(p.A));
}

BOOST_AUTO_TEST_CASE(score_multiplier_scales_scores) {
  attn::Random rng(13);
  const arma::mat X = rng.normal_matrix(3, 4), I = arma::eye(4, 4);
  const attn::HeadPass one = attn::attention(X, I, I, I), five = attn::attention(X, I, I, I, {.score_multiplier = 5.0});
  BOOST_TEST(arma::abs(five.scores - 5.0 * one.scores).max() < 1e-12);
  const attn::HeadPass zero = attn::attention(X, I, I, I, {.score_multiplier = 0.0});
  BOOST_TEST(arma::abs(zero.A - 1.0 / 3.0).max() < 1e-15);
}

BOOST_AUTO_TEST_CASE(every_shape_mismatch_throws_naming_the_shapes) {
  const arma::mat X(3, 4, arma::fill::ones), W43(4, 3, arma::fill::ones), W53(5, 3, arma::fill::ones),
      W42(4, 2, arma::fill::ones);
  // clang-format off
  BOOST_TEST(throws_invalid_with([&] { attn::attention(X, W53, W43, W43); }, "5 x 3"));
  BOOST_TEST(throws_invalid_with([&] { attn::attention(X, W43, W53, W43); }, "3 x 4"));
  BOOST_TEST(throws_invalid_with([&] { attn::attention(X, W43, W43, W53); }, "Wv is 5 x 3"));
  BOOST_TEST(throws_invalid_with([&] { attn::attention(X, W43, W42, W43); }, "Wk is 4 x 2"));
  BOOST_TEST(throws_invalid_with([&] { attn::attention(arma::mat(), W43, W43, W43); }, "empty"));
  // clang-format on
}

BOOST_AUTO_TEST_CASE(non_finite_inputs_throw_instead_of_returning_nan) {
  arma::mat X(3, 4, arma::fill::ones);
  const arma::mat W(4, 4, arma::fill::eye);
  BOOST_CHECK_THROW(attn::attention(X, W, W, W, {.score_multiplier = inf}), std::invalid_argument);
  X(1, 2) = std::nan("");
  BOOST_TEST(throws_invalid_with([&] { attn::attention(X, W, W, W); }, "non-finite"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(toy_tables)

BOOST_AUTO_TEST_CASE(lookup_stacks_rows_in_sentence_order) {
  const arma::mat X = attn::toy_embeddings().lookup({"bank", "the", "bank"});
  BOOST_TEST(X.n_rows == 3u);
  BOOST_TEST(X(0, 2) == 0.8);
  BOOST_TEST(X(1, 3) == 1.0);
  BOOST_TEST(arma::approx_equal(X.row(0), X.row(2), "absdiff", 0.0));
}

BOOST_AUTO_TEST_CASE(unknown_word_lists_the_vocabulary) {
  BOOST_TEST(throws_invalid_with([] { attn::toy_embeddings().lookup({"the", "lake"}); }, "the, river, money, bank"));
  BOOST_TEST(throws_invalid_with([] { attn::toy_embeddings().lookup({}); }, "empty"));
}

BOOST_AUTO_TEST_CASE(sentences_split_on_white_space) {
  BOOST_TEST((attn::split_sentence("  the\triver  bank ") == std::vector<std::string>{"the", "river", "bank"}));
  BOOST_CHECK_THROW(attn::split_sentence("   "), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(printing)

// Bar labels: a falling bar's value sits below its end, and -0.04 at one decimal prints as 0.0.
BOOST_AUTO_TEST_CASE(bar_labels_sit_beyond_each_bar_end_and_never_read_minus_zero) {
  const app::BarChart chart{.name = "b",
                            .categories = {"a", "b"},
                            .series = {"s"},
                            .values = arma::mat(arma::vec{1.0, -1.0}),
                            .precision = 1};
  const std::string commands = app::bar_chart_commands(chart, "'b.dat'");
  BOOST_TEST(commands.find("($2 < 0 ? $2 - ") != std::string::npos, commands);
  BOOST_TEST(commands.find("abs($2) < 0.05 ? 0.0 : $2") != std::string::npos, commands);
}

BOOST_AUTO_TEST_CASE(integers_out_of_range_name_the_range_only_when_it_is_the_callers) {
  BOOST_TEST(app::parse_integer("101", 0, 100).problem == "is out of range (0 to 100)");
  BOOST_TEST(app::parse_integer("99999999999999999999", 0, 100).problem == "is out of range");
  BOOST_TEST(app::parse_integer("42", 0, 100).value.value() == 42);
}

BOOST_AUTO_TEST_CASE(counted_is_singular_for_one_only) {
  BOOST_TEST(app::counted(1, "update") == "1 update");
  BOOST_TEST(app::counted(0, "update") == "0 updates");
  BOOST_TEST(app::counted(20, "more update") == "20 more updates");
  BOOST_TEST(app::counted(1, "matrix", "matrices") == "1 matrix");
  BOOST_TEST(app::counted(3, "matrix", "matrices") == "3 matrices");
  BOOST_TEST(app::counted(-1, "step") == "-1 steps");
}

BOOST_AUTO_TEST_CASE(vectors_print_like_the_article) {
  BOOST_TEST(app::format_vector(arma::rowvec{0.2583, 0.3109, 0.4307}, 2) == "[0.26, 0.31, 0.43]");
  BOOST_TEST(app::format_number(-0.001, 2) == "0.00");
  BOOST_TEST(app::format_number(-inf, 2) == "-inf");
}

BOOST_AUTO_TEST_CASE(a_tic_label_doubles_percent_signs) {
  // gnuplot reads explicit tic labels as format strings: a lone % would be a "Bad format character".
  BOOST_TEST(app::gnuplot_tic_label("100%") == "\"100%%\"");
  BOOST_TEST(app::gnuplot_tic_label("a`b") == app::gnuplot_quote("a`b"));  // everything else as gnuplot_quote
}

BOOST_AUTO_TEST_CASE(a_claim_prints_its_evidence_then_its_tag) {
  std::ostringstream out;
  app::print_claim(out, {.id = "mix_01", .holds = true, .evidence = "  weights sum to 1"});
  app::print_claim(out, {.id = "mix_02", .holds = false, .evidence = "  bank keeps 0.47"});
  BOOST_TEST(out.str() == "  weights sum to 1   [mix_01]\n  bank keeps 0.47 (does not hold here)   [mix_02]\n");
  BOOST_CHECK_THROW(app::print_claim(out, {.id = "", .holds = true, .evidence = "x"}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lists)

BOOST_AUTO_TEST_CASE(the_list_rule_trims_blanks_and_refuses_empty_entries) {
  using Items = std::vector<std::string>;
  BOOST_TEST((app::split_list("35,28").value == Items{"35", "28"}));
  BOOST_TEST((app::split_list(" 35 ,\t28 ").value == Items{"35", "28"}));  // blanks around commas
  BOOST_TEST((app::split_list("4 2 0").value == Items{"4 2 0"}));          // inner spaces stay
  BOOST_TEST((app::split_list("7").value == Items{"7"}));
  for (const char* bad : {"1,2,", ",1", "1,,2", "1, ,2", " , "}) {
    const app::Parsed<Items> p = app::split_list(bad);
    BOOST_TEST(!p.value, bad);
    BOOST_TEST(p.problem.find("has an empty entry (entry ") == 0u, bad << ": " << p.problem);
  }
  BOOST_TEST(app::split_list("1,2,").problem == "has an empty entry (entry 3 of 3; separate entries by single commas)");
  BOOST_TEST(app::split_list(",1").problem.find("(entry 1 of 2;") != std::string::npos);
  for (const char* blank : {"", "  ", "\t"}) BOOST_TEST(app::split_list(blank).problem == "is empty", blank);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(training_tools)

BOOST_AUTO_TEST_CASE(cross_entropy_by_hand) {
  // Two equal logits: loss ln 2, gradient softmax - onehot = [-1/2, 1/2].
  const attn::CrossEntropy ce = attn::cross_entropy(arma::mat{{0.0, 0.0}}, arma::uvec{0});
  BOOST_TEST(ce.loss == std::log(2.0), tt::tolerance(1e-15));
  BOOST_TEST(ce.dlogits(0, 0) == -0.5, tt::tolerance(1e-15));
  BOOST_TEST(ce.dlogits(0, 1) == 0.5, tt::tolerance(1e-15));
  // Far-apart logits stay finite: -log softmax([1000, -1000])[1] = 2000.
  // clang-format off
  BOOST_TEST(attn::cross_entropy(arma::mat{{1000.0, -1000.0}}, arma::uvec{1}).loss == 2000.0, tt::tolerance(1e-12));
  BOOST_CHECK_THROW(attn::cross_entropy(arma::mat{{0.0, 0.0}}, arma::uvec{2}), std::invalid_argument);
  // The loss of the label at -1e308 when the largest logit is 1e308 is 2e308: beyond a double.
  BOOST_TEST(attn::cross_entropy(arma::mat{{1e308, -1e308}}, arma::uvec{0}).loss == 0.0);
  BOOST_CHECK_THROW(attn::cross_entropy(arma::mat{{1e308, -1e308}}, arma::uvec{1}), std::invalid_argument);
  // clang-format on
}

BOOST_AUTO_TEST_CASE(adam_first_two_steps_match_the_paper) {
  // Kingma & Ba 2015, Algorithm 1, worked by hand for lr 0.1 on two parameter groups.
  // clang-format off
  arma::mat a{{1.0, -1.0}}, b(1, 1, arma::fill::value(2.0));
  arma::mat ga{{0.5, -2.0}}, gb(1, 1, arma::fill::value(3.0));
  // clang-format on
  attn::Adam adam(0.1);
  adam.step({{"a", &a, &ga}, {"b", &b, &gb}});
  // t = 1: m_hat = g, v_hat = g^2, so every entry moves by lr * g / (|g| + eps) = lr * sign(g).
  BOOST_TEST(a(0, 0) == 1.0 - 0.1 * 0.5 / (0.5 + 1e-8), tt::tolerance(1e-14));
  BOOST_TEST(a(0, 1) == -1.0 + 0.1 * 2.0 / (2.0 + 1e-8), tt::tolerance(1e-14));
  BOOST_TEST(b(0, 0) == 2.0 - 0.1 * 3.0 / (3.0 + 1e-8), tt::tolerance(1e-14));
  // t = 2 with g = 1 for b: m = 0.9*0.3 + 0.1*1 = 0.37, v = 0.999*0.009 + 0.001*1 = 0.009991,
  // m_hat = 0.37 / 0.19, v_hat = 0.009991 / 0.001999.
  const double before = b(0, 0);
  gb(0, 0) = 1.0;
  adam.step({{"a", &a, &ga}, {"b", &b, &gb}});
  const double expected = before - 0.1 * (0.37 / 0.19) / (std::sqrt(0.009991 / 0.001999) + 1e-8);
  BOOST_TEST(b(0, 0) == expected, tt::tolerance(1e-12));
  BOOST_TEST(adam.steps() == 2);
  BOOST_CHECK_THROW(adam.step({{"a", &a, &ga}}), std::invalid_argument);
  // The same update on float parameters (the attention-only models): computed in double, rounded once.
  arma::fmat f{{1.0f, -1.0f}};
  const arma::fmat gf{{0.5f, -2.0f}};
  attn::BasicAdam<float> adam_float(0.1);
  adam_float.step({{"f", &f, &gf}});
  BOOST_TEST(f(0, 0) == 0.9f, tt::tolerance(1e-6f));
  BOOST_TEST(f(0, 1) == -0.9f, tt::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(sgd_steps_against_the_gradient) {
  // clang-format off
  arma::mat w{{1.0, 2.0}}, g{{0.5, -1.0}};
  attn::Sgd(0.3).step({{"w", &w, &g}});
  // clang-format on
  BOOST_TEST(w(0, 0) == 0.85, tt::tolerance(1e-15));
  BOOST_TEST(w(0, 1) == 2.3, tt::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(gradient_checker_accepts_right_and_rejects_wrong) {
  attn::Random rng(17);
  arma::mat W = rng.normal_matrix(3, 4);
  const arma::mat C = rng.normal_matrix(3, 4);
  const auto loss = [&] { return arma::accu(arma::square(W % C)) / 2; };  // dL/dW = W .* C .* C
  BOOST_TEST(attn::check_gradient(loss, W, arma::mat(W % C % C)).max_relative_error < 1e-7);
  BOOST_TEST(attn::check_gradient(loss, W, arma::mat(W % C)).max_relative_error > 1e-2);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(plotting)

BOOST_AUTO_TEST_CASE(no_plots_disables_with_a_reason) {
  const app::Plotter p(app::PlotSettings{.enabled = false});
  BOOST_TEST(!p.enabled());
  BOOST_TEST(p.skip_reason().find("--no-plots") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_unwritable_explicit_folder_is_an_error) {
  BOOST_CHECK_THROW(app::Plotter(app::PlotSettings{.folder = "/dev/null/plots"}), app::PlotFolderError);
}

BOOST_AUTO_TEST_CASE(missing_gnuplot_disables_with_a_reason) {
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", "/nonexistent", 1);
  const app::Plotter p(app::PlotSettings{.folder = std::filesystem::temp_directory_path().string()});
  ::setenv("PATH", saved.c_str(), 1);
  BOOST_TEST(!p.enabled());
  BOOST_TEST(p.skip_reason().find("gnuplot") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bars_write_a_valid_png_and_its_data) {
  const auto dir = std::filesystem::temp_directory_path() / "attn-test-common-plots";
  std::filesystem::remove_all(dir);
  app::Plotter p(app::PlotSettings{.folder = dir.string()});
  BOOST_REQUIRE_MESSAGE(p.enabled(), p.skip_reason());
  // clang-format off
  p.bars({.name = "bars", .title = "t", .xlabel = "x", .ylabel = "y", .categories = {"a", "b c"},
          .series = {"s1", "s2"}, .values = arma::mat{{1, 2}, {3, -1}}});
  p.heatmap({.name = "map", .title = "t", .xlabel = "x", .ylabel = "y", .col_labels = {"a", "b"},
             .row_labels = {"c", "d"}, .values = arma::mat{{0.5, std::nan("")}, {0.25, 0.75}}});
  // clang-format on
  BOOST_TEST(app::is_valid_png(dir / "bars.png"));
  BOOST_TEST(app::is_valid_png(dir / "map.png"));
  BOOST_TEST(std::filesystem::exists(dir / "bars.dat"));
  BOOST_TEST(p.written().size() == 2u);
  BOOST_CHECK_THROW(p.bars({.name = "bad", .categories = {"a"}, .series = {"s"}, .values = arma::mat(2, 1)}),
                    std::invalid_argument);
  BOOST_TEST(!app::is_valid_png(dir / "bars.dat"));
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(heatmap_kinds_draw_labelled_boxes_and_labels_can_be_hidden) {
  // clang-format off
  const app::Heatmap mask{.title = "mask", .col_labels = {"a", "b"}, .row_labels = {"a", "b"},
                           .values = arma::mat{{0, 1}, {0, 0}},
                           .kinds = {{.label = "0", .colour = "#c6dbef", .key = "allowed"},
                                     {.label = "-inf", .colour = "#4d4d4d", .text_colour = "white", .key = "blocked"}}};
  // clang-format on
  const std::string data = app::heatmap_data(mask);
  BOOST_TEST(data.find("1\t0\t1\t\"-inf\"\t0xffffff") != std::string::npos, data);  // column 1, row 0: blocked
  const std::string commands = app::heatmap_commands(mask, "'m.dat'");
  BOOST_TEST(commands.find("keyentry with boxes fillcolor rgb \"#4d4d4d\" title \"blocked\"") != std::string::npos);
  BOOST_TEST(commands.find("unset colorbox") != std::string::npos);
  app::Heatmap bad = mask;
  bad.values(0, 0) = 2;  // no third kind
  BOOST_CHECK_THROW(app::heatmap_data(bad), std::invalid_argument);

  app::Heatmap quiet{.col_labels = {"a"},
                     .row_labels = {"b"},
                     .values = arma::mat(1, 1, arma::fill::value(0.5)),
                     .cell_labels = false};
  BOOST_TEST(app::heatmap_commands(quiet, "'q.dat'").find("with labels") == std::string::npos);
  quiet.cell_labels = true;
  BOOST_TEST(app::heatmap_commands(quiet, "'q.dat'").find("with labels") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_pattern_grid_draws_one_panel_a_head_and_refuses_maps_that_do_not_fit) {
  const auto dir = std::filesystem::temp_directory_path() / "attn-test-common-grid";
  std::filesystem::remove_all(dir);
  app::Plotter p(app::PlotSettings{.folder = dir.string()});
  BOOST_REQUIRE_MESSAGE(p.enabled(), p.skip_reason());
  const arma::mat A{{1.0, 0.0}, {0.25, 0.75}};  // causal weights over two tokens
  app::PatternGrid grid{.name = "grid",
                        .title = "t",
                        .labels = {"a", "b"},
                        .heads = {"L1.H0", "L1.H1"},
                        .cells = {A, A},
                        .columns = 2,
                        .unit_range = true};
  app::pattern_grid(p, grid);
  BOOST_TEST(app::is_valid_png(dir / "grid.png"));
  // One data file per head; the masked entry (j > i) is NaN, the rest as given.
  std::ifstream in(dir / "grid_2.dat");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(text.find("1\t0\tNaN") != std::string::npos, text);
  BOOST_TEST(text.find("1\t1\t0.75") != std::string::npos, text);
  grid.heads.pop_back();  // two maps, one title
  BOOST_CHECK_THROW(app::pattern_grid(p, grid), std::invalid_argument);
  grid.heads.push_back("L1.H1");
  grid.cells[1] = arma::mat(3, 3, arma::fill::zeros);  // a map for three tokens, two labels
  BOOST_CHECK_THROW(app::pattern_grid(p, grid), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(line_styles_error_bars_and_arrows_write_valid_pngs) {
  const auto dir = std::filesystem::temp_directory_path() / "attn-test-common-styles";
  std::filesystem::remove_all(dir);
  app::Plotter p(app::PlotSettings{.folder = dir.string()});
  BOOST_REQUIRE_MESSAGE(p.enabled(), p.skip_reason());
  app::LineChart chart{.name = "styled",
                       .x = arma::vec{1, 2, 4},
                       .y = arma::mat{{1, 1.1}, {2, 1.9}, {4, 4.2}},
                       .series = {"theory", "measured"},
                       .logx = true,
                       .styles = {{.colour = "#1f77b4", .dashed = true}, {.colour = "#1f77b4", .error_bars = true}},
                       .errors = arma::mat{{0, 0.25}, {0, 0.5}, {0, 0.75}},
                       .xrange = std::make_pair(0.5, 8.0),
                       .log_base = 2};
  p.lines(chart);
  p.arrows({.name = "arrows",
            .arrows = {{.x1 = 1, .y1 = 1, .colour = "#1f77b4", .label = "a"},
                       {.x0 = 1, .y0 = 1, .x1 = 1, .head = false, .dashed = true, .width = 1}},
            .xrange = {-2, 2},
            .yrange = {-2, 2}});
  BOOST_TEST(app::is_valid_png(dir / "styled.png"));
  BOOST_TEST(app::is_valid_png(dir / "arrows.png"));
  std::ifstream in(dir / "styled.dat");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(data.find("\t+- measured\n") != std::string::npos, data);  // the error columns follow the series
  BOOST_TEST(data.find("\n2\t2\t1.8999999999999999\t0\t0.5\n") != std::string::npos, data);
  app::LineChart wrong = chart;
  wrong.styles.pop_back();  // one style for two series
  BOOST_CHECK_THROW(p.lines(wrong), std::invalid_argument);
  wrong = chart;
  wrong.errors = arma::mat(2, 2);  // error bars without one error per point
  BOOST_CHECK_THROW(p.lines(wrong), std::invalid_argument);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
