/// \file figures.cpp
/// \brief Chapter 03's figures (see figures.hpp).
#include "figures.hpp"

#include <fmt/format.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/apparatus/panels.hpp"
#include "common/apparatus/plot.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/toy.hpp"

namespace ch03 {

namespace {

constexpr const char* kLearned = "#fdd49e";   // amber: learned parameters
constexpr const char* kComputed = "#c6dbef";  // blue: computed on each pass

/// One DOT node statement: a rounded box filled amber (learned) or blue (computed).
std::string node(const std::string& id, const std::string& label, bool learned) {
  return "  " + id + " [label=" + app::graphviz_quote(label) + ", fillcolor=\"" + (learned ? kLearned : kComputed) +
         "\"];\n";
}

constexpr const char* kFollowed = "#ffd92f";  // yellow: the receiving token's rows, to follow across heads

/// Text for a Graphviz HTML-like label: &, < and > as entities.
std::string html_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

/// A computed matrix's node whose label lists one vector per token row ("q_the(1)", ..), the
/// receiving (last) token's row highlighted, so a reader can follow bank's rows across the heads.
std::string rows_node(const std::string& id, const std::string& title, const std::string& letter,
                      const std::vector<std::string>& words, std::size_t head) {
  std::ostringstream out;
  out << "  " << id << " [fillcolor=\"" << kComputed
      << "\", label=<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"><TR><TD>"
      << html_text(title) << "</TD></TR>";
  for (std::size_t t = 0; t < words.size(); ++t) {
    const std::string row = html_text(letter + "_" + words[t] + "(" + std::to_string(head) + ")");
    if (t + 1 == words.size())
      out << "<TR><TD BGCOLOR=\"" << kFollowed << "\"><B>" << row << "</B></TD></TR>";
    else
      out << "<TR><TD>" << row << "</TD></TR>";
  }
  out << "</TABLE>>];\n";
  return out.str();
}

/// The opening of a diagram: top-to-bottom, one font, a title, box and edge styles. The book shows a
/// diagram at the size that makes its smallest text 12 px, so the edge labels are as large as the
/// boxes' text (smaller ones would scale the whole drawing up for their sake).
std::string opening(const std::string& name, const std::string& title) {
  return "digraph " + name +
         " {\n  rankdir=TB;\n  ordering=out;\n  fontname=\"DejaVu Sans\";\n  label=" + app::graphviz_quote(title) +
         ";\n  labelloc=t;\n  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\"];\n"
         "  edge [fontname=\"DejaVu Sans\", fontsize=14];\n";
}

/// One head's cluster of the counting diagram: its projections, Q/K/V, A and H, fed by node `input`.
std::string head_cluster(const ExampleSublayer& e, std::size_t k, const std::string& input) {
  const attn::HeadProjections& w = e.weights.heads[k];
  const attn::HeadPass& p = e.pass.heads[k];
  const std::string h = std::to_string(k + 1), s = "_" + h;
  std::ostringstream dot;
  dot << "  subgraph cluster_head" << h << " {\n    label=" << app::graphviz_quote("Head " + h)
      << ";\n    style=dashed;\n"
      << node("Wq" + s, "Wq(" + h + ")\n" + attn::shape(w.Wq), true)
      << node("Wk" + s, "Wk(" + h + ")\n" + attn::shape(w.Wk), true)
      << node("Wv" + s, "Wv(" + h + ")\n" + attn::shape(w.Wv), true)
      << rows_node("Q" + s, "Q(" + h + ") " + attn::shape(p.Q), "q", e.words, k + 1)
      << rows_node("K" + s, "K(" + h + ") " + attn::shape(p.K), "k", e.words, k + 1)
      << rows_node("V" + s, "V(" + h + ") " + attn::shape(p.V), "v", e.words, k + 1)
      << node("A" + s, "A(" + h + ") " + attn::shape(p.A) + "\nsoftmax(Q K^T\n/ sqrt(d_k))", false)
      << node("H" + s, "H(" + h + ") " + attn::shape(p.H) + "\nA V", false) << "    { rank=same; Wq" << s << "; Wk" << s
      << "; Wv" << s << "; }\n    { rank=same; Q" << s << "; K" << s << "; V" << s << "; }\n"
      << "    Wq" << s << " -> Wk" << s << " -> Wv" << s << " [style=invis];\n"  // left to right: Wq, Wk, Wv
      << "    Q" << s << " -> K" << s << " -> V" << s << " [style=invis];\n    Wq" << s << " -> Q" << s << ";\n    Wk"
      << s << " -> K" << s << ";\n    Wv" << s << " -> V" << s << ";\n    Q" << s << " -> A" << s << ";\n    K" << s
      << " -> A" << s << ";\n    A" << s << " -> H" << s << ";\n    V" << s << " -> H" << s << ";\n  }\n  " << input
      << " -> Wq" << s << ";\n  " << input << " -> Wk" << s << ";\n  " << input << " -> Wv" << s << ";\n  H" << s
      << " -> Concat;\n";
  return dot.str();
}

}  // namespace

std::string counting_diagram(const ExampleSublayer& e, const Counts& c, bool narrow) {
  const arma::mat& E = attn::toy_embeddings().E();
  const std::size_t n = e.words.size(), h = e.weights.heads.size();
  std::ostringstream dot;
  dot << opening("counting", std::to_string(h) + " heads over " + std::to_string(n) + " tokens (\"" +
                                 attn::join_words(e.words) +
                                 "\"),\none self-attention sublayer\namber: learned parameters;\nblue: computed on "
                                 "each pass");
  const std::string vocabulary = fmt::format("{}", fmt::join(attn::toy_embeddings().words(), ", "));
  dot << node("E", "E: token embedding table,\n" + attn::shape(E) + " (vocabulary x d)\nrows: " + vocabulary, true)
      << node("X", "X " + attn::shape(e.X) + ":\nthe rows of E for \"" + attn::join_words(e.words) + "\"", false)
      << "  E -> X [label=\"look up the\\ntoken IDs once\"];\n"
      // Graphviz 2.43 ignores ordering=out inside clusters: its crossing minimisation, pulled by the long
      // residual edge, drew Head 2 left of Head 1 and Wk left of Wq. A tiny limit keeps the order written
      // here (head 1 first, Wq, Wk, Wv), and Wo written before the heads stays right of Concat. The
      // phone's layout (heads stacked) keeps that order at 0.1, with its boxes closer together.
      << (narrow ? "  mclimit=0.1;\n  nodesep=0.12;\n" : "  mclimit=0.01;\n")
      << node("Wo", "Wo " + attn::shape(e.weights.Wo) + "\n(one for this sublayer)", true);
  for (std::size_t k = 0; k < h; ++k) {
    // A phone's column has room for one head across: each head below the one before it, fed by X
    // drawn again above it (edges from the one X would run beside the heads above and widen it).
    std::string input = "X";
    if (narrow && k > 0) {
      input = "X_" + std::to_string(k + 1);
      dot << node(input, "X " + attn::shape(e.X) + " (the same input)", false) << "  H_" << k << " -> " << input
          << " [style=invis];\n";
    }
    dot << head_cluster(e, k, input);
  }

  dot << node("Concat", "Concat(H(1) .. H(" + std::to_string(h) + "))\n" + attn::shape(e.pass.concat), false)
      << node("Delta", "Delta = Concat Wo " + attn::shape(e.pass.delta), false)
      << node("Y", "Y = X + Delta " + attn::shape(e.pass.Y), false)
      << node("counts",
              std::to_string(c.qkv_projections_per_block) + " learned Q/K/V\nprojection matrices,\n" +
                  std::to_string(c.qkv_matrices_per_block) + " computed Q/K/V matrices,\n" +
                  std::to_string(c.qkv_vectors_per_block) + " computed vectors: each\ntoken has " +
                  std::to_string(c.queries_per_token) + " queries,\nkeys and values\n(yellow: " + e.words.back() +
                  "'s " + std::to_string(c.queries_per_token) + " q,\n" + std::to_string(c.queries_per_token) +
                  " k and " + std::to_string(c.queries_per_token) + " v)",
              false)
      << "  counts [shape=note, fillcolor=white];\n"
      // Beyond this sublayer, named but not computed here: the feed-forward update and the next block.
      << "  FFN [label=\"feed-forward update,\neach position alone\n(not computed here)\", style=\"rounded,dashed\"];\n"
      << "  next [label=\"next block: its own\nWq, Wk, Wv and Wo,\nreading the updated rows\", "
         "style=\"rounded,dashed\"];\n"
      << "  Concat -> Delta;\n  Wo -> Delta;\n  Delta -> Y;\n  X -> Y [label=\"residual\", style=dashed];\n"
      << "  Y -> FFN;\n  FFN -> next;\n  next -> counts [style=invis];\n}\n";
  return dot.str();
}

std::string full_head_diagram(const ExampleSublayer& e) {
  const attn::HeadProjections& w = e.weights.heads.front();
  const attn::HeadPass& p = e.pass.heads.front();
  const arma::mat Wo1 = e.weights.Wo.rows(0, w.Wv.n_cols - 1);  // head 1's rows of Wo
  std::ostringstream dot;
  dot << opening("full_head", "One head, from its input\nto the output projection\n(head 1 on \"" +
                                  attn::join_words(e.words) + "\")\namber: learned;\nblue: computed on each pass")
      << node("X", "X " + attn::shape(e.X) + "\none row per token", false)
      << node("U", "U " + attn::shape(e.X) + ": the head's input\npre-norm block: U = norm(X)\nthis toy: U = X", false)
      << node("Wq", "Wq " + attn::shape(w.Wq), true) << node("Wk", "Wk " + attn::shape(w.Wk), true)
      << node("Wv", "Wv " + attn::shape(w.Wv), true) << node("Q", "Q = U Wq\n" + attn::shape(p.Q), false)
      << node("K", "K = U Wk\n" + attn::shape(p.K), false) << node("V", "V = U Wv\n" + attn::shape(p.V), false)
      << node("S", "S = Q K^T / sqrt(d_k)\n" + attn::shape(p.scores) + " scores", false)
      << node("A", "A = softmax(S), row by row\n" + attn::shape(p.A) + " weights", false)
      << node("H", "H = A V\n" + attn::shape(p.H) + " mixtures", false)
      << node("Wo", "Wo, head 1's rows\n" + attn::shape(Wo1), true)
      << node("Delta", "H Wo (head 1's part of Delta)\n" + attn::shape(arma::mat(p.H * Wo1)), false)
      << node("Y", "Y = X + Delta\n(Delta: every head's part)\n" + attn::shape(e.pass.Y), false)
      << "  { rank=same; Wq; Wk; Wv; }\n  { rank=same; Q; K; V; }\n"
      << "  X -> U [label=\"normalised read\"];\n  U -> Wq;\n  U -> Wk;\n  U -> Wv;\n  Wq -> Q;\n  Wk -> K;\n  Wv -> "
         "V;\n  Q -> S;\n  K -> S;\n"
      << "  S -> A;\n  A -> H;\n  V -> H;\n  H -> Delta;\n  Wo -> Delta;\n  Delta -> Y;\n"
      << "  X -> Y [label=\"residual\", style=dashed];\n}\n";
  return dot.str();
}

std::string communication_diagram(const attn::HeadPass& pass, const std::vector<std::string>& words, bool narrow) {
  const arma::uword n = pass.A.n_rows, i = n - 1;  // the receiving position: the last word
  const std::string& receiver = words[i];
  std::ostringstream dot;
  dot << opening("communication", "Positions as people exchanging messages" + std::string(narrow ? "\n" : " ") + "(\"" +
                                      attn::join_words(words) + "\",\n" + receiver +
                                      " receiving; every number computed)")
      << "  node [fillcolor=\"" << kComputed << "\"];\n  mclimit=0.01;\n"
      << (narrow ? "  nodesep=0.15;\n" : "");
  const char* titles[3] = {"1. Query meets keys:\nthe weights", "2. Values carry\nthe messages",
                           "3. The MLP: each position\nalone (next article)"};
  for (int panel = 0; panel < 3; ++panel) {
    const std::string p = std::to_string(panel + 1);
    dot << "  subgraph cluster_" << p << " {\n    label=" << app::graphviz_quote(titles[panel])
        << ";\n    style=dashed;\n";
    std::string row;  // the sources left to right, in sentence order
    for (arma::uword j = 0; j < n; ++j) {
      const std::string id = "s" + p + "_" + std::to_string(j), weight = app::format_number(pass.A(i, j), 2);
      std::string label = words[j];
      if (panel == 0) label += "\nk_" + words[j] + "\na = " + weight;
      if (panel == 1) {  // a phone's column: the value on a line of its own
        label += std::string(narrow ? "\nv =\n" : "\nv = ") + app::format_vector(arma::rowvec(pass.V.row(j)), 2) +
                 "\nsends " + weight + " v";
      }
      dot << "    " << id << " [label=" << app::graphviz_quote(label) << "];\n";
      row += (j ? " -> " : "") + id;
      if (panel == 2) {
        dot << "    m3_" << j << " [label=\"MLP\", fillcolor=\"" << kLearned << "\"];\n    " << id << " -> m3_" << j
            << ";\n";
      }
    }
    dot << "    { rank=same; " << row << " [style=invis]; }\n";
    if (panel < 2) {
      const std::string r = "r" + p;
      const std::string label =
          panel == 0 ? receiver + "'s query\nq_" + receiver
                     : receiver + " receives\nh = A V = " + app::format_vector(arma::rowvec(pass.H.row(i)), 2);
      dot << "    " << r << " [label=" << app::graphviz_quote(label) << "];\n";
      for (arma::uword j = 0; j < n; ++j) {  // each edge as thick as its weight is large
        dot << "    s" << p << "_" << j << " -> " << r
            << " [penwidth=" << app::format_number(1.0 + 6.0 * pass.A(i, j), 2) << "];\n";
      }
    }
    dot << "  }\n";
  }
  if (narrow)  // a phone's column: the panels one below the other
    dot << "  r1 -> s2_" << n / 2 << " [style=invis];\n  r2 -> s3_" << n / 2 << " [style=invis];\n";
  dot << "}\n";
  return dot.str();
}

namespace {

/// The four query/value combinations as two bar panels (ch03_query_value_combos).
void draw_bars(app::Plotter& plots, const std::vector<Combination>& combinations) {
  arma::mat weights(3, combinations.size()), mixtures(2, combinations.size());
  std::vector<std::string> combos;
  for (arma::uword c = 0; c < combinations.size(); ++c) {
    const auto& [q, v, p] = combinations[c];
    weights.col(c) = p.A.row(2).t();
    mixtures.col(c) = p.H.row(2).t();
    combos.push_back(choice_name(q) + " query, " + choice_name(v) + " values");
  }
  app::bar_panels(plots, "ch03_query_value_combos",
                  "tower: the query chooses the weights, the values choose the content",
                  {{.title = "weights over the sources",
                    .xlabel = "source position",
                    .ylabel = "weight a_tower,j",
                    .categories = {"the", "Eiffel", "tower"},
                    .series = combos,
                    .values = weights,
                    .yrange = std::make_pair(0.0, 0.75),
                    .value_labels = false},
                   {.title = "mixture h = A V",
                    .xlabel = "coordinate",
                    .ylabel = "value",
                    .categories = {"structure", "Paris identity"},
                    .series = combos,
                    .values = mixtures,
                    .yrange = std::make_pair(0.0, 0.75),
                    .value_labels = false}});
}

/// The example sublayer's two weight matrices as heat maps (ch03_head1_weights, ch03_head2_weights).
void draw_heads(app::Plotter& plots, const ExampleSublayer& example) {
  const std::vector<std::string>& words = example.words;
  const attn::MultiHeadPass& p = example.pass;
  const char* questions[2] = {"head 1 (bank asks for water)", "head 2 (bank asks for finance)"};
  for (std::size_t k = 0; k < 2; ++k) {
    plots.heatmap({.name = "ch03_head" + std::to_string(k + 1) + "_weights",
                   .title = std::string(questions[k]) + ": A(" + std::to_string(k + 1) + ") on \"" +
                            attn::join_words(words) + "\"",
                   .xlabel = "source position j",
                   .ylabel = "receiving position i",
                   .col_labels = words,
                   .row_labels = words,
                   .values = p.heads[k].A,
                   .cbrange = std::make_pair(0.0, 1.0)});
  }
}

}  // namespace

void draw_figures(app::Plotter& plots, const std::vector<Combination>& combinations, const ExampleSublayer& example,
                  const Counts& example_counts) {
  draw_bars(plots, combinations);
  draw_heads(plots, example);
  plots.diagram("ch03_counting", counting_diagram(example, example_counts),
                counting_diagram(example, example_counts, true));
  plots.diagram("ch03_full_head", full_head_diagram(example));
  const attn::HeadPass& swap_query = combination(combinations, Choice::swap, Choice::raw);
  plots.diagram("ch03_communication", communication_diagram(swap_query, {"the", "Eiffel", "tower"}),
                communication_diagram(swap_query, {"the", "Eiffel", "tower"}, true));
}

}  // namespace ch03
