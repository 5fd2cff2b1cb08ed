/// \file features.cpp
/// \brief Chapter 05 companion: feature recovery (see features.hpp).
#include "features.hpp"

#include <cmath>
#include <stdexcept>

#include "common/attention/attention.hpp"
#include "common/attention/backprop.hpp"
#include "common/attention/random.hpp"

namespace ch05 {

arma::mat fixed_keys() { return arma::mat{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, -1, -1}}; }

arma::mat true_Wq() {
  arma::mat W(FeatureLayout::features, FeatureLayout::width, arma::fill::zeros);
  W.rows(0, 2) = arma::mat{{2.0, 0.0, -1.0}, {0.0, 2.0, 0.5}, {1.0, -0.5, 2.0}};  // reads features 0, 1, 2
  return W;
}

arma::mat true_Wv() {
  arma::mat W(FeatureLayout::features, FeatureLayout::width, arma::fill::zeros);
  W.rows(3, 5) = arma::mat{{1.0, 0.5, 0.0}, {0.0, 1.0, -0.5}, {0.5, 0.0, 1.0}};  // reads features 3, 4, 5
  return W;
}

namespace {

arma::mat attention_weights(const arma::mat& Wq, const arma::mat& Xq) {
  // a = softmax(q K^T / sqrt(3)), q = x Wq; one example per row
  return attn::softmax_rows(Xq * Wq * fixed_keys().t() / std::sqrt(double(FeatureLayout::width)));
}

arma::mat mixed_inputs(const arma::mat& A, const std::vector<arma::mat>& Xs) {
  // M = sum_j a_j Xs_j (row by row), so that y = a (Xs Wv) = M Wv
  arma::mat M(arma::size(Xs[0]), arma::fill::zeros);
  for (arma::uword j = 0; j < Xs.size(); ++j) M += Xs[j].each_col() % A.col(j);
  return M;
}

double relative_error(const arma::mat& Y, const arma::mat& T) {
  return arma::accu(arma::square(Y - T)) / arma::accu(arma::square(T));
}

}  // namespace

arma::mat feature_head(const arma::mat& Wq, const arma::mat& Wv, const arma::mat& Xq,
                       const std::vector<arma::mat>& Xs) {
  return mixed_inputs(attention_weights(Wq, Xq), Xs) * Wv;
}

FeatureData make_feature_data(arma::uword n, std::uint64_t seed) {
  if (n == 0) throw std::invalid_argument("make_feature_data: need at least one example");
  attn::Random rng(seed);
  FeatureData data;
  data.Xq = rng.normal_matrix(n, FeatureLayout::features);
  for (arma::uword j = 0; j < FeatureLayout::slots; ++j)
    data.Xs.push_back(rng.normal_matrix(n, FeatureLayout::features));
  data.Y = feature_head(true_Wq(), true_Wv(), data.Xq, data.Xs);
  return data;
}

// [feature_loss]
FeatureLoss feature_loss(const arma::mat& Wq, const arma::mat& Wv, const FeatureData& data) {
  const double n = static_cast<double>(data.Xq.n_rows), root = std::sqrt(double(FeatureLayout::width));
  const arma::mat K = fixed_keys();
  const arma::mat A = attention_weights(Wq, data.Xq);  // N x 4
  const arma::mat M = mixed_inputs(A, data.Xs);        // N x 9
  const arma::mat Y = M * Wv;                          // N x 3
  FeatureLoss out;
  out.loss = arma::accu(arma::square(Y - data.Y)) / (2 * n);
  // forward: loss = |Y - T|^2 / 2N           =>   dY = (Y - T) / N
  const arma::mat dY = (Y - data.Y) / n;
  // forward: Y = M Wv                        =>   dWv = M^T dY,  dM = dY Wv^T
  out.dWv = M.t() * dY;
  const arma::mat dM = dY * Wv.t();
  // forward: M = sum_j a_j Xs_j              =>   da_j = sum over features of dM .* Xs_j
  arma::mat dA(arma::size(A));
  for (arma::uword j = 0; j < data.Xs.size(); ++j) dA.col(j) = arma::sum(dM % data.Xs[j], 1);
  // forward: A = softmax(S)                  =>   dS = softmax_rows_backward(A, dA)
  // (common/attention/softmax_backward.hpp)
  const arma::mat dS = attn::softmax_rows_backward(A, dA);
  // forward: S = Xq Wq K^T / sqrt(3)         =>   dWq = Xq^T dS K / sqrt(3)
  out.dWq = data.Xq.t() * dS * K / root;
  return out;
}
// [feature_loss]

FeatureRecovery recover_features(const FeatureSettings& settings) {
  const auto [n_train, n_test, steps, lr, seed] = settings;
  if (n_train == 0 || n_test == 0 || steps < 1)
    throw std::invalid_argument("recover_features: sizes and steps must be >= 1");
  const FeatureData train = make_feature_data(n_train, seed);
  const FeatureData test = make_feature_data(n_test, seed + 1);
  FeatureRecovery r;
  attn::Random rng(seed + 2);
  r.Wq = rng.normal_matrix(FeatureLayout::features, FeatureLayout::width, 0.1);  // a small random start
  r.Wv = rng.normal_matrix(FeatureLayout::features, FeatureLayout::width, 0.1);
  attn::Adam adam(lr);
  FeatureLoss g;
  const std::vector<attn::Param> groups{{"Wq", &r.Wq, &g.dWq}, {"Wv", &r.Wv, &g.dWv}};
  for (int s = 0; s < steps; ++s) {
    g = feature_loss(r.Wq, r.Wv, train);
    adam.step(groups);
  }
  r.train_error = relative_error(feature_head(r.Wq, r.Wv, train.Xq, train.Xs), train.Y);
  r.heldout_error = relative_error(feature_head(r.Wq, r.Wv, test.Xq, test.Xs), test.Y);
  r.Wq_error = arma::norm(r.Wq - true_Wq(), "fro") / arma::norm(true_Wq(), "fro");
  r.Wv_error = arma::norm(r.Wv - true_Wv(), "fro") / arma::norm(true_Wv(), "fro");

  // Interventions on the held-out set: move one input feature by +1 and measure how far y moves.
  const arma::mat base = feature_head(r.Wq, r.Wv, test.Xq, test.Xs);
  r.query_effect.zeros(FeatureLayout::features);
  r.source_effect.zeros(FeatureLayout::features);
  for (arma::uword f = 0; f < FeatureLayout::features; ++f) {
    arma::mat Xq = test.Xq;
    Xq.col(f) += 1.0;
    r.query_effect(f) =
        arma::mean(arma::sqrt(arma::sum(arma::square(feature_head(r.Wq, r.Wv, Xq, test.Xs) - base), 1)));
    std::vector<arma::mat> Xs = test.Xs;
    for (auto& X : Xs) X.col(f) += 1.0;
    r.source_effect(f) =
        arma::mean(arma::sqrt(arma::sum(arma::square(feature_head(r.Wq, r.Wv, test.Xq, Xs) - base), 1)));
  }
  return r;
}

arma::mat feature_row_norms(const FeatureRecovery& r) {
  const arma::mat tq = true_Wq(), tv = true_Wv();
  arma::mat norms(FeatureLayout::features, 4);
  for (arma::uword f = 0; f < FeatureLayout::features; ++f) {
    norms.row(f) =
        arma::rowvec{arma::norm(tq.row(f)), arma::norm(r.Wq.row(f)), arma::norm(tv.row(f)), arma::norm(r.Wv.row(f))};
  }
  return norms;
}

}  // namespace ch05
