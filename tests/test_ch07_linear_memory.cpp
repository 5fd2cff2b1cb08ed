/// \file test_ch07_linear_memory.cpp
/// \brief Chapter 07: claims mem_01..mem_05 of docs/claims.md, causality and single-token cases of
/// linear attention, the benchmark's bookkeeping, and the program run as a reader would.
///
/// Random inputs use fixed seeds; the tests assert properties and tolerances, never a random stream.
/// Timings are not asserted here (speed belongs to `--bench`).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "claims.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/random.hpp"
#include "linear_memory.hpp"
#include "support.hpp"

namespace tt = boost::test_tools;

const std::string kExe = CHAPTER_EXE;  // the chapter program

namespace {

arma::mat random(arma::uword rows, arma::uword cols, int seed) {
  attn::Random rng(seed);
  return rng.normal_matrix(rows, cols);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(claim_mem_01_bilinear_form_rank_and_asymmetry) {
  const arma::mat X = random(5, 6, 1), Wq = random(6, 2, 2), Wk = random(6, 2, 3);  // d = 6, d_k = 2
  const arma::mat M = ch07::bilinear_matrix(Wq, Wk);
  BOOST_TEST(M.n_rows == 6u);
  BOOST_TEST(M.n_cols == 6u);
  BOOST_TEST(arma::rank(M) <= 2u);
  BOOST_TEST(arma::abs(M - M.t()).max() > 0.1);  // not symmetric
  const arma::mat S = ch07::bilinear_scores(X, M);
  // Entry by entry against the definition s_ij = X_i M X_j^T and against (X Wq)(X Wk)^T.
  const arma::mat QK = (X * Wq) * (X * Wk).t();
  for (arma::uword i = 0; i < 5; ++i) {
    for (arma::uword j = 0; j < 5; ++j) {
      BOOST_TEST(S(i, j) == arma::as_scalar(X.row(i) * M * X.row(j).t()), tt::tolerance(1e-12));
      BOOST_TEST(std::abs(S(i, j) - QK(i, j)) <= 1e-12 * (1.0 + std::abs(QK(i, j))));
    }
  }
  BOOST_TEST(std::abs(S(0, 1) - S(1, 0)) > 1e-3);  // s_01 != s_10
  // Wider d_k: the rank bound still holds (here rank 3 of a 6 x 6 matrix).
  BOOST_TEST(arma::rank(ch07::bilinear_matrix(random(6, 3, 4), random(6, 3, 5))) <= 3u);
}

BOOST_AUTO_TEST_CASE(claim_mem_02_factorization_not_unique) {
  const arma::mat X = random(4, 6, 6), Wq = random(6, 2, 7), Wk = random(6, 2, 8);
  const arma::mat R = random(2, 2, 9) + 2.0 * arma::eye(2, 2);  // invertible for this seed
  BOOST_REQUIRE(std::abs(arma::det(R)) > 0.1);
  const arma::mat before = (X * Wq) * (X * Wk).t();
  const arma::mat after = (X * (Wq * R)) * (X * (Wk * arma::inv(R).t())).t();
  BOOST_TEST(arma::abs(after - before).max() <= 1e-10);
  BOOST_TEST(arma::abs(Wq * R - Wq).max() > 0.1);  // the factors did change
}

BOOST_AUTO_TEST_CASE(claim_mem_03_softmax_attention_is_kernel_smoothing) {
  const arma::mat X = random(5, 6, 10), Wq = random(6, 3, 11) * 0.5, Wk = random(6, 3, 12) * 0.5, Wv = random(6, 4, 13);
  const attn::HeadPass pass = attn::attention(X, Wq, Wk, Wv);
  BOOST_TEST(arma::abs(ch07::kernel_smoothing(pass.Q, pass.K, pass.V) - pass.H).max() <= 1e-12);
  // Non-square: 2 queries over 5 keys.
  const arma::mat Q = pass.Q.head_rows(2);
  const arma::mat H2 = attn::softmax_rows(attn::scaled_scores(Q, pass.K)) * pass.V;
  BOOST_TEST(arma::abs(ch07::kernel_smoothing(Q, pass.K, pass.V) - H2).max() <= 1e-12);
}

BOOST_AUTO_TEST_CASE(claim_mem_04_running_memory_equals_masked_product) {
  const arma::mat Q = random(9, 3, 14), K = random(9, 3, 15), V = random(9, 5, 16);  // d_k = 3, d_v = 5
  const arma::mat masked = ch07::causal_linear_attention_masked(Q, K, V);
  const arma::mat recurrent = ch07::causal_linear_attention_recurrent(Q, K, V);
  BOOST_TEST(masked.n_rows == 9u);
  BOOST_TEST(masked.n_cols == 5u);
  BOOST_TEST(arma::abs(masked - recurrent).max() <= 1e-10);
  // Row 4 written out as the sum over j <= 4 of (q_4 . k_j) v_j.
  arma::rowvec y(5, arma::fill::zeros);
  for (arma::uword j = 0; j <= 4; ++j) y += arma::dot(Q.row(4), K.row(j)) * V.row(j);
  BOOST_TEST(arma::abs(recurrent.row(4) - y).max() <= 1e-10);
}

BOOST_AUTO_TEST_CASE(claim_mem_05_memory_fixed_cache_grows) {
  const arma::mat Q = random(6, 3, 17), K = random(6, 3, 18), V = random(6, 5, 19);
  std::vector<arma::mat> memories;
  ch07::causal_linear_attention_recurrent(Q, K, V, &memories);
  BOOST_REQUIRE_EQUAL(memories.size(), 6u);
  for (const arma::mat& S : memories) {
    BOOST_TEST(S.n_rows == 5u);  // d_v
    BOOST_TEST(S.n_cols == 3u);  // d_k
  }
  BOOST_TEST(arma::abs(memories.back() - V.t() * K).max() <= 1e-12);  // S_n = sum_i v_i^T k_i
  BOOST_TEST(ch07::linear_memory_bytes(64, 64) == 64u * 64u * 8u);
  BOOST_TEST(ch07::kv_cache_bytes(1, 64, 64) == 128u * 8u);
  BOOST_TEST(ch07::kv_cache_bytes(16384, 64, 64) == 16384u * 128u * 8u);
  BOOST_TEST(ch07::kv_cache_bytes(16384, 64, 64) / ch07::linear_memory_bytes(64, 64) == 512u);
}

BOOST_AUTO_TEST_CASE(claims_mem_01_to_mem_05_hold_on_the_program_sections) {
  for (const unsigned seed : {7u, 3u}) {  // the default seed and the help's example
    const ch07::RandomHead h = ch07::random_head(seed);
    BOOST_TEST(std::abs(arma::det(h.R)) >= 0.1);
    const ch07::BilinearSection b = ch07::learned_matching(h);
    BOOST_TEST(b.largest_difference <= 1e-12, "seed " << seed);
    BOOST_TEST(b.rank <= h.Wq.n_cols);
    BOOST_TEST(b.asymmetry > 0.1);
    BOOST_TEST(std::abs(b.S(0, 1) - b.S(1, 0)) > 1e-3, "seed " << seed);  // mem_01: s_01 != s_10
    const ch07::FactorSection f = ch07::not_unique(h);
    BOOST_TEST(f.factor_change > 0.1);                             // mem_02: the factors moved ...
    BOOST_TEST(f.score_change <= 1e-10);                           // ... the scores did not
    BOOST_TEST(ch07::kernel_view(h).largest_difference <= 1e-12);  // mem_03
  }
  const ch07::MemorySection m = ch07::running_memory(attn::toy_embeddings());
  BOOST_TEST(arma::abs(m.masked - m.recurrent).max() <= 1e-12);  // mem_04
  BOOST_REQUIRE(m.memories.size() == 4u);
  for (const arma::mat& S : m.memories) BOOST_TEST(S.n_elem == 16u);  // mem_05: S stays 4 x 4
}

BOOST_AUTO_TEST_CASE(claims_mem_01_to_mem_05_the_printed_claim_functions_hold_for_ten_seeds) {
  // The functions the program prints its claims with, on the default seed and nine others.
  for (unsigned seed = 0; seed < 10; ++seed) {
    const ch07::RandomHead h = ch07::random_head(seed);
    BOOST_TEST_CONTEXT("seed " << seed) {
      BOOST_TEST(ch07::claim_bilinear_form(ch07::learned_matching(h), h.Wq.n_cols).holds);
      BOOST_TEST(ch07::claim_factors_not_unique(ch07::not_unique(h)).holds);
      BOOST_TEST(ch07::claim_kernel_smoothing(ch07::kernel_view(h)).holds);
    }
  }
  const ch07::MemorySection m = ch07::running_memory(attn::toy_embeddings());
  BOOST_TEST(ch07::claim_running_memory(m).holds);
  BOOST_TEST(ch07::claim_memory_fixed_size(m).holds);
  BOOST_TEST(ch07::claim_memory_at_scale().holds);
  BOOST_TEST(ch07::claim_memory_at_scale().evidence.find("32768 bytes, the cache 16777216 bytes") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_claim_functions_fail_on_numbers_that_contradict_them) {
  ch07::BilinearSection symmetric{.M = arma::eye(6, 6), .S = arma::eye(4, 4), .rank = 6, .asymmetry = 0.0};
  BOOST_TEST(!ch07::claim_bilinear_form(symmetric, 2).holds);  // rank 6 > d_k and symmetric
  BOOST_TEST(!ch07::claim_factors_not_unique({.factor_change = 1.0, .score_change = 1e-6}).holds);
  ch07::MemorySection m = ch07::running_memory(attn::toy_embeddings());
  m.largest_difference = 1e-6;
  BOOST_TEST(!ch07::claim_running_memory(m).holds);
  m.memories.push_back(arma::zeros(5, 4));  // a memory that grew
  BOOST_TEST(!ch07::claim_memory_fixed_size(m).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lesson)

BOOST_AUTO_TEST_CASE(linear_attention_output_ignores_later_tokens) {
  arma::mat Q = random(7, 4, 20), K = random(7, 4, 21), V = random(7, 2, 22);
  const arma::mat before = ch07::causal_linear_attention_recurrent(Q, K, V);
  Q.rows(4, 6) = random(3, 4, 23);
  K.rows(4, 6) = random(3, 4, 24);
  V.rows(4, 6) = random(3, 2, 25);
  const arma::mat after = ch07::causal_linear_attention_recurrent(Q, K, V);
  const arma::mat masked = ch07::causal_linear_attention_masked(Q, K, V);
  BOOST_TEST(arma::abs(after.head_rows(4) - before.head_rows(4)).max() == 0.0);
  BOOST_TEST(arma::abs(masked.head_rows(4) - before.head_rows(4)).max() <= 1e-12);
  BOOST_TEST(arma::abs(after.tail_rows(3) - before.tail_rows(3)).max() > 1e-3);  // later rows do change
}

BOOST_AUTO_TEST_CASE(single_token_sequences) {
  const arma::mat q = random(1, 3, 26), k = random(1, 3, 27), v = random(1, 4, 28);
  const arma::rowvec expected = arma::dot(q, k) * v;
  BOOST_TEST(arma::abs(ch07::causal_linear_attention_recurrent(q, k, v) - expected).max() <= 1e-14);
  BOOST_TEST(arma::abs(ch07::causal_linear_attention_masked(q, k, v) - expected).max() <= 1e-14);
  BOOST_TEST(arma::abs(ch07::kernel_smoothing(q, k, v) - v).max() <= 1e-14);  // one source: its value
}

BOOST_AUTO_TEST_CASE(bad_shapes_throw) {
  BOOST_CHECK_THROW(ch07::bilinear_matrix(random(6, 2, 1), random(6, 3, 2)), std::invalid_argument);
  BOOST_CHECK_THROW(ch07::bilinear_scores(random(3, 6, 1), random(5, 5, 2)), std::invalid_argument);
  BOOST_CHECK_THROW(ch07::causal_linear_attention_masked(random(3, 2, 1), random(4, 2, 2), random(4, 2, 3)),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ch07::causal_linear_attention_recurrent(random(3, 2, 1), random(3, 3, 2), random(3, 2, 3)),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ch07::kernel_smoothing(random(3, 2, 1), random(4, 2, 2), random(3, 2, 3)), std::invalid_argument);
  BOOST_CHECK_THROW(ch07::bench_positions(0), std::invalid_argument);
  BOOST_CHECK_THROW(ch07::benchmark_generation(0, 64, 8, 0.001), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(benchmark_bookkeeping_on_a_tiny_run) {
  BOOST_TEST(ch07::bench_positions(16384).size() == 15u);
  BOOST_TEST(ch07::bench_positions(16384).back() == 16384u);
  BOOST_TEST(ch07::bench_positions(10).back() == 10u);  // the longest position is always measured
  const std::vector<ch07::CostRow> rows = ch07::benchmark_generation(8, 4, 6, 1e-5);
  BOOST_REQUIRE_EQUAL(rows.size(), 4u);  // 1, 2, 4, 6
  for (const ch07::CostRow& r : rows) {
    BOOST_TEST(r.softmax_seconds > 0.0);
    BOOST_TEST(r.linear_seconds > 0.0);
    BOOST_TEST(r.softmax_bytes == r.position * 12u * 8u);
    BOOST_TEST(r.linear_bytes == 32u * 8u);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

BOOST_AUTO_TEST_CASE(runs_prints_every_claim_and_draws_the_memory) {
  const std::filesystem::path dir = TEST_PLOTS;
  const attn::test::Run r = attn::test::run_with_plots(kExe, dir);
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.err == "");
  attn::test::check_contains(r.out, {"rank(M) = 2 <= d_k = 2", "[mem_01]", "[mem_02]", "[mem_03]", "[mem_04]",
                                     "S holds 32768 bytes, the cache 16777216 bytes   [mem_05]", "run with --bench"});
  BOOST_TEST(!attn::test::has_nan_word(r.out));
  BOOST_TEST(app::is_valid_png(dir / "ch07_memory.png"));
  BOOST_TEST(std::filesystem::exists(dir / "ch07_memory.dat"));
}

BOOST_AUTO_TEST_CASE(a_short_bench_prints_its_table_and_plots) {
  const std::filesystem::path dir = std::string(TEST_PLOTS) + "-bench";
  std::filesystem::remove_all(dir);
  const attn::test::Run r =
      attn::test::run(kExe + " --bench --bench-max 64 --plots " + attn::test::quote(dir.string()));
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("at position 64: softmax with a cache takes") != std::string::npos);
  BOOST_TEST(r.out.find("holds 2.00x its bytes") != std::string::npos);  // 64 x 128 x 8 / (64 x 64 x 8)
  for (const char* name : {"ch07_cost_time", "ch07_cost_memory"}) {
    BOOST_TEST(app::is_valid_png(dir / (std::string(name) + ".png")), name);
  }
}

BOOST_AUTO_TEST_CASE(help_exits_zero) {
  const attn::test::Run r = attn::test::run(kExe + " --help");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("--bench") != std::string::npos);
}

// --help states each numeric flag's range; the flag readers (app::cli::seed, integer) enforce the same.
BOOST_AUTO_TEST_CASE(help_states_the_ranges_it_enforces) {
  const std::string help = attn::test::run(kExe + " --help").out;
  struct Range {
    const char* flag;
    const char* lo;
    const char* hi;
    const char* below;
    const char* above;
  };
  for (const Range& r :
       {Range{"seed", "0", "4294967295", "-1", "4294967296"}, Range{"bench-max", "1", "1048576", "0", "1048577"}}) {
    // The flag's entry: from its line to the next option's, a wrapped description read as one line.
    const std::size_t at = help.find(attn::test::cat("\n  --", r.flag, " "));
    BOOST_TEST_REQUIRE(at != std::string::npos, r.flag);
    std::string entry = help.substr(at + 1, help.find("\n  -", at + 1) - at - 1);
    std::replace(entry.begin(), entry.end(), '\n', ' ');
    entry = attn::test::squeeze_spaces(entry);
    BOOST_TEST(entry.find(attn::test::cat("(", r.lo, " to ", r.hi, ")")) != std::string::npos, entry);
    for (const char* outside : {r.below, r.above}) {
      const attn::test::Run bad =
          attn::test::run(attn::test::cat(kExe, " --no-plots --bench --", r.flag, "=", outside));
      BOOST_TEST(bad.code == 2, r.flag << " " << outside);
      BOOST_TEST(bad.err.find(attn::test::cat("between ", r.lo, " and ", r.hi)) != std::string::npos, bad.err);
    }
  }
  BOOST_TEST(attn::test::run(kExe + " --no-plots --seed 4294967295").code == 0);
}

BOOST_AUTO_TEST_CASE(bad_input_is_one_line_and_exit_2) {
  for (const std::string args :
       {"--bogus", "--seed", "--seed abc", "--bench-max 0", "--bench-max 99999999", "--bench-max x", "--bench=1",
        "--plots /dev/null/x", "--no-plots --plots /tmp/x", "stray"}) {
    attn::test::check_usage_error(attn::test::cat(kExe, " --no-plots ", args), "ch07_linear_memory");
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(kernel_smoothing_refuses_non_finite_input_as_softmax_does) {
  arma::mat q = random(2, 3, 31);
  const arma::mat k = random(3, 3, 32), v = random(3, 2, 33);
  q(1, 2) = arma::datum::nan;
  BOOST_CHECK_THROW(ch07::kernel_smoothing(q, k, v), std::invalid_argument);
  q(1, 2) = 1e6;  // finite, but exp(q . k / sqrt(3)) overflows to inf
  const arma::mat big_k(3, 3, arma::fill::ones);
  BOOST_CHECK_THROW(ch07::kernel_smoothing(q, big_k, v), std::invalid_argument);
  // Every kernel of a row underflows (scores near -1e3 / sqrt(3) * 3): 0/0 is refused, while
  // softmax attention, which subtracts the row's largest score, still gives a finite average.
  const arma::mat far_q(1, 3, arma::fill::value(-1000.0)), ones_k(3, 3, arma::fill::ones);
  BOOST_CHECK_THROW(ch07::kernel_smoothing(far_q, ones_k, v), std::invalid_argument);
  BOOST_TEST(attn::softmax_rows(far_q * ones_k.t() / std::sqrt(3.0)).is_finite());
  // Just inside the range (scores about -577) the two agree.
  const arma::mat near_q(1, 3, arma::fill::value(-333.0));
  const arma::mat weights = attn::softmax_rows(near_q * ones_k.t() / std::sqrt(3.0));
  BOOST_TEST(arma::abs(ch07::kernel_smoothing(near_q, ones_k, v) - weights * v).max() <= 1e-12);
}
