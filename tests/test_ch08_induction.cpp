/// \file test_ch08_induction.cpp
/// \brief Chapter 08: claims ind_01..ind_04 and skip_01..skip_03 of docs/claims.md, the score
/// functions on hand-built patterns, the skip-trigram head's message recomputed by hand, and the program run as a
/// reader would (the shared model's gradient checks are in test_attn_only.cpp).
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <filesystem>

#include "circuit.hpp"
#include "claims.hpp"
#include "common/apparatus/plot.hpp"
#include "lab.hpp"
#include "model.hpp"
#include "repeats.hpp"
#include "skip_trigrams.hpp"
#include "support.hpp"

namespace tt = boost::test_tools;

namespace {

/// A tiny configuration: vocabulary 5, 6 positions, width 4, 2 heads of d_k 3 (d_k != width / heads).
ch08::ModelShape tiny_shape() { return {5, 6, 4, 2, 3, 2}; }

/// The program's --quick run (seed 1, the program's own settings), trained once for all claim tests.
const ch08::LabResult& quick_run(bool fixed) {
  static std::optional<ch08::LabResult> random_offsets, fixed_offsets;
  auto& slot = fixed ? fixed_offsets : random_offsets;
  if (!slot) {
    ch08::LabOptions o = ch08::quick_options({});
    o.data.fixed_offset = fixed;
    slot = ch08::train(o);
  }
  return *slot;
}

ch08::HeadScores scores_of(const ch08::LabResult& r) {
  ch08::ForwardPass pass;
  attn::forward(r.model, r.held_out.tokens, pass);
  return ch08::head_scores(pass, r.held_out);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(claim_ind_01_repeat_loss_below_half_of_first_occurrence) {
  const ch08::RegionLosses& l = quick_run(false).curve.back().held_out;
  const app::ClaimCheck c = ch08::claim_repeats_predicted(l);
  BOOST_TEST(c.id == "ind_01");
  BOOST_TEST(c.holds, c.evidence);
  BOOST_TEST(l.repeat < 0.5 * l.first, "repeat " << l.repeat << " vs first " << l.first);
  BOOST_TEST(l.first > 3.0);  // first occurrences stay near ln 32 = 3.47: nothing predicts them
}

BOOST_AUTO_TEST_CASE(claim_ind_02_induction_heads_in_second_layer) {
  const ch08::HeadScores s = scores_of(quick_run(false));
  const app::ClaimCheck c = ch08::claim_induction_in_last_layer(s);
  BOOST_TEST(c.holds, c.evidence);
  const ch08::HeadIndex top = ch08::top_head(s.induction);
  BOOST_TEST(top.layer == 1u);  // the strongest induction head sits in layer 2
  BOOST_TEST(s.induction(top.layer, top.head) > 0.3);
}

BOOST_AUTO_TEST_CASE(claim_ind_03_ablation_needs_both_layers) {
  const ch08::LabResult& r = quick_run(false);
  const ch08::RegionLosses& base = r.curve.back().held_out;
  const std::vector<ch08::Ablation> a = ch08::ablation_study(r.model, r.held_out);
  BOOST_REQUIRE_EQUAL(a.size(), 6u);  // L1.H0, L1.H1, L2.H0, L2.H1, layer 1, layer 2
  BOOST_TEST(a[5].name == "all of layer 2");
  const ch08::AblationSummary sum = ch08::summarize_ablations(a, base, 2, 2);
  // The summary read straight off the table's entries.
  BOOST_TEST(sum.advantage == base.first - base.repeat);
  BOOST_TEST(sum.last_layer_rise == a[5].losses.repeat - base.repeat);
  BOOST_TEST(sum.key_first_layer_rise == std::max(a[0].losses.repeat, a[1].losses.repeat) - base.repeat);
  const app::ClaimCheck c = ch08::claim_both_layers_needed(sum);
  BOOST_TEST(c.holds, c.evidence);
}

BOOST_AUTO_TEST_CASE(claim_ind_04_fixed_offset_first_layer_induction) {
  const ch08::HeadScores s = scores_of(quick_run(true));
  const app::ClaimCheck c = ch08::claim_position_finds_copy(s);
  BOOST_TEST(c.holds, c.evidence << "; first-layer induction scores " << s.induction.row(0));
}

BOOST_AUTO_TEST_CASE(claims_fail_on_numbers_that_contradict_them) {
  // Hand-built tables on each side of each threshold: the claim functions are not always true.
  ch08::HeadScores s{arma::zeros(2, 2), arma::mat{{0.2, 0.1}, {0.25, 0.9}}, arma::zeros(2, 2)};
  BOOST_TEST(ch08::claim_induction_in_last_layer(s).holds);
  BOOST_TEST(!ch08::claim_position_finds_copy(s).holds);
  s.induction = {{0.6, 0.1}, {0.25, 0.2}};
  BOOST_TEST(!ch08::claim_induction_in_last_layer(s).holds);  // below 0.3 and below layer 1
  BOOST_TEST(ch08::claim_position_finds_copy(s).holds);
  BOOST_TEST(ch08::claim_repeats_predicted({.overall = 2, .first = 3.4, .repeat = 1.6}).holds);
  const app::ClaimCheck weak = ch08::claim_repeats_predicted({.overall = 2, .first = 3.4, .repeat = 1.8});
  BOOST_TEST(!weak.holds);
  BOOST_TEST(weak.evidence.find("repeat / first = 0.529") != std::string::npos, weak.evidence);
  BOOST_TEST(weak.evidence.find("does NOT hold") != std::string::npos);
  BOOST_TEST(
      !ch08::claim_both_layers_needed({.advantage = 2, .last_layer_rise = 1.5, .key_first_layer_rise = 0.9}).holds);
  BOOST_TEST(
      ch08::claim_both_layers_needed({.advantage = 2, .last_layer_rise = 1.5, .key_first_layer_rise = 1.1}).holds);
  BOOST_CHECK_THROW(ch08::summarize_ablations({}, {}, 2, 2), std::invalid_argument);
  BOOST_CHECK_THROW(ch08::top_head(arma::mat()), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(skip_trigrams)

namespace {

/// The program's skip-trigram run (seed 1, the program's settings), trained once for these tests.
const ch08::SkipTrigramFindings& skip_findings() {
  static const ch08::SkipTrigramFindings f = ch08::measure_skip_trigrams(ch08::train_skip_trigrams({}));
  return f;
}

/// A one-layer, one-head model's causal forward pass at one query, written out from the formulas
/// (no attn::forward): the head's weights on every position j <= q of one sequence, then what it reads
/// from position s in logits, a_qs (x_s Wv Wo) U, and the full logits of position q.
struct ByHand {
  arma::rowvec weights;  ///< 1 x (q + 1)
  arma::rowvec message;  ///< 1 x vocab
  arma::rowvec logits;   ///< 1 x vocab
};
ByHand one_layer_by_hand(const attn::AttnOnlyModel<double>& m, const arma::urowvec& tokens, arma::uword q,
                         arma::uword s) {
  const auto x = [&](arma::uword j) -> arma::rowvec { return m.E.row(tokens(j)) + m.P.row(j); };
  const attn::AttnLayer<double>& L = m.layers[0];
  arma::rowvec scores(q + 1);
  for (arma::uword j = 0; j <= q; ++j) {
    scores(j) = arma::dot(x(q) * L.Wq, x(j) * L.Wk) / std::sqrt(static_cast<double>(m.shape.d_k));
  }
  ByHand out;
  out.weights = arma::exp(scores - scores.max());
  out.weights /= arma::accu(out.weights);
  arma::rowvec mixture(m.shape.d_k, arma::fill::zeros);
  for (arma::uword j = 0; j <= q; ++j) mixture += out.weights(j) * (x(j) * L.Wv);
  out.message = out.weights(s) * (x(s) * L.Wv) * L.Wo * m.U;
  out.logits = (x(q) + mixture * L.Wo) * m.U;
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(claim_skip_01_one_layer_model_completes_every_skip_trigram) {
  const ch08::SkipTrigramFindings& f = skip_findings();
  BOOST_TEST(f.run.model.shape.layers == 1u);
  BOOST_TEST(f.run.model.shape.heads == 1u);
  const app::ClaimCheck c = ch08::claim_skip_trigrams_learned(f);
  BOOST_TEST(c.id == "skip_01");
  BOOST_TEST(c.holds, c.evidence);
  // The probabilities recomputed by hand, row by row of the held-out set.
  const attn::AttnOnlyModel<double> m = attn::convert_model<double>(f.run.model);
  const ch08::SkipBatch& d = f.run.held_out;
  arma::vec right(4, arma::fill::zeros), weight(4, arma::fill::zeros), rows(4, arma::fill::zeros);
  for (arma::uword b = 0; b < d.tokens.n_rows; ++b) {
    const ByHand h = one_layer_by_hand(m, d.tokens.row(b), d.query_at[b], d.source_at[b]);
    const arma::rowvec p = arma::exp(h.logits - h.logits.max()) / arma::accu(arma::exp(h.logits - h.logits.max()));
    right(d.which[b]) += p(d.tokens(b, d.query_at[b] + 1));
    weight(d.which[b]) += h.weights(d.source_at[b]);
    rows(d.which[b]) += 1;
  }
  right /= rows;
  weight /= rows;
  for (arma::uword c = 0; c < 4; ++c) {
    BOOST_TEST(right(c) == f.probability(c, c), tt::tolerance(1e-9));
    BOOST_TEST(weight(c) == f.attention(c), tt::tolerance(1e-9));
    BOOST_TEST(right(c) > 0.5);
    BOOST_TEST(weight(c) > 0.5);
  }
}

BOOST_AUTO_TEST_CASE(claim_skip_02_both_queries_receive_the_same_message) {
  const ch08::SkipTrigramFindings& f = skip_findings();
  const app::ClaimCheck c = ch08::claim_same_message(f);
  BOOST_TEST(c.id == "skip_02");
  BOOST_TEST(c.holds, c.evidence);
  // The message recomputed by hand: mean over each skip-trigram's held-out rows of a_qs (x_s Wv Wo) U,
  // at the four continuations.
  const attn::AttnOnlyModel<double> m = attn::convert_model<double>(f.run.model);
  const ch08::SkipBatch& d = f.run.held_out;
  const arma::uvec next{ch08::word::mind, ch08::word::bay, ch08::word::touch, ch08::word::home};
  arma::mat message(4, 4, arma::fill::zeros);
  arma::vec rows(4, arma::fill::zeros);
  for (arma::uword b = 0; b < d.tokens.n_rows; ++b) {
    message.row(d.which[b]) += one_layer_by_hand(m, d.tokens.row(b), d.query_at[b], d.source_at[b]).message.cols(next);
    rows(d.which[b]) += 1;
  }
  message.each_col() /= rows;
  BOOST_TEST(arma::approx_equal(message, f.message, "absdiff", 1e-9), message << f.message);
  // Keep's message raises mind and bay above touch and home after "in" and after "at" alike, and stay's
  // raises touch and home above mind and bay.
  for (arma::uword row : {0u, 1u})
    BOOST_TEST(std::min(message(row, 0), message(row, 1)) > std::max(message(row, 2), message(row, 3)));
  for (arma::uword row : {2u, 3u})
    BOOST_TEST(std::min(message(row, 2), message(row, 3)) > std::max(message(row, 0), message(row, 1)));
}

BOOST_AUTO_TEST_CASE(claim_skip_03_the_unwanted_continuation_outranks_the_unrelated_one) {
  const ch08::SkipTrigramFindings& f = skip_findings();
  const app::ClaimCheck c = ch08::claim_unwanted_continuation(f);
  BOOST_TEST(c.id == "skip_03");
  BOOST_TEST(c.holds, c.evidence);
  // keep ... in: bay (keep's continuation after "at") against home (neither keep's nor in's).
  BOOST_TEST(f.probability(0, 1) > 2 * f.probability(0, 3));
  BOOST_TEST(f.probability(3, 2) > 2 * f.probability(3, 0));  // stay ... at: touch against mind
}

BOOST_AUTO_TEST_CASE(a_source_value_cannot_depend_on_a_later_query) {
  // Two sequences that differ only from the query on: the value at the source is the same to the bit,
  // so what the head can read there is the same message for either query (the bug's cause).
  const ch08::SkipTrigramFindings& f = skip_findings();
  arma::umat tokens(2, 12, arma::fill::value(8));
  tokens(0, 2) = tokens(1, 2) = ch08::word::keep;
  tokens(0, 7) = ch08::word::in, tokens(0, 8) = ch08::word::mind;
  tokens(1, 7) = ch08::word::at, tokens(1, 8) = ch08::word::bay;
  ch08::ForwardPass in, at;  // one pass per sequence, so both are the same products on the same rows
  attn::forward(f.run.model, arma::umat(tokens.row(0)), in);
  attn::forward(f.run.model, arma::umat(tokens.row(1)), at);
  const arma::fmat V_in = in.layers[0].part(2), V_at = at.layers[0].part(2);  // 12 x d_k each
  BOOST_TEST(arma::approx_equal(V_in.row(2), V_at.row(2), "absdiff", 0.0f));
  BOOST_TEST(!arma::approx_equal(V_in.row(7), V_at.row(7), "absdiff", 1e-3f));  // the queries' own values differ
}

BOOST_AUTO_TEST_CASE(skip_trigram_claims_fail_on_numbers_that_contradict_them) {
  ch08::SkipTrigramFindings f;
  f.probability =
      arma::mat{{0.9, 0.03, 0.05, 0.01}, {0.03, 0.9, 0.01, 0.05}, {0.05, 0.01, 0.9, 0.03}, {0.01, 0.05, 0.03, 0.9}};
  f.attention = arma::vec{0.9, 0.9, 0.9, 0.9};
  f.message = arma::mat{{4, 3.8, 0, 0.1}, {3.9, 4, 0.1, 0}, {0, 0.1, 4, 3.9}, {0.1, 0, 4, 4.1}};
  BOOST_TEST(ch08::claim_skip_trigrams_learned(f).holds);
  BOOST_TEST(ch08::claim_same_message(f).holds);
  BOOST_TEST(ch08::claim_unwanted_continuation(f).holds);
  ch08::SkipTrigramFindings g = f;
  g.attention(2) = 0.4;  // the head looks elsewhere
  BOOST_TEST(!ch08::claim_skip_trigrams_learned(g).holds);
  g = f;
  g.probability(1, 1) = 0.45;
  BOOST_TEST(!ch08::claim_skip_trigrams_learned(g).holds);
  g = f;
  g.message(0, 1) = 1.5;  // keep ... in: bay gains only 0.37 of mind's gain
  BOOST_TEST(!ch08::claim_same_message(g).holds);
  g = f;
  g.message(3, 1) = 4.5;  // stay's message raising bay above its own continuations
  BOOST_TEST(!ch08::claim_same_message(g).holds);
  g = f;
  g.probability(2, 3) = 0.02;  // stay ... in: home (unwanted) only twice as likely as bay (neither)
  BOOST_TEST(!ch08::claim_unwanted_continuation(g).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(measurements)

BOOST_AUTO_TEST_CASE(perfect_induction_pattern_scores_one) {
  const ch08::Block block{2, 4};  // first copy at 2..5, repeat at 6..9
  arma::mat A(12, 12, arma::fill::zeros);
  for (arma::uword i = 0; i < 12; ++i) A(i, i) = 1.0;
  for (arma::uword j = 0; j + 1 < 4; ++j) {
    A(6 + j, 6 + j) = 0.0;
    A(6 + j, 2 + j + 1) = 1.0;  // repeat of token j reads the token after its first copy
  }
  const arma::mat before = A;
  BOOST_TEST(ch08::induction_score(A, block) == 1.0);
  BOOST_TEST(arma::approx_equal(A, before, "absdiff", 0.0));  // scoring leaves the pattern unchanged
}

BOOST_AUTO_TEST_CASE(previous_token_pattern_scores_zero_as_induction) {
  arma::mat A(12, 12, arma::fill::zeros);
  A(0, 0) = 1.0;
  for (arma::uword i = 1; i < 12; ++i) A(i, i - 1) = 1.0;
  const arma::mat before = A;
  BOOST_TEST(ch08::previous_token_score(A) == 1.0);
  BOOST_TEST(ch08::induction_score(A, {2, 4}) == 0.0);
  BOOST_TEST(arma::approx_equal(A, before, "absdiff", 0.0));
  BOOST_CHECK_THROW(ch08::induction_score(A, {6, 4}), std::invalid_argument);  // repeat would end at 14
}

BOOST_AUTO_TEST_CASE(duplicate_token_pattern_scores_one) {
  const arma::urowvec tokens{3, 1, 3, 2, 1};  // positions 2 and 4 repeat earlier tokens
  arma::mat A(5, 5, arma::fill::eye);
  A(2, 2) = 0.0, A(2, 0) = 1.0;
  A(4, 4) = 0.0, A(4, 1) = 1.0;
  BOOST_TEST(ch08::duplicate_token_score(A, tokens) == 1.0);
  BOOST_TEST(ch08::duplicate_token_score(arma::mat(5, 5, arma::fill::eye), tokens) == 0.0);
}

BOOST_AUTO_TEST_CASE(sampled_blocks_recur_right_after_themselves) {
  ch08::Random rng(5);
  const ch08::RepeatSpec spec;
  const ch08::RepeatBatch batch = ch08::sample_repeats(rng, 50, spec);
  for (arma::uword b = 0; b < 50; ++b) {
    const ch08::Block& k = batch.blocks[b];
    BOOST_TEST(k.length >= 6u);
    BOOST_TEST(k.length <= 12u);
    BOOST_TEST(k.start + 2 * k.length <= 32u);
    for (arma::uword j = 0; j < k.length; ++j)
      BOOST_TEST(batch.tokens(b, k.start + j) == batch.tokens(b, k.start + k.length + j));
    arma::uword first = 0, repeat = 0;
    for (arma::uword t = 0; t < 32; ++t) {
      first += ch08::region_of(k, t) == ch08::Region::first;
      repeat += ch08::region_of(k, t) == ch08::Region::repeat;
    }
    BOOST_TEST(first == k.length - 1);
    BOOST_TEST(repeat == k.length - 1);
  }
  BOOST_TEST(batch.tokens.max() < 32u);
}

BOOST_AUTO_TEST_CASE(bad_sizes_throw) {
  ch08::Random rng(1);
  BOOST_CHECK_THROW(ch08::sample_repeats(rng, 1, {32, 20, 6, 12, false}), std::invalid_argument);
  BOOST_CHECK_THROW(ch08::sample_repeats(rng, 0, {}), std::invalid_argument);
  BOOST_CHECK_THROW(attn::init_model<ch08::Real>({32, 32, 0, 2, 16, 2}, rng), std::invalid_argument);
  const ch08::Model model = attn::init_model<ch08::Real>(tiny_shape(), rng);
  ch08::ForwardPass pass;
  BOOST_CHECK_THROW(attn::forward(model, arma::umat(2, 7, arma::fill::zeros), pass), std::invalid_argument);
  BOOST_CHECK_THROW(attn::forward(model, arma::umat(2, 6, arma::fill::value(5)), pass), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

BOOST_AUTO_TEST_CASE(short_run_prints_tables_and_valid_plots) {
  const std::string dir = std::string(TEST_PLOTS) + "/short";
  const auto r = attn::test::run(std::string(CHAPTER_EXE) + " --quick --steps 40 --plots " + attn::test::quote(dir));
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out.find("[ind_01]") != std::string::npos);
  BOOST_TEST(r.out.find("[ind_03]") != std::string::npos);
  for (const char* name : {"ch08_loss_curves", "ch08_head_scores", "ch08_induction_pattern",
                           "ch08_previous_token_pattern", "ch08_key_first_layer_pattern", "ch08_ablation"}) {
    BOOST_TEST(app::is_valid_png(std::filesystem::path(dir) / (std::string(name) + ".png")), name);
  }
}

// One step is too short to learn anything: the prose says so instead of describing a trained model.
BOOST_AUTO_TEST_CASE(an_untrained_run_says_what_it_does_not_show) {
  const attn::test::Run r = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots --steps 1");
  BOOST_TEST_REQUIRE(r.code == 0, r.err);
  attn::test::check_contains(r.out, {"1 step of 32 fresh sequences", "this run has not yet learned to",
                                     "lowers the repeat loss by", "What this shows: nothing yet."});
  for (const char* wrong : {"learned to bet on tokens", "raises the repeat loss by -", "depends on these heads"}) {
    BOOST_TEST(r.out.find(wrong) == std::string::npos, wrong);
  }
  const attn::test::Run one_head = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots --steps 1 --heads 1");
  BOOST_TEST(one_head.out.find("2 layers of 1 head (d_k") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_flags_exit_2_with_one_line) {
  for (const char* flags : {"--steps 0", "--heads 0", "--width -3", "--width 4 --heads 8", "--lr nan", "--seed x",
                            "--bogus", "--steps", "--plots /dev/null/x --steps 1"}) {
    const auto r = attn::test::run(fmt::format("{} {}", CHAPTER_EXE, flags));
    BOOST_TEST(r.code == 2, flags);
    BOOST_TEST(attn::test::line_count(r.err) == 1u, flags << ": " << r.err);
    BOOST_TEST(r.err.rfind("ch08_induction: error: ", 0) == 0u, flags << ": " << r.err);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(forward_refuses_non_finite_scores_as_softmax_does) {
  // The lab's causal softmax lives in the shared model: a NaN or infinite parameter that reaches a
  // score makes forward() throw rather than hand back NaN weights (ch08 then reports divergence).
  attn::Random rng(2);
  ch08::Model model = attn::init_model<ch08::Real>({5, 6, 4, 2, 3, 2}, rng);
  const arma::umat tokens(2, 6, arma::fill::zeros);
  ch08::ForwardPass pass;
  BOOST_CHECK_NO_THROW(attn::forward(model, tokens, pass));
  BOOST_TEST(arma::accu(attn::attention_pattern(pass, 0, 0, 0).row(2)) == 1.0f, boost::test_tools::tolerance(1e-6f));
  model.layers[0].Wq(1, 2) = std::numeric_limits<float>::quiet_NaN();
  BOOST_CHECK_THROW(attn::forward(model, tokens, pass), std::invalid_argument);
  model.layers[0].Wq(1, 2) = std::numeric_limits<float>::infinity();
  BOOST_CHECK_THROW(attn::forward(model, tokens, pass), std::invalid_argument);
  attn::AttnOnlyTrainer<ch08::Real> trainer(1e-2, 2);  // thrown inside a worker thread, rethrown here
  BOOST_CHECK_THROW(trainer.step(model, tokens), std::invalid_argument);
}
