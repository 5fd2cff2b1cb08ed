/// \file chapters/09_real_heads/writes.cpp
/// \brief What heads write, decoded; the induction circuit (see writes.hpp).
#include "writes.hpp"

#include <cmath>
#include <stdexcept>

#include "common/attention/inspect.hpp"

namespace ch09 {

// [trace]
Trace trace(const Model& model, const arma::urowvec& tokens, const attn::Hooks& hooks) {
  const attn::AttnOnlyModel<double> m = attn::convert_model<double>(model);  // the analyses sum many small terms
  Trace tr;
  attn::Hooks keep_all;  // the caller's hooks first, then a copy of what the pass goes on with
  keep_all.residual = [&](arma::uword l, arma::mat& X) {
    if (hooks.residual) hooks.residual(l, X);
    tr.streams.push_back(X);  // T x width: X_l
  };
  keep_all.head_output = [&](arma::uword l, arma::uword h, arma::mat& write) {
    if (hooks.head_output) hooks.head_output(l, h, write);
    tr.writes.push_back(write);  // T x width: A_h V_h Wo^h, what head h adds to the stream
  };
  attn::AttnOnlyPass<double> pass;
  attn::forward(m, arma::umat(tokens), pass, nullptr, keep_all);
  for (const auto& layer : pass.layers) {
    for (arma::uword h = 0; h < layer.A.n_slices; ++h) tr.weights.push_back(layer.A.slice(h));  // T x T
  }
  tr.inv_std = m.shape.final_norm ? arma::vec(pass.inv_std) : arma::vec(tokens.n_elem, arma::fill::ones);
  tr.logits = std::move(pass.logits);  // T x vocab
  return tr;
}
// [trace]

arma::rowvec trace_losses(const Trace& tr, const arma::urowvec& tokens) {
  arma::rowvec out(tokens.n_elem - 1);
  for (arma::uword t = 0; t + 1 < tokens.n_elem; ++t) out(t) = attn::token_loss(tr.logits.row(t), tokens(t + 1));
  return out;
}

// [direct_logits]
arma::rowvec direct_logits(const Model& model, const Trace& tr, arma::uword t, const arma::rowvec& write) {
  if (t >= tr.inv_std.n_elem) throw std::invalid_argument("direct_logits: position out of range");
  if (!model.shape.final_norm) return write * to_double(model.U);  // 1 x vocab: the logits this write adds
  // centred (linear) and scaled by the norm's scale, frozen at this pass's value, then its gain
  return (attn::frozen_norm(write, tr.inv_std(t)) % to_double(model.gain)) * to_double(model.U);
}
// [direct_logits]

WritesSection head_writes(const Model& model, const Vocabulary& vocab, const std::string& sentence,
                          std::optional<arma::uword> position) {
  if (sentence.empty() || sentence.size() > model.shape.context)
    throw std::invalid_argument("a sentence must have 1 to " + std::to_string(model.shape.context) + " characters");
  const arma::urowvec tokens = vocab.encode(sentence);
  const Trace tr = trace(model, tokens);
  WritesSection out;
  out.sentence = sentence;
  for (const arma::uword t : tokens) out.labels.push_back(vocab.label(t));
  out.position = position.value_or(tokens.n_elem - 1);
  if (out.position >= tokens.n_elem) throw std::invalid_argument("head_writes: position outside the sentence");
  const arma::uword K = tr.writes.size();
  const auto pattern = [&](arma::uword k) -> const arma::mat& { return tr.weights[k]; };
  const auto write = [&](arma::uword k) -> const arma::mat& { return tr.writes[k]; };
  const auto label = [&](arma::uword id) { return vocab.label(id); };
  for (arma::uword i = 0; i < tokens.n_elem; ++i) {
    const arma::uword predicted = tr.logits.row(i).index_max();
    arma::mat logits(K, tr.logits.n_cols);  // heads x vocab: what each head's write adds at i
    for (arma::uword k = 0; k < K; ++k) logits.row(k) = direct_logits(model, tr, i, tr.writes[k].row(i));
    std::vector<attn::HeadWrite> heads =
        attn::decode_writes(model.shape.heads, pattern, write, logits, i, predicted, 3, label);
    const arma::uword sharpest = attn::sharpest(heads), strongest = attn::strongest(heads);
    if (i == out.position) {
      out.predicted = vocab.label(predicted), out.sharpest = sharpest, out.strongest = strongest;
      out.heads = std::move(heads);
    }
    if (i == 0) continue;  // position 0 has one source: every head's weight is 1
    ++out.positions;
    if (sharpest != strongest) ++out.disagree;
  }
  return out;
}

// [copying]
CopyingSection copying(const Model& model, const Probes& probes, arma::uword layer,
                       const std::vector<arma::uword>& heads) {
  CopyingSection out{head_list(layer, heads), 0, 0, 0.0};
  for (arma::uword b = 0; b < probes.random.tokens.n_rows; ++b) {
    const arma::urowvec tokens = probes.random.tokens.row(b);
    const Trace tr = trace(model, tokens);
    const arma::uword s = probes.random.blocks[b].start, n = probes.random.blocks[b].length;
    for (arma::uword j = 1; j < n; ++j) {
      const arma::uword i = s + n + j - 1;  // reads the second copy, predicts token s + n + j = token s + j
      arma::rowvec write(tr.writes.front().n_cols, arma::fill::zeros);  // what the heads add to the stream at i
      for (const arma::uword h : heads) write += tr.writes[layer * model.shape.heads + h].row(i);
      const arma::rowvec logits = direct_logits(model, tr, i, write);
      ++out.cases;
      if (logits.index_max() == tokens(s + j)) ++out.copies;
    }
  }
  out.share = static_cast<double>(out.copies) / static_cast<double>(std::max<arma::uword>(out.cases, 1));
  return out;
}
// [copying]

}  // namespace ch09
