/// \file chapters/09_real_heads/heads.cpp
/// \brief Sections 1 to 5 and 7 of the study (study.hpp): what the heads do, what they write,
/// decoded, and the interventions that test it.
#include "study.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "common/apparatus/print.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/head_roles.hpp"
#include "common/attention/inspect.hpp"
#include "common/attention/random.hpp"

namespace ch09 {

namespace {

constexpr arma::uword kProbeWindows = 64;
constexpr std::uint64_t kProbeSeed = 20240917;

arma::mat pattern(const Pass& pass, arma::uword l, arma::uword h, arma::uword b) {
  return arma::conv_to<arma::mat>::from(attn::attention_pattern(pass, l, h, b));
}

/// -log p(target) of every target of a pass: B x (T - 1).
arma::mat losses_of(const Model& model, const arma::umat& tokens, const arma::mat* keep = nullptr) {
  Pass pass;
  attn::fast::forward(model, tokens, pass, keep);
  return attn::next_token_losses(pass, tokens);
}

RegionLosses region_losses(const arma::mat& losses, const Windows& w) {
  RegionLosses out;
  double n_first = 0, n_repeat = 0;
  for (arma::uword b = 0; b < losses.n_rows; ++b) {
    const arma::uword s = w.blocks[b].start, n = w.blocks[b].length;
    for (arma::uword j = 1; j < n; ++j) {  // targets s + j and s + n + j (the first of each copy is unannounced)
      out.first += losses(b, s + j - 1), n_first += 1;
      out.repeat += losses(b, s + n + j - 1), n_repeat += 1;
    }
  }
  out.first /= std::max(n_first, 1.0);
  out.repeat /= std::max(n_repeat, 1.0);
  return out;
}

/// One window holding `text` at its start, padded with spaces.
arma::umat window_of(const Vocabulary& vocab, const std::string& text, arma::uword context) {
  if (text.empty() || text.size() > context) {
    throw std::invalid_argument("a sentence must have 1 to " + std::to_string(context) + " characters, got " +
                                std::to_string(text.size()));
  }
  arma::umat tokens(1, context);
  tokens.fill(vocab.token(' '));
  tokens.cols(0, text.size() - 1) = vocab.encode(text);
  return tokens;
}

}  // namespace

Probes make_probes(const Corpus& corpus, const Vocabulary& vocab, arma::uword context) {
  attn::Random rng(kProbeSeed);
  const arma::urowvec held = vocab.encode(corpus.held_text);
  WindowSpec all_repeat{context, 1.0, 10, std::min<arma::uword>(64, context / 2)};
  arma::urowvec letters(26);
  for (arma::uword i = 0; i < 26; ++i) letters(i) = vocab.token(static_cast<char>('a' + i));
  return {held_out_windows(held, kProbeWindows, context), sample_windows(rng, held, kProbeWindows, all_repeat),
          random_repeats(rng, letters, kProbeWindows, all_repeat)};
}

// [baselines]
Baselines baselines(const Corpus& corpus, const Vocabulary& vocab, const Model& model, const Probes& probes) {
  const arma::uword V = vocab.size();
  const arma::urowvec train = vocab.encode(corpus.train_text), held = vocab.encode(corpus.held_text);
  arma::vec unigram(V, arma::fill::ones);    // add-one counts
  arma::mat bigram(V, V, arma::fill::ones);  // row = previous character
  for (arma::uword t = 0; t < train.n_elem; ++t) {
    unigram(train(t)) += 1;
    if (t > 0) bigram(train(t - 1), train(t)) += 1;
  }
  unigram /= arma::accu(unigram);
  bigram.each_col() /= arma::sum(bigram, 1);
  Baselines b;
  b.uniform = std::log(static_cast<double>(V));
  for (arma::uword t = 1; t < held.n_elem; ++t) {
    b.unigram -= std::log(unigram(held(t)));
    b.bigram -= std::log(bigram(held(t - 1), held(t)));
  }
  b.held_chars = held.n_elem - 1;
  b.unigram /= static_cast<double>(b.held_chars);
  b.bigram /= static_cast<double>(b.held_chars);
  b.model = arma::mean(arma::vectorise(losses_of(model, probes.plain)));
  return b;
}
// [baselines]

// [head_view]
HeadView head_view(const Model& model, const Vocabulary& vocab, const std::string& sentence) {
  const arma::umat tokens = window_of(vocab, sentence, model.shape.context);
  Pass pass;
  attn::fast::forward(model, tokens, pass);
  const arma::uword n = sentence.size(), H = model.shape.heads, dk = model.shape.d_k;
  HeadView view{sentence, {}, model.shape.layers, H, {}, {}};
  for (arma::uword t = 0; t < n; ++t) view.labels.push_back(vocab.label(tokens(0, t)));
  for (arma::uword l = 0; l < view.layers; ++l) {
    const arma::mat V = arma::conv_to<arma::mat>::from(pass.layers[l].part(2));
    const arma::mat Wo = arma::conv_to<arma::mat>::from(model.layers[l].Wo);
    for (arma::uword h = 0; h < H; ++h) {
      const arma::mat A = pattern(pass, l, h, 0).submat(0, 0, n - 1, n - 1);
      // what source j sends through head h: v_j W_O^h (1 x width); its size scales each weight
      const arma::mat sent = V.submat(0, h * dk, n - 1, h * dk + dk - 1) * Wo.rows(h * dk, h * dk + dk - 1);
      const arma::rowvec size = arma::sqrt(arma::sum(arma::square(sent), 1)).t();  // ||v_j W_O^h||
      arma::mat norms = A;
      norms.each_row() %= size;  // ||a_ij v_j W_O^h|| = a_ij ||v_j W_O^h||
      view.weights.push_back(A);
      view.contributions.push_back(norms);
    }
  }
  return view;
}
// [head_view]

// [top_pairs]
Contributions contributions(const HeadView& view) {
  Contributions out;
  double worst = 2.0;  // the top weight's contribution as a share of the top contribution
  for (arma::uword k = 0; k < view.weights.size(); ++k) {
    const arma::mat& A = view.weights[k];
    const arma::mat& C = view.contributions[k];
    for (arma::uword i = 1; i < A.n_rows; ++i) {
      const arma::rowvec a = A.row(i).cols(0, i), c = C.row(i).cols(0, i);
      const arma::uword tw = a.index_max(), tc = c.index_max();
      ++out.cases;
      if (tw == tc) continue;
      ++out.disagree;
      const double share = c(tw) / c(tc);
      if (share < worst) {
        worst = share;
        out.found = true;
        out.example = {k / view.heads, k % view.heads, i, tw, tc, a, c};
      }
    }
  }
  return out;
}
// [top_pairs]

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
    const arma::uword shown = i == out.position ? 3 : 0;  // tokens raised and lowered: the shown position only
    std::vector<attn::HeadWrite> heads =
        attn::decode_writes(model.shape.heads, pattern, write, logits, i, predicted, shown, label);
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

// [roles]
Roles roles(const Model& model, const Probes& probes) {
  const arma::uword L = model.shape.layers, H = model.shape.heads, B = probes.plain.n_rows, T = model.shape.context;
  Roles r{arma::mat(L, H, arma::fill::zeros),
          arma::mat(L, H, arma::fill::zeros),
          arma::mat(L, H, arma::fill::zeros),
          arma::mat(L, H, arma::fill::zeros),
          {},
          {},
          0.0,
          0.0,
          0.0};
  Pass plain, natural, random;
  attn::fast::forward(model, probes.plain, plain);
  attn::fast::forward(model, probes.natural.tokens, natural);
  attn::fast::forward(model, probes.random.tokens, random);
  const double w = 1.0 / static_cast<double>(B);
  for (arma::uword l = 0; l < L; ++l) {
    for (arma::uword h = 0; h < H; ++h) {
      for (arma::uword b = 0; b < B; ++b) {
        const arma::mat A = pattern(plain, l, h, b);
        r.previous_token(l, h) += w * attn::previous_token_score(A);
        r.duplicate_token(l, h) += w * attn::duplicate_token_score(A, probes.plain.row(b));
        r.induction_random(l, h) += w * attn::induction_score(pattern(random, l, h, b), probes.random.blocks[b]);
        r.induction_natural(l, h) += w * attn::induction_score(pattern(natural, l, h, b), probes.natural.blocks[b]);
      }
    }
  }
  r.natural = region_losses(attn::next_token_losses(natural, probes.natural.tokens), probes.natural);
  r.random = region_losses(attn::next_token_losses(random, probes.random.tokens), probes.random);
  const arma::mat losses = attn::next_token_losses(plain, probes.plain);  // column t: target t + 1
  r.early = arma::mean(arma::vectorise(losses.cols(0, 15)));
  r.late = arma::mean(arma::vectorise(losses.cols(T - 33, T - 2)));
  r.in_context = r.late - r.early;
  return r;
}
// [roles]

// [ablations]
Ablation ablate(const Model& model, const Probes& probes, const std::string& name, const arma::mat& keep) {
  return {name, arma::mean(arma::vectorise(losses_of(model, probes.plain, &keep))),
          region_losses(losses_of(model, probes.natural.tokens, &keep), probes.natural),
          region_losses(losses_of(model, probes.random.tokens, &keep), probes.random)};
}

std::vector<Ablation> ablations(const Model& model, const Probes& probes) {
  const arma::uword L = model.shape.layers, H = model.shape.heads;
  std::vector<Ablation> out{ablate(model, probes, "nothing", arma::mat(L, H, arma::fill::ones))};
  for (const attn::AblationMask& m : attn::single_head_and_layer_ablations(L, H))
    out.push_back(ablate(model, probes, m.name, m.keep));
  return out;
}
// [ablations]

std::vector<arma::uword> induction_heads(const Roles& r) {
  const arma::uword L = r.induction_random.n_rows;
  std::vector<arma::uword> out;
  for (arma::uword h = 0; h < r.induction_random.n_cols; ++h) {
    if (r.induction_random(L - 1, h) > 0.3) out.push_back(h);
  }
  if (out.empty()) out.push_back(r.induction_random.row(L - 1).index_max());
  return out;
}

std::string head_list(arma::uword layer, const std::vector<arma::uword>& heads) {
  std::string out;
  for (const arma::uword h : heads) out += (out.empty() ? "" : " + ") + head_name(layer, h);
  return out;
}

arma::uword induction_head(const Roles& r, const std::vector<Ablation>& a) {
  const arma::uword L = r.induction_random.n_rows, H = r.induction_random.n_cols;
  const std::vector<arma::uword> heads = induction_heads(r);
  const auto rise = [&](arma::uword h) { return a.at(1 + (L - 1) * H + h).random.repeat; };  // index 0: nothing
  arma::uword best = heads.front();
  for (const arma::uword h : heads) best = rise(h) > rise(best) ? h : best;
  return best;
}

Ablation induction_ablation(const Model& model, const Probes& probes, const Roles& r) {
  const arma::uword L = model.shape.layers;
  arma::mat keep(L, model.shape.heads, arma::fill::ones);
  const std::vector<arma::uword> heads = induction_heads(r);
  for (const arma::uword h : heads) keep(L - 1, h) = 0.0;
  return ablate(model, probes, head_list(L - 1, heads), keep);
}

// ---- section 5, further interventions: mean ablation, patching ----------------------------------

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

// ---- section 7: names as summaries of what was measured -----------------------------------------

std::vector<std::string> head_names(const Roles& r) {
  std::vector<std::string> names;
  for (arma::uword l = 0; l < r.previous_token.n_rows; ++l) {
    for (arma::uword h = 0; h < r.previous_token.n_cols; ++h) {
      std::string name;
      const auto add = [&](const char* role, double score) {
        name += (name.empty() ? "" : ", ") + std::string(role) + " (" + app::format_number(score, 2) + ")";
      };
      if (r.previous_token(l, h) > 0.5) add("previous-token", r.previous_token(l, h));
      if (r.induction_random(l, h) > 0.3) add("induction", r.induction_random(l, h));
      if (r.duplicate_token(l, h) > 0.3) add("duplicate-token", r.duplicate_token(l, h));
      names.push_back(name.empty() ? "no measured role" : name);
    }
  }
  return names;
}

}  // namespace ch09
