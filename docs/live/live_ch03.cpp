/// \file live_ch03.cpp
/// \brief Chapter 03's three roles: tower's head on "the Eiffel tower" with the query and the values
/// raw or swapped (ch03::tower_head).
#include <emscripten/bind.h>

#include "chapters/03_values/values.hpp"
#include "common/apparatus/print.hpp"
#include "docs/live/convert.hpp"

namespace {

constexpr int kTeaching = 4;  // as chapter 03 prints the teaching space
constexpr arma::uword kTower = 2;

/// Each row of m as the chapter prints a vector.
live::val row_texts(const arma::mat& m) {
  live::val out = live::val::array();
  for (arma::uword r = 0; r < m.n_rows; ++r) {
    out.call<void>("push", app::format_vector(arma::rowvec(m.row(r)), kTeaching));
  }
  return out;
}

/// tower's row of the head under (query, values): {words, X, Q, K, V (rows and texts), scores,
/// weights, mixture ({values, text}) and the matrices Wq and Wv}.
live::val tower(bool swap_query, bool swap_values) {
  return live::guarded([&] {
    const ch03::Choice q = swap_query ? ch03::Choice::swap : ch03::Choice::raw;
    const ch03::Choice v = swap_values ? ch03::Choice::swap : ch03::Choice::raw;
    const attn::HeadPass pass = ch03::tower_head(q, v);
    const arma::mat X = ch03::eiffel_sentence();
    live::val out = live::val::object();
    out.set("words", live::strings({"the", "Eiffel", "tower"}));
    out.set("axes", live::strings({"structure", "Paris identity"}));
    const auto put = [&out](const char* name, const arma::mat& m) {
      live::val entry = live::val::object();
      entry.set("rows", live::rows(m));
      entry.set("texts", row_texts(m));
      out.set(name, entry);
    };
    put("X", X);
    put("Q", pass.Q);
    put("K", pass.K);
    put("V", pass.V);
    put("Wq", ch03::choice_matrix(q));
    put("Wv", ch03::choice_matrix(v));
    put("scores", pass.scores.row(kTower));
    put("weights", pass.A.row(kTower));
    put("mixture", pass.H.row(kTower));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(ch03) { emscripten::function("ch03_tower", &tower); }
