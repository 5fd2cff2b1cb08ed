/// \file loss.hpp
/// \brief Cross-entropy on logits, computed through a stable log-sum-exp, and its gradient.
///
/// Throws: std::invalid_argument if the sizes disagree, a label is out of range, a logit is not
/// finite, or a row's loss overflows (cross_entropy); Armadillo's std::logic_error for an empty z
/// (log_sum_exp). Nothing else is thrown (beyond std::bad_alloc).
/// Sources: the article's `nn.CrossEntropyLoss()`; Goodfellow et al. 2016, §6.2.2.3 and §4.1 (the
/// log-sum-exp trick).
#pragma once

#include <armadillo>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/attention/attention.hpp"

namespace attn {

/// Mean cross-entropy of a batch and its gradient with respect to the logits.
struct CrossEntropy {
  double loss = 0.0;  ///< mean over rows of -log softmax(logits)[label]   (nats)
  arma::mat dlogits;  ///< same shape as the logits: (softmax(logits) - onehot(label)) / rows
};

/// Mean cross-entropy of `logits` against `labels`, and its gradient with respect to the logits.
/// logits: m x C (one example per row, one column per class); labels: m class indices in [0, C).
/// loss_r = logsumexp(logits_r) - logits_r[label_r], with the row maximum taken out of the
/// exponentials, so no exponential overflows. The loss itself is at most the spread of a row's logits
/// (its largest minus the label's): finite logits spread by more than a double holds (about
/// 1.8e308, as in [1e308, -1e308]) have no finite loss, and are refused.
CrossEntropy cross_entropy(const arma::mat& logits, const arma::uvec& labels);

/// log(sum(exp(z))) without overflow: max(z) + log(sum(exp(z - max(z)))).
/// z: 1 x m, m >= 1, finite entries.
double log_sum_exp(const arma::rowvec& z);

// ---- definitions ---------------------------------------------------------------------------------

inline double log_sum_exp(const arma::rowvec& z) {
  const double top = z.max();
  return top + std::log(arma::accu(arma::exp(z - top)));
}

inline CrossEntropy cross_entropy(const arma::mat& logits, const arma::uvec& labels) {
  if (logits.n_rows != labels.n_elem || logits.n_rows == 0 || logits.n_cols == 0) {
    throw std::invalid_argument("cross_entropy: logits are " + shape(logits) + " but there are " +
                                std::to_string(labels.n_elem) + " labels");
  }
  require_finite(logits, "cross_entropy: logits");
  const double m = static_cast<double>(logits.n_rows);
  CrossEntropy out;
  out.dlogits = softmax_rows(logits) / m;
  for (arma::uword r = 0; r < logits.n_rows; ++r) {
    if (labels(r) >= logits.n_cols) {
      throw std::invalid_argument("cross_entropy: label " + std::to_string(labels(r)) + " is out of range for " +
                                  std::to_string(logits.n_cols) + " classes");
    }
    // forward: loss_r = logsumexp(z_r) - z_r[y]   =>   dz_r = softmax(z_r) - onehot(y)
    const double loss_r = log_sum_exp(logits.row(r)) - logits(r, labels(r));
    if (!std::isfinite(loss_r)) {
      throw std::invalid_argument("cross_entropy: row " + std::to_string(r) +
                                  "'s loss overflows a double (its logits are spread by more than about 1.8e308)");
    }
    out.loss += loss_r / m;
    out.dlogits(r, labels(r)) -= 1.0 / m;
  }
  return out;
}

}  // namespace attn
