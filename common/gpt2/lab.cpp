/// \file common/gpt2/lab.cpp
/// \brief Chapter 09's tools on GPT-2 (see lab.hpp).
#include "common/gpt2/lab.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/attention/attention.hpp"
#include "common/attention/checks.hpp"
#include "common/attention/head_roles.hpp"
#include "common/attention/random.hpp"

namespace gpt2 {

namespace {

/// softmax of one row of float logits (1 x vocab), in double: probabilities to report.
arma::rowvec softmax_row(const arma::frowvec& logits) {
  return attn::softmax_rows(arma::conv_to<arma::mat>::from(logits));
}

/// The `count` tokens of `row` (1 x vocab) with the largest (descend) or smallest values, labelled.
template <class Row>
std::vector<std::pair<std::string, double>> extremes(const Tokenizer& tokenizer, const Row& row, arma::uword count,
                                                     const char* order) {
  return attn::top_entries(row, count, order, [&](arma::uword id) { return token_label(tokenizer, id, 10); });
}

/// rows first .. last (inclusive) as a list, and the tokens one position later: what they predict.
std::pair<arma::uvec, std::vector<arma::uword>> predictions(const std::vector<arma::uword>& tokens, arma::uword first,
                                                            arma::uword last) {
  const arma::uvec rows = arma::regspace<arma::uvec>(first, last);
  std::vector<arma::uword> targets;
  for (const arma::uword i : rows) targets.push_back(tokens[i + 1]);
  return {rows, targets};
}

}  // namespace

std::string token_label(const Tokenizer& tokenizer, arma::uword id, std::size_t width) {
  std::string text = attn::printable(tokenizer.token_bytes(id), 1000);
  if (text.size() > width) text = text.substr(0, width - 1) + "~";
  return "'" + text + "'";
}

TokenText read_text(const Tokenizer& tokenizer, const std::string& text) {
  TokenText out{text, tokenizer.encode(text), {}};
  for (const arma::uword id : out.tokens) out.labels.push_back(token_label(tokenizer, id));
  return out;
}

Probes make_probes(const Gpt2& model, const std::string& held_text, std::uint64_t seed) {
  const Config& c = model.weights.config;
  const std::optional<arma::uword> bos = model.tokenizer.id("<|endoftext|>");
  Probes p;
  p.bos = bos.has_value();
  const std::vector<arma::uword> start = bos ? std::vector<arma::uword>{*bos} : std::vector<arma::uword>{};
  const arma::uword width = std::min<arma::uword>(32, c.context);
  for (std::size_t k = 0; k < 8; ++k) {
    std::size_t at = held_text.size() * k / 8;  // evenly spaced, each from the start of a line
    if (k > 0 && (at = held_text.find('\n', at)) == std::string::npos) break;
    std::string part = held_text.substr(at + (k > 0 ? 1 : 0), 8 * width);
    part = part.substr(0, part.find_last_of(" \n") + 1);  // whole words, so whole UTF-8 characters
    std::vector<arma::uword> window = start;
    try {
      for (const arma::uword id : model.tokenizer.encode(part))
        if (window.size() < width) window.push_back(id);
    } catch (const std::invalid_argument&) {
      continue;  // a byte this vocabulary has no token for: another part
    }
    if (window.size() >= start.size() + 8) p.held.push_back(std::move(window));
  }
  if (p.held.empty()) throw NoHeldOutWindow("its held-out text gives no window of 8 tokens the vocabulary reads");
  attn::Random rng(seed);
  p.repeat_length = std::min<arma::uword>(20, (c.context - start.size()) / 2);
  for (int k = 0; k < 8; ++k) {
    std::vector<arma::uword> random;
    while (random.size() < p.repeat_length) {
      const arma::uword id = rng.below(c.vocab);
      if (!bos || id != *bos) random.push_back(id);
    }
    std::vector<arma::uword> sequence = start;  // [bos] r r
    for (int copy = 0; copy < 2; ++copy) sequence.insert(sequence.end(), random.begin(), random.end());
    p.repeats.push_back(std::move(sequence));
  }
  return p;
}

double mean_loss(const arma::fmat& logits, const std::vector<arma::uword>& targets) {
  double sum = 0.0;
  for (arma::uword r = 0; r < logits.n_rows; ++r) sum += attn::token_loss(logits.row(r), targets[r]);
  return sum / static_cast<double>(logits.n_rows);
}

// [gpt2_direct_logits]
arma::frowvec through_final_norm(const Weights& w, const Pass& pass, arma::uword t, const arma::frowvec& write) {
  // the statistics in double, as the model's norm takes them
  const arma::rowvec x = arma::conv_to<arma::rowvec>::from(pass.resid_final.row(t));  // 1 x d: what the norm reads at t
  const arma::rowvec o = arma::conv_to<arma::rowvec>::from(write);                    // 1 x d: the write
  const double scale = 1.0 / std::sqrt(arma::var(x, 1) + w.config.epsilon);           // the norm's scale, frozen
  return arma::conv_to<arma::frowvec>::from(attn::frozen_norm(o, scale)) % w.ln_f_gain;  // 1 x d, then the gain
}

arma::frowvec direct_logits(const Weights& w, const Pass& pass, arma::uword t, const arma::frowvec& write) {
  return unembed(w, arma::fmat(through_final_norm(w, pass, t, write)));  // 1 x vocab: the logits it adds
}
// [gpt2_direct_logits]

// [gpt2_with_head_output]
arma::fmat with_head_output(const Weights& w, const Pass& clean, arma::uword layer, arma::uword head,
                            const arma::fmat& replacement, const arma::uvec& rows) {
  return unembed(w, final_normed(w, patched_head(w, clean, layer, head, replacement), rows));  // k x vocab
}

Pass patched_head(const Weights& w, const Pass& clean, arma::uword layer, arma::uword head,
                  const arma::fmat& replacement) {
  // earlier blocks are the clean ones; no logits (the caller unembeds many passes at once)
  return resume(w, clean, layer, attn::replacing_head(layer, head, replacement), {});
}
// [gpt2_with_head_output]

arma::fmat final_normed(const Weights& w, const Pass& pass, const arma::uvec& rows) {
  return final_normed(w, pass.resid_final, rows);
}

arma::fmat final_normed(const Weights& w, const arma::fmat& stream, const arma::uvec& rows) {
  return layer_norm(arma::fmat(stream.rows(rows)), w.ln_f_gain, w.ln_f_bias, w.config.epsilon);  // k x d
}

HeadView head_view(const Gpt2& model, const Pass& pass, const TokenText& sentence, arma::uword t) {
  const Config& c = model.weights.config;
  HeadView v{sentence, t, arma::umat(c.layers, c.heads), arma::mat(c.layers, c.heads), 0, 0, 0};
  for (arma::uword l = 0; l < c.layers; ++l) {
    for (arma::uword h = 0; h < c.heads; ++h) {
      const arma::frowvec a = pass.layers[l].patterns[h].row(t).cols(0, t);  // where position t reads
      v.top_source(l, h) = a.index_max();
      v.top_weight(l, h) = a.max();
      v.to_first += v.top_source(l, h) == 0;
      v.to_self += v.top_source(l, h) == t;
      v.to_previous += t > 0 && v.top_source(l, h) == t - 1;
    }
  }
  return v;
}

Writes head_writes(const Gpt2& model, const Pass& pass, const HeadView& view) {
  const Weights& w = model.weights;
  const arma::uword t = view.position, p = pass.logits.row(t).index_max(), H = w.config.heads;
  Writes out{token_label(model.tokenizer, p), pass.logits(t, p), 0.0, {}, 0, 0};
  // what reaches the final norm at t: the embedding, every head, every b_O, every MLP
  std::vector<arma::frowvec> parts{w.wte.row(pass.tokens[t]) + w.wpe.row(t)};
  arma::fmat normed(w.config.layers * H, w.config.width);  // heads x d: each head's write through the norm
  for (arma::uword l = 0; l < w.config.layers; ++l) {
    parts.push_back(w.blocks[l].proj_bias);
    parts.push_back(pass.layers[l].mlp_out.row(t));
    for (arma::uword h = 0; h < H; ++h)
      normed.row(l * H + h) = through_final_norm(w, pass, t, pass.layers[l].head_outputs[h].row(t));
  }
  const arma::fmat logits = unembed(w, normed);  // heads x vocab: direct_logits() of every head at once
  out.parts = arma::dot(w.ln_f_bias, w.wte.row(p)) + arma::accu(arma::conv_to<arma::vec>::from(logits.col(p)));
  for (const arma::frowvec& part : parts) out.parts += arma::dot(through_final_norm(w, pass, t, part), w.wte.row(p));
  const auto pattern = [&](arma::uword k) -> const arma::fmat& { return pass.layers[k / H].patterns[k % H]; };
  const auto write = [&](arma::uword k) -> const arma::fmat& { return pass.layers[k / H].head_outputs[k % H]; };
  const auto label = [&](arma::uword id) { return token_label(model.tokenizer, id, 10); };
  out.heads = attn::decode_writes(H, pattern, write, logits, t, p, 2, label);
  out.sharpest = attn::sharpest(out.heads);
  out.strongest = attn::strongest(out.heads);
  return out;
}

Roles roles(const Gpt2& model, const Probes& probes) {
  const Weights& w = model.weights;
  const arma::uword L = w.config.layers, H = w.config.heads, o = probes.bos ? 1 : 0, n = probes.repeat_length;
  Roles r;
  r.previous_token.zeros(L, H);
  r.induction.zeros(L, H);
  r.mean_output.zeros(L * H, w.config.width);
  // a head that weighs every token it can see equally: row i of softmax(causal mask), 1 / (i + 1)
  const auto uniform = [](arma::uword T) { return attn::softmax_rows(attn::causal_mask(T)); };
  double previous_count = 0, mean_count = 0;
  for (const std::vector<arma::uword>& window : probes.held) {
    const Pass pass = forward(w, window);
    const arma::uword T = window.size();
    const auto [rows, targets] = predictions(window, 0, T - 2);
    r.held_loss += mean_loss(pass.logits.rows(rows), targets) * static_cast<double>(T - 1);
    r.held_tokens += T - 1;
    for (arma::uword l = 0; l < L; ++l) {
      for (arma::uword h = 0; h < H; ++h) {
        // the text after <|endoftext|> (T - o positions), scored as the chapter scores every head;
        // weighted by its reads, so every read of the held-out windows counts once
        const arma::mat A = arma::conv_to<arma::mat>::from(pass.layers[l].patterns[h].submat(o, o, T - 1, T - 1));
        r.previous_token(l, h) += attn::previous_token_score(A) * static_cast<double>(T - 1 - o);
        r.mean_output.row(l * H + h) += arma::sum(pass.layers[l].head_outputs[h].rows(o, T - 1), 0);
      }
    }
    r.previous_uniform +=
        attn::previous_token_score(uniform(T).submat(o, o, T - 1, T - 1)) * static_cast<double>(T - 1 - o);
    previous_count += static_cast<double>(T - 1 - o);
    mean_count += static_cast<double>(T - o);
  }
  r.previous_token /= previous_count;
  r.previous_uniform /= previous_count;
  r.mean_output /= mean_count;
  r.held_loss /= static_cast<double>(r.held_tokens);
  for (const std::vector<arma::uword>& sequence : probes.repeats) {
    const Pass pass = forward(w, sequence);
    for (arma::uword l = 0; l < L; ++l) {
      for (arma::uword h = 0; h < H; ++h) {
        // token r_j of the second copy (position o + n + j) reading r_(j+1) after r_j's first copy
        const arma::mat A = arma::conv_to<arma::mat>::from(pass.layers[l].patterns[h]);
        r.induction(l, h) += attn::induction_score(A, attn::Block{o, n});
      }
    }
    r.induction_uniform += attn::induction_score(uniform(sequence.size()), attn::Block{o, n});
    const auto [first_rows, first_targets] = predictions(sequence, o, o + n - 2);
    const auto [repeat_rows, repeat_targets] = predictions(sequence, o + n, o + 2 * n - 2);
    r.first += mean_loss(pass.logits.rows(first_rows), first_targets);
    r.repeat += mean_loss(pass.logits.rows(repeat_rows), repeat_targets);
  }
  const auto sequences = static_cast<double>(probes.repeats.size());
  r.induction /= sequences;
  r.induction_uniform /= sequences;
  r.first /= sequences;
  r.repeat /= sequences;
  return r;
}

Ablations ablations(const Gpt2& model, const Probes& probes, const arma::fmat& mean_output,
                    const std::function<void(const std::string&)>& progress) {
  const Weights& w = model.weights;
  const arma::uword L = w.config.layers, H = w.config.heads, o = probes.bos ? 1 : 0, n = probes.repeat_length;
  const std::vector<arma::uword>&held_tokens = probes.held.front(), &repeat_tokens = probes.repeats.front();
  const Pass held = forward(w, held_tokens), repeat = forward(w, repeat_tokens);
  const auto [held_rows, held_targets] = predictions(held_tokens, 0, held_tokens.size() - 2);
  const auto [repeat_rows, repeat_targets] = predictions(repeat_tokens, o + n, o + 2 * n - 2);
  Ablations a{mean_loss(held.logits.rows(held_rows), held_targets),
              mean_loss(repeat.logits.rows(repeat_rows), repeat_targets), arma::mat(L * H, 2), arma::mat(L * H, 2)};
  const arma::uword nh = held_rows.n_elem, nr = repeat_rows.n_elem;
  std::vector<arma::frowvec> means;  // each head's mean output over the held-out windows' text
  for (arma::uword k = 0; k < L * H; ++k) means.push_back(mean_output.row(k));
  // a layer's variants (head h zeroed: 2h, at its mean: 2h + 1) run together from that layer on
  const auto measure = [&](arma::uword l, const std::vector<Hooks>& variants) {
    if (progress) progress("ablating the heads of layer " + std::to_string(l + 1) + " of " + std::to_string(L));
    const std::vector<arma::fmat> held_streams = resume_streams(w, held, l, variants);
    const std::vector<arma::fmat> repeat_streams = resume_streams(w, repeat, l, variants);
    std::vector<arma::rowvec> losses;
    for (arma::uword v = 0; v < variants.size(); v += 2) {
      // the four passes' rows (zeroed and at the mean, on both texts) unembedded at once
      const arma::fmat logits =
          unembed(w, arma::fmat(arma::join_cols(arma::join_cols(final_normed(w, held_streams[v], held_rows),
                                                                final_normed(w, repeat_streams[v], repeat_rows)),
                                                arma::join_cols(final_normed(w, held_streams[v + 1], held_rows),
                                                                final_normed(w, repeat_streams[v + 1], repeat_rows)))));
      losses.push_back(arma::rowvec{mean_loss(logits.rows(0, nh - 1), held_targets),
                                    mean_loss(logits.rows(nh, nh + nr - 1), repeat_targets)});
      losses.push_back(arma::rowvec{mean_loss(logits.rows(nh + nr, 2 * nh + nr - 1), held_targets),
                                    mean_loss(logits.rows(2 * nh + nr, 2 * nh + 2 * nr - 1), repeat_targets)});
    }
    return losses;
  };
  const attn::ZeroAndMean rises = attn::zero_and_mean<float>(L, H, means, arma::rowvec{a.held_out, a.repeat}, measure);
  a.zero = rises.zero;
  a.mean = rises.mean;
  return a;
}

// [gpt2_patching]
Patching patching(const Gpt2& model, const std::string& a, const std::string& b) {
  const Weights& w = model.weights;
  const arma::uword L = w.config.layers, H = w.config.heads;
  Patching out{read_text(model.tokenizer, a), read_text(model.tokenizer, b), false, "", "", 0, 0, {}, {}};
  out.matched = out.a.tokens.size() == out.b.tokens.size();
  if (!out.matched) return out;  // positions would not correspond
  const Pass clean = forward(w, out.a.tokens), source = forward(w, out.b.tokens);
  const arma::uword last = out.a.tokens.size() - 1;
  const arma::uvec rows{last};
  const arma::uword ia = clean.logits.row(last).index_max(), ib = source.logits.row(last).index_max();
  out.predicted_a = token_label(model.tokenizer, ia);
  out.predicted_b = token_label(model.tokenizer, ib);
  const arma::rowvec p0 = softmax_row(clean.logits.row(last));
  out.clean_p_a = p0(ia), out.clean_p_b = p0(ib);
  // every head's output (all positions) and the stream at A's last position, as they were on B
  const auto write = [&](arma::uword l, arma::uword h) -> const arma::fmat& {
    return source.layers[l].head_outputs[h];
  };
  const auto stream = [&](arma::uword l) -> const arma::fmat& {
    return l < L ? source.layers[l].resid_pre : source.resid_final;
  };
  const std::vector<attn::BasicPatch<float>> patches = attn::patches_from<float>(L, H, write, stream, last);
  arma::fmat normed(patches.size(), w.config.width);  // A's last row, final-normed, after each patch
  for (arma::uword r = 0; r < patches.size(); ++r)    // the blocks before the patch's layer are the clean ones
    normed.row(r) = final_normed(w, resume(w, clean, patches[r].layer, patches[r].hooks, {}), rows);
  // the heads' rows and the streams' unembedded in two products
  const arma::fmat logits = arma::join_cols(unembed(w, arma::fmat(normed.rows(0, L * H - 1))),
                                            unembed(w, arma::fmat(normed.rows(L * H, normed.n_rows - 1))));
  const std::vector<PatchRow> all =
      attn::patch_rows(patches, logits, ia, ib, [&](arma::uword id) { return token_label(model.tokenizer, id); });
  out.heads.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(L * H));
  out.streams.assign(all.begin() + static_cast<std::ptrdiff_t>(L * H), all.end());
  return out;
}
// [gpt2_patching]

