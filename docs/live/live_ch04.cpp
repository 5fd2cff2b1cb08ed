/// \file live_ch04.cpp
/// \brief Chapter 04's angle explorer (ch04::explorer: a's shadow on b, the signed projection, the
/// dot product) and the softmax sharpness of the reader's own scores (ch04::softmax_scaling).
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "chapters/04_scaling/claims.hpp"
#include "chapters/04_scaling/sections.hpp"
#include "common/apparatus/print.hpp"
#include "docs/live/convert.hpp"

namespace {

constexpr int kExplorerDecimals = 2;  // as chapter 04 prints the explorer

/// The explorer at (angle, |a|, |b|): {a, b, shadow (2 numbers each), the printed lines
/// (a_line, projection_line, dot_line, shadow_line, cosine_line, side), and the chapter's
/// dot-against-angle sweep for |a| = 1, 5, 10: angles (361) and dots (361 x 3)}.
live::val shadow(double angle, double length, double b_length) {
  return live::guarded([&] {
    const ch04::Explorer e = ch04::explorer(angle, length, b_length);
    const ch04::Shadow& s = e.shadow;
    live::val out = live::val::object();
    out.set("a", live::numbers(s.a));
    out.set("b", live::numbers(s.b));
    out.set("shadow", live::numbers(s.shadow));
    out.set("projection", s.projection);
    out.set("dot", s.dot);
    out.set("a_text", app::format_vector(s.a, kExplorerDecimals));
    out.set("projection_line", ch04::claim_projection(e).evidence);
    out.set("dot_line", ch04::claim_shadow_dot(e).evidence);
    out.set("shadow_text", app::format_vector(s.shadow, kExplorerDecimals));
    out.set("cosine_text", s.cosine ? app::format_number(*s.cosine, kExplorerDecimals)
                                    : std::string("undefined (a is the zero vector)"));
    out.set("side", std::string(s.side == ch04::Side::positive   ? "positive"
                                : s.side == ch04::Side::negative ? "negative"
                                                                 : "zero"));
    out.set("sweep_angles", live::numbers(e.sweep.angles));
    out.set("sweep_lengths", live::numbers(e.sweep.lengths));
    out.set("sweep_dots", live::rows(e.sweep.dots));
    return out;
  });
}

/// The reader's scores raw and divided by sqrt(d_k), each through softmax: {raw, scaled, a_raw,
/// a_scaled (numbers), raw_line, scaled_line, winner (the chapter's printed lines)}.
live::val sharpness(const live::val& scores, double d_k) {
  return live::guarded([&] {
    const std::vector<double> given = emscripten::vecFromJSArray<double>(scores);
    const ch04::SoftmaxScaling r = ch04::softmax_scaling(arma::rowvec(given), static_cast<arma::uword>(d_k), false);
    live::val out = live::val::object();
    out.set("raw", live::numbers(r.raw));
    out.set("scaled", live::numbers(r.scaled));
    out.set("a_raw", live::numbers(r.a_raw));
    out.set("a_scaled", live::numbers(r.a_scaled));
    out.set("raw_line", ch04::claim_raw_weights(r).evidence);
    out.set("scaled_line", ch04::claim_scaled_weights(r).evidence);
    out.set("winner", r.winner);
    out.set("divisor", app::format_plain(r.divisor));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(ch04) {
  emscripten::function("ch04_shadow", &shadow);
  emscripten::function("ch04_sharpness", &sharpness);
}
