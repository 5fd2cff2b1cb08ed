/// \file test_ch09_real_heads.cpp
/// \brief Chapter 09: claims real_01..real_08 of docs/claims.md on the model the ch09_train
/// fixture trained once (the full run in the release build; under the sanitizers a short run, on
/// which the report is computed whole but no claim is judged), the corpus reader on a folder built here, the
/// windows, the baselines and contributions on hand-made inputs, and the program run as a reader would.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "common/apparatus/plot.hpp"
#include "lab.hpp"
#include "program.hpp"
#include "study.hpp"
#include "support.hpp"

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

/// The run the fixture saved (or, for scripts/robustness.py, the folder the environment variable
/// CH09_MODEL names), and the program's report on it, computed once.
const ch09::Run& fixture_run() {
  static const ch09::Run run =
      ch09::load_run(std::getenv("CH09_MODEL") ? std::getenv("CH09_MODEL") : CH09_MODEL, vocab());
  return run;
}

const ch09::Report& fixture_report() {
  static const ch09::Report r = ch09::make_report(corpus(), vocab(), fixture_run(), ch09::kDefaultSentence);
  return r;
}

/// The claims checked on the fixture's report, once.
const std::vector<app::ClaimCheck>& fixture_claims() {
  static const std::vector<app::ClaimCheck> c = ch09::check_claims(fixture_report());
  return c;
}

