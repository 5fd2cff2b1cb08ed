/// \file optim.hpp
/// \brief Optimizers from their sources: plain SGD and Adam (Kingma & Ba 2015, Algorithm 1).
///
/// Both update a list of parameter groups in place from gradients of the same shapes.
///
/// Throws: std::invalid_argument for a learning rate that is not a finite number > 0 (both
/// constructors), betas outside [0, 1) or eps <= 0 (BasicAdam); for a null group or a gradient whose
/// shape differs from its parameter's (both step()s), and for groups whose number or shapes change
/// between calls (BasicAdam::step). The others throw nothing (beyond std::bad_alloc).
/// Sources: Goodfellow et al. 2016, §8.3.1 (Algorithm 8.1, SGD); Kingma & Ba 2015, Algorithm 1 (Adam).
#pragma once

#include <armadillo>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>
#include "common/attention/checks.hpp"

namespace attn {

/// One trainable matrix and its gradient (same shape), e.g. {"Wq", &Wq, &dWq}, in scalar type T.
template <class T>
struct BasicParam {
  std::string name;          ///< for error messages, e.g. "Wq"
  arma::Mat<T>* value;       ///< the parameter (any rows x cols), updated in place
  const arma::Mat<T>* grad;  ///< its gradient, same shape
};

/// A double parameter group (chapter 05's models).
using Param = BasicParam<double>;

/// Stochastic gradient descent: theta <- theta - lr * g.
class Sgd {
 public:
  /// lr: learning rate, finite and > 0.
  explicit Sgd(double lr);
  /// Updates every parameter (any shape) in place: theta <- theta - lr g, g of the same shape.
  void step(const std::vector<Param>& params) const;
  /// The learning rate given to the constructor (a scalar).
  double lr() const { return lr_; }

 private:
  double lr_;
};

/// Adam, exactly as Kingma & Ba 2015, Algorithm 1:
///   t <- t + 1;  m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2;
///   m_hat = m / (1 - b1^t);  v_hat = v / (1 - b2^t);  theta <- theta - lr m_hat / (sqrt(v_hat) + eps).
/// t counts optimizer steps (calls to step), not parameters. The moment estimates are kept per
/// parameter group in the order given, in the parameters' scalar type T (double for chapter 05,
/// float for the attention-only models); each update is computed in double and rounded to T once.
/// Every call must pass the same groups in the same order.
template <class T>
class BasicAdam {
 public:
  /// lr finite and > 0, betas in [0, 1), eps > 0; defaults as in the paper and PyTorch: beta1 0.9,
  /// beta2 0.999, eps 1e-8.
  explicit BasicAdam(double lr, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8);
  /// One step on every group (any shapes; each gradient matches its parameter).
  void step(const std::vector<BasicParam<T>>& params);
  /// Optimizer steps taken so far: the t of the bias correction (a count, not per parameter).
  long steps() const { return t_; }

 private:
  double lr_, beta1_, beta2_, eps_;
  long t_ = 0;
  std::vector<arma::Mat<T>> m_, v_;
};

/// Adam on double parameter groups.
using Adam = BasicAdam<double>;

// ---- definitions ---------------------------------------------------------------------------------

namespace detail {

/// Refuses a parameter group whose value and gradient are missing or differ in shape.
template <class T>
void check_pair(const BasicParam<T>& p) {
  if (p.value == nullptr || p.grad == nullptr) throw std::invalid_argument("optimizer: " + p.name + " is null");
  if (arma::size(*p.value) != arma::size(*p.grad)) {
    throw std::invalid_argument("optimizer: " + p.name + " is " + shape(*p.value) + " but its gradient is " +
                                shape(*p.grad));
  }
}

}  // namespace detail

inline Sgd::Sgd(double lr) : lr_(lr) {
  if (!(std::isfinite(lr) && lr > 0)) throw std::invalid_argument("Sgd: learning rate must be finite and > 0");
}

inline void Sgd::step(const std::vector<Param>& params) const {
  for (const auto& p : params) {
    detail::check_pair(p);
    *p.value -= lr_ * *p.grad;
  }
}

template <class T>
BasicAdam<T>::BasicAdam(double lr, double beta1, double beta2, double eps)
    : lr_(lr), beta1_(beta1), beta2_(beta2), eps_(eps) {
  if (!(std::isfinite(lr) && lr > 0)) throw std::invalid_argument("Adam: learning rate must be finite and > 0");
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
    throw std::invalid_argument("Adam: betas must be in [0, 1)");
  if (!(eps > 0)) throw std::invalid_argument("Adam: eps must be > 0");
}

template <class T>
void BasicAdam<T>::step(const std::vector<BasicParam<T>>& params) {
  if (m_.empty()) {
    for (const auto& p : params) {
      detail::check_pair(p);
      m_.emplace_back(arma::size(*p.value), arma::fill::zeros);
      v_.emplace_back(arma::size(*p.value), arma::fill::zeros);
    }
  }
  if (params.size() != m_.size()) {
    throw std::invalid_argument("Adam: " + std::to_string(params.size()) + " parameter groups, expected " +
                                std::to_string(m_.size()));
  }
  ++t_;
  const double correction1 = 1.0 - std::pow(beta1_, static_cast<double>(t_));
  const double correction2 = 1.0 - std::pow(beta2_, static_cast<double>(t_));
  const double step_size = lr_ / correction1;  // lr m_hat = (lr / (1 - b1^t)) m
  const double v_scale = 1.0 / correction2;    // v_hat = v / (1 - b2^t)
  for (std::size_t i = 0; i < params.size(); ++i) {
    const BasicParam<T>& p = params[i];
    detail::check_pair(p);
    if (arma::size(m_[i]) != arma::size(*p.value)) {
      throw std::invalid_argument("Adam: " + p.name + " changed shape to " + shape(*p.value));
    }
    // Algorithm 1's three updates, element by element in one pass (no temporaries: the matrices
    // here are a few dozen entries, where allocation would cost more than the arithmetic).
    const T* g = p.grad->memptr();
    T* m = m_[i].memptr();
    T* v = v_[i].memptr();
    T* theta = p.value->memptr();
    for (arma::uword k = 0; k < p.value->n_elem; ++k) {
      m[k] = static_cast<T>(beta1_ * m[k] + (1.0 - beta1_) * g[k]);         // m <- b1 m + (1 - b1) g
      v[k] = static_cast<T>(beta2_ * v[k] + (1.0 - beta2_) * g[k] * g[k]);  // v <- b2 v + (1 - b2) g^2
      // theta <- theta - lr m_hat / (sqrt(v_hat) + eps)
      theta[k] -= static_cast<T>(step_size * m[k] / (std::sqrt(v[k] * v_scale) + eps_));
    }
  }
}

}  // namespace attn
