/// \file chapters/08_induction/skip_trigrams.cpp
/// \brief The skip-trigram example (see skip_trigrams.hpp).
#include "skip_trigrams.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "common/fast/attn_only_fast.hpp"

namespace ch08 {

namespace {

constexpr arma::uword kWords = 10, kFillers = 16;

/// The one-layer model of a run: 26 tokens, one head reading the whole width.
ModelShape skip_shape(const SkipTrigramOptions& o) {
  return {.vocab = kWords + kFillers,
          .context = o.context,
          .width = o.width,
          .heads = 1,
          .d_k = o.width,
          .layers = 1,
          .final_norm = false};
}

void validate(const SkipTrigramOptions& o) {
  const auto in_range = [](arma::uword v, arma::uword least, arma::uword most, const char* what) {
    if (v < least || v > most) {
      throw std::invalid_argument(fmt::format("{} must be in [{}, {}], got {}", what, least, most, v));
    }
  };
  in_range(o.context, 5, 64, "the skip-trigram context");
  in_range(o.width, 1, 256, "the skip-trigram width");
  in_range(o.steps, 1, 1000000, "the skip-trigram steps");
  in_range(o.batch, 1, 4096, "the skip-trigram batch");
  in_range(o.held_out, 4, 4096, "the skip-trigram held-out size");
  if (!(std::isfinite(o.lr) && o.lr > 0)) throw std::invalid_argument("the learning rate must be finite and > 0");
}

}  // namespace

const std::vector<std::string>& skip_vocabulary() {
  static const std::vector<std::string> names{"keep", "stay", "in",  "at",  "mind", "bay", "touch", "home", "fact",
                                              "last", "the",  "dog", "we",  "it",   "cat", "will",  "one",  "big",
                                              "day",  "so",   "all", "old", "red",  "sun", "car",   "you"};
  return names;
}

std::string skip_name(const SkipTrigram& s) {
  return skip_vocabulary()[s.source] + " ... " + skip_vocabulary()[s.query];
}

SkipBatch sample_skip_trigrams(attn::Random& rng, arma::uword count, arma::uword context, bool balanced) {
  if (context < 5)
    throw std::invalid_argument(fmt::format("the skip-trigram context must be at least 5, got {}", context));
  if (count == 0) throw std::invalid_argument("sample_skip_trigrams: count must be at least 1");
  SkipBatch out{arma::umat(count, context), {}, {}, {}};
  for (arma::uword b = 0; b < count; ++b) {
    for (arma::uword t = 0; t < context; ++t) out.tokens(b, t) = kWords + rng.below(kFillers);
    const arma::uword which = balanced ? b % kSkipTrigrams.size() : rng.below(kSkipTrigrams.size() + 2);
    // The source leaves room for a filler, the query and its continuation after it.
    arma::uword source_at = rng.below(context - 3);
    const arma::uword query_at = source_at + 2 + rng.below(context - 3 - source_at);  // up to context - 2
    if (which < kSkipTrigrams.size()) {
      const SkipTrigram& s = kSkipTrigrams[which];
      out.tokens(b, source_at) = s.source;
      out.tokens(b, query_at) = s.query;
      out.tokens(b, query_at + 1) = s.next;
    } else {  // no source: "in fact" or "at last"
      source_at = query_at;
      out.tokens(b, query_at) = which == kSkipTrigrams.size() ? word::in : word::at;
      out.tokens(b, query_at + 1) = which == kSkipTrigrams.size() ? word::fact : word::last;
    }
    out.which.push_back(which);
    out.source_at.push_back(source_at);
    out.query_at.push_back(query_at);
  }
  return out;
}

SkipTrigramRun train_skip_trigrams(const SkipTrigramOptions& o) {
  validate(o);
  attn::Random rng(o.seed);
  attn::Random held_out_rng(o.seed ^ 0x9e3779b97f4a7c15ULL);  // a stream apart from the batches
  SkipTrigramRun run{attn::init_model<Real>(skip_shape(o), rng),
                     sample_skip_trigrams(held_out_rng, o.held_out, o.context, true), o.steps, 0.0};
  const auto start = std::chrono::steady_clock::now();
  attn::AttnOnlyTrainer<Real> trainer(o.lr);
  for (arma::uword step = 1; step <= o.steps; ++step) {
    trainer.step(run.model, sample_skip_trigrams(rng, o.batch, o.context, false).tokens);
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

SkipTrigramFindings measure_skip_trigrams(SkipTrigramRun run) {
  const arma::uword n = kSkipTrigrams.size();
  SkipTrigramFindings f{std::move(run), arma::mat(n, n, arma::fill::zeros), arma::vec(n, arma::fill::zeros),
                        arma::mat(n, n, arma::fill::zeros), arma::mat(n, n, arma::fill::zeros)};
  const attn::AttnOnlyModel<double> m = attn::convert_model<double>(f.run.model);
  const SkipBatch& data = f.run.held_out;
  attn::AttnOnlyPass<double> pass;
  attn::forward(m, data.tokens, pass);
  const arma::uword T = data.tokens.n_cols;
  const arma::mat V = pass.layers[0].part(2);  // N x d_k: every position's value x Wv
  const arma::mat OU = m.layers[0].Wo * m.U;   // d_k x vocab: a value's write, read by the unembedding
  const arma::uvec continuations{word::mind, word::bay, word::touch, word::home};
  arma::vec rows(n, arma::fill::zeros);
  for (arma::uword b = 0; b < data.tokens.n_rows; ++b) {
    const arma::uword c = data.which[b], s = data.source_at[b], q = data.query_at[b];
    const arma::uword r = b * T + q;  // the query's row of the stacked batch
    const arma::rowvec p = arma::exp(pass.logits.row(r) - pass.logits.row(r).max());
    // [message]
    // The query's weight on the source, A[q, s]; what it reads there, A[q, s] (x_s Wv) Wo U; and
    // the query's own stream read by the unembedding, x_q U (each 1 x vocab).
    const double a = attn::attention_pattern(pass, 0, 0, b)(q, s);
    const arma::rowvec message = a * V.row(b * T + s) * OU;
    const arma::rowvec direct = (m.E.row(data.tokens(b, q)) + m.P.row(q)) * m.U;
    // [message]
    f.probability.row(c) += p.cols(continuations) / arma::accu(p);
    f.attention(c) += a;
    f.message.row(c) += message.cols(continuations);
    f.direct.row(c) += direct.cols(continuations);
    rows(c) += 1;
  }
  for (arma::uword c = 0; c < n; ++c) {
    f.probability.row(c) /= rows(c);
    f.attention(c) /= rows(c);
    f.message.row(c) /= rows(c);
    f.direct.row(c) /= rows(c);
  }
  return f;
}

}  // namespace ch08