namespace {

/// Mean centred cosine of the rows of V (sentences x d, row f * 2 + s: frame f, sense s), each
/// centred on their mean, over the pairs of the same sense (within) and of different senses
/// (across). A pair with no direction left once centred (attn::centred_cosine is NaN) is left out,
/// and a mean over no pair is NaN (printed "-").
std::pair<double, double> centred_cosines(const arma::mat& V) {
  const arma::rowvec centre = arma::mean(V, 0);  // what the sentences share
  double within = 0, across = 0, n_within = 0, n_across = 0;
  for (arma::uword i = 0; i < V.n_rows; ++i) {
    for (arma::uword j = i + 1; j < V.n_rows; ++j) {
      const double cosine = attn::centred_cosine(V.row(i), V.row(j), centre, centre);
      if (!std::isfinite(cosine)) continue;  // degenerate weights: one vector for every sentence
      const bool same = i % 2 == j % 2;
      (same ? within : across) += cosine;
      (same ? n_within : n_across) += 1;
    }
  }
  const double none = std::numeric_limits<double>::quiet_NaN();
  return {n_within > 0 ? within / n_within : none, n_across > 0 ? across / n_across : none};
}

}  // namespace

Bank bank(const Gpt2& model) {
  const Weights& w = model.weights;
  const arma::uword L = w.config.layers;
  Bank b;
  b.frames = kBankFrames;
  b.senses = kBankSenses;
  b.words = kBankWords;
  b.matched = true;
  b.stages.push_back("embedding");
  for (arma::uword l = 1; l <= L; ++l) b.stages.push_back("after layer " + std::to_string(l));
  b.within.set_size(L + 1, b.words.size());
  b.across.set_size(L + 1, b.words.size());
  for (arma::uword word = 0; word < b.words.size(); ++word) {
    arma::cube V(b.frames.size() * 2, w.config.width, L + 1);  // sentence x d x stage: the word's stream
    for (arma::uword f = 0; f < b.frames.size(); ++f) {
      std::size_t length = 0;
      for (arma::uword s = 0; s < 2; ++s) {
        const TokenText text = read_text(model.tokenizer, b.frames[f] + b.senses[s] + b.words[word]);
        if (s == 1 && text.tokens.size() != length) b.matched = false;
        length = text.tokens.size();
        const Pass pass = forward(w, text.tokens);
        for (arma::uword l = 0; l <= L; ++l)
          V.slice(l).row(f * 2 + s) =
              arma::conv_to<arma::rowvec>::from((l < L ? pass.layers[l].resid_pre : pass.resid_final).row(length - 1));
        if (f == 0 && word == 0)
          b.next.push_back(extremes(model.tokenizer, softmax_row(pass.logits.row(length - 1)), 5, "descend"));
      }
    }
    for (arma::uword l = 0; l <= L; ++l) std::tie(b.within(l, word), b.across(l, word)) = centred_cosines(V.slice(l));
  }
  b.gap = b.within - b.across;
  const arma::vec beyond = b.gap.col(0) - b.gap.col(1);  // bank's sense gap over the control's, per stage
  b.beyond_control = arma::accu(beyond > 0.01);          // a NaN stage (no cosine) is never beyond
  const arma::uvec known = arma::find_finite(beyond);
  b.largest = known.is_empty() ? 0 : known(arma::vec(beyond.elem(known)).index_max());
  b.measured = !known.is_empty();
  return b;
}

