/// \file test_ch09_real_heads.cpp
/// \brief Chapter 09: claims real_01..real_05 of ../shared/claims.md on the model the ch09_train
/// fixture trained once (the full run in the release build; under the sanitizers a short run, on
/// which the report is computed whole but no claim is judged), the corpus reader on a folder built here, the
/// windows, the baselines and contributions on hand-made inputs, and the program run as a reader would.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "circuit.hpp"
#include "common/apparatus/plot.hpp"
#include "corpus.hpp"
#include "heads.hpp"
#include "interventions.hpp"
#include "lab.hpp"
#include "report.hpp"
#include "support.hpp"
#include "writes.hpp"

namespace fs = std::filesystem;

namespace {

/// The corpus, read once.
const ch09::Corpus& corpus() {
  static const ch09::Corpus c = ch09::read_corpus();
  return c;
}

const ch09::Vocabulary& vocab() {
  static const ch09::Vocabulary v(corpus().train_text);
  return v;
}

/// The run the fixture saved, and the program's report on it, computed once.
const ch09::Run& fixture_run() {
  static const ch09::Run run = ch09::load_run(CH09_MODEL, vocab());
  return run;
}

const ch09::Report& fixture_report() {
  static const ch09::Report r = ch09::make_report(corpus(), vocab(), fixture_run(), ch09::kDefaultSentence);
  return r;
}

const ch09::Claim& claim(const std::string& tag) {
  for (const ch09::Claim& c : fixture_report().claims) {
    if (c.tag == tag) return c;
  }
  throw std::logic_error("no claim " + tag);
}

/// A folder of two fortune files (and the files the reader must skip), built for one test.
fs::path fake_fortunes() {
  const fs::path dir = fs::temp_directory_path() / "ch09-fake-fortunes";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string a, b;
  for (int i = 0; i < 30; ++i) a += "entry a" + std::to_string(i) + " " + std::string(400, 'x') + "\n%\n";
  for (int i = 0; i < 10; ++i) b += "entry b" + std::to_string(i) + "\t" + std::string(400, 'y') + "\n%\n";
  std::ofstream(dir / "alpha") << a;
  std::ofstream(dir / "beta") << b;
  std::ofstream(dir / "alpha.dat") << "binary index";
  fs::create_symlink(dir / "alpha", dir / "alpha.u8");
  return dir;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

#if CH09_FULL
BOOST_AUTO_TEST_CASE(claim_real_01_beats_the_bigram_baseline) {
  const ch09::Baselines& b = fixture_report().baselines;
  BOOST_TEST(claim("real_01").holds, claim("real_01").numbers);
  BOOST_TEST(b.model < b.bigram);
  BOOST_TEST(b.bigram < b.unigram);  // n-gram ladder: more context, lower loss
  BOOST_TEST(b.unigram < b.uniform);
  BOOST_TEST(b.uniform == std::log(97.0), boost::test_tools::tolerance(1e-12));  // 97 tokens, as in the issue's study
}

BOOST_AUTO_TEST_CASE(claim_real_02_first_layer_previous_token_head) {
  BOOST_TEST(claim("real_02").holds, claim("real_02").numbers);
  BOOST_TEST(fixture_report().roles.previous_token.row(0).max() > 0.5);
}

BOOST_AUTO_TEST_CASE(claim_real_03_second_layer_induction_head_and_its_ablation) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_03").holds, claim("real_03").numbers);
  const arma::uword h = r.roles.induction_random.row(1).index_max();
  BOOST_TEST(r.roles.induction_random(1, h) > 0.3);
  const double rise = r.ablations.at(1 + 4 + h).random.repeat - r.roles.random.repeat;
  BOOST_TEST(r.ablations.at(1 + 4 + h).name == ch09::head_name(1, h));
  BOOST_TEST(rise > (r.roles.random.first - r.roles.random.repeat) / 2);
  // the circuit needs a first layer: zeroing layer 1 also undoes most of the repeat advantage
  BOOST_TEST(r.ablations.at(9).name == "all of layer 1");
  BOOST_TEST(r.ablations.at(9).random.repeat - r.roles.random.repeat >
             (r.roles.random.first - r.roles.random.repeat) / 2);
}

BOOST_AUTO_TEST_CASE(claim_real_04_weight_is_not_contribution) {
  BOOST_TEST(claim("real_04").holds, claim("real_04").numbers);
  const ch09::ContributionCase& e = fixture_report().contributions.example;
  BOOST_TEST(e.weights(e.top_weight) >= e.weights(e.top_contribution));
  BOOST_TEST(e.norms(e.top_contribution) > e.norms(e.top_weight));
}

BOOST_AUTO_TEST_CASE(claim_real_05_bank_with_controls) {
  const ch09::BankStudy& b = fixture_report().bank;
  BOOST_TEST(claim("real_05").holds, claim("real_05").numbers);
  BOOST_REQUIRE_EQUAL(b.cosines.n_rows, 4u);
  BOOST_REQUIRE_EQUAL(b.cosines.n_cols, 3u);  // embedding, after layer 1, after layer 2
  // "the river bank" and "the money bank" put the same 'k' at the same position: identical embeddings
  BOOST_TEST(b.cosines(0, 0) == 1.0, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(b.cosines(0, 2) < 1.0);  // the heads bring in the words before
}
BOOST_AUTO_TEST_CASE(claim_real_06_induction_head_writes_the_repeating_character) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_06").holds, claim("real_06").numbers);
  BOOST_TEST(r.copying.head == ch09::head_name(1, r.roles.induction_random.row(1).index_max()));
  BOOST_TEST(r.copying.share > 0.5);
  // Where it must fail: the previous-token head reads the current character, not the one after
  // its earlier copy, so decoding its writes the same way does not predict the repeat.
  const arma::uword prev = r.roles.previous_token.row(0).index_max();
  const ch09::Probes probes = ch09::make_probes(corpus(), vocab(), fixture_run().model.shape.context);
  const ch09::CopyingSection other = ch09::copying(fixture_run().model, probes, 0, prev);
  BOOST_TEST(other.cases == r.copying.cases);
  BOOST_TEST(!ch09::claim_head_copies(other).holds, ch09::claim_head_copies(other).numbers);
  // and the example of section 3, decoded: somewhere the sharpest head is not the strongest
  BOOST_TEST(r.writes.disagree > 0u);
}
BOOST_AUTO_TEST_CASE(claim_real_08_mean_and_zero_ablation_agree_on_the_induction_head) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_08").holds, claim("real_08").numbers);
  const arma::uword k = 4 + r.roles.induction_random.row(1).index_max();
  BOOST_TEST(r.compare.zero.col(1).index_max() == k);
  BOOST_TEST(r.compare.mean.col(1).index_max() == k);
  // Where it must fail: the same numbers with another head ranked first under mean ablation.
  ch09::AblationCompare other = r.compare;
  other.mean(0, 1) = other.mean.col(1).max() + 1.0;
  BOOST_TEST(!ch09::claim_ablations_agree(other, r.copying.head).holds);
  // and the patching example: the induction head's output from "sit" moves A's prediction to 'i'
  BOOST_TEST(r.patch.predicted_b == "i");
  BOOST_TEST(r.patch.rows.at(k).top == "i");
}
BOOST_AUTO_TEST_CASE(claim_real_07_the_induction_head_reads_the_previous_token_head) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_07").holds, claim("real_07").numbers);
  const ch09::CircuitSection& c = r.circuit;
  BOOST_TEST(ch09::head_name(0, c.k_composition.index_max()) == c.previous);
  BOOST_TEST(c.patched_repeat - c.clean_repeat > (c.first - c.clean_repeat) / 2);
  // The K-composition by an independent route: the key-side product written out from the weights.
  const ch09::Model& m = fixture_run().model;
  const arma::uword ind = r.roles.induction_random.row(1).index_max(), dk = m.shape.d_k;
  const auto slice = [&](const arma::fmat& W, arma::uword h) {
    return arma::mat(arma::conv_to<arma::mat>::from(W).cols(h * dk, h * dk + dk - 1));
  };
  const arma::mat qk = slice(m.layers[1].Wq, ind) * slice(m.layers[1].Wk, ind).t();
  for (arma::uword h = 0; h < m.shape.heads; ++h) {
    const arma::mat ov =
        slice(m.layers[0].Wv, h) * arma::conv_to<arma::mat>::from(m.layers[0].Wo).rows(h * dk, h * dk + dk - 1);
    const double k = arma::norm(qk * ov.t(), "fro") / (arma::norm(qk, "fro") * arma::norm(ov, "fro"));
    BOOST_TEST(c.k_composition(h) == k, boost::test_tools::tolerance(1e-9));
  }
  // Where it must fail: the same numbers with the previous-token head another head, or a patch
  // that costs the repeats less than half the advantage.
  ch09::CircuitSection other = c;
  other.previous = ch09::head_name(0, (c.k_composition.index_max() + 1) % m.shape.heads);
  BOOST_TEST(!ch09::claim_circuit(other).holds);
  other = c;
  other.patched_repeat = c.clean_repeat + (c.first - c.clean_repeat) / 4;
  BOOST_TEST(!ch09::claim_circuit(other).holds);
}
#else
// The sanitizers' short run: every part of the report is computed on it, each claim judged and
// tagged, with finite numbers; the ladder of baselines does not depend on the model.
BOOST_AUTO_TEST_CASE(short_run_report_is_complete) {
  const ch09::Report& r = fixture_report();
  BOOST_REQUIRE_EQUAL(r.claims.size(), 8u);
  for (const char* tag : {"real_01", "real_02", "real_03", "real_04", "real_05", "real_06", "real_07", "real_08"}) {
    const ch09::Claim& c = claim(tag);  // throws if the report lacks it
    BOOST_TEST(!c.numbers.empty(), tag);
    BOOST_TEST(c.numbers.find("nan") == std::string::npos, c.numbers);
  }
  const ch09::Baselines& b = r.baselines;
  BOOST_TEST(b.bigram < b.unigram);
  BOOST_TEST(b.unigram < b.uniform);
  BOOST_TEST(std::isfinite(b.model));
  BOOST_TEST(b.model < b.uniform);  // 300 steps already beat guessing
  BOOST_TEST(r.roles.previous_token.is_finite());
  const attn::AttnOnlyShape& shape = fixture_run().model.shape;
  BOOST_TEST(r.ablations.size() == 1 + shape.layers * shape.heads + shape.layers);
}
#endif

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(data)

