/// \file figures.cpp
/// \brief Chapter 03's figures (see figures.hpp).
#include "figures.hpp"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/apparatus/panels.hpp"
#include "common/apparatus/plot.hpp"
#include "common/attention/toy.hpp"

namespace ch03 {

namespace {

constexpr const char* kLearned = "#fdd49e";   // amber: learned parameters
constexpr const char* kComputed = "#c6dbef";  // blue: computed on each pass

/// One DOT node statement: a rounded box filled amber (learned) or blue (computed).
std::string node(const std::string& id, const std::string& label, bool learned) {
  return "  " + id + " [label=" + attn::graphviz_quote(label) + ", fillcolor=\"" + (learned ? kLearned : kComputed) +
         "\"];\n";
}

/// "q_the(1)\nq_river(1)\nq_bank(1)": one vector per token row of a head's matrix, one a line.
std::string rows_of(const std::string& letter, const std::vector<std::string>& words, std::size_t head) {
  std::ostringstream out;
  for (std::size_t t = 0; t < words.size(); ++t)
    out << (t ? "\n" : "") << letter << '_' << words[t] << '(' << head << ')';
  return out.str();
}

/// The opening of a diagram: top-to-bottom, one font, a title, box and edge styles. The book shows a
/// diagram at the size that makes its smallest text 12 px, so the edge labels are as large as the
/// boxes' text (smaller ones would scale the whole drawing up for their sake).
std::string opening(const std::string& name, const std::string& title) {
  return "digraph " + name +
         " {\n  rankdir=TB;\n  ordering=out;\n  fontname=\"DejaVu Sans\";\n  label=" + attn::graphviz_quote(title) +
         ";\n  labelloc=t;\n  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\"];\n"
         "  edge [fontname=\"DejaVu Sans\", fontsize=14];\n";
}

/// One head's cluster of the counting diagram: its projections, Q/K/V, A and H, fed by node `input`.
std::string head_cluster(const ExampleSublayer& e, std::size_t k, const std::string& input) {
  const attn::HeadProjections& w = e.weights.heads[k];
  const attn::HeadPass& p = e.pass.heads[k];
  const std::string h = std::to_string(k + 1), s = "_" + h;
  std::ostringstream dot;
  dot << "  subgraph cluster_head" << h << " {\n    label=" << attn::graphviz_quote("Head " + h)
      << ";\n    style=dashed;\n"
      << node("Wq" + s, "Wq(" + h + ")\n" + attn::shape(w.Wq), true)
      << node("Wk" + s, "Wk(" + h + ")\n" + attn::shape(w.Wk), true)
      << node("Wv" + s, "Wv(" + h + ")\n" + attn::shape(w.Wv), true)
      << node("Q" + s, "Q(" + h + ") " + attn::shape(p.Q) + "\n" + rows_of("q", e.words, k + 1), false)
      << node("K" + s, "K(" + h + ") " + attn::shape(p.K) + "\n" + rows_of("k", e.words, k + 1), false)
      << node("V" + s, "V(" + h + ") " + attn::shape(p.V) + "\n" + rows_of("v", e.words, k + 1), false)
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
  std::string vocabulary;
  for (const std::string& w : attn::toy_embeddings().words()) vocabulary += (vocabulary.empty() ? "" : ", ") + w;
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
                  std::to_string(c.queries_per_token) + " queries,\nkeys and values",
              false)
      << "  counts [shape=note, fillcolor=white];\n"
      << "  Concat -> Delta;\n  Wo -> Delta;\n  Delta -> Y;\n  X -> Y [label=\"residual\", style=dashed];\n"
      << "  Y -> counts [style=invis];\n}\n";
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
      << node("Wq", "Wq " + attn::shape(w.Wq), true) << node("Wk", "Wk " + attn::shape(w.Wk), true)
      << node("Wv", "Wv " + attn::shape(w.Wv), true) << node("Q", "Q = X Wq\n" + attn::shape(p.Q), false)
      << node("K", "K = X Wk\n" + attn::shape(p.K), false) << node("V", "V = X Wv\n" + attn::shape(p.V), false)
      << node("S", "S = Q K^T / sqrt(d_k)\n" + attn::shape(p.scores) + " scores", false)
      << node("A", "A = softmax(S), row by row\n" + attn::shape(p.A) + " weights", false)
      << node("H", "H = A V\n" + attn::shape(p.H) + " mixtures", false)
      << node("Wo", "Wo, head 1's rows\n" + attn::shape(Wo1), true)
      << node("Delta", "H Wo (head 1's part of Delta)\n" + attn::shape(arma::mat(p.H * Wo1)), false)
      << node("Y", "Y = X + Delta\n(Delta: every head's part)\n" + attn::shape(e.pass.Y), false)
      << "  { rank=same; Wq; Wk; Wv; }\n  { rank=same; Q; K; V; }\n"
      << "  X -> Wq;\n  X -> Wk;\n  X -> Wv;\n  Wq -> Q;\n  Wk -> K;\n  Wv -> V;\n  Q -> S;\n  K -> S;\n"
      << "  S -> A;\n  A -> H;\n  V -> H;\n  H -> Delta;\n  Wo -> Delta;\n  Delta -> Y;\n"
      << "  X -> Y [label=\"residual\", style=dashed];\n}\n";
  return dot.str();
}

namespace {

/// The four query/value combinations as two bar panels (ch03_query_value_combos).
void draw_bars(attn::Plotter& plots, const std::vector<Combination>& combinations) {
  arma::mat weights(3, combinations.size()), mixtures(2, combinations.size());
  std::vector<std::string> combos;
  for (arma::uword c = 0; c < combinations.size(); ++c) {
    const auto& [q, v, p] = combinations[c];
    weights.col(c) = p.A.row(2).t();
    mixtures.col(c) = p.H.row(2).t();
    combos.push_back(choice_name(q) + " query, " + choice_name(v) + " values");
  }
  attn::bar_panels(plots, "ch03_query_value_combos",
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
void draw_heads(attn::Plotter& plots, const ExampleSublayer& example) {
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

void draw_figures(attn::Plotter& plots, const std::vector<Combination>& combinations, const ExampleSublayer& example,
                  const Counts& example_counts) {
  draw_bars(plots, combinations);
  draw_heads(plots, example);
  plots.diagram("ch03_counting", counting_diagram(example, example_counts),
                counting_diagram(example, example_counts, true));
  plots.diagram("ch03_full_head", full_head_diagram(example));
}

}  // namespace ch03
