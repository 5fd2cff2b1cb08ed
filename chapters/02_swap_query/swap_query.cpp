/// \file swap_query.cpp
/// \brief Chapter 02 computations (see swap_query.hpp).
#include "swap_query.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "common/apparatus/numbers.hpp"
#include "common/attention/checks.hpp"
#include "common/attention/random.hpp"
#include "common/attention/toy.hpp"

namespace ch02 {

arma::mat eiffel_sentence() { return attn::teaching_space_2d().lookup({"the", "Eiffel", "tower"}); }

arma::mat swap_matrix() { return {{0.0, 1.0}, {1.0, 0.0}}; }

// [teaching_head]
attn::HeadPass teaching_head(const arma::mat& X2, const arma::mat& Wq) {
  // X2: 3 x 2; Wq: 2 x 2. Keys and values stay the raw vectors; only the question changes.
  const arma::mat I2 = arma::eye(2, 2);
  return attn::attention(X2, Wq, I2, I2);
}
// [teaching_head]

arma::mat small_query_map() { return {{1.0, 0.0, 1.0}, {0.0, 1.0, 1.0}}; }

// [null_space]
NullSpace null_space(const arma::mat& M) {
  // M: outputs x inputs (column form, M = Wq^T); basis: inputs x (inputs - rank)
  if (M.is_empty()) throw std::invalid_argument("null_space: M is empty (" + attn::shape(M) + ")");
  attn::require_finite(M, "null_space: M");
  NullSpace ns;
  ns.rank = arma::rank(M);
  ns.nullity = M.n_cols - ns.rank;
  ns.basis = arma::null(M);
  for (arma::uword c = 0; c < ns.basis.n_cols; ++c) {                // LAPACK's sign is arbitrary: make each column's
    const arma::uword top = arma::abs(ns.basis.col(c)).index_max();  // largest entry positive
    if (ns.basis(top, c) < 0) ns.basis.col(c) *= -1.0;
  }
  return ns;
}
// [null_space]

// [width_example]
WidthExample width_example(arma::uword d, arma::uword d_k, std::uint64_t seed, arma::uword samples) {
  if (d == 0 || d_k == 0) throw std::invalid_argument("width_example: d and d_k must be positive");
  arma::wall_clock timer;
  timer.tic();
  attn::Random rng(seed);
  const arma::mat Wq = rng.normal_matrix(d, d_k);  // d x d_k
  WidthExample w{.d = d, .d_k = d_k, .seed = seed};
  w.rank = arma::rank(Wq);  // singular values of the d x d_k matrix: cheap
  w.nullity = d - w.rank;   // rank–nullity: the directions that Wq^T sends to zero
  if (w.nullity == 0) {     // d <= d_k: Wq reads every input direction; there is nothing to sample
    w.seconds = timer.toc();
    return w;
  }
  w.null_samples = samples;
  // A null-space vector is a row n with n Wq = 0: take random rows and remove their part in the
  // column space of Wq (orthonormal basis C from economy QR, d x d_k).
  arma::mat C, R;
  arma::qr_econ(C, R, Wq);
  const arma::mat random_rows = rng.normal_matrix(samples, d);  // samples x d
  const arma::mat N = random_rows - (random_rows * C) * C.t();  // samples x d, each row in the null space
  const arma::rowvec x = rng.normal_matrix(1, d);
  w.null_query_max = arma::abs(N * Wq).max() / arma::abs(Wq).max();
  w.query_change_max = arma::abs((x + N.row(0)) * Wq - x * Wq).max();
  w.seconds = timer.toc();
  return w;
}
// [width_example]

Preset parse_preset(const std::string& name) {
  if (name == "water") return Preset::water;
  if (name == "finance") return Preset::finance;
  if (name == "structure") return Preset::structure;
  throw std::invalid_argument("unknown preset '" + name + "' (choose water, finance or structure)");
}

std::string preset_name(Preset preset) {
  switch (preset) {
    case Preset::water:
      return "water";
    case Preset::finance:
      return "finance";
    case Preset::structure:
      return "structure";
  }
  return "?";
}

std::string preset_question(Preset preset) {
  return "which positions carry " + preset_name(preset) + "-related evidence?";
}

// [presets]
arma::mat preset_wq(Preset preset) {
  // 4 x 3: rows finance, water, structure, generic (input); columns finance, water, structure (matching)
  arma::mat Wq(4, 3, arma::fill::zeros);
  const arma::uword axis = preset == Preset::finance ? 0 : preset == Preset::water ? 1 : 2;
  Wq(2, axis) = 3.75;  // only bank has structure (0.8), so only bank asks: 0.8 x 3.75 = 3
  return Wq;
}

arma::mat fixed_wk() {
  arma::mat Wk(4, 3, arma::fill::zeros);  // keeps finance, water, structure; drops generic
  Wk(0, 0) = Wk(1, 1) = Wk(2, 2) = 1.0;
  return Wk;
}
// [presets]

arma::mat parse_matrix(const std::string& text, arma::uword rows, arma::uword cols) {
  const std::string expected = std::to_string(rows) + " x " + std::to_string(cols);
  std::vector<std::vector<double>> parsed;
  // A ';' ends a row only when another follows: "1 0; 0 1;" would otherwise drop its empty last row unseen.
  const auto last = text.find_last_not_of(" \t");
  if (last != std::string::npos && text[last] == ';') {
    throw std::invalid_argument("matrix ends with ';': an empty last row (rows are separated by ';', not ended by it)");
  }
  std::istringstream row_stream(text);
  for (std::string row; std::getline(row_stream, row, ';');) {
    // Entries separated by commas follow the list rule (no empty entry); spaces separate them too.
    std::string spaced = row;
    if (row.find(',') != std::string::npos) {
      const app::Parsed<std::vector<std::string>> entries = app::split_list(row);
      if (!entries.value) {
        throw std::invalid_argument("matrix row " + std::to_string(parsed.size() + 1) + " " + attn::quoted(row) + " " +
                                    entries.problem);
      }
      spaced.clear();
      for (const std::string& entry : *entries.value) spaced += entry + " ";
    }
    std::vector<double> values;
    std::vector<std::string> cells;  // split at spaces and tabs only: a CR, LF, VT or FF stays in its entry
    for (std::size_t at = spaced.find_first_not_of(" \t"); at != std::string::npos;
         at = spaced.find_first_not_of(" \t", at)) {
      const std::size_t end = std::min(spaced.find_first_of(" \t", at), spaced.size());
      cells.push_back(spaced.substr(at, end - at));
      at = end;
    }
    for (const std::string& cell : cells) {
      const app::Parsed<double> x = app::parse_number(cell);  // the one number rule
      if (!x.value) throw std::invalid_argument("matrix entry " + attn::quoted(cell) + " " + x.problem);
      if (std::abs(*x.value) > attn::kLargestInput) {
        throw std::invalid_argument("matrix entry " + attn::quoted(cell) + " is not between -1e6 and 1e6");
      }
      const double v = *x.value;
      values.push_back(v);
    }
    parsed.push_back(values);
  }
  if (parsed.size() != rows) {
    throw std::invalid_argument("matrix has " + std::to_string(parsed.size()) + " rows; expected " + expected +
                                " (rows separated by ';')");
  }
  arma::mat M(rows, cols);
  for (arma::uword r = 0; r < rows; ++r) {
    if (parsed[r].size() != cols) {
      throw std::invalid_argument("matrix row " + std::to_string(r + 1) + " has " + std::to_string(parsed[r].size()) +
                                  " entries; expected " + expected);
    }
    for (arma::uword c = 0; c < cols; ++c) M(r, c) = parsed[r][c];
  }
  return M;
}

// [match_last]
MatchTable match_last(const std::vector<std::string>& words, const arma::mat& Wq, const arma::mat& Wk) {
  const arma::mat X = attn::toy_embeddings().lookup(words);    // n x 4
  const attn::HeadPass pass = attn::attention(X, Wq, Wk, Wk);  // values unused: this stops at matching
  MatchTable t{.words = words, .receiver = X.n_rows - 1, .Q = pass.Q, .K = pass.K};
  t.scores = pass.scores.row(t.receiver);  // q_receiver . k_j / sqrt(d_k)
  t.weights = pass.A.row(t.receiver);
  t.X = X;
  return t;
}
// [match_last]

std::vector<QueryTerm> query_terms(const arma::rowvec& x, const arma::mat& Wq) {
  if (x.n_elem != Wq.n_rows) {
    throw std::invalid_argument("query_terms: x is " + attn::shape(x) + " but Wq is " + attn::shape(Wq));
  }
  std::vector<QueryTerm> terms;
  for (arma::uword r = 0; r < Wq.n_rows; ++r) {
    if (x(r) != 0.0 && arma::any(Wq.row(r) != 0.0)) terms.push_back({.input = r, .x = x(r), .row = Wq.row(r)});
  }
  return terms;
}

// [combined_query]
arma::mat combined_wq() { return preset_wq(Preset::water) + preset_wq(Preset::structure); }

CombinedQuery combined_query(const std::vector<std::string>& words) {
  CombinedQuery c{.table = match_last(words, combined_wq(), fixed_wk())};
  const MatchTable& t = c.table;
  const double root = std::sqrt(static_cast<double>(t.K.n_cols));
  // s_ij = sum_r q_i,r k_j,r / sqrt(d_k): row j holds source j's shares, one per coordinate pair
  c.shares = (t.K.each_row() % arma::rowvec(t.Q.row(t.receiver))) / root;
  c.water = match_last(words, preset_wq(Preset::water), fixed_wk()).scores;
  c.structure = match_last(words, preset_wq(Preset::structure), fixed_wk()).scores;
  c.largest_gap = arma::abs(arma::sum(c.shares, 1).t() - t.scores).max();
  c.largest_split_gap = arma::abs(c.water + c.structure - t.scores).max();
  return c;
}
// [combined_query]

// [superposition]
Superposition superposition(arma::uword features) {
  if (features < 3 || features > 12) {
    throw std::invalid_argument("superposition: features must be between 3 and 12 (got " + std::to_string(features) +
                                ")");
  }
  Superposition s{.W = arma::mat(features, 2)};
  for (arma::uword i = 0; i < features; ++i) {  // feature i points at angle 2 pi i / features
    const double angle = 2.0 * arma::datum::pi * static_cast<double>(i) / static_cast<double>(features);
    s.W(i, 0) = std::cos(angle);
    s.W(i, 1) = std::sin(angle);
  }
  s.rank = arma::rank(s.W);
  s.overlaps = s.W * s.W.t();  // features x features: w_i . w_j
  const arma::mat off = s.overlaps - arma::diagmat(s.overlaps.diag());
  s.max_interference = arma::abs(off).max();
  const arma::rowvec one = s.W.row(0), two = s.W.row(0) + s.W.row(2);  // x = w_1, x = w_1 + w_3
  s.one_active = one * s.W.t();                                        // read every feature: x . w_i
  s.two_active = two * s.W.t();
  s.bias = -off.max();  // just enough to cancel the nearest neighbour's overlap
  s.one_active_relu = arma::clamp(s.one_active + s.bias, 0.0, arma::datum::inf);
  s.two_active_relu = arma::clamp(s.two_active + s.bias, 0.0, arma::datum::inf);
  return s;
}
// [superposition]

TeachingSection teaching_section() {
  TeachingSection t{.X2 = eiffel_sentence()};
  t.tower_dots = t.X2.row(2) * t.X2.t();  // 1 x 3: tower's row against every row
  t.raw = teaching_head(t.X2, arma::eye(2, 2));
  t.swapped = teaching_head(t.X2, swap_matrix());
  return t;
}

MatchingSection matching_section(const arma::mat& Wq, const std::vector<std::vector<std::string>>& sentences) {
  MatchingSection m{.Wq = Wq};
  for (const auto& words : sentences) m.tables.push_back(match_last(words, Wq, fixed_wk()));
  return m;
}

MatchingSection matching_widget(const arma::mat& Wq, const std::optional<std::vector<std::string>>& sentence) {
  if (!sentence) return matching_section(Wq, article_sentences());
  return matching_section(Wq, std::vector<std::vector<std::string>>{*sentence});
}

}  // namespace ch02

