/// \file loss.hpp
/// \brief Cross-entropy on logits, computed through a stable log-sum-exp, and its gradient.
#pragma once

#include <armadillo>

namespace attn {

/// Mean cross-entropy of a batch and its gradient with respect to the logits.
struct CrossEntropy {
  double loss = 0.0;  ///< mean over rows of -log softmax(logits)[label]   (nats)
  arma::mat dlogits;  ///< same shape as the logits: (softmax(logits) - onehot(label)) / rows
};

/// logits: m x C (one example per row, one column per class); labels: m class indices in [0, C).
/// loss_r = logsumexp(logits_r) - logits_r[label_r], with the row maximum taken out of the
/// exponentials so that any finite logits give a finite loss.
/// Throws std::invalid_argument if the sizes disagree, a label is out of range, or a logit is not finite.
/// Source: the article's `nn.CrossEntropyLoss()`; Goodfellow et al. 2016, §6.2.2.3.
CrossEntropy cross_entropy(const arma::mat& logits, const arma::uvec& labels);

/// log(sum(exp(z))) without overflow: max(z) + log(sum(exp(z - max(z)))).
/// z: 1 x m, m >= 1, finite entries. An empty z makes Armadillo throw std::logic_error.
/// Source: Goodfellow et al. 2016, §4.1 (the log-sum-exp trick).
double log_sum_exp(const arma::rowvec& z);

}  // namespace attn
