/// \file features.hpp
/// \brief Chapter 05 companion: can two small matrices recover identifiable features?
///
/// Each example has one query token x (1 x 9 features) and four source tokens Xs (4 x 9). The keys
/// of the four source slots are fixed (K, 4 x 3, not learned, not computed from the tokens), and
/// the output y (1 x 3) is compared directly with a target in a fixed 3-d space (no learned readout):
///
///     q = x Wq            1 x 3       (learned, 9 x 3)
///     a = softmax(q K^T / sqrt(3))    1 x 4
///     y = a Xs Wv         1 x 3       (learned, 9 x 3): the mixture of the values V = Xs Wv
///
/// Targets come from known maps Wq* and Wv*: Wq* reads query features 0.2, Wv* reads source
/// features 3.5; features 6.8 are distractors read by neither. Because K and the output space are
/// fixed, the learned maps can be compared with the true ones coordinate by coordinate. (Four keys
/// in three dimensions, none a combination summing every score equally, so softmax's shift
/// invariance cannot hide a change of Wq.)
///
/// Throws: std::invalid_argument for n of 0 (make_feature_data), zero sizes or steps < 1
/// (recover_features); std::logic_error from Armadillo for mismatched shapes, which feature_head and
/// feature_loss do not check. The others throw nothing beyond std::bad_alloc.
/// Sources: the article, "Can two small matrices recover identifiable features?"; Goodfellow et al.
/// 2016, §6.5 (the chain rule through softmax).
#pragma once

#include <armadillo>

#include <cstdint>
#include <string>
#include <vector>

#include "common/attention/optim.hpp"

namespace ch05 {

/// Feature layout of the experiment.
struct FeatureLayout {
  static constexpr arma::uword features = 9;  ///< input features per token
  static constexpr arma::uword width = 3;     ///< query/key and value width
  static constexpr arma::uword slots = 4;     ///< source tokens per example
};

/// A batch of synthetic examples.
struct FeatureData {
  arma::mat Xq;               ///< N x 9: the query token of each example
  std::vector<arma::mat> Xs;  ///< 4 matrices N x 9: source slot j of each example
  arma::mat Y;                ///< N x 3: targets
};

/// The fixed keys of the four source slots: 4 x 3 (rows e1, e2, e3 and -(1,1,1)).
arma::mat fixed_keys();
/// The true query map Wq* (9 x 3): non-zero only in rows 0.2 (the query-relevant features).
arma::mat true_Wq();
/// The true value map Wv* (9 x 3): non-zero only in rows 3.5 (the value-relevant features).
arma::mat true_Wv();

/// Outputs of the head for every example: N x 3 (row i: example i). Wq, Wv: 9 x 3; Xq and each of
/// the 4 Xs: N x 9. Does not check shapes.
arma::mat feature_head(const arma::mat& Wq, const arma::mat& Wv, const arma::mat& Xq, const std::vector<arma::mat>& Xs);

/// N examples with N(0, 1) features (one attn::Random stream seeded with `seed`) and targets from
/// the true maps (no noise).
FeatureData make_feature_data(arma::uword n, std::uint64_t seed);

/// Loss (half the mean squared error over examples) and its gradients for Wq and Wv, written by
/// hand: y = M Wv with M = sum_j a_j Xs_j; a = softmax(x Wq K^T / sqrt(3)).
struct FeatureLoss {
  double loss = 0.0;  ///< (1 / 2N) sum_i |y_i - target_i|^2
  arma::mat dWq;      ///< 9 x 3
  arma::mat dWv;      ///< 9 x 3
};

/// Computes FeatureLoss on `data`: Wq and Wv 9 x 3, data as FeatureData (N examples of a 1 x 9 query
/// token and four 1 x 9 source tokens, targets 1 x 3). Returns the scalar loss and dWq, dWv (9 x 3).
/// Does not check shapes. The gradient is the chain rule through softmax.
FeatureLoss feature_loss(const arma::mat& Wq, const arma::mat& Wv, const FeatureData& data);

/// Result of the feature-recovery experiment.
struct FeatureRecovery {
  arma::mat Wq;                ///< learned 9 x 3
  arma::mat Wv;                ///< learned 9 x 3
  double train_error = 0.0;    ///< relative error on the training set: sum|y - t|^2 / sum|t|^2
  double heldout_error = 0.0;  ///< the same on fresh held-out examples
  double Wq_error = 0.0;       ///< |Wq - Wq*|_F / |Wq*|_F
  double Wv_error = 0.0;       ///< |Wv - Wv*|_F / |Wv*|_F
  arma::vec query_effect;      ///< 9 x 1: mean |change of y| when the query token moves +1 along feature r
  arma::vec source_effect;     ///< 9 x 1: mean |change of y| when every source token moves +1 along feature r
};

/// The article's settings of the feature-recovery companion.
struct FeatureSettings {
  arma::uword n_train = 256;  ///< training examples
  arma::uword n_test = 256;   ///< fresh held-out examples
  int steps = 1500;           ///< full-batch Adam steps
  double lr = 0.02;           ///< Adam's learning rate
  std::uint64_t seed = 0;     ///< data from seed and seed + 1, the start from seed + 2
};

/// Trains Wq and Wv (Adam, full batch, small random start) on `settings.n_train` examples and
/// evaluates on `settings.n_test` fresh ones, with interventions on the held-out set.
FeatureRecovery recover_features(const FeatureSettings& settings = {});

/// Row norms of the true and learned maps, one row per input feature: 9 x 4, columns |Wq* row|,
/// |Wq row|, |Wv* row|, |Wv row| (the table and the bar chart of the companion).
arma::mat feature_row_norms(const FeatureRecovery& r);

}  // namespace ch05
