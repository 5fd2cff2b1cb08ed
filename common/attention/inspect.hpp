/// \file common/attention/inspect.hpp
/// \brief Reading a hooked run (hooks.hpp), written once for both of chapter 09's models, the
/// attention-only model and GPT-2: the loss of a prediction, the tokens a row of logits favours, a
/// write through the final norm with its scale frozen and every head's write decoded by it (direct
/// logit attribution), centred cosines between streams, zero against mean ablation of every head,
/// and activation patching from a run on one sentence into a run on another.
///
/// Shapes: tokens are rows; a head's write and a stream are n x width (row i: position i), a row of
/// logits 1 x vocab (decode_writes and patch_rows take one such row per head or per patch, at
/// one position). Heads are indexed layer-major, k = layer * heads + head, with layers and heads
/// counted from 0 in the fields; names count layers from 1 ("L2.H1": the second layer's head 1).
///
/// Throws: std::out_of_range for a head index in `together` past the last head (patches_from), for
/// fewer than layers x heads means or 2 x heads measured variants a layer (zero_and_mean) and for
/// fewer patches than rows of logits (patch_rows); std::invalid_argument for a row of logits that
/// is not finite (patch_rows, through softmax_rows); Armadillo's std::logic_error for an empty list
/// (sharpest, strongest) or NaN entries (top_entries). The others throw nothing (beyond
/// std::bad_alloc), given indices inside the rows they read.
/// Sources: Ethayarajh 2019, "How Contextual are Contextualized Word Representations?"
/// (contextual representations are anisotropic: raw cosines are high for any pair, so compare
/// against what the sentences share); Elhage et al. 2021, "A Mathematical Framework for Transformer
/// Circuits" (direct logit attribution); Wang et al. 2022, "Interpretability in the Wild", §3 (mean
/// ablation); Meng et al. 2022, "Locating and Editing Factual Associations in GPT" (restoring one
/// run's activations inside another); Heimersheim & Nanda 2024, "How to use and interpret
/// activation patching" (a head's output and the residual stream as patch sites; probabilities
/// read after each patch).
#pragma once

#include <algorithm>
#include <armadillo>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/head_roles.hpp"
#include "common/attention/hooks.hpp"

