/// \file chapters/09_real_heads/compare_view.cpp
/// \brief Printing and drawing a comparison (see compare_view.hpp).
#include "compare_view.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>

#include "common/apparatus/print.hpp"
#include "figures.hpp"

namespace ch09 {

namespace {

constexpr std::size_t kShown = 80;  ///< the widest sentence printed, brackets and cuts included

/// A number with three decimals, or "-" where there is none (NaN).
std::string cell(double x) { return std::isfinite(x) ? fmt::format("{:.3f}", x) : "-"; }

/// The two sources head k weighs most at `at`, with their weights.
std::string top_sources(const HeadView& v, std::size_t k, arma::uword at) {
  const arma::rowvec a = v.weights[k].row(at).cols(0, at);
  const arma::uvec order = arma::sort_index(a, "descend");
  std::string text;
  for (arma::uword i = 0; i < 2 && i < order.n_elem; ++i)
    text += fmt::format("{}'{}'@{} {:.2f}", i ? "  " : "", v.labels[order(i)], order(i), a(order(i)));
  return text;
}

void print_sentence(std::ostream& out, const char* name, const Marked& m) {
  std::string span = span_of(m);
  if (span.size() > 40) span.replace(0, span.size() - 37, "...");  // its end, where the reading is
  fmt::print(out, "  {}: \"{}\"\n     {} characters; the reading at position {} ('{}'), the end of \"{}\"\n", name,
             shown(m, kShown), m.text.size(), m.last, m.text.substr(m.last, 1), span);
}

/// What the rank of A vs B among the controls says at one stage.
std::string standing_words(const ControlRank& r) {
  switch (r.standing) {
    case ControlRank::Standing::closer:
      return fmt::format("closer than {} of {} controls: A and B share more than the span at its position", r.below,
                         r.count);
    case ControlRank::Standing::further:
      return fmt::format("further apart than {} of {} controls: what differs before the span sets them apart",
                         r.count - r.below, r.count);
    case ControlRank::Standing::among:
      return fmt::format("above {} of {} controls: among them, nothing sets A and B together or apart", r.below,
                         r.count);
    case ControlRank::Standing::undefined:
      break;
  }
  return "nothing is left once centred: this character at this position is one vector";
}

void print_heads(std::ostream& out, const Comparison& c) {
  fmt::print(out,
             "  Where each head reads at the marked position (the two largest weights; figures ch09_compare_a\n"
             "  and ch09_compare_b show every position):\n");
  attn::Table t({"head", "A reads at " + std::to_string(c.pair.a.last), "B reads at " + std::to_string(c.pair.b.last)});
  for (std::size_t k = 0; k < c.view_a.weights.size(); ++k) {
    t.add({head_name(k / c.view_a.heads, k % c.view_a.heads), top_sources(c.view_a, k, c.pair.a.last),
           top_sources(c.view_b, k, c.pair.b.last)});
  }
  t.print(out);
}

void print_cosines(std::ostream& out, const Comparison& c) {
  fmt::print(out,
             "  Centred: from each reading, the mean reading of its span at its position in {} held-out\n"
             "  contexts is taken out; A's and B's cosines with {} and {} other such contexts are the controls.\n",
             c.centre_a.size(), c.controls_a.size(), c.controls_b.size());
  if (!c.controls_a.empty())
    fmt::print(out, "  One of A's controls: \"{}\"\n", shown(c.controls_a.front(), kShown - 8));
  attn::Table t({"stage", "raw cos(A, B)", "centred", "controls: lowest", "mean", "highest", "A, B above"});
  for (arma::uword k = 0; k < c.centred.n_elem; ++k) {
    const arma::vec all = arma::join_cols(arma::vec(c.control_a.col(k)), arma::vec(c.control_b.col(k)));
    const arma::vec known = all.elem(arma::find_finite(all));
    const bool any = known.n_elem > 0;
    t.add({k == 0 ? "embedding" : "after layer " + std::to_string(k), cell(c.raw(k)), cell(c.centred(k)),
           any ? cell(known.min()) : "-", any ? cell(arma::mean(known)) : "-", any ? cell(known.max()) : "-",
           c.ranks[k].standing == ControlRank::Standing::undefined
               ? "-"
               : fmt::format("{} of {}", c.ranks[k].below, c.ranks[k].count)});
  }
  t.print(out);
  for (arma::uword k = 0; k < c.ranks.size(); ++k) {
    fmt::print(out, "  {}: {}\n", k == 0 ? "embedding" : "after layer " + std::to_string(k),
               standing_words(c.ranks[k]));
  }
}

}  // namespace

std::string shown(const Marked& m, std::size_t width) {
  const auto escaped = [](const std::string& text) {  // held-out text holds newlines and tabs
    std::string out;
    for (const char c : text) out += c == '\n' ? std::string("\\n") : c >= 32 && c <= 126 ? std::string(1, c) : "?";
    return out;
  };
  const std::string before = escaped(m.text.substr(0, m.first)), span = escaped(span_of(m));
  const std::string s = before + "[" + span + "]" + escaped(m.text.substr(m.last + 1));
  if (s.size() <= width) return s;
  const std::size_t close = before.size() + span.size() + 1, end = std::min(s.size(), close + 11);  // 10 after ']'
  const std::size_t keep = width - 6, begin = end > keep ? end - keep : 0;
  return (begin > 0 ? "..." : "") + s.substr(begin, end - begin) + (end < s.size() ? "..." : "");
}

void print_comparison(std::ostream& out, const Comparison& c) {
  attn::print_heading(out, "Two readings compared: the stream at a marked position, after each stage");
  print_sentence(out, "A", c.pair.a);
  print_sentence(out, "B", c.pair.b);
  if (is_matched(c.pair)) {
    out << "  A matched pair: the same length and position, so the same position vector; if the spans are\n"
           "  the same too, only what comes before them differs.\n";
  } else {
    fmt::print(out,
               "  Not a matched pair (positions {} and {}, lengths {} and {}): each sentence's controls\n"
               "  are matched to it, the two sentences are not matched to each other.\n",
               c.pair.a.last, c.pair.b.last, c.pair.a.text.size(), c.pair.b.text.size());
  }
  out << '\n';
  print_heads(out, c);
  out << '\n';
  print_cosines(out, c);
}

void draw_comparison(attn::Plotter& plots, const Comparison& c) {
  draw_head_view(plots, "ch09_compare_a", c.view_a);
  draw_head_view(plots, "ch09_compare_b", c.view_b);
  const arma::uword layers = c.centred.n_elem - 1;
  arma::mat y(layers, 4);
  for (arma::uword l = 0; l < layers; ++l) {
    const arma::vec all = arma::join_cols(arma::vec(c.control_a.col(l + 1)), arma::vec(c.control_b.col(l + 1)));
    const arma::vec known = all.elem(arma::find_finite(all));
    if (known.n_elem == 0 || !std::isfinite(c.centred(l + 1))) return;  // nothing to draw
    y.row(l) = {c.centred(l + 1), known.min(), arma::mean(known), known.max()};
  }
  std::vector<std::string> stages;
  for (arma::uword l = 1; l <= layers; ++l) stages.push_back("after layer " + std::to_string(l));
  plots.bars({.name = "ch09_compare",
              .title = "Centred cosine of the two readings, against their controls",
              .xlabel = "",
              .ylabel = "centred cosine",
              .categories = stages,
              .series = {"A vs B", "controls: lowest", "controls: mean", "controls: highest"},
              .values = y,
              .yrange = std::make_pair(-1.0, 1.0),
              .key = "below"});
}

}  // namespace ch09
