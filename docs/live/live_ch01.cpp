/// \file live_ch01.cpp
/// \brief Chapter 01's score-scale widget: ch01::experiment on the reader's sentence and multiplier.
#include <emscripten/bind.h>

#include "chapters/01_mixing/mixing.hpp"
#include "common/apparatus/print.hpp"
#include "docs/live/convert.hpp"

namespace {

constexpr int kPrecision = 2;  // as chapter 01 prints its experiment

/// The last word of `sentence` traced at `multiplier`, as "Your experiment" prints it, plus the
/// 121-point sweep the chapter plots: {words, axes, factor, input, dots, scaled, scores, weights,
/// mixture, residual (each {values, text}), sweep: multipliers, sweep_weights: 121 x n}.
live::val score_scale(const std::string& sentence, double multiplier) {
  return live::guarded([&] {
    const attn::EmbeddingTable& table = attn::toy_embeddings();
    const ch01::Experiment e = ch01::experiment(table, attn::split_sentence(sentence), multiplier);
    const ch01::SentencePass& s = e.sentence;
    live::val out = live::val::object();
    const auto put = [&out](const char* name, const arma::rowvec& v) {
      live::val entry = live::val::object();
      entry.set("values", live::numbers(v));
      entry.set("text", app::format_vector(v, kPrecision));
      out.set(name, entry);
    };
    out.set("words", live::strings(s.words));
    out.set("axes", live::strings(table.axes()));
    out.set("factor", attn::quoted_number(e.multiplier));
    out.set("d", static_cast<double>(s.X.n_cols));
    put("input", arma::rowvec(s.X.row(s.receiver)));
    put("dots", e.trace.dots);
    put("scaled", e.trace.scaled);
    put("scores", e.trace.scores);
    put("weights", e.trace.weights);
    put("mixture", e.trace.mixture);
    put("residual", s.residual());
    out.set("sweep", live::numbers(e.sweep));
    out.set("sweep_weights", live::rows(e.sweep_weights));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(ch01) { emscripten::function("ch01_score_scale", &score_scale); }