namespace ch02 {

// [reading_directions]
ReadingDirections reading_directions() {
  ReadingDirections r{.Wq = preset_wq(Preset::water), .Wk = fixed_wk()};  // d x d_k each
  r.rank_q = arma::rank(r.Wq);
  r.rank_k = arma::rank(r.Wk);
  r.reachable = arma::orth(arma::mat(r.Wq.t()));          // d_k x rank: the column space of M = Wq^T
  for (arma::uword c = 0; c < r.reachable.n_cols; ++c) {  // LAPACK's sign is arbitrary: largest entry positive
    if (r.reachable(arma::abs(r.reachable.col(c)).index_max(), c) < 0) r.reachable.col(c) *= -1.0;
  }
  r.target = {1.0, 0.0, 0.0};
  const arma::rowvec closest = (r.target * r.reachable) * r.reachable.t();  // 1 x d_k, its projection
  r.target_distance = arma::norm(r.target - closest);
  // The input directions a map reads: the row space of M = W^T, spanned by W's columns (d x rank).
  r.read_share.set_size(2, r.Wq.n_rows);
  for (arma::uword i = 0; i < 2; ++i) {
    const arma::mat P = arma::orth(i == 0 ? r.Wq : r.Wk);     // d x rank, orthonormal columns
    r.read_share.row(i) = arma::sum(arma::square(P), 1).t();  // |P^T e_r|^2 for each axis r
  }
  r.nudge = {0.0, 1.0, 0.0, 0.0};
  r.query_change = r.nudge * r.Wq;
  r.key_change = r.nudge * r.Wk;
  return r;
}
// [reading_directions]

SmallNullSpace small_null_space() {
  SmallNullSpace s{.M = small_query_map(), .reading = reading_directions()};
  s.ns = null_space(s.M);
  s.n = {1.0, 1.0, -1.0};
  s.e = {1.0, 2.0, 3.0};
  s.far_query = s.M * (s.e + 2.5 * s.n);
  return s;
}

std::vector<std::vector<std::string>> article_sentences() {
  return {attn::split_sentence("the river bank"), attn::split_sentence("the money bank")};
}

PresetWeights preset_weights(const std::optional<arma::mat>& custom) {
  PresetWeights p{.sentences = article_sentences(), .series = {"find water", "find finance", "find structure"}};
  if (custom) p.series.push_back("your --wq");
  for (const auto& words : p.sentences) {
    arma::mat values(words.size(), p.series.size());
    for (const Preset preset : {Preset::water, Preset::finance, Preset::structure}) {
      values.col(static_cast<arma::uword>(preset)) = match_last(words, preset_wq(preset), fixed_wk()).weights.t();
    }
    if (custom) values.col(3) = match_last(words, *custom, fixed_wk()).weights.t();
    p.weights.push_back(values);
  }
  return p;
}

}  // namespace ch02
