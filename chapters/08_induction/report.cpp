/// \file chapters/08_induction/report.cpp
/// \brief The printed sections (see report.hpp).
#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <string>

#include "common/apparatus/print.hpp"

namespace ch08 {

using app::counted;
using app::format_number;

namespace {

constexpr int kPrecision = 3;

/// "3.142" at the chapter's precision.
std::string num(double x) { return format_number(x, kPrecision); }

/// A size as app::counted takes it.
long long count(arma::uword n) { return static_cast<long long>(n); }

}  // namespace

void print_setup(std::ostream& out, const LabOptions& o) {
  const Block fixed = fixed_block(o.data);
  const std::string block =
      o.data.fixed_offset ? fmt::format("fixed length {} at fixed position {}", fixed.length, fixed.start)
                          : fmt::format("{} to {} tokens at a random position", o.data.min_block, o.data.max_block);
  fmt::print(out, "Chapter 08 - The induction-head lab: two attention-only layers, repeated blocks\n\n");
  fmt::print(out, "Data: {} random tokens from a vocabulary of {};\n  a block of {} recurs right after itself.\n",
             o.data.context, o.data.vocab, block);
  fmt::print(out, "Model: width {}, {} of {} (d_k = {}), causal, no MLP.\n", o.shape.width,
             counted(count(o.shape.layers), "layer"), counted(count(o.shape.heads), "head"), o.shape.d_k);
  fmt::print(out, "  Adam, lr {}, {} of {}; {}.\n\n", format_number(o.lr, 4), counted(count(o.steps), "step"),
             counted(count(o.batch), "fresh sequence"), counted(count(o.held_out), "held-out sequence"));
}

void print_training_heading(std::ostream& out) { fmt::print(out, "Training (held-out losses, nats):\n"); }

void print_checkpoint(std::ostream& out, const Checkpoint& c) {
  fmt::print(out, "  step {}: every position {}, first occurrence {}, repeat {}\n", c.step, num(c.held_out.overall),
             num(c.held_out.first), num(c.held_out.repeat));
}

void print_losses(std::ostream& out, const Findings& f) {
  app::print_heading(out, "1. Held-out loss: first occurrences vs repeats");
  const RegionLosses& last = f.run.curve.back().held_out;
  app::Table t({"", "loss (nats)"});
  t.add({"every position", num(last.overall)});
  t.add({"first occurrence of a block token", num(last.first)});
  t.add({"the same token in the repeat", num(last.repeat)});
  t.add({"uniform guess, ln(vocab)", num(f.uniform)});
  t.print(out);
  app::print_claim(out, claim_repeats_predicted(last));
  if (!(last.first > f.uniform)) return;
  fmt::print(out,
             "  The first-occurrence loss sits above the uniform guess: a first occurrence is a fresh\n"
             "  random token, and against uniformly random targets any prediction other than uniform\n"
             "  costs more than ln(vocab) on average (cross-entropy = ln(vocab) + KL).");
  fmt::print(out, "{}",
             last.repeat < f.uniform
                 ? " The model has\n  learned to bet on tokens it has already seen, a bet that only repeats repay.\n"
                 : "\n  Here even the repeats cost more than the uniform guess: this run has not yet learned to\n"
                   "  use them.\n");
}

void print_scores(std::ostream& out, const Findings& f) {
  app::print_heading(out, "2. What each head attends to (held-out mean weights)");
  const HeadScores& s = f.scores;
  app::Table t({"head", "previous-token score", "induction score", "duplicate-token score"});
  for (arma::uword l = 0; l < s.induction.n_rows; ++l) {
    for (arma::uword h = 0; h < s.induction.n_cols; ++h) {
      t.add({head_name(l, h), num(s.previous_token(l, h)), num(s.induction(l, h)), num(s.duplicate_token(l, h))});
    }
  }
  t.print(out);
  fmt::print(out,
             "  previous-token score: mean weight from position i to i - 1.\n"
             "  induction score: mean weight from a token in the repeat to the position just after that\n"
             "  token's first occurrence (1 = always there; a uniform head scores about 1 / position).\n"
             "  duplicate-token score: weight from a token on its own earlier occurrences. A head that\n"
             "  copies a token's position forward this way lets the next layer look one step further,\n"
             "  the same job a previous-token head does from the other side.\n");
  app::print_claim(out, f.fixed ? claim_position_finds_copy(s) : claim_induction_in_last_layer(s));
}

void print_ablations(std::ostream& out, const Findings& f) {
  app::print_heading(out, "3. Ablation: zero a head's output, measure the held-out loss again");
  const RegionLosses& base = f.run.curve.back().held_out;
  app::Table t({"zeroed", "first-occurrence loss", "repeat loss", "repeat loss rise"});
  t.add({"nothing", num(base.first), num(base.repeat), "0"});
  for (const Ablation& a : f.ablations) {
    t.add({a.name, num(a.losses.first), num(a.losses.repeat), num(a.losses.repeat - base.repeat)});
  }
  t.print(out);
  const AblationSummary& s = f.summary;
  // A rise as printed: "by 0.93", or "lowers it by 0.20" when zeroing helped (a run too short to learn).
  const auto by = [](double rise) { return fmt::format("{}by {}", rise < 0 ? "lowers it " : "", num(std::abs(rise))); };
  fmt::print(out, "  in-context advantage (first - repeat): {} nats\n", num(s.advantage));
  fmt::print(out, "  zeroing all of layer {} {} the repeat loss by {};\n", f.run.model.shape.layers,
             s.last_layer_rise < 0 ? "lowers" : "raises", num(std::abs(s.last_layer_rise)));
  fmt::print(out, "  zeroing {} (the first-layer head that matters most) {}\n",
             head_name(s.key_first_layer.layer, s.key_first_layer.head), by(s.key_first_layer_rise));
  if (!f.fixed) app::print_claim(out, claim_both_layers_needed(s));
  if (!(f.largest_rise > 0.0)) {
    fmt::print(out,
               "  What this shows: nothing yet. No zeroed head raises the repeat loss: this run has not come\n"
               "  to depend on its heads (train longer, --steps, to see the ones the repeats come to need).\n");
    return;
  }
  fmt::print(out,
             "  What this shows: the loss on repeats depends on these heads. What it does not show: that\n"
             "  they are the only route (another head may compensate when one is removed), or that one\n"
             "  head has one role (several heads may share it). A head's name here is only what was measured.\n");
}

void print_skip_trigrams(std::ostream& out, const SkipTrigramFindings& f) {
  app::print_heading(out, "4. A worked example: the skip-trigram bug of one attention layer");
  const ModelShape& shape = f.run.model.shape;
  fmt::print(out,
             "Data: {} tokens of filler words, holding one of four skip-trigrams:\n"
             "  keep ... in mind, keep ... at bay, stay ... in touch, stay ... at home,\n"
             "  or a query with no source before it: in fact, at last.\n"
             "Model: one attention layer of one head (d_k = {}), width {}, no MLP; {}.\n\n",
             shape.context, shape.d_k, shape.width, counted(count(f.run.steps), "Adam step"));
  std::vector<std::string> header{"after"};
  for (const SkipTrigram& s : kSkipTrigrams) header.push_back(skip_vocabulary()[s.next]);
  const auto table = [&](const std::string& title, const arma::mat& values, int digits, bool weight) {
    fmt::print(out, "{}\n", title);
    std::vector<std::string> head = header;
    if (weight) head.push_back("weight on source");
    app::Table t(head);
    for (arma::uword c = 0; c < kSkipTrigrams.size(); ++c) {
      std::vector<std::string> row{skip_name(kSkipTrigrams[c])};
      for (double v : values.row(c)) row.push_back(format_number(v, digits));
      if (weight) row.push_back(format_number(f.attention(c), 2));
      t.add(row);
    }
    t.print(out);
  };
  table("The model's probability of each continuation (held-out mean):", f.probability, 3, true);
  app::print_claim(out, claim_skip_trigrams_learned(f));
  table("\nWhat the head reads from the source, in logits: A[query, source] (x_source Wv Wo) U:", f.message, 2, false);
  fmt::print(out,
             "  The value at the source is computed from the source's own stream: both queries after keep\n"
             "  read the same message, which favours mind and bay alike (after stay, touch and home).\n");
  app::print_claim(out, claim_same_message(f));
  table("\nThe direct path, the query word's own embedding, in logits: (E[query] + P[position]) U:", f.direct, 2,
        false);
  fmt::print(out,
             "  The query word separates what the message leaves together: in raises mind and touch, at\n"
             "  raises bay and home. The sum picks the right continuation, but the message's unwanted half\n"
             "  still shows in the probabilities:\n");
  app::print_claim(out, claim_unwanted_continuation(f));
}

void print_wall_time(std::ostream& out, const Findings& f) {
  fmt::print(out, "wall time of training the two-layer lab: {} s\n", format_number(f.run.seconds, 1));
}

}  // namespace ch08
