/// \file chapters/09_real_heads/report.cpp
/// \brief Printing the chapter's results (see program.hpp).
#include "program.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <sstream>

#include "common/apparatus/print.hpp"

namespace ch09 {

using app::format_number;

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

}  // namespace

void print_claim(std::ostream& out, const app::ClaimCheck& c, bool quick) {
  const std::string verdict = c.holds ? "(holds)"
                              : quick ? "(not judged: a --quick run is too short)"
                                      : "(does NOT hold)";
  print_wrapped(out, c.evidence, verdict + "   [" + c.id + "]");
}

void print_start(std::ostream& out, const std::optional<std::string>& loaded, const std::string& stale) {
  out << "Chapter 09 - Watch real heads: a small transformer trained on real English text\n\n";
  if (!stale.empty()) {
    print_wrapped(out, "The run saved in the --cached folder is not this program's (" + stale +
                           "): training again, to save it there.");
  }
  if (loaded)
    out << "Loaded the model saved in " << *loaded << ".\n";
  else
    out << "Training (progress on stderr)...\n";
  out.flush();  // before training's progress on stderr, so a terminal shows the two in order
}

void print_progress(std::ostream& out, const Progress& p, bool one_line) {
  const std::string text = fmt::format("  step {}/{}: loss {}, {} s elapsed, about {} s left", p.step, p.steps,
                                       format_number(p.loss, 3), format_number(p.elapsed, 0), format_number(p.left, 0));
  // On a terminal one line is rewritten in place (padded over a longer previous text); elsewhere
  // (a log, a pipe) every report is a line of its own.
  if (!one_line) return void(out << text << "\n");
  out << "\r" << fmt::format("{:<60}", text) << (p.step == p.steps ? "\n" : "") << std::flush;
}

void print_quick_note(std::ostream& out) {
  out << "(a --quick run: the induction head needs the full run, about 1-3 min; from the repository,\n"
         " `build/release/chapters/09_real_heads/ch09_real_heads --cached build/release/ch09_model`\n"
         " trains it once where the tour, the book and the tests look for it)\n";
}

void print_wall_time(std::ostream& out, const Run& run, bool loaded) {
  out << "wall time of training: " << format_number(run.seconds, 1) << " s"
      << (loaded ? " (when the saved model was trained)" : "") << "\n";
}

void print_step_timing(std::ostream& out, const StepTiming& t) {
  out << "ch09 model step: " << format_number(t.ms, 2) << " ms (" << t.steps << " steps, batch " << t.batch << " x "
      << t.context << ", " << t.threads << " threads, float)\n"
      << "  " << format_number(t.gflop, 2)
      << " GFLOP of matrix products a step, counted dense: " << format_number(t.gflop / t.ms * 1e3, 0) << " GFLOP/s\n";
}

namespace {

/// "48-64 characters for steps 1-2500, 10-64 after" (or one range when one spec covers every step).
std::string snippet_schedule(const TrainOptions& o) {
  const auto range = [](const WindowSpec& w) {
    return std::to_string(w.min_snippet) + "-" + std::to_string(w.max_snippet) + " characters";
  };
  if (o.long_steps == 0) return range(o.windows);
  if (o.long_steps >= o.steps) return range(o.long_windows);
  return range(o.long_windows) + " for steps\n          1-" + std::to_string(o.long_steps) + ", " +
         std::to_string(o.windows.min_snippet) + "-" + std::to_string(o.windows.max_snippet) + " after";
}

}  // namespace

