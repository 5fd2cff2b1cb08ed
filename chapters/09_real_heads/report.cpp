/// \file chapters/09_real_heads/report.cpp
/// \brief Printing and drawing the chapter's results (see report.hpp).
#include "report.hpp"

#include <sstream>

#include "common/apparatus/panels.hpp"
#include "common/apparatus/print.hpp"

namespace ch09 {

using attn::format_number;

namespace {

constexpr int kPrecision = 3;
constexpr std::size_t kWidth = 100;  ///< the widest line the chapter prints (the book's pages show 100)

/// Prints `text` word by word in lines of at most kWidth characters, the first indented by two
/// spaces, the rest by four; `last` (kept whole) ends the final line.
void print_wrapped(std::ostream& out, const std::string& text, const std::string& last = "") {
  std::istringstream words(text);
  std::string line = "  ";
  bool empty = true;
  const auto add = [&](const std::string& word) {
    if (!empty && line.size() + 1 + word.size() > kWidth) {
      out << line << "\n";
      line = "    ";
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  };
  for (std::string word; words >> word;) add(word);
  if (!last.empty()) add(last);
  out << line << "\n";
}

std::string percent(arma::uword part, arma::uword whole) {
  return format_number(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + "%";
}

std::vector<std::string> all_head_names(arma::uword layers, arma::uword heads) {
  std::vector<std::string> names;
  for (arma::uword l = 0; l < layers; ++l) {
    for (arma::uword h = 0; h < heads; ++h) names.push_back(head_name(l, h));
  }
  return names;
}

}  // namespace

Report make_report(const Corpus& corpus, const Vocabulary& vocab, const Model& model, const std::string& sentence) {
  const Probes probes = make_probes(corpus, vocab, model.shape.context);
  Report r;
  r.baselines = baselines(corpus, vocab, model, probes);
  r.view = head_view(model, vocab, sentence);
  r.contributions = contributions(r.view);
  r.roles = roles(model, probes);
  r.ablations = ablations(model, probes);
  r.bank = bank_study(model, vocab);
  r.names = head_names(r.roles);
  r.claims = {claim_beats_bigram(r.baselines), claim_previous_token_head(r.roles),
              claim_induction_head(r.roles, r.ablations), claim_contribution_differs(r.contributions),
              claim_bank_controls(r.bank)};
  return r;
}

void print_claim(std::ostream& out, const Claim& c, bool quick) {
  const std::string verdict = c.holds ? "(holds)"
                              : quick ? "(not judged: a --quick run is too short)"
                                      : "(does NOT hold)";
  print_wrapped(out, c.statement + ": " + c.numbers, verdict + "   [" + c.tag + "]");
}

void print_data(std::ostream& out, const Corpus& corpus, const Vocabulary& vocab, const Run& run) {
  const attn::AttnOnlyShape& s = run.model.shape;
  out << "Data: " << corpus.files.size() << " fortune files, " << corpus.entries << " entries; every 20th entry ("
      << corpus.held_entries << ") held out:\n      " << corpus.train_text.size() << " training and "
      << corpus.held_text.size() << " held-out characters.\n"
      << "Tokens: " << vocab.size() << " (newline, " << vocab.characters().size() - 1
      << " printable characters, one for anything else).\n"
      << "Model: " << s.layers << " attention-only layers of " << s.heads << " heads (d_k = " << s.d_k << "), width "
      << s.width << ", context " << s.context << ",\n       learned positions, final layer norm; "
      << attn::parameter_count(s) << " parameters, trained in float.\n"
      << "Training: " << run.options.steps << " Adam steps (lr " << format_number(run.options.lr, 4) << ") of "
      << run.options.batch << " windows,\n          " << format_number(100 * run.options.windows.repeat_share, 0)
      << "% of them a snippet of " << run.options.windows.min_snippet << "-" << run.options.windows.max_snippet
      << " characters followed by itself; seed " << run.options.seed << ".\n";
}

namespace {

void print_baselines(std::ostream& out, const Report& r, const Run& run) {
  attn::print_heading(out, "1. Held-out loss against baselines (nats per character)");
  attn::Table t({"predictor", "held-out loss"});
  t.add({"uniform over the vocabulary, ln V", format_number(r.baselines.uniform, kPrecision)});
  t.add({"unigram: training character frequencies", format_number(r.baselines.unigram, kPrecision)});
  t.add({"bigram: p(next | this character)", format_number(r.baselines.bigram, kPrecision)});
  t.add({"the model (128-character windows)", format_number(r.baselines.model, kPrecision)});
  t.print(out);
  out << "  (n-grams scored on all " << r.baselines.held_chars << " held-out characters; training curve: step 0 "
      << format_number(run.curve.front().held_out, kPrecision) << ", step " << run.curve.back().step << " "
      << format_number(run.curve.back().held_out, kPrecision) << ")\n";
  print_claim(out, r.claims[0], r.quick);
}

void print_head_view(std::ostream& out, const Report& r) {
  const HeadView& v = r.view;
  attn::print_heading(out, "2. The head view: where each head reads, at the sentence's last character");
  out << "  sentence: \"" << v.sentence << "\" (" << v.sentence.size() << " characters; figure ch09_head_view)\n";
  attn::Table t({"head", "top source (weight)", "second", "third"});
  const arma::uword last = v.sentence.size() - 1;
  for (std::size_t k = 0; k < v.weights.size(); ++k) {
    const arma::rowvec a = v.weights[k].row(last);
    const arma::uvec order = arma::sort_index(a, "descend");
    std::vector<std::string> row{head_name(k / v.heads, k % v.heads)};
    for (arma::uword i = 0; i < 3 && i < order.n_elem; ++i) {
      row.push_back("'" + v.labels[order(i)] + "'@" + std::to_string(order(i)) + " (" + format_number(a(order(i)), 2) +
                    ")");
    }
    while (row.size() < 4) row.push_back("");
    t.add(row);
  }
  t.print(out);
}

void print_contributions(std::ostream& out, const Report& r) {
  const Contributions& c = r.contributions;
  attn::print_heading(out, "3. What each head contributes: weight a_ij against size ||a_ij v_j W_O||");
  out << "  A weight says how much of source j's value is mixed in; the value v_j and the output\n"
         "  projection W_O decide how large a vector that becomes (Kobayashi et al. 2020).\n"
      << "  top weight and top contribution disagree in " << c.disagree << " of " << c.cases
      << " (head, position) pairs (" << percent(c.disagree, std::max<arma::uword>(c.cases, 1))
      << ";\n    figure ch09_contributions).\n";
  if (c.found) {
    const ContributionCase& e = c.example;
    out << "  the starkest, " << head_name(e.layer, e.head) << " reading at position " << e.query << " ('"
        << r.view.labels[e.query] << "'):\n";
    attn::Table t({"source", "weight a_ij", "contribution ||a_ij v_j W_O||"});
    for (const arma::uword j : {e.top_weight, e.top_contribution}) {
      t.add({"'" + r.view.labels[j] + "'@" + std::to_string(j), format_number(e.weights(j), kPrecision),
             format_number(e.norms(j), kPrecision)});
    }
    t.print(out, "    ");
  }
  print_claim(out, r.claims[3], r.quick);
}

void print_roles(std::ostream& out, const Report& r) {
  const Roles& s = r.roles;
  attn::print_heading(out, "4. Measured roles (mean attention weights on held-out probes)");
  attn::Table t({"head", "previous-token", "induction (random)", "induction (text)", "duplicate-token"});
  for (arma::uword l = 0; l < s.previous_token.n_rows; ++l) {
    for (arma::uword h = 0; h < s.previous_token.n_cols; ++h) {
      t.add({head_name(l, h), format_number(s.previous_token(l, h), kPrecision),
             format_number(s.induction_random(l, h), kPrecision), format_number(s.induction_natural(l, h), kPrecision),
             format_number(s.duplicate_token(l, h), kPrecision)});
    }
  }
  t.print(out);
  out << "  repeated random letters: first copy " << format_number(s.random.first, kPrecision) << ", repeat "
      << format_number(s.random.repeat, kPrecision) << " nats/char\n"
      << "  repeated held-out text:  first copy " << format_number(s.natural.first, kPrecision) << ", repeat "
      << format_number(s.natural.repeat, kPrecision) << " nats/char\n"
      << "  in-context score on plain text (late minus early loss): " << format_number(s.late, kPrecision) << " - "
      << format_number(s.early, kPrecision) << " = " << format_number(s.in_context, kPrecision) << "\n";
  print_claim(out, r.claims[1], r.quick);
}

void print_ablations(std::ostream& out, const Report& r) {
  attn::print_heading(out, "5. Interventions: zero a head, measure again");
  const Ablation& base = r.ablations.front();
  attn::Table t({"zeroed", "held-out text", "random repeat", "text repeat", "random repeat rise"});
  for (const Ablation& a : r.ablations) {
    t.add({a.name, format_number(a.held_out, kPrecision), format_number(a.random.repeat, kPrecision),
           format_number(a.natural.repeat, kPrecision),
           format_number(a.random.repeat - base.random.repeat, kPrecision)});
  }
  t.print(out);
  const arma::uword L = r.roles.previous_token.n_rows, H = r.roles.previous_token.n_cols;
  for (arma::uword l = 0; l < L; ++l) {
    double single = 0.0;
    for (arma::uword h = 0; h < H; ++h) single += r.ablations[1 + l * H + h].random.repeat - base.random.repeat;
    const double together = r.ablations[1 + L * H + l].random.repeat - base.random.repeat;
    out << "  layer " << l + 1 << ", random-repeat loss rise: heads zeroed one at a time "
        << format_number(single, kPrecision) << " in sum, all together " << format_number(together, kPrecision)
        << (together > single + 0.1 ? "\n    (more: a head left in place partly covers for one removed)\n" : "\n");
  }
  print_claim(out, r.claims[2], r.quick);
}

void print_bank(std::ostream& out, const Report& r) {
  const BankStudy& b = r.bank;
  attn::print_heading(out, "6. bank: two senses, and controls that share letters but not sense");
  std::vector<std::string> header{"cosine at bank's final 'k'", "embedding"};
  for (arma::uword k = 1; k < b.cosines.n_cols; ++k) header.push_back("after layer " + std::to_string(k));
  attn::Table t(header);
  const auto add = [&](const std::string& name, const arma::rowvec& row) {
    std::vector<std::string> cells{name};
    for (const double x : row) cells.push_back(format_number(x, kPrecision));
    t.add(cells);
  };
  for (std::size_t p = 0; p < b.pair_names.size(); ++p) add(b.pair_names[p], b.cosines.row(p));
  add("mean within a sense (3 + 3 sentences)", b.within_sense);
  add("mean across senses", b.across_sense);
  t.print(out);
  // Two tables, so each fits in kWidth characters.
  attn::Table next_table({"sentence", "likeliest next characters"});
  attn::Table reads({"sentence", "L2 heads at the final 'k' read"});
  for (const BankReading& s : b.sentences) {
    std::string next, heads;
    for (const auto& [c, p] : s.next) next += (next.empty() ? "" : " ") + c + " " + format_number(p, 2);
    for (std::size_t k = s.reads.size() / 2; k < s.reads.size(); ++k) heads += (heads.empty() ? "" : ", ") + s.reads[k];
    next_table.add({"\"" + s.text + "\"", next});
    reads.add({"\"" + s.text + "\"", heads});
  }
  next_table.print(out);
  reads.print(out);
  out << "  What the controls show: if \"honey\" and \"rover\" sit as close to \"river\" as \"money\" does,\n"
         "  the difference comes from the letters the words share, not from the sense of bank.\n";
  print_claim(out, r.claims[4], r.quick);
}

void print_names(std::ostream& out, const Report& r) {
  attn::print_heading(out, "7. Names are summaries of what was measured");
  for (std::size_t k = 0; k < r.names.size(); ++k) {
    out << "  " << head_name(k / r.view.heads, k % r.view.heads) << ": " << r.names[k] << "\n";
  }
  out << "  A name here means only that a score passed a threshold on these probes: correlation\n"
         "  suggests a role, the ablations test what depends on it, and other heads may share or\n"
         "  cover the job. Nothing in the architecture makes a head an induction head.\n";
}

}  // namespace

void print_report(std::ostream& out, const Report& r, const Run& run) {
  print_baselines(out, r, run);
  print_head_view(out, r);
  print_contributions(out, r);
  print_roles(out, r);
  print_ablations(out, r);
  print_bank(out, r);
  print_names(out, r);
}

namespace {

void draw_curve(attn::Plotter& plots, const Report& r, const Run& run) {
  arma::vec steps(run.curve.size());
  arma::mat y(run.curve.size(), 3);
  for (std::size_t i = 0; i < run.curve.size(); ++i) {
    steps(i) = static_cast<double>(run.curve[i].step);
    y(i, 0) = run.curve[i].train;
    y(i, 1) = run.curve[i].held_out;
    y(i, 2) = r.baselines.bigram;
  }
  plots.lines({.name = "ch09_loss_curve",
               .title = "Training on fortunes: loss per character",
               .xlabel = "Adam step",
               .ylabel = "cross-entropy (nats/char)",
               .x = steps,
               .y = y,
               .series = {"training batches (with repeats)", "held-out plain text", "bigram baseline"},
               .points = true});
}

/// A grid of heat maps, layers by heads, with the sentence's characters on both axes.
void draw_grid(attn::Plotter& plots, const std::string& name, const std::string& title, const HeadView& v,
               const std::vector<arma::mat>& cells, const std::string& cblabel, bool weights) {
  std::vector<std::string> data;
  for (const arma::mat& M : cells) {
    std::ostringstream d;
    d << "# source j\treceiving i\tvalue (NaN: masked, j > i)\n";
    for (arma::uword i = 0; i < M.n_rows; ++i) {
      for (arma::uword j = 0; j < M.n_cols; ++j)
        d << j << '\t' << i << '\t' << (j > i ? "NaN" : format_number(M(i, j), 5)) << '\n';
      d << '\n';
    }
    data.push_back(d.str());
  }
  std::ostringstream tics;
  for (std::size_t t = 0; t < v.labels.size(); ++t)
    tics << (t ? ", " : "") << attn::gnuplot_tic_label(v.labels[t]) << ' ' << t;
  const double n = static_cast<double>(v.labels.size());
  plots.figure(name, title, data, [&](const std::vector<std::string>& dat) {
    std::ostringstream gp;
    // About 12 px per character row of a panel, so the 7-point tick labels stay apart. The book's
    // canvases keep 11 px labels: two heads a row on a desktop, one on a phone.
    const attn::Canvas& canvas = attn::Canvas::current();
    const int panels = static_cast<int>(v.layers * v.heads), columns = canvas.narrow ? 1 : 2;
    const int rows = canvas.svg ? (panels + columns - 1) / columns : static_cast<int>(v.layers);
    if (canvas.svg) {
      gp << canvas.terminal(canvas.width, (canvas.narrow ? 400 : 480) * rows + 40);
    } else {
      gp << "set terminal pngcairo noenhanced size " << 400 * v.heads << "," << 420 * v.layers + 40
         << " font 'DejaVu Sans,8'\n";
    }
    gp << "set multiplot layout " << rows << "," << (canvas.svg ? columns : static_cast<int>(v.heads)) << " title "
       << attn::gnuplot_quote(canvas.wrap(title)) << "\n"
       << "unset title\nset size ratio 1\nunset key\nset palette defined (0 '#f7fbff', 1 '#9ecae1', 2 '#08306b')\n"
       << "set xrange [-0.5:" << n - 0.5 << "]\nset yrange [" << n - 0.5 << ":-0.5]\n"
       << "set xtics (" << tics.str() << ") font '," << canvas.font(7) << "' nomirror\nset ytics (" << tics.str()
       << ") font '," << canvas.font(7) << "' nomirror\n"
       << "set cblabel " << attn::gnuplot_quote(cblabel) << "\n"
       << "set xlabel 'source character j' font '," << canvas.font(8) << "'\nset ylabel 'receiving character i' font ',"
       << canvas.font(8) << "'\n"
       << (weights ? "set cbrange [0:1]\n" : "");  // weights share one scale; contribution sizes do not
    for (std::size_t k = 0; k < dat.size(); ++k) {
      gp << "set title " << attn::gnuplot_quote(head_name(k / v.heads, k % v.heads)) << "\n"
         << "plot " << dat[k] << " using 1:2:3 with image" << (canvas.svg ? " pixels" : "") << "\n";
    }
    gp << "unset multiplot\n";
    return gp.str();
  });
}

void draw_roles(attn::Plotter& plots, const Report& r) {
  const Roles& s = r.roles;
  const arma::uword L = s.previous_token.n_rows, H = s.previous_token.n_cols;
  arma::mat values(L * H, 4);
  for (arma::uword k = 0; k < L * H; ++k) {
    values.row(k) = {s.previous_token(k / H, k % H), s.induction_random(k / H, k % H),
                     s.induction_natural(k / H, k % H), s.duplicate_token(k / H, k % H)};
  }
  plots.bars({.name = "ch09_head_roles",
              .title = "Measured roles per head (held-out probes)",
              .xlabel = "head (layer.head)",
              .ylabel = "mean attention weight",
              .categories = all_head_names(L, H),
              .series = {"previous-token", "induction, random letters", "induction, text", "duplicate-token"},
              .values = values,
              .yrange = std::make_pair(0.0, 1.0)});
}

void draw_ablations(attn::Plotter& plots, const Report& r) {
  const Ablation& base = r.ablations.front();
  std::vector<std::string> names;
  arma::mat rise(r.ablations.size() - 1, 3);
  for (std::size_t i = 1; i < r.ablations.size(); ++i) {
    const Ablation& a = r.ablations[i];
    names.push_back(a.name.rfind("all of ", 0) == 0 ? a.name.substr(7) : a.name);  // "layer 1" fits under its bars
    rise.row(i - 1) = {a.held_out - base.held_out, a.random.repeat - base.random.repeat,
                       a.natural.repeat - base.natural.repeat};
  }
  plots.bars({.name = "ch09_ablations",
              .title = "Loss rise when a head (or layer) is zeroed",
              .xlabel = "zeroed",
              .ylabel = "loss rise (nats/char)",
              .categories = names,
              .series = {"held-out text", "random-letter repeat", "text repeat"},
              .values = rise,
              .precision = 1});
}

void draw_bank(attn::Plotter& plots, const Report& r) {
  const BankStudy& b = r.bank;
  arma::vec stages = arma::regspace(0, static_cast<double>(b.cosines.n_cols - 1));
  arma::mat y = b.cosines.t();
  y.insert_cols(y.n_cols, b.within_sense.t());
  y.insert_cols(y.n_cols, b.across_sense.t());
  std::vector<std::string> series = b.pair_names;
  series.push_back("mean within a sense");
  series.push_back("mean across senses");
  plots.lines({.name = "ch09_bank",
               .title = "bank's stream at its final 'k': cosine between sentences",
               .xlabel = "stage (0 = embedding, l = after layer l)",
               .ylabel = "cosine",
               .x = stages,
               .y = y,
               .series = series,
               .points = true});
}

}  // namespace

void draw_report(attn::Plotter& plots, const Report& r, const Run& run) {
  draw_curve(plots, r, run);
  draw_grid(plots, "ch09_head_view", "Attention weights A[i, j] on \"" + r.view.sentence + "\"", r.view, r.view.weights,
            "weight", true);
  draw_grid(plots, "ch09_contributions",
            "Contribution sizes ||a_ij v_j W_O|| on \"" + r.view.sentence + "\" (each panel on its own colour scale)",
            r.view, r.view.contributions, "size", false);
  draw_roles(plots, r);
  draw_ablations(plots, r);
  draw_bank(plots, r);
}

}  // namespace ch09
