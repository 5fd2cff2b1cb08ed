/// \file chapters/09_real_heads/writes.cpp
/// \brief What heads write, decoded; the induction circuit (see writes.hpp).
#include "writes.hpp"

#include <cmath>
#include <stdexcept>

#include "common/apparatus/print.hpp"

namespace ch09 {

namespace {

/// A head's write replaced as `patch` asks (a 1 x width row stands for every position).
void apply_patch(const Patch& patch, arma::uword k, arma::mat& write) {
  for (const auto& [head, M] : patch.writes) {
    if (head != k) continue;
    if (M.n_cols != write.n_cols || (M.n_rows != 1 && M.n_rows != write.n_rows))
      throw std::invalid_argument("trace: a patch of head " + std::to_string(k) + " has the wrong shape");
    write = M.n_rows == 1 ? arma::mat(arma::repmat(M, write.n_rows, 1)) : M;
  }
}

void patch_stream(const Patch& patch, arma::uword layer, arma::mat& X) {
  if (!patch.stream_layer || *patch.stream_layer != layer) return;
  if (patch.stream_position >= X.n_rows || patch.stream_row.n_elem != X.n_cols)
    throw std::invalid_argument("trace: the stream patch's position or width is out of range");
  X.row(patch.stream_position) = patch.stream_row;
}

/// The characters of `row` (1 x vocab) with the `count` largest (descend) or smallest values.
std::vector<std::pair<std::string, double>> extremes(const arma::rowvec& row, const Vocabulary& vocab,
                                                     arma::uword count, const char* order) {
  const arma::uvec idx = arma::sort_index(row, order);
  std::vector<std::pair<std::string, double>> out;
  for (arma::uword k = 0; k < count && k < idx.n_elem; ++k) out.emplace_back(vocab.label(idx(k)), row(idx(k)));
  return out;
}

}  // namespace

// [trace]
Trace trace(const Model& model, const arma::urowvec& tokens, const Patch& patch) {
  const attn::AttnOnlyShape& s = model.shape;
  const arma::uword T = tokens.n_elem, dk = s.d_k;
  if (T == 0 || T > s.context || tokens.max() >= s.vocab)
    throw std::invalid_argument("trace: tokens must be 1 to " + std::to_string(s.context) +
                                " ids below the vocabulary");
  for (const auto& [head, M] : patch.writes) {
    if (head >= s.layers * s.heads) throw std::invalid_argument("trace: a patch names head " + std::to_string(head));
  }
  const arma::mat E = to_double(model.E), P = to_double(model.P);
  arma::mat X(T, s.width);
  for (arma::uword t = 0; t < T; ++t) X.row(t) = E.row(tokens(t)) + P.row(t);  // X_0 = E[token] + P[position]
  Trace tr;
  for (arma::uword l = 0; l < s.layers; ++l) {
    patch_stream(patch, l, X);
    tr.streams.push_back(X);
    const arma::mat Wq = to_double(model.layers[l].Wq), Wk = to_double(model.layers[l].Wk),
                    Wv = to_double(model.layers[l].Wv), Wo = to_double(model.layers[l].Wo);
    arma::mat update(T, s.width, arma::fill::zeros);
    for (arma::uword h = 0; h < s.heads; ++h) {
      const arma::span c = head_span(h, dk);
      const arma::mat Q = X * Wq.cols(c), K = X * Wk.cols(c), V = X * Wv.cols(c);                   // T x d_k
      const arma::mat A = attn::detail::causal_softmax<double>(Q * K.t() / std::sqrt(double(dk)));  // T x T
      arma::mat write = A * V * Wo.rows(c);  // T x width: what head h adds to the stream
      apply_patch(patch, l * s.heads + h, write);
      update += write;
      tr.weights.push_back(A);
      tr.writes.push_back(std::move(write));
    }
    X += update;  // X_{l+1} = X_l + sum of the heads' writes
  }
  patch_stream(patch, s.layers, X);
  tr.streams.push_back(X);
  arma::mat Y = X;
  tr.inv_std.ones(T);
  if (s.final_norm) {
    Y.each_col() -= arma::mean(X, 1);
    tr.inv_std = 1.0 / arma::sqrt(arma::mean(arma::square(Y), 1) + attn::detail::kNormEps);
    Y.each_col() %= tr.inv_std;
    Y.each_row() %= to_double(model.gain);
    Y.each_row() += to_double(model.bias);
  }
  tr.logits = Y * to_double(model.U);  // T x vocab
  return tr;
}
// [trace]

arma::rowvec trace_losses(const Trace& tr, const arma::urowvec& tokens) {
  arma::rowvec out(tokens.n_elem - 1);
  for (arma::uword t = 0; t + 1 < tokens.n_elem; ++t) {
    const arma::rowvec z = tr.logits.row(t);
    out(t) = z.max() + std::log(arma::accu(arma::exp(z - z.max()))) - z(tokens(t + 1));
  }
  return out;
}

// [direct_logits]
arma::rowvec direct_logits(const Model& model, const Trace& tr, arma::uword t, const arma::rowvec& write) {
  if (t >= tr.inv_std.n_elem) throw std::invalid_argument("direct_logits: position out of range");
  arma::rowvec w = write;
  if (model.shape.final_norm) {
    w -= arma::mean(w);  // the norm's centring is linear
    w *= tr.inv_std(t);  // its scale, frozen at this pass's value
    w %= to_double(model.gain);
  }
  return w * to_double(model.U);  // 1 x vocab: the logits this write adds
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
  for (arma::uword i = 0; i < tokens.n_elem; ++i) {
    const arma::uword predicted = tr.logits.row(i).index_max();
    arma::rowvec sharp(K), effect(K);
    for (arma::uword k = 0; k < K; ++k) {
      const arma::rowvec a = tr.weights[k].row(i).cols(0, i);
      const arma::rowvec logits = direct_logits(model, tr, i, tr.writes[k].row(i));
      sharp(k) = a.max();
      effect(k) = logits(predicted);
      if (i != out.position) continue;
      out.heads.push_back({head_name(k / model.shape.heads, k % model.shape.heads), a.index_max(), a.max(),
                           arma::norm(tr.writes[k].row(i)), logits(predicted), extremes(logits, vocab, 3, "descend"),
                           extremes(logits, vocab, 3, "ascend")});
    }
    const arma::uword sharpest = sharp.index_max(), strongest = arma::abs(effect).index_max();
    if (i == out.position) out.predicted = vocab.label(predicted), out.sharpest = sharpest, out.strongest = strongest;
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

// [claim_copies]
Claim claim_head_copies(const CopyingSection& c) {
  return {"real_06", "what a head writes, decoded: the induction heads raise the repeating character most",
          "the write of " + c.head + " raises the next character of the earlier copy above every other at " +
              std::to_string(c.copies) + " of " + std::to_string(c.cases) + " repeat positions (" +
              attn::format_number(c.share, 3) + (c.share > 0.5 ? " > " : " <= ") + "0.5)",
          c.share > 0.5};
}

// [claim_copies]

}  // namespace ch09