void print_data(std::ostream& out, const Corpus& corpus, const Vocabulary& vocab, const Run& run) {
  const attn::AttnOnlyShape& s = run.model.shape;
  out << "Data: " << app::counted(static_cast<long long>(corpus.files.size()), "fortune file") << ", "
      << app::counted(static_cast<long long>(corpus.entries), "entry", "entries") << "; "
      << (corpus.held_tail ? std::string("too few to hold out every 20th, so the text's last 5%")
                           : "every 20th entry (" + std::to_string(corpus.held_entries) + ")")
      << " held out:\n      " << corpus.train_text.size() << " training and " << corpus.held_text.size()
      << " held-out characters.\n"
      << "Tokens: " << vocab.size() << " (newline, " << vocab.characters().size() - 1
      << " printable characters, one for anything else).\n"
      << "Model: " << s.layers << " attention-only layers of " << s.heads << " heads (d_k = " << s.d_k << "), width "
      << s.width << ", context " << s.context << ",\n       learned positions, final layer norm; "
      << attn::parameter_count(s) << " parameters, trained in float.\n"
      << "Training: " << run.options.steps << " Adam steps (lr " << format_number(run.options.lr, 4) << ") of "
      << run.options.batch << " windows,\n          " << format_number(100 * run.options.windows.repeat_share, 0)
      << "% of them a snippet followed by itself: " << snippet_schedule(run.options) << "; seed " << run.options.seed
      << ".\n";
}

