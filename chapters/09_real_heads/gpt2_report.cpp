/// \file chapters/09_real_heads/gpt2_report.cpp
/// \brief The --gpt2 mode: its checks, its run and its printers (see program.hpp).
#include "program.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "common/apparatus/files.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/head_roles.hpp"

namespace ch09 {

namespace fs = std::filesystem;
using app::format_number;
using attn::head_name;

namespace {

constexpr std::size_t kWidth = 100;  ///< the widest line the chapter prints

/// Refuses a folder argument that cannot be GPT-2's: missing, a file, a required file missing or
/// not a regular file (a FIFO would block, a folder cannot be read).
void check_folder(const std::string& dir) {
  const std::string layout = " (it should hold model.safetensors, vocab.json and merges.txt)";
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw FileError("--gpt2: " + app::quoted_path(dir) + " does not exist" + layout);
  if (!fs::is_directory(dir, ec)) throw FileError("--gpt2: " + app::quoted_path(dir) + " is not a folder" + layout);
  for (const char* name : {"model.safetensors", "vocab.json", "merges.txt", "config.json"}) {
    const fs::path file = fs::path(dir) / name;
    const fs::file_status status = fs::status(file, ec);
    if (status.type() == fs::file_type::not_found) {
      if (std::string(name) == "config.json") continue;  // optional: the sizes come from the shapes
      throw FileError("--gpt2: " + app::quoted_path(file) + " is missing" + layout);
    }
    if (status.type() == fs::file_type::directory)
      throw FileError("--gpt2: " + app::quoted_path(file) + " is a folder, not a file");
    if (status.type() != fs::file_type::regular)
      throw FileError("--gpt2: " + app::quoted_path(file) + " is not a regular file");
  }
}

gpt2::Gpt2 load(const std::string& dir) {
  check_folder(dir);
  gpt2::Gpt2 model = [&] {
    try {
      return gpt2::load_gpt2(dir);
    } catch (const std::runtime_error& e) {
      throw FileError(std::string("--gpt2: ") + e.what());  // an unusable input file, as --load's: names it
    }
  }();
  gpt2::ContextNeed need;
  try {
    need = gpt2::context_needed(model);
  } catch (const std::invalid_argument& e) {
    throw FileError("--gpt2: " + app::quoted_path(fs::path(dir) / "vocab.json") + " cannot read the fixed sentences (" +
                    e.what() + ")");
  }
  if (need.tokens > model.weights.config.context) {
    const bool config = fs::exists(fs::path(dir) / "config.json");
    throw FileError("--gpt2: " + app::quoted_path(fs::path(dir) / (config ? "config.json" : "model.safetensors")) +
                    ": the context is " + std::to_string(model.weights.config.context) + " tokens (" +
                    (config ? "n_positions" : "wpe.weight's rows") + "), fewer than the " +
                    std::to_string(need.tokens) + " of " + need.what + " that sections 3 to 5 read");
  }
  return model;
}

/// The sentence and position checked against the model, in the flags' terms.
void check_sentence(const gpt2::Gpt2& model, const Gpt2Request& r) {
  std::size_t n = 0;
  try {
    n = model.tokenizer.encode(r.sentence).size();
  } catch (const std::invalid_argument& e) {
    throw FlagError(std::string("--sentence: ") + e.what());
  }
  if (n > model.weights.config.context)
    throw FlagError("--sentence has " + std::to_string(n) + " tokens, more than the model's context of " +
                    std::to_string(model.weights.config.context));
  if (r.position && *r.position >= n)
    throw FlagError("--position " + std::to_string(*r.position) + " is past the sentence's " +
                    app::counted(static_cast<long long>(n), "token") + ": with --gpt2 it counts tokens, from 0 to " +
                    std::to_string(n - 1));
}

}  // namespace

int run_gpt2(std::ostream& out, std::ostream& progress, const Gpt2Request& request) {
  const gpt2::Gpt2 model = load(request.dir);
  check_sentence(model, request);
  const Corpus corpus = corpus_for(request.corpus);
  const auto lab = [&] {
    try {
      return gpt2::run_lab(model, request.sentence, request.position, corpus.held_text,
                           [&](const std::string& what) { progress << "gpt2: " << what << "...\n"; });
    } catch (const gpt2::NoHeldOutWindow& e) {
      throw FileError("--corpus " + app::quoted_path(request.corpus.value_or(kFortuneFolder)) + ": " + e.what());
    }
  }();
  print_gpt2(out, request.dir, lab);
  return 0;
}

namespace {

/// `items` joined by `separator` into lines of at most kWidth characters, each starting with `indent`.
void print_list(std::ostream& out, const std::vector<std::string>& items, const std::string& indent,
                const std::string& separator = "  ") {
  std::string line = indent;
  for (const std::string& item : items) {
    if (line.size() > indent.size() && line.size() + separator.size() + item.size() > kWidth) {
      out << line << "\n";
      line = indent;
    }
    line += (line.size() > indent.size() ? separator : "") + item;
  }
  out << line << "\n";
}

/// A layers x heads grid of cells, split into column groups so that every line fits kWidth.
void print_grid(std::ostream& out, const std::vector<std::vector<std::string>>& cells) {
  const std::size_t heads = cells.front().size();
  std::size_t width = fmt::format("H{}", heads - 1).size();           // the widest head label
  const std::size_t label = fmt::format("L{}", cells.size()).size();  // the widest layer label
  for (const auto& row : cells)
    for (const std::string& cell : row) width = std::max(width, cell.size());
  const std::size_t per_line = std::max<std::size_t>(1, (kWidth - 2 - label) / (width + 2));
  const std::size_t groups = (heads + per_line - 1) / per_line, per_group = (heads + groups - 1) / groups;
  for (std::size_t first = 0; first < heads; first += per_group) {
    std::vector<std::string> header{""};
    for (std::size_t h = first; h < std::min(heads, first + per_group); ++h) header.push_back(fmt::format("H{}", h));
    app::Table t(header);
    for (std::size_t l = 0; l < cells.size(); ++l) {
      std::vector<std::string> row{fmt::format("L{}", l + 1)};
      for (std::size_t h = first; h < std::min(heads, first + per_group); ++h) row.push_back(cells[l][h]);
      t.add(row);
    }
    t.print(out);
  }
}

/// A weight in three characters: ".93", "1.0".
std::string weight3(double w) { return w >= 0.995 ? "1.0" : fmt::format("{:.2f}", w).substr(1); }

std::vector<std::vector<std::string>> score_cells(const arma::mat& scores) {
  std::vector<std::vector<std::string>> cells(scores.n_rows);
  for (arma::uword l = 0; l < scores.n_rows; ++l)
    for (arma::uword h = 0; h < scores.n_cols; ++h) cells[l].push_back(weight3(scores(l, h)));
  return cells;
}

/// "L6.H1 0.92, L6.H5 0.88, ...": the `count` highest entries of a layers x heads grid.
std::string highest(const arma::mat& scores, arma::uword count) {
  const arma::uvec order = arma::sort_index(arma::vectorise(scores.t()), "descend");  // layer-major
  std::string text;
  for (arma::uword i = 0; i < count && i < order.n_elem; ++i) {
    const arma::uword k = order(i);
    text += (i ? ", " : "") + head_name(k / scores.n_cols, k % scores.n_cols) + " " +
            format_number(scores(k / scores.n_cols, k % scores.n_cols), 2);
  }
  return text;
}

std::string logit_list(const std::vector<std::pair<std::string, double>>& items) {
  std::string text;
  for (const auto& [token, v] : items) text += (text.empty() ? "" : " ") + token + fmt::format(" {:+.2f}", v);
  return text;
}

void print_model(std::ostream& out, const std::string& dir, const gpt2::Lab& lab) {
  const gpt2::Config& c = lab.config;
  fmt::print(out, "Chapter 09 - Watch real heads, on GPT-2: the chapter's tools, token by token\n\n");
  fmt::print(out, "GPT-2 read from {}:\n", app::quoted_path(dir));
  fmt::print(out, "  {} layers of {} heads (d_h = {}), width {}, context {}, {} tokens; {} parameters.\n", c.layers,
             c.heads, c.width / c.heads, c.width, c.context, c.vocab, lab.parameters);
  fmt::print(out,
             "  Heads are named L<layer>.H<head>, layers from 1 as in the rest of this chapter; the GPT-2\n"
             "  literature counts layers from 0 (its head 5.1 is L6.H1 here).\n");
  const gpt2::Roles& r = lab.roles;
  fmt::print(out, "Held-out text: {} windows of the fortunes' held-out entries{}:\n", lab.probes.held.size(),
             lab.probes.bos ? " (<|endoftext|> first)" : "");
  fmt::print(out, "  {} tokens predicted, loss {} nats/token (uniform over the vocabulary: ln V = {}).\n",
             r.held_tokens, format_number(r.held_loss, 3), format_number(std::log(static_cast<double>(c.vocab)), 3));
}

void print_view(std::ostream& out, const gpt2::Lab& lab) {
  const gpt2::HeadView& v = lab.view;
  app::print_heading(out, "1. The head view: where token " + std::to_string(v.position) + " reads, in every head");
  fmt::print(out, "  sentence: \"{}\", {}:\n", attn::printable(v.sentence.text, 1000),
             app::counted(static_cast<long long>(v.sentence.tokens.size()), "token"));
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < v.sentence.labels.size(); ++i)
    tokens.push_back(fmt::format("{} {}", i, v.sentence.labels[i]));
  print_list(out, tokens, "    ");
  fmt::print(out, "  each cell: the source token {} {} reads most, and its weight\n", v.position,
             v.sentence.labels[v.position]);
  std::vector<std::vector<std::string>> cells(v.top_source.n_rows);
  for (arma::uword l = 0; l < v.top_source.n_rows; ++l)
    for (arma::uword h = 0; h < v.top_source.n_cols; ++h)
      cells[l].push_back(fmt::format("{}:{}", v.top_source(l, h), weight3(v.top_weight(l, h))));
  print_grid(out, cells);
  fmt::print(out,
             "  of {} heads, {} read token 0 most (GPT-2 parks the weight of a head with nothing to do on\n"
             "  its first token), {} the token itself, {} the token before it\n",
             v.top_source.n_elem, v.to_first, v.to_self, v.to_previous);
}

void print_writes(std::ostream& out, const gpt2::Lab& lab) {
  const gpt2::Writes& w = lab.writes;
  const gpt2::HeadView& v = lab.view;
  app::print_heading(
      out, "2. What each head writes at token " + std::to_string(v.position) + ", decoded (direct logit attribution)");
  fmt::print(out,
             "  A head's output there, through the final norm (its scale frozen) and the tied unembedding,\n"
             "  in logits per token. GPT-2's likeliest next token: {} (logit {:.3f}).\n"
             "  check: the embedding, {} heads, {} b_O and {} MLPs, plus the final norm's bias, give {:.3f}\n",
             w.predicted, w.logit, w.heads.size(), lab.config.layers, lab.config.layers, w.parts);
  arma::vec effect(w.heads.size());
  for (arma::uword k = 0; k < effect.n_elem; ++k) effect(k) = std::abs(w.heads[k].on_prediction);
  const arma::uvec order = arma::sort_index(effect, "descend");
  const arma::uword shown = std::min<arma::uword>(10, order.n_elem);
  fmt::print(out, "  the {} heads with the largest direct effect on {}:\n", shown, w.predicted);
  app::Table t({"head", "reads most", "||write||", "on " + w.predicted, "raises most", "lowers most"});
  for (arma::uword i = 0; i < shown; ++i) {
    const gpt2::HeadWrite& e = w.heads[order(i)];
    const arma::uword source = v.top_source(e.layer, e.head);
    t.add({head_name(e.layer, e.head), fmt::format("{}:{}", source, weight3(v.top_weight(e.layer, e.head))),
           format_number(e.size, 2), fmt::format("{:+.2f}", e.on_prediction), logit_list(e.raised),
           logit_list(e.lowered)});
  }
  t.print(out);
  const gpt2::HeadWrite &sharp = w.heads[w.sharpest], &strong = w.heads[w.strongest];
  fmt::print(out,
             "  the head that weighs one source most here is {} ({}); the head with the largest effect\n"
             "  on {} is {} ({:+.2f} logits){}\n",
             head_name(sharp.layer, sharp.head), weight3(v.top_weight(sharp.layer, sharp.head)), w.predicted,
             head_name(strong.layer, strong.head), strong.on_prediction,
             w.sharpest == w.strongest ? ", the same head" : ": the largest weight is not the largest effect");
}

void print_roles(std::ostream& out, const gpt2::Lab& lab) {
  const gpt2::Roles& r = lab.roles;
  const gpt2::Probes& p = lab.probes;
  app::print_heading(out, "3. Measured roles: previous-token and induction heads");
  fmt::print(out, "  previous-token score: mean weight on the token before, over the held-out windows' text\n");
  print_grid(out, score_cells(r.previous_token));
  fmt::print(out, "  highest: {}\n  for scale, a head that weighs every token it can see equally scores {}\n",
             highest(r.previous_token, 5), format_number(r.previous_uniform, 2));
  fmt::print(out,
             "  induction score: {} sequences of {} random tokens, then the same {} again{};\n"
             "  mean weight from each token of the repeat but the last to the token after its earlier copy\n",
             p.repeats.size(), p.repeat_length, p.repeat_length, p.bos ? " (<|endoftext|> first)" : "");
  print_grid(out, score_cells(r.induction));
  fmt::print(out, "  highest: {}\n  for scale, a head that weighs every token it can see equally scores {}\n",
             highest(r.induction, 5), format_number(r.induction_uniform, 2));
  fmt::print(out, "  loss on the random tokens: first copy {}, repeat {} nats/token (only copying predicts it)\n",
             format_number(r.first, 3), format_number(r.repeat, 3));
  if (lab.config.layers == 12 && lab.config.heads == 12 && lab.config.width == 768) {
    fmt::print(out,
               "  Wang et al. 2022 name 5.5 and 6.9 induction heads and 2.2 and 4.11 previous-token heads in\n"
               "  GPT-2 small: L6.H5, L7.H9, L3.H2 and L5.H11 here.\n");
  }
}

void print_ablations(std::ostream& out, const gpt2::Lab& lab) {
  const gpt2::Ablations& a = lab.ablations;
  const arma::uword H = lab.config.heads;
  app::print_heading(out, "4. Interventions: zero and mean ablation of every head, then patching");
  fmt::print(out,
             "  Each head's output replaced at every position by 0, or by its mean over the held-out text;\n"
             "  loss rise on one held-out window ({} tokens, clean {}) and one random repeat (clean {}).\n",
             lab.probes.held.front().size(), format_number(a.held_out, 3), format_number(a.repeat, 3));
  std::set<arma::uword> shown;
  const arma::uvec by_repeat = arma::sort_index(a.zero.col(1), "descend"),
                   by_held = arma::sort_index(a.zero.col(0), "descend");
  for (arma::uword i = 0; i < 5 && i < by_repeat.n_elem; ++i) shown.insert({by_repeat(i), by_held(i)});
  fmt::print(out,
             "  the 5 heads whose zeroing costs the repeat most and the 5 it costs the text most,\n"
             "  in layer order:\n");
  app::Table t({"head", "zeroed: held-out", "zeroed: repeat", "mean: held-out", "mean: repeat"});
  for (const arma::uword k : shown) {
    t.add({head_name(k / H, k % H), fmt::format("{:+.3f}", a.zero(k, 0)), fmt::format("{:+.3f}", a.zero(k, 1)),
           fmt::format("{:+.3f}", a.mean(k, 0)), fmt::format("{:+.3f}", a.mean(k, 1))});
  }
  t.print(out);
  std::vector<std::string> helps, disagree;
  for (arma::uword k = 0; k < a.zero.n_rows; ++k) {
    if (a.zero(k, 0) < -0.005) helps.push_back(fmt::format("{} {:+.3f}", head_name(k / H, k % H), a.zero(k, 0)));
    if (std::abs(a.zero(k, 1) - a.mean(k, 1)) > 0.1) disagree.push_back(head_name(k / H, k % H));
  }
  fmt::print(out, "  removing a head helps the held-out text (loss down by more than 0.005) for {} heads{}\n",
             helps.size(), helps.empty() ? "" : (helps.size() > 12 ? "; the first 12:" : ":"));
  if (helps.size() > 12) helps.resize(12);
  if (!helps.empty()) print_list(out, helps, "    ", ", ");
  fmt::print(out, "  zero and mean ablation differ by more than 0.1 nats on the repeat for {} heads{}\n",
             disagree.size(), disagree.empty() ? "" : ":");
  if (!disagree.empty()) print_list(out, disagree, "    ", ", ");
}

void print_patching(std::ostream& out, const gpt2::Lab& lab) {
  const gpt2::Patching& p = lab.patching;
  fmt::print(out, "\n  Activation patching: run A = \"{}\",\n  put in one piece of a run on B = \"{}\"\n", p.a.text,
             p.b.text);
  if (!p.matched) {
    fmt::print(out, "  (not run: A has {} tokens and B {}, so their positions do not correspond)\n", p.a.tokens.size(),
               p.b.tokens.size());
    return;
  }
  fmt::print(out, "  and watch A's prediction at its last token (clean: {} {:.3f}, {} {:.3f}){}.\n", p.predicted_a,
             p.clean_p_a, p.predicted_b, p.clean_p_b,
             p.predicted_a == p.predicted_b
                 ? ";\n  A and B predict the same token here, so a patch can only move its probability"
                 : "");
  arma::vec raised(p.heads.size());
  for (arma::uword k = 0; k < raised.n_elem; ++k) raised(k) = p.heads[k].p_b;
  const arma::uvec order = arma::sort_index(raised, "descend");
  app::Table t({"patched from B", "p(" + p.predicted_a + ")", "p(" + p.predicted_b + ")", "top"});
  for (arma::uword i = 0; i < 8 && i < order.n_elem; ++i) {
    const gpt2::PatchRow& row = p.heads[order(i)];
    t.add({row.what, format_number(row.p_a, 3), format_number(row.p_b, 3), row.top});
  }
  for (const gpt2::PatchRow& row : p.streams)
    t.add({row.what + " at the last token", format_number(row.p_a, 3), format_number(row.p_b, 3), row.top});
  t.print(out);
  // two sets of 5 drawn at random from N heads share 25 / N on average
  const double heads = static_cast<double>(lab.config.layers * lab.config.heads);
  fmt::print(out,
             "  of the 5 heads whose patch raises {} most, {} are among the 5 highest induction scores\n"
             "  (5 heads picked at random would share {} on average)\n",
             p.predicted_b, lab.overlap, format_number(std::min(5.0, 25.0 / heads), 2));
}

void print_bank(std::ostream& out, const gpt2::Lab& lab) {
  const gpt2::Bank& b = lab.bank;
  app::print_heading(out, "5. bank after a river word and after a money word, against a control word");
  fmt::print(out, "  sentences: \"{}\", \"{}\" or \"{}\", then '{}' or '{}',\n", b.frames[0], b.frames[1], b.frames[2],
             b.senses[0].substr(1), b.senses[1].substr(1));
  fmt::print(out, "  then '{}' (or the control word '{}');", b.words[0].substr(1), b.words[1].substr(1));
  fmt::print(out,
             " each frame's two senses {} the same number of tokens.\n"
             "  Centred cosines between the last token's streams (the mean over the 6 sentences taken out),\n"
             "  within a sense and across senses:\n",
             b.matched ? "have" : "do NOT have");
  bool undefined = false;  // a cosine with no direction left once centred: "-"
  const auto cell = [&](double x, const char* form) {
    undefined = undefined || !std::isfinite(x);
    return std::isfinite(x) ? fmt::format(fmt::runtime(form), x) : std::string("-");
  };
  app::Table t({"stage", "bank: within", "bank: across", "bank: gap", "house: gap"});
  for (arma::uword s = 0; s < b.stages.size(); ++s) {
    t.add({b.stages[s], cell(b.within(s, 0), "{:.3f}"), cell(b.across(s, 0), "{:.3f}"), cell(b.gap(s, 0), "{:+.3f}"),
           cell(b.gap(s, 1), "{:+.3f}")});
  }
  t.print(out);
  if (undefined) {
    fmt::print(out, "  -: nothing is left once centred there (every sentence's stream is one vector)\n");
  }
  fmt::print(out, "  bank's gap exceeds the control word's by more than 0.01 at {} of {} stages\n", b.beyond_control,
             b.stages.size());
  if (b.measured) {
    fmt::print(out, "  (most {}: {:+.3f} against {:+.3f}). ", b.stages[b.largest], b.gap(b.largest, 0),
               b.gap(b.largest, 1));
  } else {
    fmt::print(out, "  (no stage has both gaps to compare). ");
  }
  fmt::print(out,
             "A gap the control word shows too comes from the\n"
             "  sense word read before it (and, at the embedding, from the positions), not from bank.\n");
  for (std::size_t s = 0; s < b.next.size(); ++s) {
    std::vector<std::string> items;
    for (const auto& [token, p] : b.next[s]) items.push_back(fmt::format("{} {:.3f}", token, p));
    fmt::print(out, "  after \"{}{}{}\":\n", b.frames[0], b.senses[s], b.words[0]);
    print_list(out, items, "    ");
  }
}

}  // namespace

void print_gpt2(std::ostream& out, const std::string& dir, const gpt2::Lab& lab) {
  print_model(out, dir, lab);
  print_view(out, lab);
  print_writes(out, lab);
  print_roles(out, lab);
  print_ablations(out, lab);
  print_patching(out, lab);
  print_bank(out, lab);
}

}  // namespace ch09
