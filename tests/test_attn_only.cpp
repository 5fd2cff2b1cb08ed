/// \file test_attn_only.cpp
/// \brief The shared attention-only model (common/attention/attn_only.hpp): gradient checks of every group of
/// its parameter table in double (with and without the final layer norm, with a head ablated), the
/// batched forward pass against one head at a time, the softmax backward against central
/// differences, float against double, the threaded training step against one backward pass and
/// one Adam step, and save/load.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/apparatus/model_files.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/attn_only.hpp"
#include "common/attention/gradcheck.hpp"
#include "common/attention/inspect.hpp"
#include "common/attention/optim.hpp"
#include "common/attention/softmax_backward.hpp"
#include "common/fast/attn_only_fast.hpp"

namespace tt = boost::test_tools;

namespace {

/// Vocabulary 5, 6 positions, width 4, 2 heads of d_k 3 (d_k != width / heads: transposes show).
attn::AttnOnlyShape tiny(bool norm) { return {5, 6, 4, 2, 3, 2, norm}; }

arma::umat random_tokens(attn::Random& rng, arma::uword rows, arma::uword cols, arma::uword vocab) {
  arma::umat t(rows, cols);
  for (auto& x : t) x = rng.below(vocab);
  return t;
}

/// Central differences on every group of the table against backward().
void check_every_group(bool norm, const arma::mat* keep) {
  attn::Random rng(7);
  attn::AttnOnlyModel<double> model = attn::init_model<double>(tiny(norm), rng);
  if (norm) {  // move gain and bias away from 1 and 0 so their gradients are generic
    model.gain += rng.normal_matrix(1, 4, 0.3);
    model.bias += rng.normal_matrix(1, 4, 0.3);
  }
  const arma::umat tokens = random_tokens(rng, 3, 6, 5);
  const auto loss = [&] {
    attn::AttnOnlyPass<double> p;
    attn::forward(model, tokens, p, keep);
    return attn::next_token_loss(p, tokens, static_cast<arma::mat*>(nullptr));
  };
  attn::AttnOnlyPass<double> pass;
  attn::forward(model, tokens, pass, keep);
  arma::mat dlogits;
  attn::next_token_loss(pass, tokens, &dlogits);
  attn::AttnOnlyBackward<double> work;
  attn::backward(model, tokens, pass, dlogits, work);
  const std::vector<attn::ParamSpec> table = attn::parameter_table(model.shape);
  const auto values = attn::parameter_ptrs(model);
  const auto grads = attn::parameter_ptrs(work.grad);
  BOOST_TEST(table.size() == (norm ? 13u : 11u));  // E, P, 4 per layer, (gain, bias), U
  for (std::size_t i = 0; i < table.size(); ++i) {
    const attn::GradCheck check = attn::check_gradient(loss, *values[i], *grads[i], 1e-6, 1e-9);
    BOOST_TEST(check.max_relative_error < 1e-6, table[i].name << ": " << check.max_relative_error);
    const bool ablated_head_weights = keep != nullptr && table[i].name.rfind("L2.", 0) == 0;
    if (!ablated_head_weights)
      BOOST_TEST(arma::abs(*grads[i]).max() > 1e-6, table[i].name << " has an all-zero gradient");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(attn_only)

BOOST_AUTO_TEST_CASE(gradient_check_every_parameter_group) { check_every_group(false, nullptr); }

BOOST_AUTO_TEST_CASE(gradient_check_with_final_layer_norm) { check_every_group(true, nullptr); }

BOOST_AUTO_TEST_CASE(gradient_check_with_a_head_ablated) {
  const arma::mat keep{{1.0, 0.0}, {1.0, 1.0}};  // L1.H1 zeroed
  check_every_group(true, &keep);
}

BOOST_AUTO_TEST_CASE(parameter_table_counts_the_study_model) {
  // The PyTorch prototype: 97 tokens, context 128, width 64, 4 heads of 16, 2 layers,
  // final layer norm: 53.5k parameters.
  const attn::AttnOnlyShape s{97, 128, 64, 4, 16, 2, true};
  BOOST_TEST(attn::parameter_count(s) == 97u * 64 + 128u * 64 + 2u * 4 * 64 * 64 + 2u * 64 + 64u * 97);
  BOOST_TEST(attn::parameter_count(s) == 53504u);
}

BOOST_AUTO_TEST_CASE(batched_forward_matches_one_head_at_a_time) {
  // Independent route: attn::attention per sequence and head, then Concat(heads) Wo, then layer norm.
  attn::Random rng(11);
  attn::AttnOnlyModel<double> model = attn::init_model<double>(tiny(true), rng);
  model.gain += 0.5;
  const arma::umat tokens = random_tokens(rng, 2, 6, 5);
  attn::AttnOnlyPass<double> pass;
  attn::forward(model, tokens, pass);
  const arma::uword T = 6, dk = 3;
  for (arma::uword b = 0; b < 2; ++b) {
    arma::mat X = model.P;
    for (arma::uword t = 0; t < T; ++t) X.row(t) += model.E.row(tokens(b, t));
    for (const attn::AttnLayer<double>& layer : model.layers) {
      arma::mat H(T, 2 * dk);
      for (arma::uword h = 0; h < 2; ++h) {
        const arma::span cols(h * dk, h * dk + dk - 1);
        H.cols(cols) =
            attn::attention(X, layer.Wq.cols(cols), layer.Wk.cols(cols), layer.Wv.cols(cols), {.causal = true}).H;
      }
      X += H * layer.Wo;
    }
    arma::mat Y = X;
    for (arma::uword t = 0; t < T; ++t) {
      const double mean = arma::mean(X.row(t)), var = arma::mean(arma::square(X.row(t) - mean));
      Y.row(t) = (X.row(t) - mean) / std::sqrt(var + 1e-5) % model.gain + model.bias;
    }
    const arma::mat logits = Y * model.U;
    BOOST_TEST(arma::abs(logits - pass.logits.rows(b * T, b * T + T - 1)).max() < 1e-12);
    BOOST_TEST(attn::attention_pattern(pass, 0, 1, b)(0, 5) == 0.0);  // causal: nothing from the future
  }
}

// The hooks see what the pass adds (each layer's head writes sum to the stream's change) and can
// replace it: zeroing a head by a hook equals the head mask (an independent route). A window
// shorter than the context gives the first rows of the full one: the model is causal.
BOOST_AUTO_TEST_CASE(hooks_see_and_replace_head_writes_and_short_windows_are_causal) {
  attn::Random rng(12);
  attn::AttnOnlyModel<double> model = attn::init_model<double>(tiny(true), rng);
  model.gain += 0.5;
  const arma::umat tokens = random_tokens(rng, 2, 6, 5);
  attn::AttnOnlyPass<double> full, short_window, seen_pass, masked, hooked;
  attn::forward(model, tokens, full);
  attn::forward(model, arma::umat(tokens.cols(0, 3)), short_window);
  for (arma::uword b = 0; b < 2; ++b) {
    BOOST_TEST(arma::abs(short_window.logits.rows(b * 4, b * 4 + 3) - full.logits.rows(b * 6, b * 6 + 3)).max() <
               1e-12);
  }
  std::vector<arma::mat> writes, streams;
  attn::Hooks seen;
  seen.head_output = [&](arma::uword, arma::uword, arma::mat& write) { writes.push_back(write); };
  seen.residual = [&](arma::uword, arma::mat& X) { streams.push_back(X); };
  attn::forward(model, tokens, seen_pass, nullptr, seen);
  BOOST_REQUIRE(writes.size() == 4u);   // 2 layers x 2 heads, each 12 x 4 (both sequences)
  BOOST_REQUIRE(streams.size() == 3u);  // entering layers 1 and 2, and the final norm
  for (arma::uword l = 0; l < 2; ++l)
    BOOST_TEST(arma::abs(streams[l + 1] - streams[l] - writes[2 * l] - writes[2 * l + 1]).max() < 1e-12);
  BOOST_TEST(arma::abs(seen_pass.logits - full.logits).max() < 1e-12);
  const arma::mat keep{{1.0, 1.0}, {0.0, 1.0}};  // L2.H0 removed by the mask
  attn::forward(model, tokens, masked, &keep);
  attn::forward(model, tokens, hooked, nullptr, attn::replacing_head(1, 0, arma::mat(1, 4, arma::fill::zeros)));
  BOOST_TEST(arma::abs(hooked.logits - masked.logits).max() < 1e-12);
  BOOST_TEST(arma::abs(hooked.logits - full.logits).max() > 1e-6);  // the head mattered
}

// The readouts both of chapter 09's models share (inspect.hpp), on values worked by hand: logits
// (0, ln 2, ln 3) are the probabilities (1/6, 2/6, 3/6), so the loss of token 1 is ln 3 and of
// token 0 is ln 6; (ln 3, 0, 0) gives (3/5, 1/5, 1/5).
BOOST_AUTO_TEST_CASE(token_loss_top_entries_and_patch_rows_on_hand_values) {
  const arma::frowvec z{0.0f, std::log(2.0f), std::log(3.0f)};
  BOOST_TEST(attn::token_loss(z, 1) == std::log(3.0), tt::tolerance(1e-6));
  BOOST_TEST(attn::token_loss(z, 0) == std::log(6.0), tt::tolerance(1e-6));
  const auto label = [](arma::uword id) { return "t" + std::to_string(id); };
  const auto top = attn::top_entries(arma::rowvec{0.5, -2.0, 3.0, 1.0}, 2, "descend", label);
  BOOST_REQUIRE(top.size() == 2u);
  BOOST_TEST(top[0].first == "t2");
  BOOST_TEST(top[0].second == 3.0);
  BOOST_TEST(top[1].first == "t3");
  const auto bottom = attn::top_entries(arma::rowvec{0.5, -2.0, 3.0, 1.0}, 9, "ascend", label);
  BOOST_TEST(bottom.size() == 4u);  // no more than the row holds
  BOOST_TEST(bottom[0].first == "t1");
  // through a norm with its scale frozen at 2: centred, then scaled; linear, so parts add up
  BOOST_TEST(arma::approx_equal(attn::frozen_norm(arma::rowvec{1.0, 2.0, 6.0}, 2.0), arma::rowvec{-4.0, -2.0, 6.0},
                                "absdiff", 1e-15));
  BOOST_TEST(arma::approx_equal(
      attn::frozen_norm(arma::rowvec{1.0, 2.0, 6.0}, 2.0) + attn::frozen_norm(arma::rowvec{5.0, 0.0, 1.0}, 2.0),
      attn::frozen_norm(arma::rowvec{6.0, 2.0, 7.0}, 2.0), "absdiff", 1e-14));
  // centred cosines: (3, 1) and (2, 1) about (1, 1) point the same way; a stream equal to its
  // centre has no direction left
  BOOST_TEST(attn::centred_cosine(arma::rowvec{3, 1}, arma::rowvec{2, 1}, arma::rowvec{1, 1}, arma::rowvec{1, 1}) ==
             1.0);
  BOOST_TEST(attn::centred_cosine(arma::rowvec{2, 1}, arma::rowvec{1, 2}, arma::rowvec{1, 1}, arma::rowvec{1, 1}) ==
             0.0);
  BOOST_TEST(
      std::isnan(attn::centred_cosine(arma::rowvec{1, 1}, arma::rowvec{2, 1}, arma::rowvec{1, 1}, arma::rowvec{1, 1})));
  BOOST_TEST(std::isnan(attn::cosine(arma::rowvec{1, 0}, arma::rowvec{0, 0})));
  const std::vector<attn::BasicPatch<float>> patches{{"first", 0, {}}, {"second", 1, {}}};
  const arma::fmat logits{{0.0f, std::log(2.0f), std::log(3.0f)}, {std::log(3.0f), 0.0f, 0.0f}};
  const std::vector<attn::PatchRow> rows = attn::patch_rows(patches, logits, 2, 0, label);
  BOOST_REQUIRE(rows.size() == 2u);
  BOOST_TEST(rows[0].what == "first");
  BOOST_TEST(rows[0].p_a == 0.5, tt::tolerance(1e-6));
  BOOST_TEST(rows[0].p_b == 1.0 / 6, tt::tolerance(1e-6));
  BOOST_TEST(rows[0].top == "t2");
  BOOST_TEST(rows[1].p_a == 0.2, tt::tolerance(1e-6));
  BOOST_TEST(rows[1].p_b == 0.6, tt::tolerance(1e-6));
  BOOST_TEST(rows[1].top == "t0");
}

// Each head's write decoded at one position, on values set by hand: head 0 reads position 1 most
// (0.5), head 1 position 0 (0.7, the sharpest); head 0's write (3, 4) has size 5 and adds 3 to the
// predicted token 3's logit, head 1's adds -0.5, so head 0 is the strongest.
BOOST_AUTO_TEST_CASE(decode_writes_reads_patterns_writes_and_direct_logits) {
  const std::vector<arma::mat> patterns{{{1, 0, 0}, {0.4, 0.6, 0}, {0.2, 0.5, 0.3}},
                                        {{1, 0, 0}, {0.9, 0.1, 0}, {0.7, 0.1, 0.2}}};
  const std::vector<arma::mat> writes{{{0, 0}, {1, 1}, {3, 4}}, {{0, 0}, {1, 1}, {0, 1}}};
  const arma::mat logits{{1, -2, 0.5, 3}, {-1, 0, 4, -0.5}};  // heads x vocab: the direct logits at position 2
  const auto label = [](arma::uword id) { return "t" + std::to_string(id); };
  const auto pattern = [&](arma::uword k) -> const arma::mat& { return patterns[k]; };
  const auto write = [&](arma::uword k) -> const arma::mat& { return writes[k]; };
  const std::vector<attn::HeadWrite> w = attn::decode_writes(2, pattern, write, logits, 2, 3, 1, label);
  BOOST_REQUIRE(w.size() == 2u);
  BOOST_TEST(w[0].layer == 0u);
  BOOST_TEST(w[1].head == 1u);
  BOOST_TEST(w[0].top_source == 1u);
  BOOST_TEST(w[0].top_weight == 0.5);
  BOOST_TEST(w[1].top_source == 0u);
  BOOST_TEST(w[0].size == 5.0, tt::tolerance(1e-15));
  BOOST_TEST(w[0].on_prediction == 3.0);
  BOOST_TEST(w[1].on_prediction == -0.5);
  BOOST_TEST(w[0].raised.at(0).first == "t3");
  BOOST_TEST(w[0].lowered.at(0).first == "t1");
  BOOST_TEST(w[1].raised.at(0).first == "t2");
  BOOST_TEST(attn::sharpest(w) == 1u);
  BOOST_TEST(attn::strongest(w) == 0u);
}

// Zero against mean ablation: for each head, a variant with its write zeroed and one at its mean
// (head k's mean is (k, 2k)), layer by layer. The measured "losses" here are the sums of the head's
// write after the hook (3 x 2 ones before it) and of another head's (left alone): so zeroing
// removes all 6, and the mean sets 3 (k + 2k) = 9k.
BOOST_AUTO_TEST_CASE(zero_and_mean_replaces_each_head_both_ways) {
  const arma::uword layers = 2, heads = 2;
  std::vector<arma::rowvec> means;
  for (arma::uword k = 0; k < layers * heads; ++k)
    means.push_back(arma::rowvec{static_cast<double>(k), 2.0 * static_cast<double>(k)});
  std::vector<arma::uword> layers_seen;
  const auto measure = [&](arma::uword l, const std::vector<attn::Hooks>& variants) {
    layers_seen.push_back(l);
    std::vector<arma::rowvec> out;
    for (arma::uword v = 0; v < variants.size(); ++v) {
      arma::mat own(3, 2, arma::fill::ones), other(3, 2, arma::fill::ones);
      variants[v].head_output(l, v / 2, own);
      variants[v].head_output(l, (v / 2 + 1) % heads, other);
      out.push_back(arma::rowvec{arma::accu(own), arma::accu(other)});
    }
    return out;
  };
  const attn::ZeroAndMean r = attn::zero_and_mean<double>(layers, heads, means, arma::rowvec{6.0, 6.0}, measure);
  BOOST_TEST((layers_seen == std::vector<arma::uword>{0, 1}));
  for (arma::uword k = 0; k < layers * heads; ++k) {
    BOOST_TEST(r.zero(k, 0) == -6.0);
    BOOST_TEST(r.mean(k, 0) == 9.0 * static_cast<double>(k) - 6.0);
    BOOST_TEST(r.zero(k, 1) == 0.0);  // the other head's write is untouched
    BOOST_TEST(r.mean(k, 1) == 0.0);
  }
  BOOST_CHECK_THROW(attn::zero_and_mean<double>(layers, heads, std::vector<arma::rowvec>(3, arma::rowvec{0.0, 0.0}),
                                                arma::rowvec{6.0, 6.0}, measure),
                    std::out_of_range);
}

// The patches of activation patching: every head (layer-major), every stream entering a layer and
// the final one, then the heads named together; each names its site, starts at the right layer and
// replaces only what it names. Head h of layer l writes 10 l + h + 1 everywhere; stream l is l + 0.5.
BOOST_AUTO_TEST_CASE(patches_from_names_every_site_and_replaces_only_it) {
  const arma::uword layers = 2, heads = 2, n = 4, width = 3, last = 2;
  const auto write = [&](arma::uword l, arma::uword h) {
    return arma::mat(n, width, arma::fill::value(10.0 * static_cast<double>(l) + static_cast<double>(h) + 1));
  };
  const auto stream = [&](arma::uword l) {
    return arma::mat(n, width, arma::fill::value(static_cast<double>(l) + 0.5));
  };
  const auto patches = attn::patches_from<double>(layers, heads, write, stream, last, {1, 3});
  const std::vector<std::string> names{"L1.H0's output",
                                       "L1.H1's output",
                                       "L2.H0's output",
                                       "L2.H1's output",
                                       "the stream entering layer 1",
                                       "the stream entering layer 2",
                                       "the final stream",
                                       "L1.H1 + L2.H1 at once"};
  const std::vector<arma::uword> starts{0, 0, 1, 1, 0, 1, 2, 0};
  BOOST_REQUIRE(patches.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    BOOST_TEST(patches[i].what == names[i]);
    BOOST_TEST(patches[i].layer == starts[i]);
  }
  arma::mat own(n, width, arma::fill::zeros), other(n, width, arma::fill::zeros);
  patches[3].hooks.head_output(1, 1, own);    // L2.H1's write becomes B's: 12 everywhere
  patches[3].hooks.head_output(0, 1, other);  // another head's is left alone
  BOOST_TEST(arma::all(arma::vectorise(own) == 12.0));
  BOOST_TEST(arma::all(arma::vectorise(other) == 0.0));
  BOOST_TEST(!patches[3].hooks.residual);  // a head patch leaves the stream to the pass
  arma::mat X(n, width, arma::fill::zeros);
  patches[5].hooks.residual(1, X);  // the stream entering layer 2: B's row at the last position only
  BOOST_TEST(arma::accu(arma::abs(X)) == 1.5 * width);
  BOOST_TEST(arma::all(X.row(last) == 1.5));
  arma::mat first(n, width, arma::fill::zeros), second(n, width, arma::fill::zeros);
  patches[7].hooks.head_output(0, 1, first);
  patches[7].hooks.head_output(1, 1, second);
  BOOST_TEST(arma::all(arma::vectorise(first) == 2.0));
  BOOST_TEST(arma::all(arma::vectorise(second) == 12.0));
  BOOST_TEST(attn::patches_from<double>(layers, heads, write, stream, last, {0}).size() == 7u);  // one: no row
  BOOST_CHECK_THROW(attn::patches_from<double>(layers, heads, write, stream, last, {1, 4}), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(softmax_rows_backward_matches_central_differences) {
  attn::Random rng(3);
  for (const bool causal : {false, true}) {
    const arma::uword n = causal ? 4 : 3, m = causal ? 4 : 5;  // 3 x 5 bidirectional, 4 x 4 causal
    arma::mat S = rng.normal_matrix(n, m, 1.5);
    const arma::mat dA = rng.normal_matrix(n, m, 1.0);  // loss = sum(dA % A)
    const arma::mat mask = causal ? attn::causal_mask(n) : arma::mat(n, m, arma::fill::zeros);
    const auto loss = [&] { return arma::accu(dA % attn::softmax_rows(S + mask)); };
    arma::mat dS;
    attn::softmax_rows_backward(arma::mat(attn::softmax_rows(S + mask)), dA, dS, causal);
    const attn::GradCheck check = attn::check_gradient(loss, S, dS, 1e-6, 1e-10);
    BOOST_TEST(check.max_relative_error < 1e-7, (causal ? "causal" : "bidirectional")
                                                    << ": " << check.max_relative_error);
  }
  arma::mat dS;
  BOOST_CHECK_THROW(attn::softmax_rows_backward(arma::mat(3, 5), arma::mat(3, 4), dS), std::invalid_argument);
  BOOST_CHECK_THROW(attn::softmax_rows_backward(arma::mat(3, 5), arma::mat(3, 5), dS, true), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(next_token_losses_checks_its_pass_as_next_token_loss_does) {
  // The per-target losses of a pass over `tokens` average to the mean loss; a pass over other
  // tokens (another batch of as many rows, or fewer), a target outside the vocabulary and NaN
  // weights are refused, not read as numbers or past the logits' bounds.
  attn::Random rng(31);
  attn::AttnOnlyModel<double> model = attn::init_model<double>(tiny(true), rng);
  const arma::umat tokens = random_tokens(rng, 2, 6, 5);
  attn::AttnOnlyPass<double> pass;
  attn::forward(model, tokens, pass);
  const arma::mat losses = attn::next_token_losses(pass, tokens);
  BOOST_TEST(losses.n_rows == 2u);
  BOOST_TEST(losses.n_cols == 5u);
  BOOST_TEST(
      arma::mean(arma::vectorise(losses)) == attn::next_token_loss(pass, tokens, static_cast<arma::mat*>(nullptr)),
      boost::test_tools::tolerance(1e-12));
  const arma::umat one_row = tokens.row(0);
  const arma::umat reshaped = arma::reshape(tokens, 4, 3);  // the same 12 rows of logits, 4 sequences of 3
  arma::umat outside = tokens;
  outside(1, 3) = 5;  // the vocabulary is 0..4
  for (const arma::umat* other : std::vector<const arma::umat*>{&one_row, &reshaped, &outside}) {
    BOOST_CHECK_THROW(attn::next_token_losses(pass, *other), std::invalid_argument);
    BOOST_CHECK_THROW(attn::next_token_loss(pass, *other, static_cast<arma::mat*>(nullptr)), std::invalid_argument);
  }
  model.U(0, 0) = std::numeric_limits<double>::quiet_NaN();
  attn::forward(model, tokens, pass);
  BOOST_CHECK_THROW(attn::next_token_losses(pass, tokens), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(float_model_follows_the_double_model) {
  attn::Random rng(5);
  const attn::AttnOnlyShape shape{11, 16, 8, 2, 4, 2, true};
  const attn::AttnOnlyModel<double> md = attn::init_model<double>(shape, rng);
  const attn::AttnOnlyModel<float> mf = attn::convert_model<float>(md);
  const arma::umat tokens = random_tokens(rng, 3, 16, 11);
  attn::AttnOnlyPass<double> pd;
  attn::AttnOnlyPass<float> pf;
  attn::forward(md, tokens, pd);
  attn::forward(mf, tokens, pf);
  const double ld = attn::next_token_loss(pd, tokens, static_cast<arma::mat*>(nullptr));
  const double lf = attn::next_token_loss(pf, tokens, static_cast<arma::fmat*>(nullptr));
  BOOST_TEST(std::abs(ld - lf) < 1e-5 * ld, "double " << ld << ", float " << lf);
  BOOST_TEST(arma::abs(arma::conv_to<arma::mat>::from(pf.logits) - pd.logits).max() < 1e-4);
}

BOOST_AUTO_TEST_CASE(threaded_step_equals_one_backward_and_adam) {
  // Three threads on a batch of 5 (shards of 1, 2 and 2 sequences) against one backward over all 5.
  attn::Random rng(9);
  const attn::AttnOnlyShape shape = tiny(true);
  const attn::AttnOnlyModel<double> start = attn::init_model<double>(shape, rng);
  const arma::umat tokens = random_tokens(rng, 5, 6, 5);
  attn::AttnOnlyModel<double> threaded = start, reference = start;
  attn::AttnOnlyTrainer<double> trainer(1e-2, 3);
  const double loss = trainer.step(threaded, tokens);

  attn::AttnOnlyPass<double> pass;
  attn::forward(reference, tokens, pass);
  arma::mat dlogits;
  const double expected = attn::next_token_loss(pass, tokens, &dlogits);
  attn::AttnOnlyBackward<double> work;
  attn::backward(reference, tokens, pass, dlogits, work);
  // One Adam step of optim.hpp on the same groups, on one thread (test_common checks the update itself)
  std::vector<attn::Param> groups;
  const auto values = attn::parameter_ptrs(reference);
  const auto grads = attn::parameter_ptrs(work.grad);
  for (std::size_t i = 0; i < values.size(); ++i) groups.push_back({std::to_string(i), values[i], grads[i]});
  attn::Adam adam(1e-2);
  adam.step(groups);

  BOOST_TEST(loss == expected, tt::tolerance(1e-12));
  const auto a = attn::parameter_ptrs(threaded);
  for (std::size_t i = 0; i < values.size(); ++i) BOOST_TEST(arma::abs(*a[i] - *values[i]).max() < 1e-12, i);
}

BOOST_AUTO_TEST_CASE(save_then_load_gives_the_same_float_model) {
  attn::Random rng(2);
  const attn::AttnOnlyModel<float> m = attn::init_model<float>({7, 8, 4, 2, 2, 1, true}, rng);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attn_only_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "model.txt").string();
  app::save_model(m, path);
  const attn::AttnOnlyModel<float> back = app::load_model<float>(path);
  const auto a = attn::parameter_ptrs(m);
  const auto b = attn::parameter_ptrs(back);
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) BOOST_TEST(arma::approx_equal(*a[i], *b[i], "absdiff", 0.0f), i);
  for (const auto& e : std::filesystem::directory_iterator(dir))
    BOOST_TEST(e.path().filename() == "model.txt");  // no temporary left
  {
    std::ofstream cut(path, std::ios::trunc);
    cut << "attn-only-model 1\nvocab 7 context 8 width 4 heads 2 d_k 2 layers 1 final_norm 1\nE 7 4\n0.5 nan\n";
  }
  const auto refusal = [&](const std::string& entry) {
    {
      std::ofstream bad(path, std::ios::trunc);
      bad << "attn-only-model 1\nvocab 7 context 8 width 4 heads 2 d_k 2 layers 1 final_norm 1\nE 7 4\n0.5 " << entry
          << "\n";
    }
    try {
      app::load_model<float>(path);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  // Each refusal names the entry and the reason, not "truncated".
  BOOST_TEST(refusal("nan").find("entry 'nan' in group E") != std::string::npos, refusal("nan"));
  BOOST_TEST(refusal("1e30").find("beyond +-1e6") != std::string::npos, refusal("1e30"));
  BOOST_TEST(refusal("0x1p3").find("entry '0x1p3'") != std::string::npos, refusal("0x1p3"));
  BOOST_TEST(refusal("").find("truncated in group E") != std::string::npos, refusal(""));
  BOOST_CHECK_THROW(app::load_model<float>((dir / "missing.txt").string()), std::runtime_error);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(read_model_reads_the_text_of_a_model_file) {
  // A 1-layer model (vocab 3, context 2, width 1, 1 head of 1, no norm) written out by hand: six
  // groups of the table, E 3 x 1, P 2 x 1, Wq, Wk, Wv, Wo 1 x 1, U 1 x 3.
  const std::string text =
      "attn-only-model 1\nvocab 3 context 2 width 1 heads 1 d_k 1 layers 1 final_norm 0\n"
      "E 3 1\n0.5\n-1\n2\nP 2 1\n0.25\n0\nL1.Wq 1 1\n1\nL1.Wk 1 1\n-2\nL1.Wv 1 1\n3\nL1.Wo 1 1\n0.125\n"
      "U 1 3\n1 2 3\n";
  std::istringstream in(text);
  const attn::AttnOnlyModel<double> m = app::read_model<double>(in, "the page's model");
  BOOST_TEST(m.E(2, 0) == 2.0);
  BOOST_TEST(m.P(0, 0) == 0.25);
  BOOST_TEST(m.layers[0].Wk(0, 0) == -2.0);
  BOOST_TEST(m.layers[0].Wo(0, 0) == 0.125);
  BOOST_TEST(m.U(0, 2) == 3.0);
  // A text cut short is refused under the name given.
  std::istringstream cut(text.substr(0, text.find("U 1 3")));
  try {
    app::read_model<double>(cut, "the page's model");
    BOOST_FAIL("a truncated text was read");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find("the page's model: expected group U") == 0, e.what());
  }
}

BOOST_AUTO_TEST_CASE(bad_shapes_and_tokens_throw) {
  attn::Random rng(1);
  BOOST_CHECK_THROW(attn::init_model<float>({32, 32, 0, 2, 16, 2}, rng), std::invalid_argument);
  attn::AttnOnlyModel<float> m = attn::init_model<float>(tiny(false), rng);
  attn::AttnOnlyPass<float> pass;
  BOOST_CHECK_THROW(attn::forward(m, arma::umat(2, 7, arma::fill::zeros), pass), std::invalid_argument);  // > context
  BOOST_CHECK_THROW(attn::forward(m, arma::umat(2, 0), pass), std::invalid_argument);
  BOOST_CHECK_THROW(attn::forward(m, arma::umat(2, 6, arma::fill::value(5)), pass), std::invalid_argument);
  const arma::mat keep(3, 2, arma::fill::ones);
  BOOST_CHECK_THROW(attn::forward(m, arma::umat(2, 6, arma::fill::zeros), pass, &keep), std::invalid_argument);
  m.layers[1].Wo.set_size(3, 3);
  BOOST_CHECK_THROW(attn::check_shapes(m), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(fast_passes_equal_the_readable_passes) {
  // common/fast/ computes the same forward, loss and backward with blocked kernels: in double the
  // two agree to rounding on every logit, weight and gradient, with and without the final norm and
  // with a head ablated, on windows of the whole context and shorter; in float to float's rounding.
  for (const auto& [norm, T] : {std::pair{false, 9}, {true, 9}, {true, 5}}) {
    attn::Random rng(norm ? 21 : 22);
    const attn::AttnOnlyModel<double> model = attn::init_model<double>({7, 9, 6, 2, 3, 2, norm}, rng);
    const arma::umat tokens = random_tokens(rng, 5, T, 7);  // 5 sequences of an odd length
    const arma::mat keep = {{1, 0.5}, {0, 1}};
    attn::AttnOnlyPass<double> readable, fast;
    attn::forward(model, tokens, readable, &keep);
    attn::fast::forward(model, tokens, fast, &keep);
    BOOST_TEST(arma::abs(readable.logits - fast.logits).max() < 1e-12 * arma::abs(readable.logits).max());
    for (arma::uword l = 0; l < 2; ++l) {
      for (arma::uword h = 0; h < 2; ++h) {
        const arma::mat diff = attn::attention_pattern(readable, l, h, 4) - attn::attention_pattern(fast, l, h, 4);
        BOOST_TEST(arma::abs(diff).max() < 1e-14, "L" << l + 1 << ".H" << h);
      }
    }
    arma::mat d_readable, d_fast;
    const double loss = attn::next_token_loss(readable, tokens, &d_readable);
    BOOST_TEST(attn::fast::next_token_loss(fast, tokens, &d_fast) == loss, tt::tolerance(1e-13));
    BOOST_TEST(arma::abs(d_readable - d_fast).max() < 1e-15);
    attn::AttnOnlyBackward<double> w_readable, w_fast;
    attn::backward(model, tokens, readable, d_readable, w_readable);
    attn::fast::backward(model, tokens, fast, d_fast, w_fast);
    const std::vector<attn::ParamSpec> table = attn::parameter_table(model.shape);
    const auto a = attn::parameter_ptrs(w_readable.grad), b = attn::parameter_ptrs(w_fast.grad);
    for (std::size_t i = 0; i < table.size(); ++i) {
      BOOST_TEST(arma::abs(*a[i] - *b[i]).max() < 1e-12 * (1 + arma::abs(*a[i]).max()), table[i].name);
    }
  }
  attn::Random rng(23);
  const attn::AttnOnlyModel<float> model = attn::init_model<float>({7, 16, 8, 2, 4, 2, true}, rng);
  const arma::umat tokens = random_tokens(rng, 3, 16, 7);
  attn::AttnOnlyPass<float> readable, fast;
  attn::forward(model, tokens, readable);
  attn::fast::forward(model, tokens, fast);
  BOOST_TEST(arma::abs(readable.logits - fast.logits).max() < 1e-4f);
}

BOOST_AUTO_TEST_CASE(a_training_step_counts_its_matrix_products_dense) {
  // Chapter 09's model, batch 32 (N = 4096 tokens), multiply-adds of the forward pass by hand:
  // per layer X [Wq|Wk|Wv] 4096 x 64 x 192 = 50331648; Q K^T and A V, 128 blocks of 2 x 128 x 16 x 128
  // = 67108864; H Wo 4096 x 64 x 64 = 16777216; two layers 268435456; unembedding 4096 x 64 x 97 =
  // 25427968; forward 293863424 multiply-adds, times 2 flops, times 3 (forward and two backward
  // products each): 1763180544
  const attn::AttnOnlyShape ch09{97, 128, 64, 4, 16, 2, true};
  BOOST_TEST(attn::training_step_flops(ch09, 32) == 1763180544.0);
  // the smallest model: 2 tokens of width 1, one head of 1: X W 2 x 1 x 3 = 6, Q K^T and A V 2 x 2 x 1
  // each = 8, H Wo 2, unembedding 2 x 1 x 2 = 4; 20 multiply-adds, 120 flops
  BOOST_TEST(attn::training_step_flops(attn::AttnOnlyShape{2, 2, 1, 1, 1, 1, false}, 1) == 120.0);
}

BOOST_AUTO_TEST_CASE(next_token_loss_refuses_non_finite_logits) {
  // A NaN or infinite parameter outside the attention scores (the unembedding here), or one that
  // overflows the logits, makes the loss refuse rather than return NaN, in both versions.
  attn::Random rng(24);
  attn::AttnOnlyModel<float> model = attn::init_model<float>(tiny(true), rng);
  const arma::umat tokens = random_tokens(rng, 2, 6, 5);
  const attn::AttnOnlyModel<float> start = model;
  for (int bad = 0; bad < 3; ++bad) {
    model = start;
    if (bad == 0) model.U(1, 2) = std::numeric_limits<float>::quiet_NaN();
    if (bad == 1) model.U(1, 2) = std::numeric_limits<float>::infinity();
    if (bad == 2) {  // finite weights whose logits overflow: Y = Xhat + 1 sums to 4 over the width
      model.bias.fill(1.0f);
      model.U.col(2).fill(std::numeric_limits<float>::max());
    }
    attn::AttnOnlyPass<float> readable, fast;
    attn::forward(model, tokens, readable);
    attn::fast::forward(model, tokens, fast);
    arma::fmat dlogits;
    BOOST_CHECK_THROW(attn::next_token_loss(readable, tokens, &dlogits), std::invalid_argument);
    BOOST_CHECK_THROW(attn::fast::next_token_loss(fast, tokens, &dlogits), std::invalid_argument);
  }
  attn::AttnOnlyPass<float> pass;  // the finite model: a finite loss
  model = start;
  attn::fast::forward(model, tokens, pass);
  BOOST_TEST(std::isfinite(attn::fast::next_token_loss(pass, tokens, static_cast<arma::fmat*>(nullptr))));
}