namespace {

/// real_01 to real_08 (check_claims()), each printed under the section it is about.
using Claims = std::vector<app::ClaimCheck>;

void print_baselines(std::ostream& out, const Report& r, const Claims& claims, const Run& run) {
  app::print_heading(out, "1. Held-out loss against baselines (nats per character)");
  app::Table t({"predictor", "held-out loss"});
  t.add({"uniform over the vocabulary, ln V", format_number(r.baselines.uniform, kPrecision)});
  t.add({"unigram: training character frequencies", format_number(r.baselines.unigram, kPrecision)});
  t.add({"bigram: p(next | this character)", format_number(r.baselines.bigram, kPrecision)});
  t.add({"the model (128-character windows)", format_number(r.baselines.model, kPrecision)});
  t.print(out);
  out << "  (n-grams scored on all " << r.baselines.held_chars << " held-out characters; held-out curve: step 0 "
      << format_number(run.curve.front().held_out, kPrecision) << ", step " << run.curve.back().step << " "
      << format_number(run.curve.back().held_out, kPrecision) << ")\n";
  print_claim(out, claims[0], r.quick);
}

void print_head_view(std::ostream& out, const Report& r) {
  const HeadView& v = r.view;
  app::print_heading(out, "2. The head view: where each head reads, at the sentence's last character");
  out << "  sentence: \"" << v.sentence << "\" (" << v.sentence.size() << " characters; figure ch09_head_view)\n";
  app::Table t({"head", "top source (weight)", "second", "third"});
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

void print_contributions(std::ostream& out, const Report& r, const Claims& claims) {
  const Contributions& c = r.contributions;
  app::print_heading(out, "3. What each head contributes: weight a_ij against size ||a_ij v_j W_O||");
  out << "  A weight says how much of source j's value is mixed in; the value v_j and the output\n"
         "  projection W_O decide how large a vector that becomes (Kobayashi et al. 2020).\n"
      << "  top weight and top contribution disagree in " << c.disagree << " of " << c.cases
      << " (head, position) pairs (" << percent(c.disagree, std::max<arma::uword>(c.cases, 1))
      << ";\n    figure ch09_contributions).\n";
  if (c.found) {
    const ContributionCase& e = c.example;
    out << "  the starkest, " << head_name(e.layer, e.head) << " reading at position " << e.query << " ('"
        << r.view.labels[e.query] << "'):\n";
    app::Table t({"source", "weight a_ij", "contribution ||a_ij v_j W_O||"});
    for (const arma::uword j : {e.top_weight, e.top_contribution}) {
      t.add({"'" + r.view.labels[j] + "'@" + std::to_string(j), format_number(e.weights(j), kPrecision),
             format_number(e.norms(j), kPrecision)});
    }
    t.print(out, "    ");
  }
  print_claim(out, claims[3], r.quick);
}

std::string logit_list(const std::vector<std::pair<std::string, double>>& items) {
  std::string text;
  for (const auto& [c, v] : items) text += (text.empty() ? "" : " ") + c + " " + fmt::format("{:+.2f}", v);
  return text;
}

void print_writes(std::ostream& out, const Report& r, const Claims& claims) {
  const WritesSection& w = r.writes;
  fmt::print(out,
             "\n  What each head writes, decoded (direct logit attribution): its output at one position,\n"
             "  through the final norm (scale frozen) and the unembedding, in logits per character.\n"
             "  position {} ('{}') of \"{}\";\n  the model's likeliest next character there: '{}'\n",
             w.position, w.labels[w.position], w.sentence, w.predicted);
  app::Table t({"head", "reads most", "||write||", "on '" + w.predicted + "'", "raises most", "lowers most"});
  for (const HeadWrite& e : w.heads) {
    t.add({head_name(e.layer, e.head),
           fmt::format("'{}'@{} ({:.2f})", w.labels[e.top_source], e.top_source, e.top_weight),
           format_number(e.size, 2), fmt::format("{:+.2f}", e.on_prediction), logit_list(e.raised),
           logit_list(e.lowered)});
  }
  t.print(out);
  const HeadWrite &sharp = w.heads[w.sharpest], &strong = w.heads[w.strongest];
  print_wrapped(
      out, fmt::format("the head that weighs one source most here is {} ({:.2f}); the head with the largest "
                       "effect on '{}' is {} ({:+.2f} logits){}. Over positions 1 to {} (position 0 can "
                       "read only itself) the two are different heads at {}.",
                       head_name(sharp.layer, sharp.head), sharp.top_weight, w.predicted,
                       head_name(strong.layer, strong.head), strong.on_prediction,
                       w.sharpest == w.strongest ? ", the same head" : ": the largest weight is not the largest effect",
                       w.positions, w.disagree));
  print_claim(out, claims[5], r.quick);
}

/// Which second-layer heads the chapter treats as its induction heads, and which one the circuit
/// section studies.
void print_induction_choice(std::ostream& out, const Report& r) {
  const arma::uword last = r.roles.induction_random.n_rows - 1;
  const std::string studied = head_name(last, r.induction);
  const double top = r.roles.induction_random.row(last).max();
  if (top <= 0.3) {
    print_wrapped(out, "no second-layer head has an induction score above 0.3; the highest, " + studied +
                           ", stands in as the induction head below");
  } else if (r.induction_heads.size() == 1) {
    print_wrapped(out, "the induction head: " + studied +
                           ", the only second-layer head with an induction score above 0.3; zeroed: " +
                           format_number(r.induction_zeroed.random.repeat, kPrecision) + " on the random repeat");
  } else {
    print_wrapped(out, "the induction heads: " + r.induction_zeroed.name +
                           ", every second-layer head with an induction score above 0.3. They share the job: "
                           "zeroed together the random-repeat loss is " +
                           format_number(r.induction_zeroed.random.repeat, kPrecision) +
                           ", and they are decoded together in section 3; the circuit below studies " + studied +
                           ", whose zeroing alone costs the repeats most");
  }
}

void print_roles(std::ostream& out, const Report& r, const Claims& claims) {
  const Roles& s = r.roles;
  app::print_heading(out, "4. Measured roles (mean attention weights on held-out probes)");
  app::Table t({"head", "previous-token", "induction (random)", "induction (text)", "duplicate-token"});
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
  print_claim(out, claims[1], r.quick);
}

void print_mean_ablation(std::ostream& out, const Report& r) {
  const AblationCompare& c = r.zero_vs_mean;
  fmt::print(out,
             "\n  Zero against mean ablation (the head's output replaced by 0, or by its mean output over\n"
             "  held-out text), loss rises on {} plain and {} random-repeat windows:\n",
             c.windows, c.windows);
  app::Table t({"head", "zeroed: held-out", "zeroed: repeat", "mean: held-out", "mean: repeat"});
  for (std::size_t k = 0; k < c.heads.size(); ++k) {
    t.add({c.heads[k], fmt::format("{:+.3f}", c.zero(k, 0)), fmt::format("{:+.3f}", c.zero(k, 1)),
           fmt::format("{:+.3f}", c.mean(k, 0)), fmt::format("{:+.3f}", c.mean(k, 1))});
  }
  t.print(out);
}

void print_findings(std::ostream& out, const std::vector<Finding>& found) {
  using Kind = Finding::Kind;
  for (const Finding& f : found) {
    switch (f.kind) {
      case Kind::helps:
        print_wrapped(out, fmt::format("zeroing {} lowers the {} loss by {:.3f}: removing it helps there", f.subject,
                                       f.what, -f.a));
        break;
      case Kind::compensated:
        print_wrapped(out, fmt::format("{}: its heads zeroed one at a time raise the {} loss by {:.3f} in sum, "
                                       "all together by {:.3f}: a head left in place covers for one removed",
                                       f.subject, f.what, f.a, f.b));
        break;
      case Kind::unnamed_matters:
        print_wrapped(out, fmt::format("{} has no measured role, yet zeroing it raises the {} loss by {:.3f}: "
                                       "the names miss part of what it does",
                                       f.subject, f.what, f.a));
        break;
      case Kind::methods_disagree:
        // zeroing removes the head's information and its constant, mean ablation the information only
        print_wrapped(out, fmt::format("{}: the {} loss changes by {:+.3f} zeroed, {:+.3f} mean-ablated: {}", f.subject,
                                       f.what, f.a, f.b,
                                       f.a > f.b ? "part of zeroing's cost is the missing constant, not the "
                                                   "missing information"
                                                 : "its mean write costs more than none: the constant it adds on "
                                                   "held-out text does not suit the repeats"));
        break;
    }
  }
}

/// Says where zero and mean ablation disagree, or that they do not.
void print_agreement(std::ostream& out, const std::vector<Finding>& found) {
  for (const Finding& f : found) {
    if (f.kind == Finding::Kind::methods_disagree) return;  // print_findings said where
  }
  out << "  zero and mean ablation agree within 0.1 nats on every head's repeat rise: no head's cost\n"
         "    here is only the constant it adds\n";
}

void print_patching(std::ostream& out, const PatchPair& pair, const PatchingSection& p) {
  fmt::print(out,
             "\n  Activation patching: run A, put in one piece of a run on B, and watch A's prediction at\n"
             "  its last character:\n    A = \"{}\"\n    B = \"{}\"\n"
             "  (clean: '{}' {:.2f}, '{}' {:.2f}).\n",
             p.a, p.b, p.predicted_a, p.clean_p_a, p.predicted_b, p.clean_p_b);
  // The frame the candidates share: A with a '?' where B differs.
  std::string frame = pair.a;
  for (std::size_t i = 0; i < frame.size() && i < pair.b.size(); ++i)
    frame[i] = pair.a[i] == pair.b[i] ? frame[i] : '?';
  print_wrapped(out, pair.copied >= 2
                         ? fmt::format("A and B are the first two of {} sentences \"{}\" whose repeat this model "
                                       "copies ({} of the {} copied).",
                                       pair.candidates, frame, pair.copied, pair.candidates)
                         : fmt::format("This model copies {} of the {} sentences \"{}\": A and B are the first two, "
                                       "and B's prediction need not be a copy.",
                                       pair.copied, pair.candidates, frame));
  app::Table t({"patched from B", "p('" + p.predicted_a + "')", "p('" + p.predicted_b + "')", "top"});
  for (const PatchRow& row : p.rows)
    t.add({row.what, format_number(row.p_a, 3), format_number(row.p_b, 3), "'" + row.top + "'"});
  t.print(out);
}

void print_circuit(std::ostream& out, const Report& r, const Claims& claims) {
  const CircuitSection& c = r.circuit;
  fmt::print(out,
             "\n  The circuit: which first-layer head does {} read? Composition scores\n"
             "  ||W_QK W_OV^T||, ||W_OV W_QK||, ||W_OV W_OV'|| over their norms (random matrices: {:.3f}):\n",
             c.induction, c.random_baseline);
  app::Table t({"first-layer head", "K-composition", "Q-composition", "V-composition"});
  for (arma::uword h = 0; h < c.k_composition.n_elem; ++h) {
    t.add({head_name(0, h) + (head_name(0, h) == c.previous ? " (previous-token)" : ""),
           format_number(c.k_composition(h), 4), format_number(c.q_composition(h), 4),
           format_number(c.v_composition(h), 4)});
  }
  t.print(out);
  fmt::print(out,
             "  QK circuit through {}: a query letter attends most to the position after its own copy\n"
             "    for {:.0f}% of the 26 letters; OV circuit: a letter read raises its own logit most for {:.0f}%.\n"
             "  Patch: {}'s output taken from the same windows shuffled: repeat loss {:.3f} -> {:.3f}.\n",
             c.previous, 100 * c.qk_diagonal, 100 * c.ov_diagonal, c.previous, c.clean_repeat, c.patched_repeat);
  print_claim(out, claims[6], r.quick);
}

void print_ablations(std::ostream& out, const Report& r, const Claims& claims) {
  app::print_heading(out, "5. Interventions: zero a head, measure again");
  const Ablation& base = r.ablations.front();
  app::Table t({"zeroed", "held-out text", "random repeat", "text repeat", "random repeat rise"});
  for (const Ablation& a : r.ablations) {
    t.add({a.name, format_number(a.held_out, kPrecision), format_number(a.random.repeat, kPrecision),
           format_number(a.natural.repeat, kPrecision),
           format_number(a.random.repeat - base.random.repeat, kPrecision)});
  }
  t.print(out);
  print_induction_choice(out, r);
  print_claim(out, claims[2], r.quick);
  print_mean_ablation(out, r);
  print_findings(out, r.findings);
  print_agreement(out, r.findings);
  print_patching(out, r.patch_pair, r.patch);
  print_claim(out, claims[7], r.quick);
  print_circuit(out, r, claims);
}

/// What the heads of the last layer read at bank's final 'k' in the first item, and what comes next.
void print_bank_reads(std::ostream& out, const Report& r) {
  const BankStudy& b = r.bank;
  app::Table next_table({"sentence", "likeliest next characters"});
  const arma::uword L = r.view.layers, H = r.view.heads;
  std::vector<std::string> read_header{"sentence"};
  for (arma::uword h = 0; h < H; ++h) read_header.push_back(head_name(L - 1, h) + " reads");
  app::Table reads(read_header);
  for (const BankReading& s : b.first) {
    std::string next;
    for (const auto& [c, p] : s.next) next += (next.empty() ? "" : " ") + c + " " + format_number(p, 2);
    next_table.add({"\"" + s.text + "\" (" + s.sense + ")", next});
    std::vector<std::string> row{"\"" + s.text + "\""};
    for (arma::uword h = 0; h < H; ++h) row.push_back(s.reads[(L - 1) * H + h]);
    reads.add(row);
  }
  next_table.print(out);
  reads.print(out);
}

void print_bank(std::ostream& out, const Report& r, const Claims& claims) {
  const BankStudy& b = r.bank;
  app::print_heading(out, "6. bank: two senses against letter controls, matched and centred");
  print_wrapped(out, fmt::format("{} matched items: in each, four sentences of the same length with bank's final "
                                 "'k' at the same position, differing only in the word before it. Cosines are "
                                 "centred: the mean reading of \" bank\" at the same position in {} held-out "
                                 "contexts is taken out first, which leaves what the words before bank changed. "
                                 "After the embedding nothing is left (same 'k', same position), so the table "
                                 "starts after layer 1.",
                                 b.items.size(), b.contexts));
  app::Table items({"item", "frame", "river sense", "money sense", "letter controls"});
  for (std::size_t i = 0; i < b.items.size(); ++i) {
    const BankItem& it = b.items[i];
    items.add({std::to_string(i + 1), "\"" + it.frame + "\"", it.river, it.money, it.river_ctl + ", " + it.money_ctl});
  }
  items.print(out);
  std::vector<std::string> header{"centred cosine"};
  for (arma::uword k = 1; k < b.sense.n_cols; ++k) {
    header.push_back("layer " + std::to_string(k) + ": sense pair");
    header.push_back("controls");
  }
  app::Table t(header);
  bool vanished = false;  // a centred cosine is NaN where nothing is left once centred
  const auto cell = [&](double x) {
    vanished = vanished || !std::isfinite(x);
    return std::isfinite(x) ? format_number(x, kPrecision) : std::string("-");
  };
  const auto add = [&](const std::string& name, const arma::rowvec& sense, const arma::rowvec& control) {
    std::vector<std::string> cells{name};
    for (arma::uword k = 1; k < sense.n_elem; ++k) {
      cells.push_back(cell(sense(k)));
      cells.push_back(cell(control(k)));
    }
    t.add(cells);
  };
  for (arma::uword i = 0; i < b.sense.n_rows; ++i)
    add("item " + std::to_string(i + 1), b.sense.row(i), b.control.row(i));
  add("mean", arma::mean(b.sense, 0), arma::mean(b.control, 0));
  add("mean, raw cosine (not centred)", b.raw_sense, b.raw_control);
  std::vector<std::string> apart{"sense pair further apart in"};
  for (arma::uword k = 1; k < b.sense.n_cols; ++k) {
    apart.push_back(fmt::format("{} of {}", b.apart(k), b.sense.n_rows));
    apart.push_back(fmt::format("p = {:.3f}", b.p_value(k)));
  }
  t.add(apart);
  t.print(out);
  if (vanished) out << "  -: nothing is left once centred there (the readings of bank are one vector)\n";
  print_bank_reads(out, r);
  print_wrapped(out, fmt::format("The claim holds when the controls move the reading after the last layer "
                                 "(mean 1 - cos >= {:.2f}) and at no layer is the sense pair further apart than its "
                                 "controls in enough items for a one-sided sign test to give p < {:.2f}; otherwise "
                                 "it does not hold.",
                                 kLettersSeen, kSenseLevel));
  print_claim(out, claims[4], r.quick);
}

void print_names(std::ostream& out, const Report& r) {
  app::print_heading(out, "7. Names are summaries of what was measured");
  for (std::size_t k = 0; k < r.names.size(); ++k) {
    out << "  " << head_name(k / r.view.heads, k % r.view.heads) << ": " << r.names[k] << "\n";
  }
  out << "  A name here means only that a score passed a threshold on these probes: correlation\n"
         "  suggests a role, the ablations test what depends on it, and other heads may share or\n"
         "  cover the job. Nothing in the architecture makes a head an induction head.\n";
}

}  // namespace

void print_report(std::ostream& out, const Report& r, const Run& run) {
  const Claims claims = check_claims(r);
  print_baselines(out, r, claims, run);
  print_head_view(out, r);
  print_contributions(out, r, claims);
  print_writes(out, r, claims);
  print_roles(out, r, claims);
  print_ablations(out, r, claims);
  print_bank(out, r, claims);
  print_names(out, r);
  out << '\n';
}

// ---- --compare A B ----------------------------------------------------------------------------

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
  app::Table t({"head", "A reads at " + std::to_string(c.pair.a.last), "B reads at " + std::to_string(c.pair.b.last)});
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
  app::Table t({"stage", "raw cos(A, B)", "centred", "controls: lowest", "mean", "highest", "A, B above"});
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
  app::print_heading(out, "Two readings compared: the stream at a marked position, after each stage");
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

}  // namespace ch09
