/// \file optim.hpp
/// \brief Optimizers from their sources: plain SGD and Adam (Kingma & Ba 2015, Algorithm 1).
///
/// Both update a list of parameter groups in place from gradients of the same shapes.
#pragma once

#include <armadillo>
#include <string>
#include <vector>

namespace attn {

/// One trainable matrix and its gradient (same shape), e.g. {"Wq", &Wq, &dWq}.
struct Param {
  std::string name;       ///< for error messages, e.g. "Wq"
  arma::mat* value;       ///< the parameter (any rows x cols), updated in place
  const arma::mat* grad;  ///< its gradient, same shape
};

/// Stochastic gradient descent: theta <- theta - lr * g.
/// Source: Goodfellow et al. 2016, §8.3.1 (Algorithm 8.1).
class Sgd {
 public:
  /// lr: learning rate, finite and > 0 (throws std::invalid_argument otherwise).
  /// Source: Goodfellow et al. 2016, §8.3.1 (Algorithm 8.1).
  explicit Sgd(double lr);
  /// Updates every parameter (any shape) in place: theta <- theta - lr g, g of the same shape.
  /// Throws std::invalid_argument if a gradient's shape differs from its parameter's.
  void step(const std::vector<Param>& params) const;
  /// The learning rate given to the constructor (a scalar). Throws nothing.
  double lr() const { return lr_; }

 private:
  double lr_;
};

/// Adam, exactly as Kingma & Ba 2015, Algorithm 1:
///   t <- t + 1;  m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2;
///   m_hat = m / (1 - b1^t);  v_hat = v / (1 - b2^t);  theta <- theta - lr m_hat / (sqrt(v_hat) + eps).
/// t counts optimizer steps (calls to step), not parameters. The moment estimates are kept per
/// parameter group in the order given; every call must pass the same groups in the same order.
class Adam {
 public:
  /// Defaults as in the paper and PyTorch: beta1 0.9, beta2 0.999, eps 1e-8.
  /// Throws std::invalid_argument unless lr > 0, 0 <= beta < 1 and eps > 0.
  /// Source: Kingma & Ba 2015, Algorithm 1.
  explicit Adam(double lr, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8);
  /// One step on every group (any shapes; each gradient matches its parameter). Throws
  /// std::invalid_argument if the groups' number or shapes change between calls, or a gradient's
  /// shape differs from its parameter's. Source: Kingma & Ba 2015, Algorithm 1.
  void step(const std::vector<Param>& params);
  /// Optimizer steps taken so far: the t of the bias correction (a count, not per parameter).
  /// Throws nothing.
  long steps() const { return t_; }

 private:
  double lr_, beta1_, beta2_, eps_;
  long t_ = 0;
  std::vector<arma::mat> m_, v_;
};

}  // namespace attn
