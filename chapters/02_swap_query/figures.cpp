/// \file figures.cpp
/// \brief Chapter 02's figures (see figures.hpp).
#include "figures.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

#include "common/panels.hpp"
#include "common/print.hpp"
#include "common/toy.hpp"

namespace ch02 {

using attn::format_number;
using attn::format_vector;

void draw_matching_space(attn::Plotter& plots, const std::string& label, const MatchTable& t) {
  // The matching space: every vocabulary word's key, the receiver's query direction.
  const std::vector<std::string>& words = t.words;
  const auto& table = attn::toy_embeddings();
  const arma::mat keys = table.E() * fixed_wk();  // vocabulary x 3
  std::ostringstream in, out;
  in << "# keys of words in the sentence: finance water structure word\n";
  out << "# keys of words not in the sentence: finance water structure word\n";
  for (arma::uword r = 0; r < keys.n_rows; ++r) {
    const std::string& w = table.words()[r];
    const bool present = std::find(words.begin(), words.end(), w) != words.end();
    (present ? in : out) << keys(r, 0) << ' ' << keys(r, 1) << ' ' << keys(r, 2) << " \"k_" << w << "\"\n";
  }
  if (out.str().find('\n') == out.str().size() - 1) out << "NaN NaN NaN \"\"\n";
  const arma::rowvec q = t.Q.row(t.receiver);
  const double qn = arma::norm(q);
  const arma::rowvec dir = qn > 0 ? arma::rowvec(q / qn) : arma::rowvec(3, arma::fill::zeros);
  std::ostringstream qd;
  qd << "# query of " << t.words[t.receiver] << " = " << format_vector(q, 4)
     << ", rescaled to length 1: x y z dx dy dz\n0 0 0 " << dir(0) << ' ' << dir(1) << ' ' << dir(2) << '\n';
  // Axes start at 0 unless a key or the query direction is negative, so points sit above the floor.
  const std::string lo = format_number(std::min({0.0, keys.min(), dir.min()}) - 0.1, 2);
  plots.figure(
      "ch02_matching_space", "Matching space (" + label + "): keys, and " + t.words[t.receiver] + "'s query direction",
      {in.str(), out.str(), qd.str()}, [&](const std::vector<std::string>& dat) {
        return "set xlabel 'finance'\nset ylabel 'water'\nset zlabel 'structure' rotate parallel offset 2, 0\n"
               "set xrange [" +
               lo + ":1.1]\nset yrange [" + lo + ":1.1]\nset zrange [" + lo +
               ":1.1]\nset ticslevel 0\nset xyplane at 0\n"
               // Scaled up and lifted so the cube fills the canvas below the legend.
               "set view 62, 35, 1.12, 1.2\nset origin 0.03, 0.04\nset grid\nset key top left\n"
               "splot " +
               dat[0] + " using 1:2:3 with impulses dashtype 3 linecolor rgb '#2b8cbe' notitle, " + dat[0] +
               " using 1:2:3 with points pointtype 7 pointsize 2 linecolor rgb '#2b8cbe'"
               " title 'keys in the sentence', " +
               dat[0] + " using 1:2:3:4 with labels offset 1.5, 0.8 notitle, " + dat[1] +
               " using 1:2:3 with points pointtype 6 pointsize 2 linecolor rgb 'gray60' "
               "title 'keys of absent words', " +
               dat[1] + " using 1:2:3:4 with labels offset 1.5, 0.8 textcolor rgb 'gray50' notitle, " + dat[2] +
               " using 1:2:3:4:5:6 with vectors head filled linewidth 3 linecolor rgb '#e6550d' title "
               "'query direction (rescaled; scores use the full query)'\n";
      });
}

void draw_bank_presets(attn::Plotter& plots) {
  // bank's weights for every preset in both article sentences.
  std::vector<attn::BarChart> panels;
  for (const std::string sentence : {"the river bank", "the money bank"}) {
    const auto ws = attn::split_sentence(sentence);
    std::string title = "\"";
    title.append(sentence).append("\"");
    arma::mat values(3, 3);
    for (const Preset p : {Preset::water, Preset::finance, Preset::structure}) {
      values.col(static_cast<arma::uword>(p)) = match_last(ws, preset_wq(p), fixed_wk()).weights.t();
    }
    panels.push_back({.title = title,
                      .xlabel = "source position",
                      .ylabel = "bank's weight",
                      .categories = ws,
                      .series = {"find water", "find finance", "find structure"},
                      .values = values,
                      .yrange = std::make_pair(0.0, 0.75),
                      .precision = 2});
  }
  attn::bar_panels(plots, "ch02_bank_presets", "bank's weights under the three hand-set queries, in both sentences",
                   panels);
}

}  // namespace ch02
