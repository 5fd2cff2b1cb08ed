/// \file figures.cpp
/// \brief Chapter 07's figures (see figures.hpp).
#include "figures.hpp"

#include <fmt/format.h>

#include "common/attention/toy.hpp"

namespace ch07 {

void draw_memory(app::Plotter& plots, const MemorySection& m, const std::vector<std::string>& axes) {
  std::vector<std::string> v_axes, k_axes;
  for (const auto& a : axes) {
    v_axes.push_back("v " + a);
    k_axes.push_back("k " + a);
  }
  plots.heatmap({.name = "ch07_memory",
                 .title = fmt::format("The memory S after {} tokens (\"{}\"): S = sum of v_i k_i^T", m.words.size(),
                                      attn::join_words(m.words)),
                 .xlabel = "key coordinate (read by q)",
                 .ylabel = "value coordinate (written out)",
                 .col_labels = k_axes,
                 .row_labels = v_axes,
                 .values = m.memories.back(),
                 .precision = 2});
}

void draw_cost(app::Plotter& plots, const CostSection& c) {
  arma::vec x(c.rows.size());
  arma::mat time(c.rows.size(), 2), bytes(c.rows.size(), 2);
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const CostRow& row = c.rows[r];
    x(r) = static_cast<double>(row.position);
    time.row(r) = arma::rowvec{row.softmax_seconds * 1e6, row.linear_seconds * 1e6};  // microseconds
    bytes.row(r) = arma::rowvec{static_cast<double>(row.softmax_bytes), static_cast<double>(row.linear_bytes)};
  }
  plots.lines(
      {.name = "ch07_cost_time",
       .title = fmt::format("Time per generated token (d_k = d_v = {})", c.width),
       .xlabel = "position (tokens so far, log scale)",
       .ylabel = "microseconds per token (log scale)",
       .x = x,
       .y = time,
       .series = {"softmax attention over a key/value cache", "linear attention memory S"},
       .logx = true,
       .logy = true,
       .points = true,
       .key = "top left Left reverse box opaque"});  // the softmax line climbs to the right; top left stays empty
  plots.lines({.name = "ch07_cost_memory",
               .title = fmt::format("Bytes held while generating (d_k = d_v = {}, doubles)", c.width),
               .xlabel = "position (tokens so far, log scale)",
               .ylabel = "bytes (log scale)",
               .x = x,
               .y = bytes,
               .series = {"key/value cache", "linear attention memory S"},
               .logx = true,
               .logy = true,
               .points = true});
}

}  // namespace ch07