ContextNeed context_needed(const Gpt2& model) {
  const bool bos = model.tokenizer.id("<|endoftext|>").has_value();
  ContextNeed need{(bos ? 1u : 0u) + 8,
                   "a held-out window of 8 tokens" + std::string(bos ? " after <|endoftext|>" : "")};
  std::vector<std::string> texts{kPatchA, kPatchB};
  for (const std::string& frame : kBankFrames)
    for (const std::string& sense : kBankSenses)
      for (const std::string& word : kBankWords) texts.push_back(frame + sense + word);
  for (const std::string& text : texts) {
    const arma::uword n = model.tokenizer.encode(text).size();
    if (n > need.tokens) need = {n, "the sentence \"" + text + "\""};
  }
  return need;
}

arma::uword patch_overlap(const Patching& p, const arma::mat& induction, arma::uword count) {
  if (!p.matched) return 0;
  arma::vec raised(p.heads.size());
  for (arma::uword k = 0; k < raised.n_elem; ++k) raised(k) = p.heads[k].p_b;
  const arma::uvec by_patch = arma::sort_index(raised, "descend");
  const arma::uvec by_score = arma::sort_index(arma::vectorise(induction.t()), "descend");  // layer-major
  arma::uword overlap = 0;
  for (arma::uword i = 0; i < count && i < by_patch.n_elem; ++i)
    overlap += arma::any(by_score.head(std::min<arma::uword>(count, by_score.n_elem)) == by_patch(i));
  return overlap;
}

