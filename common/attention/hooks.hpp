/// \file common/attention/hooks.hpp
/// \brief Where a forward pass lets a reader look and intervene as it runs: each head's write into
/// the residual stream, and the stream entering each layer (two of TransformerLens's hook points).
/// The attention-only model (attn_only.hpp) and GPT-2 (common/gpt2) take the same hooks, so
/// chapter 09's ablations and patches are one mechanism for both.
///
/// Shapes: tokens are rows; a head's write and a stream are N x width (row i: position i; a pass
/// over B sequences stacks them, N = B T). Throws: the hooks built here throw
/// std::invalid_argument, when the pass calls them, for a replacement whose shape does not fit.
/// Sources: Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits" (the residual
/// stream as the sum of every head's write); Nanda and Bloom 2022, TransformerLens (hook points);
/// Meng et al. 2022 and Wang et al. 2022 (activation patching, zero and mean ablation).
#pragma once

#include <armadillo>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attn {

/// Two hook points; each may be empty, and an empty one costs the pass nothing.
template <class T>
struct BasicHooks {
  /// Called with (layer, head, write) before head `head`'s write (N x width) joins the stream;
  /// may change `write` in place (zero or mean ablation, patching from another pass).
  std::function<void(arma::uword, arma::uword, arma::Mat<T>&)> head_output;
  /// Called with (layer, stream) on the N x width stream entering layer `layer` (layer = layers:
  /// the stream the final norm reads); may change it in place (patching the residual stream).
  std::function<void(arma::uword, arma::Mat<T>&)> residual;
};
using Hooks = BasicHooks<double>;  ///< the attention-only model's precision (GPT-2's tools: float)

/// Hooks that replace head (layer, head)'s write at every position by `replacement`: 1 x width
/// (zero or mean ablation: the same row everywhere) or N x width (the write of another pass).
template <class T>
BasicHooks<T> replacing_head(arma::uword layer, arma::uword head, const arma::Mat<T>& replacement) {
  BasicHooks<T> hooks;
  hooks.head_output = [=](arma::uword l, arma::uword h, arma::Mat<T>& write) {
    if (l != layer || h != head) return;
    if (replacement.n_cols != write.n_cols || (replacement.n_rows != 1 && replacement.n_rows != write.n_rows)) {
      throw std::invalid_argument("replacing a head's write: the replacement is " + std::to_string(replacement.n_rows) +
                                  " x " + std::to_string(replacement.n_cols) + ", the write " +
                                  std::to_string(write.n_rows) + " x " + std::to_string(write.n_cols));
    }
    write = replacement.n_rows == 1 ? arma::Mat<T>(arma::repmat(replacement, write.n_rows, 1)) : replacement;
  };
  return hooks;
}

/// Hooks that replace row `position` of the stream entering `layer` by `row` (1 x width).
template <class T>
BasicHooks<T> replacing_stream(arma::uword layer, arma::uword position, const arma::Row<T>& row) {
  BasicHooks<T> hooks;
  hooks.residual = [=](arma::uword l, arma::Mat<T>& stream) {
    if (l != layer) return;
    if (position >= stream.n_rows || row.n_elem != stream.n_cols) {
      throw std::invalid_argument("replacing the stream: position " + std::to_string(position) + " and a row of " +
                                  std::to_string(row.n_elem) + " for a stream of " + std::to_string(stream.n_rows) +
                                  " x " + std::to_string(stream.n_cols));
    }
    stream.row(position) = row;
  };
  return hooks;
}

/// Every hook of `all`, in order, at each point (several heads patched at once).
template <class T>
BasicHooks<T> combined(std::vector<BasicHooks<T>> all) {
  BasicHooks<T> hooks;
  hooks.head_output = [all](arma::uword l, arma::uword h, arma::Mat<T>& write) {
    for (const BasicHooks<T>& each : all)
      if (each.head_output) each.head_output(l, h, write);
  };
  hooks.residual = [all](arma::uword l, arma::Mat<T>& stream) {
    for (const BasicHooks<T>& each : all)
      if (each.residual) each.residual(l, stream);
  };
  return hooks;
}

}  // namespace attn
