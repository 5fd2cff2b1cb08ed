/// \file convert.hpp
/// \brief The live widgets' bindings: Armadillo results and the chapters' printed text handed to
/// JavaScript as plain arrays, strings and objects (embind's emscripten::val).
///
/// Every number a widget shows is computed here by the chapters' lesson code; the JavaScript only
/// draws it. A lesson that refuses its input (std::invalid_argument) gives {error: message}.
#pragma once

#include <emscripten/val.h>

#include <armadillo>
#include <exception>
#include <string>
#include <vector>

namespace live {

using emscripten::val;

/// A vector (any Armadillo row or column) as a JS array of numbers.
template <typename V>
val numbers(const V& v) {
  val out = val::array();
  for (arma::uword k = 0; k < v.n_elem; ++k) out.call<void>("push", v(k));
  return out;
}

/// A matrix as a JS array of rows (arrays of numbers): m.n_rows x m.n_cols.
inline val rows(const arma::mat& m) {
  val out = val::array();
  for (arma::uword r = 0; r < m.n_rows; ++r) out.call<void>("push", numbers(arma::rowvec(m.row(r))));
  return out;
}

/// Strings as a JS array.
inline val strings(const std::vector<std::string>& words) {
  val out = val::array();
  for (const auto& w : words) out.call<void>("push", w);
  return out;
}

/// Runs `compute` (which returns a val); a refused input becomes {error: what()}.
template <typename F>
val guarded(F&& compute) {
  try {
    return compute();
  } catch (const std::exception& e) {
    val out = val::object();
    out.set("error", std::string(e.what()));
    return out;
  }
}

}  // namespace live
