/// \file loss.cpp
/// \brief Cross-entropy on logits (see loss.hpp).
#include "common/loss.hpp"

#include <stdexcept>

#include "common/attention.hpp"

namespace attn {

double log_sum_exp(const arma::rowvec& z) {
  const double top = z.max();
  return top + std::log(arma::accu(arma::exp(z - top)));
}

CrossEntropy cross_entropy(const arma::mat& logits, const arma::uvec& labels) {
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
    out.loss += (log_sum_exp(logits.row(r)) - logits(r, labels(r))) / m;
    out.dlogits(r, labels(r)) -= 1.0 / m;
  }
  return out;
}

}  // namespace attn
