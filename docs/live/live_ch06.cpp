/// \file live_ch06.cpp
/// \brief Chapter 06's causal toggle: the article's "the tired cat finally slept" weights in both views.
#include <emscripten/bind.h>

#include "chapters/06_masking/masking.hpp"
#include "common/apparatus/print.hpp"
#include "docs/live/convert.hpp"

namespace {

constexpr int kTableDecimals = 2;  // as chapter 06 prints its tables

/// The five-word table bidirectional (causal false) or through the causal mask (causal true:
/// softmax(log A + mask), which ch06 shows equals keeping j <= i and renormalizing).
/// {words, rows: n x n, texts: each row as the chapter prints it, row_sums: {values, text}}.
live::val tired_cat(bool causal) {
  return live::guarded([&] {
    const ch06::TiredCatSection t = ch06::tired_cat_section();
    const arma::mat& A = causal ? t.masked : t.A;
    live::val out = live::val::object();
    out.set("words", live::strings(t.words));
    out.set("rows", live::rows(A));
    live::val texts = live::val::array();
    for (arma::uword r = 0; r < A.n_rows; ++r) {
      texts.call<void>("push", app::format_vector(arma::rowvec(A.row(r)), kTableDecimals));
    }
    out.set("texts", texts);
    const arma::rowvec sums = arma::sum(A, 1).t();
    out.set("row_sums", app::format_vector(sums, kTableDecimals));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(ch06) { emscripten::function("ch06_tired_cat", &tired_cat); }
