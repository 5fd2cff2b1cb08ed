/// \file optim.cpp
/// \brief SGD and Adam (see optim.hpp).
#include "common/optim.hpp"

#include <cmath>
#include <stdexcept>

#include "common/checks.hpp"

namespace attn {
namespace {

void check_pair(const Param& p) {
  if (p.value == nullptr || p.grad == nullptr) throw std::invalid_argument("optimizer: " + p.name + " is null");
  if (arma::size(*p.value) != arma::size(*p.grad)) {
    throw std::invalid_argument("optimizer: " + p.name + " is " + shape(*p.value) + " but its gradient is " +
                                shape(*p.grad));
  }
}

}  // namespace

Sgd::Sgd(double lr) : lr_(lr) {
  if (!(std::isfinite(lr) && lr > 0)) throw std::invalid_argument("Sgd: learning rate must be finite and > 0");
}

void Sgd::step(const std::vector<Param>& params) const {
  for (const auto& p : params) {
    check_pair(p);
    *p.value -= lr_ * *p.grad;
  }
}

Adam::Adam(double lr, double beta1, double beta2, double eps) : lr_(lr), beta1_(beta1), beta2_(beta2), eps_(eps) {
  if (!(std::isfinite(lr) && lr > 0)) throw std::invalid_argument("Adam: learning rate must be finite and > 0");
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
    throw std::invalid_argument("Adam: betas must be in [0, 1)");
  if (!(eps > 0)) throw std::invalid_argument("Adam: eps must be > 0");
}

void Adam::step(const std::vector<Param>& params) {
  if (m_.empty()) {
    for (const auto& p : params) {
      check_pair(p);
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
    const Param& p = params[i];
    check_pair(p);
    if (arma::size(m_[i]) != arma::size(*p.value)) {
      throw std::invalid_argument("Adam: " + p.name + " changed shape to " + shape(*p.value));
    }
    // Algorithm 1's three updates, element by element in one pass (no temporaries: the matrices
    // here are a few dozen entries, where allocation would cost more than the arithmetic).
    const double* g = p.grad->memptr();
    double* m = m_[i].memptr();
    double* v = v_[i].memptr();
    double* theta = p.value->memptr();
    for (arma::uword k = 0; k < p.value->n_elem; ++k) {
      m[k] = beta1_ * m[k] + (1.0 - beta1_) * g[k];         // m <- b1 m + (1 - b1) g
      v[k] = beta2_ * v[k] + (1.0 - beta2_) * g[k] * g[k];  // v <- b2 v + (1 - b2) g^2
      // theta <- theta - lr m_hat / (sqrt(v_hat) + eps)
      theta[k] -= step_size * m[k] / (std::sqrt(v[k] * v_scale) + eps_);
    }
  }
}

}  // namespace attn