namespace attn {

/// -ln softmax(z)[target] for one row of logits z (1 x vocab, float or double), summed in double:
/// max z + ln sum exp(z - max z) - z[target].
template <class Row>
double token_loss(const Row& z, arma::uword target) {
  const arma::rowvec x = arma::conv_to<arma::rowvec>::from(z);
  return x.max() + std::log(arma::accu(arma::exp(x - x.max()))) - x(target);
}

/// The `count` entries of `row` (1 x vocab) with the largest values (order "descend") or the
/// smallest ("ascend"), as (label(index), value) pairs; `label` names a token id. None for count 0.
template <class Row, class Label>
std::vector<std::pair<std::string, double>> top_entries(const Row& row, arma::uword count, const char* order,
                                                        Label label) {
  if (count == 0) return {};  // nothing asked: no sort
  const arma::uvec idx = arma::sort_index(row, order);
  std::vector<std::pair<std::string, double>> out;
  for (arma::uword k = 0; k < count && k < idx.n_elem; ++k) out.emplace_back(label(idx(k)), row(idx(k)));
  return out;
}

/// A write w (1 x width, in double) through a layer norm whose scale is frozen at a pass's value
/// s = 1 / sqrt(var(x) + eps) of the stream x it joins (var: the population variance):
/// (w - mean w) s, 1 x width, before the norm's gain. The norm's centring is linear and its scale
/// is held fixed, so the parts of a stream (the embedding, each head's write) map to parts that add
/// up to the normed stream before its gain and bias (direct logit attribution).
// [frozen_norm]
inline arma::rowvec frozen_norm(const arma::rowvec& write, double scale) {
  return (write - arma::mean(write)) * scale;  // centring is linear; the scale is a constant here
}
// [frozen_norm]

/// cos(x, y) of two rows; NaN when either is zero.
inline double cosine(const arma::rowvec& x, const arma::rowvec& y) {
  const double n = arma::norm(x) * arma::norm(y);
  return n > 0 ? arma::dot(x, y) / n : std::nan("");
}

/// cos(x - cx, y - cy): the cosine of two streams (1 x width) after taking out a centre from each
/// (the mean stream of the sentences compared, or of controls). NaN when either centred vector
/// vanishes (its norm at most 1e-9 of the stream's): no direction is left.
inline double centred_cosine(const arma::rowvec& x, const arma::rowvec& y, const arma::rowvec& cx,
                             const arma::rowvec& cy) {
  const arma::rowvec u = x - cx, v = y - cy;
  const auto vanished = [](const arma::rowvec& d, const arma::rowvec& r) {
    return arma::norm(d) <= 1e-9 * arma::norm(r);
  };
  return vanished(u, x) || vanished(v, y) ? std::nan("") : cosine(u, v);
}

// ---- what each head writes, decoded ---------------------------------------------------------------

/// One head's write at one position, decoded through direct logit attribution.
struct HeadWrite {
  arma::uword layer = 0;                                ///< its layer (from 0)
  arma::uword head = 0;                                 ///< its head within the layer (from 0)
  arma::uword top_source = 0;                           ///< the source it weighs most there
  double top_weight = 0.0;                              ///< that weight
  double size = 0.0;                                    ///< ||write at the position||
  double on_prediction = 0.0;                           ///< its direct effect on the predicted token's logit
  std::vector<std::pair<std::string, double>> raised;   ///< the tokens it raises most, with logit changes
  std::vector<std::pair<std::string, double>> lowered;  ///< the tokens it lowers most
};

/// Every head's write at position t decoded, layer-major with `heads` per layer: pattern(k) is
/// head k's n x n pattern, write(k) its n x width write, and row k of `logits` (heads in all x
/// vocab) the direct logits of its write at t; effects are read on token `predicted`, and the
/// `count` tokens each raises and lowers most are named by `label`.
// [decode_writes]
template <class T, class Pattern, class Write, class Label>
std::vector<HeadWrite> decode_writes(arma::uword heads, Pattern pattern, Write write, const arma::Mat<T>& logits,
                                     arma::uword t, arma::uword predicted, arma::uword count, Label label) {
  std::vector<HeadWrite> out;
  for (arma::uword k = 0; k < logits.n_rows; ++k) {
    const arma::Row<T> a = pattern(k).row(t).cols(0, t);  // where position t reads
    const arma::Row<T> effect = logits.row(k);            // 1 x vocab: the logits the write adds
    out.push_back({k / heads, k % heads, a.index_max(), a.max(), arma::norm(write(k).row(t)), effect(predicted),
                   top_entries(effect, count, "descend", label), top_entries(effect, count, "ascend", label)});
  }
  return out;
}
// [decode_writes]

/// The head with the largest top weight among `writes` (the sharpest attention).
inline arma::uword sharpest(const std::vector<HeadWrite>& writes) {
  arma::vec top(writes.size());
  for (arma::uword k = 0; k < top.n_elem; ++k) top(k) = writes[k].top_weight;
  return top.index_max();
}

/// The head with the largest |direct effect| on the predicted token among `writes`.
inline arma::uword strongest(const std::vector<HeadWrite>& writes) {
  arma::vec effect(writes.size());
  for (arma::uword k = 0; k < effect.n_elem; ++k) effect(k) = std::abs(writes[k].on_prediction);
  return effect.index_max();
}

// ---- zero and mean ablation ----------------------------------------------------------------------

/// What removing each head costs, two ways.
struct ZeroAndMean {
  arma::mat zero;  ///< (layers heads) x m: the change of each of m losses when the head's write is
                   ///< zeroed (positive: it costs)
  arma::mat mean;  ///< the same when it is replaced by its mean write over reference text
};

/// Zero against mean ablation of every head (Wang et al. 2022, §3: the mean keeps the constant a
/// head adds, so only what varies with the input is removed). Layer by layer, `losses(l, variants)`
/// measures the m losses (1 x m each) under each set of hooks in `variants`: for each head h of
/// layer l in order, its write replaced at every position by 0 (variant 2h), then by
/// means[l * heads + h] (1 x width; variant 2h + 1). `clean`: the m losses with nothing replaced.
// [zero_and_mean]
template <class T, class Losses>
ZeroAndMean zero_and_mean(arma::uword layers, arma::uword heads, const std::vector<arma::Row<T>>& means,
                          const arma::rowvec& clean, Losses losses) {
  ZeroAndMean out{arma::mat(layers * heads, clean.n_elem), arma::mat(layers * heads, clean.n_elem)};
  for (arma::uword l = 0; l < layers; ++l) {
    std::vector<BasicHooks<T>> variants;
    for (arma::uword h = 0; h < heads; ++h) {
      const arma::Row<T>& mean = means.at(l * heads + h);
      variants.push_back(replacing_head(l, h, arma::Mat<T>(1, mean.n_elem, arma::fill::zeros)));
      variants.push_back(replacing_head(l, h, arma::Mat<T>(mean)));
    }
    const std::vector<arma::rowvec> measured = losses(l, variants);
    for (arma::uword h = 0; h < heads; ++h) {
      out.zero.row(l * heads + h) = measured.at(2 * h) - clean;
      out.mean.row(l * heads + h) = measured.at(2 * h + 1) - clean;
    }
  }
  return out;
}
// [zero_and_mean]

// ---- activation patching -------------------------------------------------------------------------

/// One patch: what it replaces, the first layer whose input it changes (a patched pass may start
/// there: the layers before it are the clean run's), and the hooks that apply it.
template <class T>
struct BasicPatch {
  std::string what;     ///< "L2.H1's output", "the stream entering layer 2", "the final stream"
  arma::uword layer;    ///< the first layer it changes (= layers for the final stream)
  BasicHooks<T> hooks;  ///< the patched pass applies these
};

/// The patches of activation patching from a run on sentence B into a run on sentence A of the
/// same length: every head's write at every position, layer-major, as it was on B; then B's stream
/// at position `last` entering each layer, then the final stream; then, when `together` names two
/// or more heads (indices k = layer * heads + head), their writes at once (heads that share a job).
/// write(l, h): B's n x width write of head h of layer l; stream(l): B's n x width stream entering
/// layer l (l = layers: the final stream).
// [patches_from]
template <class T, class Write, class Stream>
std::vector<BasicPatch<T>> patches_from(arma::uword layers, arma::uword heads, Write write, Stream stream,
                                        arma::uword last, const std::vector<arma::uword>& together = {}) {
  std::vector<BasicPatch<T>> patches;
  for (arma::uword k = 0; k < layers * heads; ++k) {
    const arma::uword l = k / heads, h = k % heads;
    patches.push_back({head_name(l, h) + "'s output", l, replacing_head(l, h, arma::Mat<T>(write(l, h)))});
  }
  for (arma::uword l = 0; l <= layers; ++l) {
    patches.push_back({l < layers ? "the stream entering layer " + std::to_string(l + 1) : "the final stream", l,
                       replacing_stream(l, last, arma::Row<T>(stream(l).row(last)))});
  }
  if (together.size() > 1) {
    std::vector<BasicHooks<T>> each;
    std::string names;
    arma::uword earliest = layers;
    for (const arma::uword k : together) {
      if (k >= layers * heads)
        throw std::out_of_range("patches_from: head " + std::to_string(k) + " of " + std::to_string(layers * heads));
      const arma::uword l = k / heads, h = k % heads;
      each.push_back(replacing_head(l, h, arma::Mat<T>(write(l, h))));
      names += (names.empty() ? "" : " + ") + head_name(l, h);
      earliest = std::min(earliest, l);
    }
    patches.push_back({names + " at once", earliest, combined(each)});
  }
  return patches;
}
// [patches_from]

/// A's prediction at its last position after one patch.
struct PatchRow {
  std::string what;  ///< the patch's name (BasicPatch::what)
  double p_a = 0.0;  ///< probability of A's clean prediction
  double p_b = 0.0;  ///< probability of B's clean prediction
  std::string top;   ///< the likeliest next token after the patch, label(id)
};

/// The rows of a patching table: row r of `logits` (patches x vocab) is A's last position after
/// patch r, read as probabilities (softmax in double) of A's clean prediction `ia`, of B's `ib`,
/// and the likeliest token.
template <class T, class Label>
std::vector<PatchRow> patch_rows(const std::vector<BasicPatch<T>>& patches, const arma::Mat<T>& logits, arma::uword ia,
                                 arma::uword ib, Label label) {
  std::vector<PatchRow> rows;
  for (arma::uword r = 0; r < logits.n_rows; ++r) {
    const arma::rowvec p = softmax_rows(arma::conv_to<arma::mat>::from(logits.row(r)));
    rows.push_back({patches.at(r).what, p(ia), p(ib), label(p.index_max())});
  }
  return rows;
}

}  // namespace attn
