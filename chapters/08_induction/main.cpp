/// \file chapters/08_induction/main.cpp
/// \brief Chapter 08 program: train a two-layer attention-only model on repeated blocks, find the
/// heads that copy, and ablate them.
///
/// Follows the article's "Reverse-engineer a head you trained". Run `ch08_induction --help`.
#include <armadillo>
#include <cstdint>
#include <iostream>
#include <limits>
#include <sstream>

#include "common/attn.hpp"
#include "common/cli.hpp"
#include "lab.hpp"

namespace po = boost::program_options;
using attn::format_number;

namespace {

constexpr int kPrecision = 3;

std::string yes_no(bool ok) { return ok ? "holds" : "does NOT hold"; }

void print_losses(const ch08::LabResult& r) {
  attn::print_heading(std::cout, "1. Held-out loss: first occurrences vs repeats");
  const ch08::RegionLosses& last = r.curve.back().held_out;
  attn::Table t({"", "loss (nats)"});
  t.add({"every position", format_number(last.overall, kPrecision)});
  t.add({"first occurrence of a block token", format_number(last.first, kPrecision)});
  t.add({"the same token in the repeat", format_number(last.repeat, kPrecision)});
  t.add({"uniform guess, ln(vocab)", format_number(std::log(static_cast<double>(r.model.shape.vocab)), kPrecision)});
  t.print(std::cout);
  std::cout << "  repeat / first = " << format_number(last.repeat / last.first, kPrecision)
            << "\n  (claim: the repeat is predicted far better, ratio below one half: "
            << yes_no(last.repeat < 0.5 * last.first) << ")   [ind_01]\n";
}

void print_scores(const ch08::HeadScores& s, bool fixed) {
  attn::print_heading(std::cout, "2. What each head attends to (held-out mean weights)");
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
  const double top1 = s.induction.row(0).max();
  const double top_last = s.induction.row(s.induction.n_rows - 1).max();
  if (!fixed) {
    std::cout << "  highest last-layer induction score " << format_number(top_last, kPrecision)
              << " vs highest first-layer " << format_number(top1, kPrecision)
              << "\n  (> 0.3 and above every first-layer head: " << yes_no(top_last > 0.3 && top_last > top1)
              << ")   [ind_02]\n";
  } else {
    std::cout << "  fixed offset: highest first-layer induction score " << format_number(top1, kPrecision)
              << " (high, > 0.5: " << yes_no(top1 > 0.5) << "):\n  position alone finds the copy   [ind_04]\n";
  }
}

/// The ablation table, and claim ind_03: the last layer together and the most important first-layer head.
void print_ablations(const std::vector<ch08::Ablation>& ablations, const ch08::RegionLosses& base, arma::uword heads,
                     arma::uword layers, bool fixed) {
  attn::print_heading(std::cout, "3. Ablation: zero a head's output, measure the held-out loss again");
  attn::Table t({"zeroed", "first-occurrence loss", "repeat loss", "repeat loss rise"});
  t.add({"nothing", format_number(base.first, kPrecision), format_number(base.repeat, kPrecision), "0"});
  for (const auto& a : ablations) {
    t.add({a.name, format_number(a.losses.first, kPrecision), format_number(a.losses.repeat, kPrecision),
           format_number(a.losses.repeat - base.repeat, kPrecision)});
  }
  t.print(std::cout);
  const double gap = base.first - base.repeat;
  double best_l1 = -std::numeric_limits<double>::infinity();
  std::string best_name;
  for (arma::uword h = 0; h < heads; ++h) {
    const double rise = ablations[h].losses.repeat - base.repeat;
    if (rise > best_l1) best_l1 = rise, best_name = ablations[h].name;
  }
  const double last_layer = ablations[layers * heads + layers - 1].losses.repeat - base.repeat;
  std::cout << "  in-context advantage (first - repeat): " << format_number(gap, kPrecision) << " nats\n"
            << "  zeroing all of layer " << layers << " raises the repeat loss by "
            << format_number(last_layer, kPrecision) << ";\n  zeroing " << best_name
            << " (the first-layer head that matters most) by " << format_number(best_l1, kPrecision) << "\n";
  if (!fixed) {
    std::cout << "  both above half the advantage (" << format_number(gap / 2, kPrecision)
              << "): " << yes_no(last_layer > gap / 2 && best_l1 > gap / 2) << "   [ind_03]\n";
  }
  std::cout << "  What this shows: the loss on repeats depends on these heads. What it does not show: that\n"
               "  they are the only route (another head may compensate when one is removed), or that one\n"
               "  head has one role (several heads may share it). A head's name here is only what was measured.\n";
}

void draw_plots(attn::Plotter& plots, const ch08::LabResult& r, const ch08::HeadScores& s,
                const std::vector<ch08::Ablation>& ablations, const ch08::ForwardPass& pass) {
  const ch08::ModelShape& shape = r.model.shape;
  arma::vec steps(r.curve.size());
  arma::mat losses(r.curve.size(), 3);
  for (std::size_t i = 0; i < r.curve.size(); ++i) {
    steps(i) = static_cast<double>(r.curve[i].step);
    losses(i, 0) = r.curve[i].held_out.first;
    losses(i, 1) = r.curve[i].held_out.repeat;
    losses(i, 2) = r.curve[i].held_out.overall;
  }
  plots.lines({.name = "ch08_loss_curves",
               .title = "Held-out loss while training",
               .xlabel = "Adam step",
               .ylabel = "cross-entropy (nats)",
               .x = steps,
               .y = losses,
               .series = {"first occurrence", "repeat", "every position"},
               .points = true});
  std::vector<std::string> names;
  arma::mat scores(shape.layers * shape.heads, 3);
  for (arma::uword l = 0; l < shape.layers; ++l) {
    for (arma::uword h = 0; h < shape.heads; ++h) {
      names.push_back(ch08::head_name(l, h));
      scores(l * shape.heads + h, 0) = s.previous_token(l, h);
      scores(l * shape.heads + h, 1) = s.induction(l, h);
      scores(l * shape.heads + h, 2) = s.duplicate_token(l, h);
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

  // Attention patterns on held-out sequence 0, with the two copies of its block outlined.
  const ch08::Block& block = r.held_out.blocks[0];
  const auto pattern = [&](arma::uword l, arma::uword h, const std::string& why, const std::string& name) {
    const arma::mat A = arma::conv_to<arma::mat>::from(attn::attention_pattern(pass, l, h, 0));
    std::ostringstream data;
    data << "# source_position\treceiving_position\tweight (NaN: masked, j > i)\n";
    for (arma::uword i = 0; i < A.n_rows; ++i) {
      for (arma::uword j = 0; j < A.n_cols; ++j)
        data << j << '\t' << i << '\t' << (j > i ? std::string("NaN") : format_number(A(i, j), 4)) << '\n';
      data << '\n';
    }
    const double T = static_cast<double>(shape.context), s0 = static_cast<double>(block.start) - 0.5,
                 n = static_cast<double>(block.length);
    plots.figure(name,
                 why + " " + ch08::head_name(l, h) + ": block at " + std::to_string(block.start) + ".." +
                     std::to_string(block.start + block.length - 1) + ", repeat at " +
                     std::to_string(block.start + block.length) + ".." +
                     std::to_string(block.start + 2 * block.length - 1) + " (boxes)",
                 {data.str()}, [&](const std::vector<std::string>& dat) {
                   std::ostringstream gp;
                   gp << "set xlabel 'source position j'\nset ylabel 'receiving position i'\n"
                      << "set cblabel 'weight A[i, j]'\nset size ratio 1\nset cbrange [0:1]\n"
                      << "set xrange [-0.5:" << T - 0.5 << "]\nset yrange [" << T - 0.5 << ":-0.5]\n"
                      << "set palette defined (0 '#f7fbff', 1 '#9ecae1', 2 '#08306b')\nunset key\n"
                      << "set xtics 4 out nomirror\nset ytics 4 out nomirror\n"
                      << "set object 1 rectangle from -0.5,-0.5 to " << T - 0.5 << "," << T - 0.5
                      << " behind fillcolor rgb 'gray85' fillstyle solid noborder\n"
                      // the repeat (rows) reading the first copy (columns), and the repeat reading itself
                      << "set object 2 rectangle from " << s0 << "," << s0 + n << " to " << s0 + n << "," << s0 + 2 * n
                      << " front fillstyle empty border rgb '#d62728' lw 2\n"
                      << "set object 3 rectangle from " << s0 << "," << s0 << " to " << s0 + n << "," << s0 + n
                      << " front fillstyle empty border rgb '#2ca02c' lw 2 dt 2\n"
                      << "plot " << dat[0] << " using 1:2:3 with image\n";
                   return gp.str();
                 });
  };
  const auto top = [](const arma::mat& table) {
    const arma::uword best = table.index_max();
    return std::make_pair(best % table.n_rows, best / table.n_rows);
  };
  const auto [il, ih] = top(s.induction);
  pattern(il, ih, "Top induction score:", "ch08_induction_pattern");
  // The head with the highest previous-token score, and plainly so when even that one is low.
  const auto [pl, ph] = top(s.previous_token);
  const double best_previous = s.previous_token(pl, ph);
  pattern(pl, ph,
          best_previous < 0.3 ? "No previous-token head (best score " + format_number(best_previous, 2) + "):"
                              : "Top previous-token score " + format_number(best_previous, 2) + ":",
          "ch08_previous_token_pattern");
  arma::uword key = 0;  // the first-layer head whose ablation raises the repeat loss most
  for (arma::uword h = 1; h < shape.heads; ++h) {
    if (ablations[h].losses.repeat > ablations[key].losses.repeat) key = h;
  }
  pattern(0, key, "Most needed first-layer head:", "ch08_key_first_layer_pattern");

  std::vector<std::string> ablated;
  arma::mat effect(ablations.size(), 2);
  for (std::size_t i = 0; i < ablations.size(); ++i) {
    ablated.push_back(ablations[i].name);
    effect(i, 0) = ablations[i].losses.first;
    effect(i, 1) = ablations[i].losses.repeat;
  }
  plots.bars({.name = "ch08_ablation",
              .title = "Held-out loss with heads zeroed (intact: first " +
                       format_number(r.curve.back().held_out.first, 2) + ", repeat " +
                       format_number(r.curve.back().held_out.repeat, 2) + ")",
              .xlabel = "zeroed",
              .ylabel = "cross-entropy (nats)",
              .categories = ablated,
              .series = {"first occurrence", "repeat"},
              .values = effect});
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run("ch08_induction", [&] {
    po::options_description options("Options");
    attn::cli::add_common_options(options);
    // clang-format off
    options.add_options()
        ("seed", po::value<long long>()->value_name("N")->default_value(1), "seeds weights, batches and held-out set")
        ("steps", po::value<long long>()->value_name("N"), "Adam steps (default 1000; 700 with --quick)")
        ("heads", po::value<long long>()->value_name("N")->default_value(2), "heads per layer (d_k = width / heads)")
        ("width", po::value<long long>()->value_name("D")->default_value(32), "residual stream width (1 to 256; steps x width^2 at most 4e7)")
        ("lr", po::value<double>()->value_name("RATE")->default_value(1e-2), "Adam learning rate")
        ("fixed-offset", "every block has the same length and position (the control of claim ind_04)")
        ("quick", "a shorter run for tests and the docs");
    // clang-format on
    po::variables_map vm;
    const attn::cli::ProgramInfo info{
        "ch08_induction", "train a two-layer attention-only model on repeated blocks; score and ablate its heads",
        "\"Reverse-engineer a head you trained\" (repeated patterns and ablation)",
        "  ch08_induction\n  ch08_induction --quick --seed 3\n  ch08_induction --fixed-offset\n"
        "  ch08_induction --heads 4 --steps 1500 --no-plots"};
    if (!attn::cli::parse(argc, argv, options, info, vm)) return 0;

    ch08::LabOptions o;
    const bool quick = vm.count("quick") > 0, fixed = vm.count("fixed-offset") > 0;
    // Counts are read signed, so that "-5" is reported as -5 rather than wrapping around.
    const auto in_range = [&](const char* flag, long long lo, long long hi, long long fallback) {
      const long long v = vm.count(flag + 2) ? vm[flag + 2].as<long long>() : fallback;
      if (v < lo || v > hi) {
        throw attn::cli::UsageError(std::string(flag) + " must be in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "], got " + std::to_string(v));
      }
      return static_cast<arma::uword>(v);
    };
    o.seed = in_range("--seed", 0, std::numeric_limits<long long>::max(), 1);
    o.steps = in_range("--steps", 1, 1000000, quick ? 700 : 1000);
    o.lr = attn::cli::finite("--lr", vm["lr"].as<double>());
    if (!(o.lr > 0 && o.lr <= 1))
      throw attn::cli::UsageError("--lr must be in (0, 1], got " + attn::cli::as_typed("--lr", o.lr));
    o.data.fixed_offset = fixed;
    o.held_out = quick ? 128 : 256;
    const arma::uword heads = in_range("--heads", 1, 64, 2), width = in_range("--width", 1, 256, 32);
    // A step costs about width^2: the default 1000 x 32^2 takes some 8 s, so this budget is about 5 minutes.
    constexpr double kWorkBudget = 4e7;
    if (static_cast<double>(o.steps) * static_cast<double>(width * width) > kWorkBudget) {
      throw attn::cli::UsageError("--steps x --width^2 must be at most 4e7 (about 5 minutes of training), got " +
                                  std::to_string(o.steps) + " x " + std::to_string(width) + "^2");
    }
    if (width % heads != 0) {
      throw attn::cli::UsageError("--width must be a multiple of --heads (d_k = width / heads), got " +
                                  std::to_string(width) + " and " + std::to_string(heads));
    }
    o.shape.heads = heads;
    o.shape.width = width;
    o.shape.d_k = width / heads;
    ch08::validate(o);
    attn::Plotter plots(attn::cli::plot_settings(vm));

    std::cout << "Chapter 08 - The induction-head lab: two attention-only layers, repeated blocks\n\n"
              << "Data: " << o.data.context << " random tokens from a vocabulary of " << o.data.vocab
              << ";\n  a block of "
              << (fixed ? "fixed length " + std::to_string(ch08::fixed_block(o.data).length) + " at fixed position " +
                              std::to_string(ch08::fixed_block(o.data).start)
                        : std::to_string(o.data.min_block) + " to " + std::to_string(o.data.max_block) +
                              " tokens at a random position")
              << " recurs right after itself.\n"
              << "Model: width " << width << ", " << o.shape.layers << " layers of " << heads
              << " heads (d_k = " << o.shape.d_k << "), causal, no MLP.\n  Adam, lr " << format_number(o.lr, 4) << ", "
              << o.steps << " steps of " << o.batch << " fresh sequences; " << o.held_out << " held-out sequences.\n\n";
    std::cout << "Training (held-out losses, nats):\n";
    attn::DivergenceWatch watch(o.lr);  // a diverging run stops with exit 1, its results unreported
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
    std::cout << "wall time of training: " << format_number(r.seconds, 1) << " s\n";

    ch08::ForwardPass pass;
    attn::forward(r.model, r.held_out.tokens, pass);
    const ch08::HeadScores scores = ch08::head_scores(pass, r.held_out);
    const std::vector<ch08::Ablation> ablations = ch08::ablation_study(r.model, r.held_out);
    print_losses(r);
    print_scores(scores, fixed);
    print_ablations(ablations, r.curve.back().held_out, heads, o.shape.layers, fixed);
    std::cout << '\n';
    draw_plots(plots, r, scores, ablations, pass);
    plots.report(std::cout);
    return 0;
  });
}