BOOST_AUTO_TEST_CASE(fortunes_corpus_as_the_issue_measured_it) {
  const ch09::Corpus& c = corpus();
  BOOST_TEST(c.files.size() == 43u);
  BOOST_TEST(c.entries == 15217u);
  BOOST_TEST(c.held_entries == (15217u + 19) / 20);  // every 20th entry
  BOOST_TEST(vocab().size() == 97u);
  BOOST_TEST(vocab().token('\n') == 0u);
  BOOST_TEST(vocab().token('\t') == vocab().unknown());
}

BOOST_AUTO_TEST_CASE(reader_splits_entries_and_holds_out_every_twentieth) {
  const fs::path dir = fake_fortunes();
  const ch09::Corpus c = ch09::read_corpus(dir.string());
  BOOST_TEST(c.files == (std::vector<std::string>{"alpha", "beta"}));  // .dat and the .u8 link skipped
  BOOST_TEST(c.entries == 40u);
  BOOST_TEST(c.held_entries == 2u);  // entries 0 and 20
  BOOST_TEST(c.held_text.rfind("entry a0 ", 0) == 0u);
  BOOST_TEST(c.held_text.find("entry a20 ") != std::string::npos);
  BOOST_TEST(c.train_text.find("entry a20 ") == std::string::npos);
  BOOST_TEST(c.train_text.find('%') == std::string::npos);
  const ch09::Vocabulary v(c.train_text);
  BOOST_TEST(v.characters().substr(0, 2) == "\n ");
  BOOST_TEST(v.size() == v.characters().size() + 1);
  BOOST_TEST(v.label(v.token('\t')) == "UNK");
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(missing_folder_is_a_clear_error) {
  try {
    ch09::read_corpus("/nonexistent/fortunes");
    BOOST_FAIL("no error");
  } catch (const std::runtime_error& e) {
    // A folder other than Debian's: named, and no install advice that would not fill it.
    BOOST_TEST(std::string(e.what()) == "the fortunes folder /nonexistent/fortunes is missing");
  }
}

BOOST_AUTO_TEST_CASE(windows_repeat_their_snippet_right_after_it) {
  attn::Random rng(4);
  const arma::urowvec text = vocab().encode(corpus().train_text.substr(0, 5000));
  const ch09::Windows w = ch09::sample_windows(rng, text, 40, {});
  for (arma::uword b = 0; b < 40; ++b) {
    const attn::Block& k = w.blocks[b];
    BOOST_TEST(k.length >= 10u);
    BOOST_TEST(k.length <= 64u);
    BOOST_TEST(k.start + 2 * k.length <= 128u);
    for (arma::uword j = 0; j < k.length; ++j)
      BOOST_TEST(w.tokens(b, k.start + j) == w.tokens(b, k.start + k.length + j));
  }
  const ch09::Windows plain = ch09::sample_windows(rng, text, 10, {128, 0.0, 10, 64});
  for (const attn::Block& k : plain.blocks) BOOST_TEST(k.length == 0u);
  BOOST_CHECK_THROW(ch09::sample_windows(rng, text, 1, {128, 1.0, 10, 65}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(measurements)

BOOST_AUTO_TEST_CASE(contributions_compare_argmaxes_of_weights_and_sizes) {
  ch09::HeadView v;
  v.layers = 1, v.heads = 1, v.labels = {"a", "b", "c"};
  v.weights = {arma::mat{{1, 0, 0}, {0.6, 0.4, 0}, {0.2, 0.3, 0.5}}};
  // sizes ||v_j W_O|| of 1, 2 and 0.5: at position 1 the 0.4 weight carries 0.8 > 0.6
  v.contributions = {arma::mat{{1, 0, 0}, {0.6, 0.8, 0}, {0.2, 0.6, 0.25}}};
  const ch09::Contributions c = ch09::contributions(v);
  BOOST_TEST(c.cases == 2u);
  BOOST_TEST(c.disagree == 2u);
  BOOST_TEST(c.example.query == 2u);  // top weight 0.5 carries 0.25 of 0.6: the starker case
  BOOST_TEST(c.example.top_weight == 2u);
  BOOST_TEST(c.example.top_contribution == 1u);
  BOOST_TEST(ch09::claim_contribution_differs(c).holds);
}

BOOST_AUTO_TEST_CASE(contribution_sizes_are_weights_times_value_sizes) {
  // Independent route for one head: a_ij * || V_j Wo_h || from the model's own matrices.
  attn::Random rng(3);
  const ch09::Model m = attn::init_model<ch09::Real>({vocab().size(), 128, 8, 2, 4, 2, true}, rng);
  const ch09::HeadView v = ch09::head_view(m, vocab(), "abc abd");
  ch09::Pass pass;
  arma::umat tokens(1, 128);
  tokens.fill(vocab().token(' '));
  tokens.cols(0, 6) = vocab().encode("abc abd");
  attn::forward(m, tokens, pass);
  const arma::mat V = arma::conv_to<arma::mat>::from(pass.layers[1].part(2)),
                  Wo = arma::conv_to<arma::mat>::from(m.layers[1].Wo);
  const arma::mat A = arma::conv_to<arma::mat>::from(attn::attention_pattern(pass, 1, 1, 0));
  for (arma::uword j = 0; j <= 5; ++j) {
    const double size = arma::norm(V.submat(j, 4, j, 7) * Wo.rows(4, 7));
    // head_view runs the fast pass and this route the readable one: equal to float rounding
    BOOST_TEST(v.contributions[3](5, j) == A(5, j) * size, boost::test_tools::tolerance(1e-5));
  }
  BOOST_CHECK_THROW(ch09::head_view(m, vocab(), ""), std::invalid_argument);
}

// The decomposition every decoding tool reads, checked against two independent routes: the
// library's readable float pass gives the same logits, and the direct logit attributions of the
// embedding and of every head's write, plus the norm's bias through U, add up to the logits.
BOOST_AUTO_TEST_CASE(direct_logit_attributions_add_up_to_the_logits) {
  attn::Random rng(5);
  const ch09::Model m = attn::init_model<ch09::Real>({vocab().size(), 128, 8, 2, 4, 2, true}, rng);
  arma::urowvec tokens(128);
  tokens.fill(vocab().token(' '));
  tokens.cols(0, 17) = vocab().encode("the bank, the bank");
  const ch09::Trace tr = ch09::trace(m, tokens);
  ch09::Pass pass;
  attn::forward(m, arma::umat(tokens), pass);
  BOOST_TEST(arma::approx_equal(tr.logits, arma::conv_to<arma::mat>::from(pass.logits), "absdiff", 1e-4));
  BOOST_TEST(ch09::trace(m, tokens.cols(0, 17)).logits.n_rows == 18u);  // a shorter window: the same causal rows
  const arma::rowvec bias_logits = arma::conv_to<arma::rowvec>::from(m.bias * m.U);
  for (const arma::uword t : {0u, 7u, 17u}) {
    arma::rowvec sum = ch09::direct_logits(m, tr, t, tr.streams[0].row(t)) + bias_logits;
    for (const arma::mat& w : tr.writes) sum += ch09::direct_logits(m, tr, t, w.row(t));
    BOOST_TEST(arma::approx_equal(sum, tr.logits.row(t), "absdiff", 1e-9));
  }
  // A head zeroed by a patch changes the stream by exactly its write.
  ch09::Patch zero;
  zero.writes.emplace_back(3, arma::mat(1, 8, arma::fill::zeros));  // L2.H1
  const ch09::Trace z = ch09::trace(m, tokens, zero);
  BOOST_TEST(arma::approx_equal(z.streams[2], tr.streams[2] - tr.writes[3], "absdiff", 1e-9));
  BOOST_CHECK_THROW(ch09::direct_logits(m, tr, 128, tr.writes[0].row(0)), std::invalid_argument);
}

// Zero ablation through the double pass's patch equals the library's own head mask (an independent
// route); mean ablation differs from it by the constant the head adds; patching B's final stream at
// A's last position gives B's prediction there, and patching a sentence from itself changes nothing.
BOOST_AUTO_TEST_CASE(ablations_and_patches_agree_with_independent_routes) {
  attn::Random rng(6);
  const ch09::Model m = attn::init_model<ch09::Real>({vocab().size(), 128, 8, 2, 4, 2, true}, rng);
  const ch09::Probes probes = ch09::make_probes(corpus(), vocab(), 128);
  const ch09::AblationCompare c = ch09::compare_ablations(m, probes, 3);
  BOOST_TEST(c.windows == 3u);
  for (arma::uword k = 0; k < 4; ++k) {
    arma::mat keep(2, 2, arma::fill::ones);
    keep(k / 2, k % 2) = 0.0;
    ch09::Pass pass;
    attn::forward(m, arma::umat(probes.plain.rows(0, 2)), pass, &keep);
    const double held = arma::mean(arma::vectorise(attn::next_token_losses(pass, probes.plain.rows(0, 2))));
    BOOST_TEST(c.held_out + c.zero(k, 0) == held, boost::test_tools::tolerance(1e-4));
  }
  const ch09::PatchingSection p = ch09::patching(m, vocab(), "abcd", "abce");
  const ch09::Trace b = ch09::trace(m, vocab().encode("abce"));
  const arma::rowvec pb = arma::exp(b.logits.row(3) - b.logits.row(3).max()) /
                          arma::accu(arma::exp(b.logits.row(3) - b.logits.row(3).max()));
  BOOST_TEST(p.rows.back().what == "the final stream");
  BOOST_TEST(p.rows.back().p_b == pb.max(), boost::test_tools::tolerance(1e-9));
  const ch09::PatchingSection same = ch09::patching(m, vocab(), "abcd", "abcd");
  for (const ch09::PatchRow& row : same.rows) BOOST_TEST(row.p_a == same.clean_p_a, boost::test_tools::tolerance(1e-9));
  BOOST_CHECK_THROW(ch09::patching(m, vocab(), "abc", "abcd"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(copying_claim_fails_at_half_or_less) {
  BOOST_TEST(!ch09::claim_head_copies({"L2.H1", 100, 50, 0.5}).holds);
  BOOST_TEST(ch09::claim_head_copies({"L2.H1", 100, 51, 0.51}).holds);
  BOOST_TEST(ch09::claim_head_copies({"L2.H1", 100, 51, 0.51}).tag == "real_06");
}

BOOST_AUTO_TEST_CASE(claims_report_what_they_measure) {
  ch09::Baselines b;
  b.bigram = 2.6, b.model = 2.7;
  BOOST_TEST(!ch09::claim_beats_bigram(b).holds);
  // The numbers state the relation they have, never a false one.
  BOOST_TEST(ch09::claim_beats_bigram(b).numbers == "model 2.700 > bigram 2.600 nats/char");
  b.model = 2.2;
  BOOST_TEST(ch09::claim_beats_bigram(b).holds);
  BOOST_TEST(ch09::claim_beats_bigram(b).numbers == "model 2.200 < bigram 2.600 nats/char");
  BOOST_TEST(ch09::claim_beats_bigram(b).tag == "real_01");
}

// Each claim function on made-up numbers for which it must fail (and, beside, hold).
BOOST_AUTO_TEST_CASE(claims_fail_when_their_numbers_do_not_support_them) {
  ch09::Roles r;
  r.previous_token = arma::mat(2, 4, arma::fill::value(0.4));
  BOOST_TEST(!ch09::claim_previous_token_head(r).holds);  // 0.4 < 0.5
  r.previous_token(0, 2) = 0.6;
  BOOST_TEST(ch09::claim_previous_token_head(r).holds);
  BOOST_TEST(ch09::claim_previous_token_head(r).numbers.find("L1.H2") !=
             std::string::npos);  // head_name counts heads from 0
  // real_03: a strong induction score whose ablation costs too little fails
  r.induction_random = arma::mat(2, 4, arma::fill::value(0.1));
  r.induction_random(1, 0) = 0.5;
  r.random = {3.0, 1.0};  // in-context advantage 2, half of it 1
  std::vector<ch09::Ablation> a(11);
  a[1 + 4].random.repeat = 1.5;  // zeroing L2.H1 raises the repeat loss by 0.5 < 1
  BOOST_TEST(!ch09::claim_induction_head(r, a).holds);
  a[1 + 4].random.repeat = 2.5;  // by 1.5 > 1
  BOOST_TEST(ch09::claim_induction_head(r, a).holds);
  r.induction_random(1, 0) = 0.2;  // but then the score is too low
  BOOST_TEST(!ch09::claim_induction_head(r, a).holds);
  ch09::Contributions c;
  c.cases = 10;
  BOOST_TEST(!ch09::claim_contribution_differs(c).holds);  // no disagreement
  c.disagree = 1;
  BOOST_TEST(ch09::claim_contribution_differs(c).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

BOOST_AUTO_TEST_CASE(loaded_model_prints_every_claim_and_draws_valid_plots) {
  const fs::path dir = fs::path(TEST_PLOTS) / "loaded";
  const auto r = attn::test::run_with_plots(std::string(CHAPTER_EXE) + " --load " + attn::test::quote(CH09_MODEL), dir);
  BOOST_TEST(r.code == 0, r.err);
  attn::test::check_contains(r.out, {"[real_01]", "[real_02]", "[real_03]", "[real_04]", "[real_05]", "[real_06]",
                                     "[real_07]", "[real_08]", "Loaded the model"});
  for (const char* name :
       {"ch09_loss_curve", "ch09_head_view", "ch09_contributions", "ch09_head_roles", "ch09_ablations", "ch09_bank"}) {
    BOOST_TEST(attn::is_valid_png(dir / (std::string(name) + ".png")), name);
  }
  BOOST_TEST(!attn::test::has_nan_word(r.out));
}

BOOST_AUTO_TEST_CASE(bad_flags_exit_2_with_one_line) {
  for (const char* flags :
       {"--steps 0", "--steps -4", "--repeat-share 1.5", "--lr 0", "--lr nan", "--seed x", "--sentence ''", "--bogus",
        "--load /tmp --steps 5", "--load /tmp --lr 0.1", "--bench 3 --plots /tmp/ch09-bench",
        "--cached /tmp/x --save /tmp/y", "--plots /dev/null/x --steps 1", "--position 25", "--position -1"}) {
    attn::test::check_usage_error(std::string(CHAPTER_EXE) + " " + flags, "ch09_real_heads");
  }
}

// A --corpus or --load folder the reader named that cannot be used is an unusable input, refused
// before any output like ch05's --init (exit 2), in one line naming the flag.
BOOST_AUTO_TEST_CASE(an_unusable_corpus_or_model_folder_exits_2_naming_its_flag) {
  const fs::path small = fs::temp_directory_path() / ("attn-ch09-small-" + std::to_string(::getpid()));
  fs::create_directories(small);
  std::ofstream(small / "tiny") << "a fortune\n%\nanother\n";  // far too little text to train on
                                                               // clang-format off
  for (const auto& [flags, says] :
       {std::pair<std::string, std::string>{"--corpus /nonexistent/fortunes", "error: --corpus: the fortunes folder "
                                                                              "/nonexistent/fortunes is missing"},
        {"--corpus " + attn::test::quote(small.string()), "error: --corpus: the fortunes folder " + small.string() +
                                                          " holds too little text"},
        {"--corpus ''", "--corpus needs a non-empty path"},
        {"--load /nonexistent/model", "error: --load: cannot read /nonexistent/model/run.txt"}}) {
    // clang-format on
    const auto r = attn::test::run(std::string(CHAPTER_EXE) + " --no-plots " + flags);
    BOOST_TEST(r.code == 2, flags);
    BOOST_TEST(r.out == "", flags);
    BOOST_TEST(attn::test::line_count(r.err) == 1u, flags << ": " << r.err);
    BOOST_TEST(r.err.rfind("ch09_real_heads: error: ", 0) == 0u, r.err);
    BOOST_TEST(r.err.find(says) != std::string::npos, flags << ": " << r.err);
    BOOST_TEST(r.err.find("apt-get") == std::string::npos, r.err);  // no install advice for the reader's folder
  }
  fs::remove_all(small);
}

BOOST_AUTO_TEST_CASE(divergence_is_said_plainly_and_exits_1) {
  const auto r = attn::test::run(std::string(CHAPTER_EXE) + " --lr 1 --steps 200 --no-plots");
  BOOST_TEST(r.code == 1, r.err);
  BOOST_TEST(r.err.find("diverged at step") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("smaller --lr") != std::string::npos, r.err);
  BOOST_TEST(r.out.find("[real_01]") == std::string::npos);  // claims skipped
}

BOOST_AUTO_TEST_SUITE_END()
