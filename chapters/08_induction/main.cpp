/// \file chapters/08_induction/main.cpp
/// \brief Chapter 08 program: train a two-layer attention-only model on repeated blocks, find the
/// heads that copy, and ablate them.
///
/// Follows the article's "Reverse-engineer a head you trained". Run `ch08_induction --help`.
#include <armadillo>
#include <cmath>
#include <iostream>
#include <optional>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "lab.hpp"

namespace po = boost::program_options;
using attn::format_number;

namespace {

constexpr int kPrecision = 3;

const attn::cli::ProgramInfo kProgram{
    "ch08_induction", "train a two-layer attention-only model on repeated blocks; score and ablate its heads",
    "\"Reverse-engineer a head you trained\" (repeated patterns and ablation)",
    "  ch08_induction\n  ch08_induction --quick --seed 3\n  ch08_induction --fixed-offset\n"
    "  ch08_induction --heads 4 --steps 1500 --no-plots"};

/// What the reader asked for on the command line.
struct Flags {
  ch08::LabOptions lab;      ///< the training run (sizes, data, steps, seed, learning rate)
  attn::PlotSettings plots;  ///< --plots, --no-plots
};

/// A step costs about width^2: the default 1000 x 32^2 takes a few seconds, so this budget is minutes.
constexpr double kWorkBudget = 4e7;

/// The flags, or nothing after --help.
std::optional<Flags> read_flags(int argc, char** argv) {
  po::options_description options("Options");
  attn::cli::add_common_options(options);
  // clang-format off
  options.add_options()
      ("seed", po::value<long long>()->value_name("N")->default_value(1), "seeds weights, batches and held-out set (0 to 4294967295)")
      ("steps", po::value<long long>()->value_name("N"), "Adam steps, 1 to 1000000 (default 1000; 700 with --quick)")
      ("heads", po::value<long long>()->value_name("N")->default_value(2), "heads per layer, 1 to 64 (d_k = width / heads)")
      ("width", po::value<long long>()->value_name("D")->default_value(32), "residual stream width (1 to 256; steps x width^2 at most 4e7)")
      ("lr", po::value<double>()->value_name("RATE")->default_value(1e-2), "Adam learning rate, in (0, 1]")
      ("fixed-offset", "every block has the same length and position (the control of claim ind_04)")
      ("quick", "a shorter run for tests and the docs");
  // clang-format on
  po::variables_map vm;
  if (!attn::cli::parse(argc, argv, options, kProgram, vm)) return std::nullopt;
  Flags f;
  if (vm.count("quick")) f.lab = ch08::quick_options(f.lab);
  f.lab.seed = attn::cli::seed(vm);
  if (vm.count("steps")) f.lab.steps = static_cast<arma::uword>(attn::cli::integer(vm, "steps", 1, 1000000));
  f.lab.lr = attn::cli::positive_real(vm, "lr", 1.0);
  f.lab.data.fixed_offset = vm.count("fixed-offset") > 0;
  const auto heads = static_cast<arma::uword>(attn::cli::integer(vm, "heads", 1, 64));
  const auto width = static_cast<arma::uword>(attn::cli::integer(vm, "width", 1, 256));
  if (static_cast<double>(f.lab.steps) * static_cast<double>(width * width) > kWorkBudget) {
    throw attn::cli::UsageError("--steps x --width^2 must be at most 4e7 (about 5 minutes of training), got " +
                                std::to_string(f.lab.steps) + " x " + std::to_string(width) + "^2");
  }
  if (width % heads != 0) {
    throw attn::cli::UsageError("--width must be a multiple of --heads (d_k = width / heads), got " +
                                std::to_string(width) + " and " + std::to_string(heads));
  }
  f.lab.shape.heads = heads;
  f.lab.shape.width = width;
  f.lab.shape.d_k = width / heads;
  ch08::validate(f.lab);
  f.plots = attn::cli::plot_settings(vm);
  return f;
}

/// Everything the program shows, computed once from the trained model.
struct Findings {
  ch08::LabResult run;                    ///< the trained model, its held-out set and curve
  ch08::ForwardPass pass;                 ///< the model on the held-out set (the figures' patterns)
  ch08::HeadScores scores;                ///< section 2
  std::vector<ch08::Ablation> ablations;  ///< section 3
  ch08::AblationSummary summary;          ///< section 3's reading of the table
  bool fixed = false;                     ///< the fixed-offset control was run
};

Findings measure(ch08::LabResult run, bool fixed) {
  Findings f;
  f.run = std::move(run);
  f.fixed = fixed;
  attn::fast::forward(f.run.model, f.run.held_out.tokens, f.pass);
  f.scores = ch08::head_scores(f.pass, f.run.held_out);
  f.ablations = ch08::ablation_study(f.run.model, f.run.held_out);
  f.summary = ch08::summarize_ablations(f.ablations, f.run.curve.back().held_out, f.run.model.shape.layers,
                                        f.run.model.shape.heads);
  return f;
}

void print_setup(const ch08::LabOptions& o) {
  const ch08::Block fixed = ch08::fixed_block(o.data);
  std::cout << "Chapter 08 - The induction-head lab: two attention-only layers, repeated blocks\n\n"
            << "Data: " << o.data.context << " random tokens from a vocabulary of " << o.data.vocab
            << ";\n  a block of "
            << (o.data.fixed_offset ? "fixed length " + std::to_string(fixed.length) + " at fixed position " +
                                          std::to_string(fixed.start)
                                    : std::to_string(o.data.min_block) + " to " + std::to_string(o.data.max_block) +
                                          " tokens at a random position")
            << " recurs right after itself.\n"
            << "Model: width " << o.shape.width << ", "
            << attn::counted(static_cast<long long>(o.shape.layers), "layer") << " of "
            << attn::counted(static_cast<long long>(o.shape.heads), "head") << " (d_k = " << o.shape.d_k
            << "), causal, no MLP.\n  Adam, lr " << format_number(o.lr, 4) << ", "
            << attn::counted(static_cast<long long>(o.steps), "step") << " of "
            << attn::counted(static_cast<long long>(o.batch), "fresh sequence") << "; "
            << attn::counted(static_cast<long long>(o.held_out), "held-out sequence") << ".\n\n";
}

/// Trains, printing each checkpoint; a diverging run stops with exit code 1 and no results.
ch08::LabResult train_and_report(const ch08::LabOptions& o) {
  std::cout << "Training (held-out losses, nats):\n";
  attn::DivergenceWatch watch(o.lr);
  ch08::LabResult r;
  try {
    r = ch08::train(o, [&](const ch08::Checkpoint& c) {
      std::cout << "  step " << c.step << ": every position " << format_number(c.held_out.overall, kPrecision)
                << ", first occurrence " << format_number(c.held_out.first, kPrecision) << ", repeat "
                << format_number(c.held_out.repeat, kPrecision) << '\n';
      watch.observe(static_cast<long long>(c.step), c.held_out.overall);
    });
  } catch (const std::invalid_argument& e) {
    watch.refused(e.what());  // a non-finite score mid-training
  }
  return r;
}

void print_losses(const Findings& f) {
  attn::print_heading(std::cout, "1. Held-out loss: first occurrences vs repeats");
  const ch08::RegionLosses& last = f.run.curve.back().held_out;
  const double uniform = std::log(static_cast<double>(f.run.model.shape.vocab));
  attn::Table t({"", "loss (nats)"});
  t.add({"every position", format_number(last.overall, kPrecision)});
  t.add({"first occurrence of a block token", format_number(last.first, kPrecision)});
  t.add({"the same token in the repeat", format_number(last.repeat, kPrecision)});
  t.add({"uniform guess, ln(vocab)", format_number(uniform, kPrecision)});
  t.print(std::cout);
  attn::print_claim(std::cout, ch08::claim_repeats_predicted(last));
  if (last.first > uniform) {
    std::cout << "  The first-occurrence loss sits above the uniform guess: a first occurrence is a fresh\n"
                 "  random token, and against uniformly random targets any prediction other than uniform\n"
                 "  costs more than ln(vocab) on average (cross-entropy = ln(vocab) + KL).";
    std::cout
        << (last.repeat < uniform
                ? " The model has\n  learned to bet on tokens it has already seen, a bet that only repeats repay.\n"
                : "\n  Here even the repeats cost more than the uniform guess: this run has not yet learned to\n"
                  "  use them.\n");
  }
}

void print_scores(const Findings& f) {
  attn::print_heading(std::cout, "2. What each head attends to (held-out mean weights)");
  const ch08::HeadScores& s = f.scores;
  attn::Table t({"head", "previous-token score", "induction score", "duplicate-token score"});
  for (arma::uword l = 0; l < s.induction.n_rows; ++l) {
    for (arma::uword h = 0; h < s.induction.n_cols; ++h) {
      t.add({ch08::head_name(l, h), format_number(s.previous_token(l, h), kPrecision),
             format_number(s.induction(l, h), kPrecision), format_number(s.duplicate_token(l, h), kPrecision)});
    }
  }
  t.print(std::cout);
  std::cout << "  previous-token score: mean weight from position i to i - 1.\n"
               "  induction score: mean weight from a token in the repeat to the position just after that\n"
               "  token's first occurrence (1 = always there; a uniform head scores about 1 / position).\n"
               "  duplicate-token score: weight from a token on its own earlier occurrences. A head that\n"
               "  copies a token's position forward this way lets the next layer look one step further,\n"
               "  the same job a previous-token head does from the other side.\n";
  attn::print_claim(std::cout, f.fixed ? ch08::claim_position_finds_copy(s) : ch08::claim_induction_in_last_layer(s));
}

void print_ablations(const Findings& f) {
  attn::print_heading(std::cout, "3. Ablation: zero a head's output, measure the held-out loss again");
  const ch08::RegionLosses& base = f.run.curve.back().held_out;
  attn::Table t({"zeroed", "first-occurrence loss", "repeat loss", "repeat loss rise"});
  t.add({"nothing", format_number(base.first, kPrecision), format_number(base.repeat, kPrecision), "0"});
  for (const auto& a : f.ablations) {
    t.add({a.name, format_number(a.losses.first, kPrecision), format_number(a.losses.repeat, kPrecision),
           format_number(a.losses.repeat - base.repeat, kPrecision)});
  }
  t.print(std::cout);
  const ch08::AblationSummary& s = f.summary;
  // A rise as printed: "by 0.93", or "lowers it by 0.20" when zeroing helped (a run too short to learn).
  const auto by = [](double rise) {
    return std::string(rise < 0 ? "lowers it by " : "by ") + format_number(std::abs(rise), kPrecision);
  };
  std::cout << "  in-context advantage (first - repeat): " << format_number(s.advantage, kPrecision) << " nats\n"
            << "  zeroing all of layer " << f.run.model.shape.layers << " "
            << (s.last_layer_rise < 0 ? "lowers" : "raises") << " the repeat loss by "
            << format_number(std::abs(s.last_layer_rise), kPrecision) << ";\n  zeroing "
            << ch08::head_name(s.key_first_layer.layer, s.key_first_layer.head)
            << " (the first-layer head that matters most) " << by(s.key_first_layer_rise) << "\n";
  if (!f.fixed) attn::print_claim(std::cout, ch08::claim_both_layers_needed(s));
  double largest_rise = 0.0;
  for (const auto& a : f.ablations) largest_rise = std::max(largest_rise, a.losses.repeat - base.repeat);
  if (!(largest_rise > 0.0)) {
    std::cout << "  What this shows: nothing yet. No zeroed head raises the repeat loss: this run has not come\n"
                 "  to depend on its heads (train longer, --steps, to see the ones the repeats come to need).\n";
    return;
  }
  std::cout << "  What this shows: the loss on repeats depends on these heads. What it does not show: that\n"
               "  they are the only route (another head may compensate when one is removed), or that one\n"
               "  head has one role (several heads may share it). A head's name here is only what was measured.\n";
}

void draw_curves(attn::Plotter& plots, const Findings& f) {
  const std::vector<ch08::Checkpoint>& curve = f.run.curve;
  arma::vec steps(curve.size());
  arma::mat losses(curve.size(), 3);
  for (std::size_t i = 0; i < curve.size(); ++i) {
    steps(i) = static_cast<double>(curve[i].step);
    losses.row(i) = arma::rowvec{curve[i].held_out.first, curve[i].held_out.repeat, curve[i].held_out.overall};
  }
  plots.lines({.name = "ch08_loss_curves",
               .title = "Held-out loss while training",
               .xlabel = "Adam step",
               .ylabel = "cross-entropy (nats)",
               .x = steps,
               .y = losses,
               .series = {"first occurrence", "repeat", "every position"},
               .points = true});
}

void draw_head_scores(attn::Plotter& plots, const Findings& f) {
  const ch08::HeadScores& s = f.scores;
  std::vector<std::string> names;
  arma::mat scores(s.induction.n_elem, 3);
  for (arma::uword l = 0; l < s.induction.n_rows; ++l) {
    for (arma::uword h = 0; h < s.induction.n_cols; ++h) {
      names.push_back(ch08::head_name(l, h));
      scores.row(names.size() - 1) = arma::rowvec{s.previous_token(l, h), s.induction(l, h), s.duplicate_token(l, h)};
    }
  }
  plots.bars({.name = "ch08_head_scores",
              .title = "Per-head attention scores on held-out sequences",
              .xlabel = "head (layer.head)",
              .ylabel = "mean attention weight",
              .categories = names,
              .series = {"previous-token score", "induction score", "duplicate-token score"},
              .values = scores,
              .yrange = std::make_pair(0.0, 1.0)});
}

/// Head `which`'s weights on held-out sequence 0, masked cells blank, the block's two copies outlined.
void draw_pattern(attn::Plotter& plots, const Findings& f, ch08::HeadIndex which, const std::string& why,
                  const std::string& name) {
  const arma::mat A = arma::conv_to<arma::mat>::from(attn::attention_pattern(f.pass, which.layer, which.head, 0));
  arma::mat shown = A;
  shown.elem(arma::find(arma::trimatu(arma::ones(A.n_rows, A.n_cols), 1))).fill(arma::datum::nan);
  std::vector<std::string> positions(A.n_rows);
  for (arma::uword i = 0; i < A.n_rows; i += 4) positions[i] = std::to_string(i);
  const ch08::Block& b = f.run.held_out.blocks[0];
  const arma::uword s = b.start, n = b.length;
  plots.heatmap({.name = name,
                 .title = why + " " + ch08::head_name(which.layer, which.head) + ": block at " + std::to_string(s) +
                          ".." + std::to_string(s + n - 1) + ", repeat at " + std::to_string(s + n) + ".." +
                          std::to_string(s + 2 * n - 1),
                 .xlabel = "source position j",
                 .ylabel = "receiving position i",
                 .col_labels = positions,
                 .row_labels = positions,
                 .values = shown,
                 .cbrange = std::make_pair(0.0, 1.0),
                 .cell_labels = false,
                 .outlines = {{s + n, s + 2 * n - 1, s, s + n - 1, "#d62728", false,
                               "the repeat (rows) reading the first copy (columns)"},
                              {s, s + n - 1, s, s + n - 1, "#2ca02c", true, "the first copy reading itself"}},
                 .palette = {"#f7fbff", "#9ecae1", "#08306b"},
                 .cblabel = "weight A[i, j]"});
}

void draw_ablation(attn::Plotter& plots, const Findings& f) {
  std::vector<std::string> ablated;
  arma::mat effect(f.ablations.size(), 2);
  for (std::size_t i = 0; i < f.ablations.size(); ++i) {
    ablated.push_back(f.ablations[i].name);
    effect.row(i) = arma::rowvec{f.ablations[i].losses.first, f.ablations[i].losses.repeat};
  }
  const ch08::RegionLosses& base = f.run.curve.back().held_out;
  plots.bars({.name = "ch08_ablation",
              .title = "Held-out loss with heads zeroed (intact: first " + format_number(base.first, 2) + ", repeat " +
                       format_number(base.repeat, 2) + ")",
              .xlabel = "zeroed",
              .ylabel = "cross-entropy (nats)",
              .categories = ablated,
              .series = {"first occurrence", "repeat"},
              .values = effect});
}

void draw_plots(attn::Plotter& plots, const Findings& f) {
  draw_curves(plots, f);
  draw_head_scores(plots, f);
  draw_pattern(plots, f, ch08::top_head(f.scores.induction), "Top induction score:", "ch08_induction_pattern");
  const ch08::HeadIndex previous = ch08::top_head(f.scores.previous_token);
  const double best_previous = f.scores.previous_token(previous.layer, previous.head);
  draw_pattern(plots, f, previous,
               best_previous < 0.3 ? "No previous-token head (best score " + format_number(best_previous, 2) + "):"
                                   : "Top previous-token score " + format_number(best_previous, 2) + ":",
               "ch08_previous_token_pattern");
  draw_pattern(plots, f, f.summary.key_first_layer, "Most needed first-layer head:", "ch08_key_first_layer_pattern");
  draw_ablation(plots, f);
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run(kProgram.name, [&] {
    const std::optional<Flags> flags = read_flags(argc, argv);
    if (!flags) return 0;
    attn::Plotter plots(flags->plots);
    print_setup(flags->lab);
    const Findings findings = measure(train_and_report(flags->lab), flags->lab.data.fixed_offset);

    print_losses(findings);
    print_scores(findings);
    print_ablations(findings);
    std::cout << '\n';
    draw_plots(plots, findings);
    plots.report(std::cout);
    std::cout << "wall time of training: " << format_number(findings.run.seconds, 1) << " s\n";
    return 0;
  });
}
