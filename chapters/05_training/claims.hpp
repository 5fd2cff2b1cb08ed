/// \file claims.hpp
/// \brief Chapter 05's claims (train_01 to train_04, feat_01, bias_01 and bias_02 of docs/claims.md),
/// each checked on a result from training.hpp or features.hpp and returned as an app::ClaimCheck: the
/// program prints it beside the numbers (app::print_claim), the tests assert it. Nothing here
/// computes the mathematics.
///
/// Throws: nothing beyond std::bad_alloc, given results of training.hpp, features.hpp and biased.hpp.
/// Sources: the article, "Make it learn", "Follow one sentence through training", "Can two small
/// matrices recover identifiable features?" and "Attention learns the data, not the world".
#pragma once

#include <string>
#include <vector>

#include "biased.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/backprop.hpp"
#include "features.hpp"
#include "training.hpp"

namespace ch05 {

// ---- the trained model (section 1) and the step-through ----------------------------------------

/// Claim train_01 on a model: its trainable parameters, counted from the parameter table and
/// written out from its sizes ("4x8 + 3x8x8 + (8x2 + 2)" for the article's model, which has 242;
/// the formula assumes d_k = d_v = d). Holds if the count equals the formula's total. Evidence: two
/// lines, the count and the remark that A holds activations, not parameters.
app::ClaimCheck claim_parameter_count(const attn::OneHeadModel& model);

/// Claim train_02 on a model's predictions: every example's predicted class is its target.
/// Evidence: "  N of M predictions right" (the article's predictions are 0, 1, 0, 1).
app::ClaimCheck claim_predictions(const std::vector<Prediction>& predictions);

/// Claim train_03 on a model's predictions: every reported row is bank's attention over its own
/// sentence (n entries, non-negative, summing to 1 to 1e-12). Evidence: how many of them are.
app::ClaimCheck claim_rows_reported(const std::vector<Prediction>& predictions);

/// Claim train_03, "not a requirement": with bank's row forced uniform (1/n over its sentence) the
/// same trained model still predicts every target. Evidence: "K of N". A reader's other seed can
/// make it fail (the model then leans on its routing): selective routing is one observed solution.
app::ClaimCheck claim_uniform_routing(const std::vector<Prediction>& predictions);

/// Claim train_04 on one backward pass of the widget: for each vocabulary word absent from the
/// example, its row of dE is exactly zero. One ClaimCheck per absent word (none if every word is
/// present), in vocabulary order. Evidence: "  'money' is absent from the sentence: its row of dE is
/// exactly zero".
std::vector<app::ClaimCheck> claim_absent_rows(const Example& example, const attn::OneHeadGrads& grads);

// ---- companion: feature recovery ----------------------------------------------------------------

/// What "an intervention barely moves the output" means: a mean change below this (and a
/// relevant feature moves it by more than kRelevantEffect).
inline constexpr double kIrrelevantEffect = 1e-2;
/// A relevant feature's intervention moves the output by more than this.
inline constexpr double kRelevantEffect = 0.1;

/// Claim feat_01, the fit: held-out relative squared error below 1e-3. Evidence: the training and
/// held-out errors, 8 decimals.
app::ClaimCheck claim_feature_fit(const FeatureRecovery& r);

/// Claim feat_01, the maps: both learned maps within 1e-2 (relative, Frobenius) of the true ones.
/// Evidence: both errors, 6 decimals.
app::ClaimCheck claim_feature_maps(const FeatureRecovery& r);

/// Claim feat_01, the interventions: query features 0-2 move the output through the query, value
/// features 3-5 through the sources (each by more than kRelevantEffect), and every other pairing,
/// the distractors 6-8 included, by less than kIrrelevantEffect. Evidence: three lines ending with
/// the tolerance; a failure names the first feature that breaks it.
app::ClaimCheck claim_interventions(const FeatureRecovery& r);

/// Claim feat_01 whole: the three claims above hold. Returns whether it holds; `why` (if given)
/// names the first failure.
bool features_recovered(const FeatureRecovery& r, std::string* why = nullptr);

// ---- companion: the biased dataset --------------------------------------------------------------

/// Claim bias_01 on one biased-dataset table: every assigned label is predicted. Evidence:
/// "  6 of 6 assignments fitted".
app::ClaimCheck claim_fitted(const std::vector<BiasedRow>& rows);

/// Claim bias_02 on a survey: it holds if at least one run that fits all six assignments shows the
/// contrast (one class near 0, the other near 1) and the runs show more than one pattern (the
/// solution depends on the initialisation). Evidence: how many runs show the contrast.
app::ClaimCheck claim_bias_02(const std::vector<BiasedRun>& runs);

}  // namespace ch05