const app::ClaimCheck& claim(const std::string& tag) {
  for (const app::ClaimCheck& c : fixture_claims()) {
    if (c.id == tag) return c;
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

// The printers show claims[k] under the section it is about, so the order is part of the contract.
BOOST_AUTO_TEST_CASE(claims_come_in_their_id_order) {
  const std::vector<app::ClaimCheck>& c = fixture_claims();
  BOOST_REQUIRE_EQUAL(c.size(), 8u);
  for (std::size_t k = 0; k < c.size(); ++k) BOOST_TEST(c[k].id == "real_0" + std::to_string(k + 1));
}

#if CH09_FULL
BOOST_AUTO_TEST_CASE(claim_real_01_beats_the_bigram_baseline) {
  const ch09::Baselines& b = fixture_report().baselines;
  BOOST_TEST(claim("real_01").holds, claim("real_01").evidence);
  BOOST_TEST(b.model < b.bigram);
  BOOST_TEST(b.bigram < b.unigram);  // n-gram ladder: more context, lower loss
  BOOST_TEST(b.unigram < b.uniform);
  BOOST_TEST(b.uniform == std::log(97.0), boost::test_tools::tolerance(1e-12));  // 97 tokens, as in the issue's study
}

BOOST_AUTO_TEST_CASE(claim_real_02_first_layer_previous_token_head) {
  BOOST_TEST(claim("real_02").holds, claim("real_02").evidence);
  BOOST_TEST(fixture_report().roles.previous_token.row(0).max() > 0.5);
}

BOOST_AUTO_TEST_CASE(claim_real_03_second_layer_induction_head_and_its_ablation) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_03").holds, claim("real_03").evidence);
  BOOST_TEST(r.roles.induction_random.row(1).max() > 0.3);
  // the induction heads: every second-layer head above 0.3, zeroed together
  arma::mat keep(2, 4, arma::fill::ones);
  std::vector<arma::uword> above;
  for (arma::uword g = 0; g < 4; ++g) {
    if (r.roles.induction_random(1, g) > 0.3) above.push_back(g), keep(1, g) = 0.0;
  }
  BOOST_TEST(r.induction_heads == above);
  const ch09::Probes probes = ch09::make_probes(corpus(), vocab(), fixture_run().model.shape.context);
  const ch09::Ablation zeroed = ch09::ablate(fixture_run().model, probes, "the induction heads", keep);
  BOOST_TEST(zeroed.random.repeat == r.induction_zeroed.random.repeat, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(zeroed.random.repeat - r.roles.random.repeat > (r.roles.random.first - r.roles.random.repeat) / 2);
  // the one the circuit section studies: of those, the one whose zeroing alone costs the repeats most
  const double alone = r.ablations.at(1 + 4 + r.induction).random.repeat;
  BOOST_TEST(r.ablations.at(1 + 4 + r.induction).name == ch09::head_name(1, r.induction));
  for (const arma::uword g : above) BOOST_TEST(r.ablations.at(1 + 4 + g).random.repeat <= alone);
  // the circuit needs a first layer: zeroing layer 1 also undoes most of the repeat advantage
  BOOST_TEST(r.ablations.at(9).name == "all of layer 1");
  BOOST_TEST(r.ablations.at(9).random.repeat - r.roles.random.repeat >
             (r.roles.random.first - r.roles.random.repeat) / 2);
}

BOOST_AUTO_TEST_CASE(claim_real_04_weight_is_not_contribution) {
  BOOST_TEST(claim("real_04").holds, claim("real_04").evidence);
  const ch09::ContributionCase& e = fixture_report().contributions.example;
  BOOST_TEST(e.weights(e.top_weight) >= e.weights(e.top_contribution));
  BOOST_TEST(e.norms(e.top_contribution) > e.norms(e.top_weight));
}

BOOST_AUTO_TEST_CASE(claim_real_05_bank_with_controls) {
  const ch09::BankStudy& b = fixture_report().bank;
  BOOST_TEST(claim("real_05").holds, claim("real_05").evidence);
  BOOST_REQUIRE_EQUAL(b.sense.n_rows, 8u);
  BOOST_REQUIRE_EQUAL(b.sense.n_cols, 3u);  // embedding, after layer 1, after layer 2
  // After the embedding an item's four readings are one vector, the centre's too: nothing is left.
  BOOST_TEST(!b.sense.col(0).is_finite());
  BOOST_TEST(b.apart(0) == 0u);
  // After the layers the words before bank move its reading, in the sense pair and the controls alike.
  BOOST_TEST(b.sense.tail_cols(2).is_finite());
  BOOST_TEST(b.letters >= ch09::kLettersSeen);
  for (arma::uword k = 1; k < 3; ++k) {
    BOOST_TEST(b.apart(k) == arma::accu(b.control.col(k) > b.sense.col(k)));
    BOOST_TEST(b.p_value(k) >= ch09::kSenseLevel);
  }
}
BOOST_AUTO_TEST_CASE(claim_real_06_induction_head_writes_the_repeating_character) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_06").holds, claim("real_06").evidence);
  BOOST_TEST(r.copying.head == ch09::head_list(1, r.induction_heads));
  BOOST_TEST(r.copying.share > 0.5);
  // Where it must fail: the previous-token head reads the current character, not the one after
  // its earlier copy, so decoding its writes the same way does not predict the repeat.
  const arma::uword prev = r.roles.previous_token.row(0).index_max();
  const ch09::Probes probes = ch09::make_probes(corpus(), vocab(), fixture_run().model.shape.context);
  const ch09::CopyingSection other = ch09::copying(fixture_run().model, probes, 0, {prev});
  BOOST_TEST(other.cases == r.copying.cases);
  BOOST_TEST(!ch09::claim_head_copies(other).holds, ch09::claim_head_copies(other).evidence);
  // and the example of section 3, decoded: somewhere the sharpest head is not the strongest
  BOOST_TEST(r.writes.disagree > 0u);
}
BOOST_AUTO_TEST_CASE(claim_real_08_mean_and_zero_ablation_agree_on_the_induction_head) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_08").holds, claim("real_08").evidence);
  const arma::uword p = r.roles.previous_token.row(0).index_max();
  std::vector<std::string> names;
  const auto is_induction = [&](arma::uword i) {
    return i >= 4 && std::find(r.induction_heads.begin(), r.induction_heads.end(), i - 4) != r.induction_heads.end();
  };
  for (const arma::uword h : r.induction_heads) names.push_back(ch09::head_name(1, h));
  // under both ablations the largest repeat-loss rise is an induction head's or the previous-token
  // head's, and the largest of the second layer is an induction head's
  for (const arma::mat* rises : {&r.zero_vs_mean.zero, &r.zero_vs_mean.mean}) {
    const arma::uword top = rises->col(1).index_max();
    BOOST_TEST((is_induction(top) || top == p));
    BOOST_TEST(is_induction(4 + arma::vec(rises->col(1).rows(4, 7)).index_max()));
  }
  // Where it must fail: a head outside the circuit ranked first under mean ablation,
  const arma::uword outside = p == 0 ? 1 : 0;
  ch09::AblationCompare other = r.zero_vs_mean;
  other.mean(outside, 1) = other.mean.col(1).max() + 1.0;
  BOOST_TEST(!ch09::claim_ablations_agree(other, names, r.circuit.previous).holds);
  // or a second-layer head that is no induction head first in its layer under zero ablation.
  arma::uword plain = 4;
  while (plain < 8 && is_induction(plain)) ++plain;
  if (plain < 8) {
    other = r.zero_vs_mean;
    other.zero(plain, 1) = other.zero.col(1).rows(4, 7).max() + 0.001;
    BOOST_TEST(!ch09::claim_ablations_agree(other, names, r.circuit.previous).holds);
  }
  // and the patching example, picked by its rule: the model copies at least two of the five
  // sentences, A and B are the first two, and the induction head's output from B alone moves A's
  // prediction to B's copy
  BOOST_TEST(r.patch_pair.copied >= 2u);
  BOOST_TEST(r.patch.predicted_a == std::string(1, ch09::copy_target(r.patch.a)));
  BOOST_TEST(r.patch.predicted_b == std::string(1, ch09::copy_target(r.patch.b)));
  BOOST_TEST(r.patch.predicted_a != r.patch.predicted_b);
  // the heads whose output from B alone moves A's prediction to B's copy are induction heads; some
  // do, or the induction heads do at once where they share the job (a last row)
  arma::uword moving = 0;
  for (arma::uword k = 0; k < 8; ++k) {
    if (r.patch.rows.at(k).top != r.patch.predicted_b) continue;
    ++moving;
    BOOST_TEST(is_induction(k), r.patch.rows.at(k).what);
  }
  BOOST_REQUIRE_EQUAL(r.patch.rows.size(), r.induction_heads.size() > 1 ? 12u : 11u);
  if (r.induction_heads.size() > 1 && r.patch.rows.back().top == r.patch.predicted_b) ++moving;
  BOOST_TEST(moving >= 1u);
}
BOOST_AUTO_TEST_CASE(claim_real_07_the_induction_head_reads_the_previous_token_head) {
  const ch09::Report& r = fixture_report();
  BOOST_TEST(claim("real_07").holds, claim("real_07").evidence);
  const ch09::CircuitSection& c = r.circuit;
  BOOST_TEST(ch09::head_name(0, c.previous_head) == c.previous);
  BOOST_TEST(c.patched_repeat - c.clean_repeat > (c.first - c.clean_repeat) / 2);
  // the K-composition's rank is printed, not judged: the rank the numbers give
  const arma::uword rank = 1 + arma::accu(c.k_composition > c.k_composition(c.previous_head));
  BOOST_TEST(claim("real_07").evidence.find("ranks " + std::to_string(rank) + " of 4") != std::string::npos);
  // The K-composition by an independent route: the key-side product written out from the weights.
  const ch09::Model& m = fixture_run().model;
  const arma::uword ind = r.induction, dk = m.shape.d_k;
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
  // Where it must fail: a patch that costs the repeats less than half the advantage.
  ch09::CircuitSection other = c;
  other.patched_repeat = c.clean_repeat + (c.first - c.clean_repeat) / 4;
  BOOST_TEST(!ch09::claim_circuit(other).holds);
}
#else
// The sanitizers' short run: every part of the report is computed on it, each claim judged and
// tagged, with finite numbers; the ladder of baselines does not depend on the model.
BOOST_AUTO_TEST_CASE(short_run_report_is_complete) {
  const ch09::Report& r = fixture_report();
  for (const char* tag : {"real_01", "real_02", "real_03", "real_04", "real_05", "real_06", "real_07", "real_08"}) {
    const app::ClaimCheck& c = claim(tag);  // throws if the report lacks it
    BOOST_TEST(!c.evidence.empty(), tag);
    BOOST_TEST(c.evidence.find("nan") == std::string::npos, c.evidence);
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

// A fortune file is any regular file, or link to one, whatever its name; only strfile's .dat
// indexes and Debian's .u8 links are skipped. A folder without one says so; the system's folders
// are refused.
BOOST_AUTO_TEST_CASE(any_named_file_or_link_is_read_and_a_folder_without_one_says_so) {
  const fs::path dir = fake_fortunes();
  const fs::path other = fs::temp_directory_path() / ("attn-ch09-named-" + std::to_string(::getpid()));
  fs::remove_all(other);
  fs::create_directories(other / "folder");
  fs::copy_file(dir / "alpha", other / "alpha.txt");
  fs::create_symlink(dir / "beta", other / "beta");  // a link to a fortune file elsewhere
  std::ofstream(other / "alpha.txt.dat") << "index";
  const ch09::Corpus c = ch09::read_corpus(other.string());
  BOOST_TEST(c.files == (std::vector<std::string>{"alpha.txt", "beta"}));
  BOOST_TEST(c.entries == 40u);
  const fs::path empty = other / "folder";  // a subfolder only: no fortune file
  BOOST_CHECK_EXCEPTION(ch09::read_corpus(empty.string()), std::runtime_error, [](const std::runtime_error& e) {
    return std::string(e.what()).find("holds no fortune file") != std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(ch09::read_corpus("/proc/self"), std::runtime_error, [](const std::runtime_error& e) {
    return std::string(e.what()).find("is in /proc") != std::string::npos;
  });
  fs::remove_all(other);
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(missing_folder_is_a_clear_error) {
  try {
    ch09::read_corpus("/nonexistent/fortunes");
    BOOST_FAIL("no error");
  } catch (const std::runtime_error& e) {
    // A folder other than Debian's: named, and no install advice that would not fill it.
    BOOST_TEST(std::string(e.what()) == "the fortunes folder '/nonexistent/fortunes' is missing");
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

BOOST_AUTO_TEST_CASE(the_patching_pair_asks_for_the_vowel_of_the_earlier_copy) {
  BOOST_TEST(ch09::copy_target("the cat sat. the cat s") == 'a');
  BOOST_TEST(ch09::copy_target("the cat sut. the cat s") == 'u');
  BOOST_TEST(ch09::copy_target("no repeat here") == '\0');
  BOOST_TEST(ch09::copy_target("abc. abc") == '\0');  // nothing follows the earlier copy
  BOOST_TEST(ch09::copy_target("abc. abd") == '\0');  // not a repeat
  for (const std::string& s : ch09::kPatchCandidates) BOOST_TEST(s.size() == ch09::kPatchCandidates[0].size());
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
  // A head zeroed by a hook changes the stream by exactly its write.
  const attn::Hooks zero = attn::replacing_head(1, 1, arma::mat(1, 8, arma::fill::zeros));  // L2.H1
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

// real_05 on representations built here: eight items, width 4, the embedding and two layers. The
// words' letters put the river and money readings in directions Lr and Lm; each letter control is
// its word moved a tenth of the way toward the other word (items 0, 2, ..: the controls then sit
// closer than the sense pair) or away from it (items 1, 3, ..). With no sense direction, half the
// items put the sense pair further apart: the claim holds. A sense direction u added to the river
// reading and taken from the money one (not to the controls) puts it further apart in all eight:
// p = 1/256, the claim must fail. Readings that ignore the word (all four the same) must fail too.
BOOST_AUTO_TEST_CASE(claim_real_05_verdict_follows_built_representations) {
  const auto items = [](double sense, bool blind) {
    std::vector<ch09::BankItemReadings> out;
    const arma::rowvec u{0, 0, 0, 1}, word{0.5, 0.5, 0.5, 0.5};
    for (arma::uword i = 0; i < 8; ++i) {
      const double d = 0.1 * static_cast<double>(i), t = i % 2 == 0 ? 0.1 : -0.1;
      const arma::rowvec lr{1, d, 0, 0}, lm{0, 1, d, 0};
      const arma::rowvec r = lr + sense * u, m = lm - sense * u;
      const arma::rowvec rc = lr + t * (lm - lr), mc = lm + t * (lr - lm);
      ch09::BankItemReadings it{arma::mat(3, 4), arma::mat(3, 4), arma::mat(3, 4), arma::mat(3, 4),
                                arma::mat(3, 4, arma::fill::value(0.25))};
      for (arma::mat* x : {&it.river, &it.money, &it.river_ctl, &it.money_ctl}) x->row(0) = word;  // same 'k'
      for (arma::uword k = 1; k < 3; ++k) {
        it.river.row(k) = blind ? word : r;
        it.money.row(k) = blind ? word : m;
        it.river_ctl.row(k) = blind ? word : rc;
        it.money_ctl.row(k) = blind ? word : mc;
      }
      out.push_back(it);
    }
    return out;
  };
  const ch09::BankStudy letters = ch09::tally_bank(items(0.0, false));
  BOOST_TEST(letters.apart(1) == 4u);
  BOOST_TEST(letters.apart(2) == 4u);
  BOOST_TEST(letters.p_value(2) == 163.0 / 256.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(letters.apart(0) == 0u);  // the same 'k': every cosine 1, no item apart
  BOOST_TEST(ch09::claim_bank_controls(letters).holds, ch09::claim_bank_controls(letters).evidence);
  const ch09::BankStudy sense = ch09::tally_bank(items(2.0, false));
  BOOST_TEST(sense.apart(2) == 8u);
  BOOST_TEST(sense.p_value(2) == 1.0 / 256.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(!ch09::claim_bank_controls(sense).holds, ch09::claim_bank_controls(sense).evidence);
  BOOST_TEST(ch09::claim_bank_controls(sense).evidence.find("p = 0.004 < 0.05") != std::string::npos);
  const ch09::BankStudy blind = ch09::tally_bank(items(0.0, true));
  BOOST_TEST(blind.letters == 0.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(!ch09::claim_bank_controls(blind).holds, ch09::claim_bank_controls(blind).evidence);
  BOOST_CHECK_THROW(ch09::tally_bank({}), std::invalid_argument);
}

// The one-sided sign test, P(X >= k) for X ~ Binomial(n, 1/2), from counts of subsets by hand.
BOOST_AUTO_TEST_CASE(sign_test_counts_subsets) {
  using boost::test_tools::tolerance;
  BOOST_TEST(ch09::sign_test(8, 8) == 1.0 / 256.0, tolerance(1e-15));
  BOOST_TEST(ch09::sign_test(7, 8) == 9.0 / 256.0, tolerance(1e-15));  // C(8,7) + C(8,8)
  BOOST_TEST(ch09::sign_test(3, 5) == 16.0 / 32.0, tolerance(1e-15));  // C(5,3) + C(5,4) + C(5,5)
  BOOST_TEST(ch09::sign_test(0, 8) == 1.0, tolerance(1e-15));
}

// The bank study's items are matched: in each, four sentences of one length with bank's final 'k' at
// one position, each letter control its sense word with exactly one letter changed.
BOOST_AUTO_TEST_CASE(bank_items_are_matched) {
  const auto one_letter = [](const std::string& a, const std::string& b) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i];
    return a.size() == b.size() && differ == 1;
  };
  for (const ch09::BankItem& it : ch09::bank_items()) {
    const std::string r = ch09::fill(it.frame, it.river);
    for (const std::string& w : {it.money, it.river_ctl, it.money_ctl}) {
      BOOST_TEST(ch09::fill(it.frame, w).size() == r.size(), it.frame << " " << w);
      BOOST_TEST(ch09::fill(it.frame, w).rfind("bank") == r.rfind("bank"), it.frame << " " << w);
    }
    BOOST_TEST(one_letter(it.river, it.river_ctl), it.river << " " << it.river_ctl);
    BOOST_TEST(one_letter(it.money, it.money_ctl), it.money << " " << it.money_ctl);
  }
}

// --compare's marker syntax: brackets mark the span read at its last character; one marked
// sentence marks the other at the span's last occurrence; unmarked, the last word both share.
BOOST_AUTO_TEST_CASE(compare_reads_the_marked_positions) {
  const ch09::MarkedPair p = ch09::mark_pair("the river [bank]", "the [money] bank", 128);
  BOOST_TEST(p.a.text == "the river bank");
  BOOST_TEST(p.a.first == 10u);
  BOOST_TEST(p.a.last == 13u);
  BOOST_TEST(ch09::span_of(p.b) == "money");
  BOOST_TEST(p.b.last == 8u);
  BOOST_TEST(!ch09::is_matched(p));
  const ch09::MarkedPair shared = ch09::mark_pair("the bank of the river", "a bank by the sea", 128);
  BOOST_TEST(ch09::span_of(shared.a) == "the");  // A's words from its end: "river" is not in B, "the" is
  BOOST_TEST(shared.a.first == 12u);
  BOOST_TEST(shared.b.first == 10u);
  const ch09::MarkedPair one = ch09::mark_pair("[the] river bank", "on the bank, the end", 128);
  BOOST_TEST(one.b.first == 13u);  // the last "the" of B
  BOOST_TEST(ch09::is_matched(ch09::mark_pair("the river bank", "the money bank", 128)));
  for (const auto& [a, b] : {std::pair<std::string, std::string>{"the river bank", "a money shop"},
                             {"the [river bank", "a bank"},
                             {"the [] bank", "a bank"},
                             {"[a] [b]", "a b"},
                             {"the [river] bank", "the money bank"},
                             {"", "bank"},
                             {std::string(126, 'x') + " bank", "bank"}}) {
    BOOST_CHECK_THROW(ch09::mark_pair(a, b, 128), std::invalid_argument);
  }
  // printed: the span in brackets, a held-out newline escaped, a long sentence cut around the span
  BOOST_TEST(ch09::shown(p.a, 80) == "the river [bank]");
  BOOST_TEST(ch09::shown({"ab\n\tc bank", 6, 9}, 80) == "ab\\n?c [bank]");
  const std::string cut = ch09::shown({std::string(100, 'x') + " bank of it all, and more", 101, 104}, 40);
  BOOST_TEST(cut == "..." + std::string(17, 'x') + " [bank] of it all...");  // 40 characters, 10 after ']'
}

// The centred cosine by hand: (1,2,3) and (3,2,1) less (1,1,1) are (0,1,2) and (2,1,0), cosine 1/5;
// with centres of their own, (1,0,1) and (1,1,0), cosine 1/2; a reading equal to its centre has none.
BOOST_AUTO_TEST_CASE(centred_cosine_by_hand) {
  using boost::test_tools::tolerance;
  BOOST_TEST(ch09::centred_cosine({1, 2, 3}, {3, 2, 1}, {1, 1, 1}, {1, 1, 1}) == 0.2, tolerance(1e-15));
  BOOST_TEST(ch09::centred_cosine({2, 0, 1}, {1, 2, 4}, {1, 0, 0}, {0, 1, 4}) == 0.5, tolerance(1e-15));
  BOOST_TEST(std::isnan(ch09::centred_cosine({1, 2, 3}, {3, 2, 1}, {1, 2, 3}, {0, 0, 0})));
}

// compare() by an independent route: the library's readable float pass on windows padded to the
// context (causal: the padding cannot reach the marked position), the centre averaged and the
// cosine written out here; the contexts hold the span where the sentence does, a space before it.
BOOST_AUTO_TEST_CASE(compare_centres_on_held_out_contexts_by_an_independent_route) {
  attn::Random rng(7);
  const ch09::Model m = attn::init_model<ch09::Real>({vocab().size(), 128, 8, 2, 4, 2, true}, rng);
  const ch09::MarkedPair pair = ch09::mark_pair("the river [bank]", "she paid her money into the [bank]", 128);
  const ch09::Comparison c = ch09::compare(m, vocab(), pair, corpus().held_text);
  BOOST_REQUIRE_EQUAL(c.centre_a.size(), ch09::kCentre);
  BOOST_REQUIRE_EQUAL(c.controls_b.size(), ch09::kControls);
  for (const ch09::Marked& k : c.centre_a) {
    BOOST_TEST(k.text.size() == 14u);
    BOOST_TEST(k.text.substr(9, 5) == " bank", k.text);
  }
  const auto stream = [&](const std::string& text, arma::uword at, arma::uword stage) {
    arma::umat tokens(1, 128);
    tokens.fill(vocab().token(' '));
    tokens.cols(0, text.size() - 1) = vocab().encode(text);
    ch09::Pass pass;
    attn::forward(m, tokens, pass);
    return arma::rowvec(arma::conv_to<arma::rowvec>::from((stage < 2 ? pass.layers[stage].X : pass.X_out).row(at)));
  };
  const auto centre = [&](const std::vector<ch09::Marked>& texts, arma::uword at, arma::uword stage) {
    arma::rowvec sum(8, arma::fill::zeros);
    for (const ch09::Marked& k : texts) sum += stream(k.text, at, stage);
    return arma::rowvec(sum / static_cast<double>(texts.size()));
  };
  for (const arma::uword stage : {1u, 2u}) {
    const arma::rowvec x = stream(pair.a.text, 13, stage) - centre(c.centre_a, 13, stage);
    const arma::rowvec y = stream(pair.b.text, 31, stage) - centre(c.centre_b, 31, stage);
    BOOST_TEST(c.centred(stage) == arma::dot(x, y) / (arma::norm(x) * arma::norm(y)),
               boost::test_tools::tolerance(1e-4));
    const arma::rowvec k = stream(c.controls_a.front().text, 13, stage) - centre(c.centre_a, 13, stage);
    BOOST_TEST(c.control_a(0, stage) == arma::dot(x, k) / (arma::norm(x) * arma::norm(k)),
               boost::test_tools::tolerance(1e-4));
  }
  BOOST_TEST(std::isnan(c.centred(0)));  // the same 'k' at one position in every context: nothing is left
  BOOST_TEST((c.ranks[0].standing == ch09::ControlRank::Standing::undefined));
  BOOST_TEST(c.ranks[2].count == 2 * ch09::kControls);
}

BOOST_AUTO_TEST_CASE(copying_claim_fails_at_half_or_less) {
  BOOST_TEST(!ch09::claim_head_copies({"L2.H1", 100, 50, 0.5}).holds);
  BOOST_TEST(ch09::claim_head_copies({"L2.H1", 100, 51, 0.51}).holds);
  BOOST_TEST(ch09::claim_head_copies({"L2.H1", 100, 51, 0.51}).id == "real_06");
}

BOOST_AUTO_TEST_CASE(claims_report_what_they_measure) {
  ch09::Baselines b;
  b.bigram = 2.6, b.model = 2.7;
  BOOST_TEST(!ch09::claim_beats_bigram(b).holds);
  // The numbers state the relation they have, never a false one.
  BOOST_TEST(ch09::claim_beats_bigram(b).evidence ==
             "the model beats the bigram baseline on held-out text: model 2.700 > bigram 2.600 nats/char");
  b.model = 2.2;
  BOOST_TEST(ch09::claim_beats_bigram(b).holds);
  BOOST_TEST(ch09::claim_beats_bigram(b).evidence ==
             "the model beats the bigram baseline on held-out text: model 2.200 < bigram 2.600 nats/char");
  BOOST_TEST(ch09::claim_beats_bigram(b).id == "real_01");
}

// Each claim function on made-up numbers for which it must fail (and, beside, hold).
BOOST_AUTO_TEST_CASE(claims_fail_when_their_numbers_do_not_support_them) {
  ch09::Roles r;
  r.previous_token = arma::mat(2, 4, arma::fill::value(0.4));
  BOOST_TEST(!ch09::claim_previous_token_head(r).holds);  // 0.4 < 0.5
  r.previous_token(0, 2) = 0.6;
  BOOST_TEST(ch09::claim_previous_token_head(r).holds);
  BOOST_TEST(ch09::claim_previous_token_head(r).evidence.find("L1.H2") !=
             std::string::npos);  // head_name counts heads from 0
  // real_03: a strong induction score whose ablation costs too little fails
  r.induction_random = arma::mat(2, 4, arma::fill::value(0.1));
  r.induction_random(1, 0) = 0.5;
  r.random = {3.0, 1.0};                                // in-context advantage 2, half of it 1
  ch09::Ablation zeroed{"L2.H0", 0.0, {}, {0.0, 1.5}};  // zeroing L2.H0 raises the repeat loss by 0.5 < 1
  BOOST_TEST(!ch09::claim_induction_head(r, zeroed).holds);
  zeroed.random.repeat = 2.5;  // by 1.5 > 1
  BOOST_TEST(ch09::claim_induction_head(r, zeroed).holds);
  r.induction_random(1, 0) = 0.2;  // but then the score is too low
  BOOST_TEST(!ch09::claim_induction_head(r, zeroed).holds);
  std::vector<ch09::Ablation> a(11);
  a[1 + 4].random.repeat = 2.5;
  // Two heads share the job: the one whose zeroing costs the repeats more is studied, not the higher score.
  r.induction_random(1, 0) = 0.7;
  r.induction_random(1, 3) = 0.6;
  a[1 + 4 + 3].random.repeat = 3.5;  // zeroing L2.H3 raises the repeat loss by 2.5 > 1.5 for L2.H0
  BOOST_TEST(ch09::induction_head(r, a) == 3u);
  BOOST_TEST(ch09::induction_heads(r) == std::vector<arma::uword>({0, 3}));
  r.induction_random(1, 3) = 0.25;  // below the threshold: no longer a candidate
  BOOST_TEST(ch09::induction_head(r, a) == 0u);
  ch09::Contributions c;
  c.cases = 10;
  BOOST_TEST(!ch09::claim_contribution_differs(c).holds);  // no disagreement
  c.disagree = 1;
  BOOST_TEST(ch09::claim_contribution_differs(c).holds);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(program)

// The release pass: under the sanitizers docs_runs reads the same model back and draws its figures.
#if CH09_FULL
BOOST_AUTO_TEST_CASE(loaded_model_prints_every_claim_and_draws_valid_plots) {
  const fs::path dir = fs::path(TEST_PLOTS) / "loaded";
  const auto r = attn::test::run_with_plots(std::string(CHAPTER_EXE) + " --load " + attn::test::quote(CH09_MODEL), dir);
  BOOST_TEST(r.code == 0, r.err);
  attn::test::check_contains(r.out, {"[real_01]", "[real_02]", "[real_03]", "[real_04]", "[real_05]", "[real_06]",
                                     "[real_07]", "[real_08]", "Loaded the model"});
  for (const char* name :
       {"ch09_loss_curve", "ch09_head_view", "ch09_contributions", "ch09_head_roles", "ch09_ablations", "ch09_bank"}) {
    BOOST_TEST(app::is_valid_png(dir / (std::string(name) + ".png")), name);
  }
  BOOST_TEST(!attn::test::has_nan_word(r.out));
}
#endif

BOOST_AUTO_TEST_CASE(bad_flags_exit_2_with_one_line) {
  for (const char* flags :
       {"--steps 0", "--steps -4", "--repeat-share 1.5", "--lr 0", "--lr nan", "--seed x", "--sentence ''", "--bogus",
        "--load /tmp --steps 5", "--load /tmp --lr 0.1", "--bench 3 --plots /tmp/ch09-bench",
        "--cached /tmp/x --save /tmp/y", "--plots /dev/null/x --steps 1", "--position 25", "--position -1",
        "--compare a b c", "--compare 'the bank' 'a bank' --sentence x"}) {
    attn::test::check_usage_error(std::string(CHAPTER_EXE) + " " + flags, "ch09_real_heads");
  }
}

// --compare on the fixture's model: both sentences, the heads side by side, every stage compared
// with its controls, in lines that fit the book's 100 columns.
BOOST_AUTO_TEST_CASE(compare_prints_both_readings_and_their_controls) {
  const fs::path dir = fs::path(TEST_PLOTS) / "compare";
  const auto r = attn::test::run_with_plots(std::string(CHAPTER_EXE) + " --load " + attn::test::quote(CH09_MODEL) +
                                                " --compare 'the river [bank]' 'the money [bank]'",
                                            dir);
  BOOST_TEST(r.code == 0, r.err);
  attn::test::check_contains(r.out, {"A: \"the river [bank]\"", "B: \"the money [bank]\"", "A matched pair", "L2.H3",
                                     "after layer 2", "controls: lowest"});
  BOOST_TEST(r.out.find("[real_0") == std::string::npos);  // the comparison alone, not the report
  BOOST_TEST(!attn::test::has_nan_word(r.out));
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) BOOST_TEST(line.size() <= 100u, line);
  for (const char* name : {"ch09_compare", "ch09_compare_a", "ch09_compare_b"})
    BOOST_TEST(app::is_valid_png(dir / (std::string(name) + ".png")), name);
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
                                                                              "'/nonexistent/fortunes' is missing"},
        {"--corpus " + attn::test::quote(small.string()), "error: --corpus: the fortunes folder '" + small.string() +
                                                          "' holds too little text"},
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

BOOST_AUTO_TEST_CASE(cached_reads_back_only_a_run_of_the_same_recipe_and_settings) {
  const fs::path dir = fs::temp_directory_path() / "ch09-cached-test";
  fs::remove_all(dir);
  // --compare trains or reads the run through the same --cached path as the full report, and then
  // reads only two sentences: the case tests the cache, not the report (three runs, cheap under ASan).
  const std::string cached = std::string(CHAPTER_EXE) + " --no-plots --quick --steps 20 --cached " +
                             attn::test::quote(dir.string()) + " --compare 'the river [bank]' 'the money [bank]'";
  const auto first = attn::test::run(cached);  // trains, saves
  BOOST_TEST(first.code == 0, first.err);
  BOOST_TEST(first.out.find("Training (progress on stderr)") != std::string::npos);
  const auto again = attn::test::run(cached);  // the same settings: read back
  BOOST_TEST(again.code == 0, again.err);
  BOOST_TEST(again.out.find("Loaded the model saved in") != std::string::npos);
  const auto other = attn::test::run(cached + " --seed 2");  // another seed: trained again, and said why
  BOOST_TEST(other.code == 0, other.err);
  BOOST_TEST(other.out.find("is not this program's (seed 1, not 2)") != std::string::npos, other.out);
  BOOST_TEST(other.out.find("Training (progress on stderr)") != std::string::npos);
  // The saved run records the recipe it was trained by, and --cached reads it back with the same flags.
  std::ifstream in(dir / "run.txt");
  std::string format, recipe_key, recipe;
  std::getline(in, format);
  in >> recipe_key >> recipe;
  BOOST_TEST(format == "ch09-run 3");
  BOOST_TEST(recipe_key == "recipe");
  BOOST_TEST(recipe == ch09::training_recipe());
  BOOST_TEST(recipe.size() == 16u);  // the build's checksum, not the "unknown" of a build without one
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
