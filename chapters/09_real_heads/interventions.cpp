/// \file chapters/09_real_heads/interventions.cpp
/// \brief Zero and mean ablation, activation patching, what they show, and the induction circuit
/// (see interventions.hpp).
#include "interventions.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "common/attention/attention.hpp"
#include "common/attention/inspect.hpp"
#include "common/attention/random.hpp"

namespace ch09 {

namespace {

/// Mean loss over plain windows and over the repeats of random windows, with `hooks` applied.
std::pair<double, double> probe_losses(const Model& model, const Probes& probes, arma::uword windows,
                                       const attn::Hooks& hooks) {
  double plain = 0, repeat = 0, n_repeat = 0;
  for (arma::uword b = 0; b < windows; ++b) {
    const arma::urowvec p = probes.plain.row(b);
    plain += arma::mean(trace_losses(trace(model, p, hooks), p));
    const arma::urowvec r = probes.random.tokens.row(b);
    const arma::rowvec loss = trace_losses(trace(model, r, hooks), r);
    const arma::uword s = probes.random.blocks[b].start, n = probes.random.blocks[b].length;
    for (arma::uword j = 1; j < n; ++j) repeat += loss(s + n + j - 1), n_repeat += 1;
  }
  return {plain / static_cast<double>(windows), repeat / n_repeat};
}

}  // namespace

// [mean_ablation]
AblationCompare compare_ablations(const Model& model, const Probes& probes, arma::uword windows) {
  const attn::AttnOnlyShape& s = model.shape;
  windows = std::min({windows, probes.plain.n_rows, probes.random.tokens.n_rows});
  const arma::uword K = s.layers * s.heads;
  std::vector<arma::rowvec> mean(K, arma::rowvec(s.width, arma::fill::zeros));  // each head's mean output
  for (arma::uword b = 0; b < windows; ++b) {
    const Trace tr = trace(model, probes.plain.row(b));
    for (arma::uword k = 0; k < K; ++k) mean[k] += arma::mean(tr.writes[k], 0) / static_cast<double>(windows);
  }
  AblationCompare c;
  c.windows = windows;
  std::tie(c.held_out, c.repeat) = probe_losses(model, probes, windows, {});
  for (arma::uword k = 0; k < K; ++k) c.heads.push_back(head_name(k / s.heads, k % s.heads));
  // each head's output replaced at every position: by 0, or by its mean output
  const auto measure = [&](arma::uword, const std::vector<attn::Hooks>& variants) {
    std::vector<arma::rowvec> losses;
    for (const attn::Hooks& ablated : variants) {
      const auto [held_loss, repeat_loss] = probe_losses(model, probes, windows, ablated);
      losses.push_back(arma::rowvec{held_loss, repeat_loss});
    }
    return losses;
  };
  const attn::ZeroAndMean rises =
      attn::zero_and_mean<double>(s.layers, s.heads, mean, arma::rowvec{c.held_out, c.repeat}, measure);
  c.zero = rises.zero;
  c.mean = rises.mean;
  return c;
}
// [mean_ablation]

std::vector<Finding> findings(const std::vector<Ablation>& ablations, const AblationCompare& compare,
                              const std::vector<std::string>& names) {
  using Kind = Finding::Kind;
  std::vector<Finding> out;
  const Ablation& base = ablations.front();
  const arma::uword K = compare.heads.size();
  for (arma::uword k = 0; k < K; ++k) {
    const Ablation& a = ablations[1 + k];
    if (a.held_out - base.held_out < -0.005)
      out.push_back({Kind::helps, a.name, a.held_out - base.held_out, 0, "held-out text"});
    if (a.random.repeat - base.random.repeat < -0.005)
      out.push_back({Kind::helps, a.name, a.random.repeat - base.random.repeat, 0, "random repeat"});
    if (names[k] == "no measured role" && a.random.repeat - base.random.repeat > 0.1)
      out.push_back({Kind::unnamed_matters, a.name, a.random.repeat - base.random.repeat, 0, "random repeat"});
  }
  const arma::uword L = ablations.size() - 1 - K, H = K / L;
  for (arma::uword l = 0; l < L; ++l) {
    double single = 0.0;
    for (arma::uword h = 0; h < H; ++h) single += ablations[1 + l * H + h].random.repeat - base.random.repeat;
    const double together = ablations[1 + K + l].random.repeat - base.random.repeat;
    if (together > single + 0.1)
      out.push_back({Kind::compensated, "layer " + std::to_string(l + 1), single, together, "random repeat"});
  }
  for (arma::uword k = 0; k < K; ++k) {
    if (std::abs(compare.zero(k, 1) - compare.mean(k, 1)) > 0.1)
      out.push_back(
          {Kind::methods_disagree, compare.heads[k], compare.zero(k, 1), compare.mean(k, 1), "random repeat"});
  }
  return out;
}

char copy_target(const std::string& sentence) {
  const std::size_t cut = sentence.rfind(". ");
  if (cut == std::string::npos) return '\0';
  const std::string repeat = sentence.substr(cut + 2);
  if (repeat.empty() || repeat.size() >= cut || sentence.compare(0, repeat.size(), repeat) != 0) return '\0';
  return sentence[repeat.size()];
}

PatchPair pick_patch_pair(const Model& model, const Vocabulary& vocab, const std::vector<std::string>& candidates) {
  if (candidates.size() < 2) throw std::invalid_argument("pick_patch_pair: needs at least two candidates");
  std::vector<std::string> copied;
  for (const std::string& s : candidates) {
    const Trace t = trace(model, vocab.encode(s));
    const char target = copy_target(s);
    if (target != '\0' && vocab.label(t.logits.row(t.logits.n_rows - 1).index_max()) == std::string(1, target))
      copied.push_back(s);
  }
  PatchPair out{candidates[0], candidates[1], copied.size(), candidates.size()};
  if (copied.size() >= 2) out.a = copied[0], out.b = copied[1];
  return out;
}

// [patching]
PatchingSection patching(const Model& model, const Vocabulary& vocab, const std::string& a, const std::string& b,
                         const std::vector<arma::uword>& together) {
  if (a.size() != b.size() || a.empty() || a.size() > model.shape.context)
    throw std::invalid_argument("patching: the sentences must have the same length, 1 to the context");
  const arma::urowvec ta = vocab.encode(a), tb = vocab.encode(b);
  const Trace clean = trace(model, ta), source = trace(model, tb);
  const arma::uword last = ta.n_elem - 1, ia = clean.logits.row(last).index_max(),
                    ib = source.logits.row(last).index_max();
  PatchingSection out{a, b, vocab.label(ia), vocab.label(ib), 0.0, 0.0, {}};
  const arma::rowvec p0 = attn::softmax_rows(clean.logits.row(last));
  out.clean_p_a = p0(ia), out.clean_p_b = p0(ib);
  // every head's output (all positions) and the stream at A's last position, as they were on B
  const auto write = [&](arma::uword l, arma::uword h) -> const arma::mat& {
    return source.writes[l * model.shape.heads + h];
  };
  const auto stream = [&](arma::uword l) -> const arma::mat& { return source.streams[l]; };
  const auto patches = attn::patches_from<double>(model.shape.layers, model.shape.heads, write, stream, last, together);
  arma::mat logits(patches.size(), clean.logits.n_cols);  // A's last row after each patch
  for (arma::uword r = 0; r < patches.size(); ++r) logits.row(r) = trace(model, ta, patches[r].hooks).logits.row(last);
  out.rows = attn::patch_rows(patches, logits, ia, ib, [&](arma::uword id) { return vocab.label(id); });
  return out;
}
// [patching]

// ---- the induction circuit ----------------------------------------------------------------------

namespace {

/// ||A B||_F / (||A||_F ||B||_F): how much of B's output A reads (Elhage et al. 2021, §4).
double composition(const arma::mat& A, const arma::mat& B) {
  return arma::norm(A * B, "fro") / (arma::norm(A, "fro") * arma::norm(B, "fro"));
}

/// Share of rows of a square matrix whose largest entry is on the diagonal.
double diagonal_share(const arma::mat& M) {
  double wins = 0;
  for (arma::uword i = 0; i < M.n_rows; ++i) wins += M.row(i).index_max() == i ? 1.0 : 0.0;
  return wins / static_cast<double>(M.n_rows);
}

}  // namespace

namespace {

/// W_QK = W_Q^h W_K^h^T and W_OV = W_V^h W_O^h of one head (width x width, rows-as-tokens).
std::pair<arma::mat, arma::mat> qk_ov(const Model& model, arma::uword l, arma::uword h) {
  const arma::span c = head_span(h, model.shape.d_k);
  const attn::AttnLayer<Real>& L = model.layers[l];
  return {to_double(L.Wq).cols(c) * to_double(L.Wk).cols(c).t(), to_double(L.Wv).cols(c) * to_double(L.Wo).rows(c)};
}

/// The K-composition of random matrices of the model's shapes (what composition scores mean by chance).
double random_k_composition(const attn::AttnOnlyShape& s) {
  attn::Random rng(7);
  double sum = 0.0;
  for (int r = 0; r < 20; ++r) {
    const arma::mat qk = rng.normal_matrix(s.width, s.d_k) * rng.normal_matrix(s.width, s.d_k).t();
    const arma::mat ov = rng.normal_matrix(s.width, s.d_k) * rng.normal_matrix(s.d_k, s.width);
    sum += composition(qk, ov.t());
  }
  return sum / 20.0;
}

/// Random-repeat losses (first copy, repeat) over the probes, with `patch_of(b)` applied to window b.
template <class PatchOf>
std::pair<double, double> repeat_losses(const Model& model, const Probes& probes, PatchOf patch_of) {
  double first = 0, repeat = 0, n_all = 0;
  for (arma::uword b = 0; b < probes.random.tokens.n_rows; ++b) {
    const arma::urowvec tokens = probes.random.tokens.row(b);
    const arma::rowvec loss = trace_losses(trace(model, tokens, patch_of(b)), tokens);
    const arma::uword s = probes.random.blocks[b].start, n = probes.random.blocks[b].length;
    for (arma::uword j = 1; j < n; ++j) first += loss(s + j - 1), repeat += loss(s + n + j - 1), n_all += 1;
  }
  return {first / n_all, repeat / n_all};
}

}  // namespace

// [circuit]
CircuitSection circuit(const Model& model, const Vocabulary& vocab, const Probes& probes, const Roles& roles,
                       arma::uword induction) {
  const attn::AttnOnlyShape& s = model.shape;
  const arma::uword L = s.layers, ind = induction;
  const arma::uword prev = roles.previous_token.row(0).index_max();
  CircuitSection c;
  c.induction = head_name(L - 1, ind);
  c.previous = head_name(0, prev);
  c.previous_head = prev;
  const auto [qk2, ov2] = qk_ov(model, L - 1, ind);
  c.k_composition.set_size(s.heads), c.q_composition.set_size(s.heads), c.v_composition.set_size(s.heads);
  for (arma::uword h = 0; h < s.heads; ++h) {
    const arma::mat ov1 = qk_ov(model, 0, h).second;
    c.k_composition(h) = composition(qk2, ov1.t());  // keys read what h wrote: x_q W_QK (x' W_OV)^T
    c.q_composition(h) = composition(ov1, qk2);      // queries read it: (x' W_OV) W_QK x_k^T
    c.v_composition(h) = composition(ov1, ov2);      // values read it: x' W_OV W_OV'
  }
  c.random_baseline = random_k_composition(s);
  // The circuits on the 26 lowercase letters: rows are queries (QK) or sources (OV).
  arma::mat E(26, s.width);
  for (arma::uword i = 0; i < 26; ++i) E.row(i) = to_double(model.E).row(vocab.token(static_cast<char>('a' + i)));
  arma::uvec letters(26);
  for (arma::uword i = 0; i < 26; ++i) letters(i) = vocab.token(static_cast<char>('a' + i));
  const arma::mat ov_prev = qk_ov(model, 0, prev).second;
  c.qk_diagonal = diagonal_share(E * qk2 * (E * ov_prev).t());  // query a, key after a b: wins when b = a
  arma::mat gain_u = to_double(model.U);
  if (s.final_norm) gain_u.each_col() %= to_double(model.gain).t();
  c.ov_diagonal = diagonal_share(E * ov2 * gain_u.cols(letters));  // source a raises a: copying
  // The patch: the previous-token head's output taken from the same window shuffled.
  attn::Random rng(11);
  std::tie(c.first, c.clean_repeat) = repeat_losses(model, probes, [](arma::uword) { return attn::Hooks{}; });
  c.patched_repeat = repeat_losses(model, probes, [&](arma::uword b) {
                       arma::urowvec shuffled = probes.random.tokens.row(b);
                       for (arma::uword i = shuffled.n_elem - 1; i > 0; --i)
                         std::swap(shuffled(i), shuffled(rng.below(i + 1)));
                       return attn::replacing_head(prev / s.heads, prev % s.heads, trace(model, shuffled).writes[prev]);
                     }).second;
  return c;
}
// [circuit]

}  // namespace ch09