Lab run_lab(const Gpt2& model, const std::string& sentence, std::optional<arma::uword> position,
            const std::string& held_text, const std::function<void(const std::string&)>& progress) {
  const Weights& w = model.weights;
  const auto say = [&](const std::string& what) {
    if (progress) progress(what);
  };
  Lab lab;
  lab.config = w.config;
  lab.parameters = parameter_count(w.config);
  const TokenText text = read_text(model.tokenizer, sentence);
  const arma::uword n = text.tokens.size(), t = position.value_or(n - 1);
  if (n == 0 || n > w.config.context)
    throw std::invalid_argument("the sentence has " + std::to_string(n) + " tokens; the model reads 1 to " +
                                std::to_string(w.config.context));
  if (t >= n)
    throw std::invalid_argument("position " + std::to_string(t) + " is past the sentence's " + std::to_string(n) +
                                " tokens (0.." + std::to_string(n - 1) + ")");
  lab.probes = make_probes(model, held_text);
  say("reading the sentence");
  const Pass pass = forward(w, text.tokens);
  lab.view = head_view(model, pass, text, t);
  lab.writes = head_writes(model, pass, lab.view);
  say("measuring previous-token and induction scores");
  lab.roles = roles(model, lab.probes);
  lab.ablations = ablations(model, lab.probes, lab.roles.mean_output, progress);
  say("patching every head from one sentence into another");
  lab.patching = patching(model, kPatchA, kPatchB);
  lab.overlap = patch_overlap(lab.patching, lab.roles.induction, 5);
  say("comparing bank in two senses");
  lab.bank = bank(model);
  return lab;
}

}  // namespace gpt2
