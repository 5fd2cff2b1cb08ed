/// \file softmax_backward.hpp
/// \brief The backward pass of a row-wise softmax, the one every hand-written backward uses.
///
/// forward: A_ij = exp(S_ij) / sum_m exp(S_im)  (each row of A sums to 1)
///   =>   dS_ij = A_ij (dA_ij - sum_m dA_im A_im)
/// Entries masked before the softmax have A_ij = 0, so they pass no gradient back: the same
/// formula serves bidirectional and causal attention.
///
/// Throws: std::invalid_argument naming both shapes if A and dA differ in shape, or are not square
/// with `causal`; nothing else (beyond std::bad_alloc).
/// Source: the derivative of softmax, d A_ij / d S_ik = A_ij (delta_jk - A_ik), contracted with dA
/// (the Jacobian diag(a_i) - a_i^T a_i applied to each row's dA_i); the article's "Train the
/// projections" section uses it through the attention weights.
#pragma once

#include <armadillo>
#include <stdexcept>
#include <string>

namespace attn {

/// dS (n x m) from the weights A (n x m, rows = receiving tokens, each row a softmax) and the
/// gradient dA of the loss with respect to them (n x m). With `causal`, A must be square and only
/// j <= i is visited (A is zero above the diagonal, and so is dS). Columns are swept in storage
/// order, so the inner loops run over contiguous memory. dS is resized; it may not alias A or dA.
// [softmax_rows_backward]
template <class T>
void softmax_rows_backward(const arma::Mat<T>& A, const arma::Mat<T>& dA, arma::Mat<T>& dS, bool causal = false) {
  if (arma::size(A) != arma::size(dA) || (causal && A.n_rows != A.n_cols)) {
    throw std::invalid_argument("softmax_rows_backward: A is " + std::to_string(A.n_rows) + " x " +
                                std::to_string(A.n_cols) + ", dA is " + std::to_string(dA.n_rows) + " x " +
                                std::to_string(dA.n_cols) + (causal ? " (causal needs both square)" : ""));
  }
  const arma::uword n = A.n_rows, m = A.n_cols;
  dS.set_size(n, m);
  arma::Col<T> dot(n, arma::fill::zeros);  // dot_i = sum_m dA_im A_im
  for (arma::uword j = 0; j < m; ++j) {
    const arma::uword first = causal ? j : 0;
    const T* a = A.colptr(j);
    const T* da = dA.colptr(j);
    for (arma::uword i = first; i < n; ++i) dot[i] += da[i] * a[i];
  }
  for (arma::uword j = 0; j < m; ++j) {
    const arma::uword first = causal ? j : 0;
    const T* a = A.colptr(j);
    const T* da = dA.colptr(j);
    T* ds = dS.colptr(j);
    for (arma::uword i = 0; i < first; ++i) ds[i] = T(0);  // above the diagonal: masked
    for (arma::uword i = first; i < n; ++i) ds[i] = a[i] * (da[i] - dot[i]);
  }
}
// [softmax_rows_backward]

/// softmax_rows_backward() returning dS (n x m, the shape of A): A n x m (rows = receiving tokens,
/// each row a softmax), dA n x m.
template <class T>
arma::Mat<T> softmax_rows_backward(const arma::Mat<T>& A, const arma::Mat<T>& dA) {
  arma::Mat<T> dS;
  softmax_rows_backward(A, dA, dS);
  return dS;
}

}  // namespace attn
