/// \file chapters/05_training/main.cpp
/// \brief Chapter 05 program: train one attention head (sections.hpp), step through one update, or time it.
#include <iostream>
#include <limits>
#include <string>

#include "common/apparatus/cli.hpp"
#include "common/apparatus/faults.hpp"
#include "figures.hpp"
#include "modes.hpp"
#include "outputs.hpp"
#include "report.hpp"
#include "sections.hpp"

namespace po = boost::program_options;
using app::cli::UsageError;

namespace {

const app::cli::ProgramInfo kProgram{
    "ch05_training", "train one attention head with a hand-written backward pass and Adam; the article's companions",
    "\"Make it learn\", \"Follow one sentence through training\", \"Heads and blocks train together\",\n"
    "  \"Can two small matrices recover identifiable features?\", \"Attention learns the data, not the world\"",
    "  ch05_training\n  ch05_training --seed 3 --passes 100 --loss-log loss.txt --save trained\n  ch05_training --init "
    "trained --passes 1\n  ch05_training --walkthrough --updates 20\n  ch05_training --walkthrough --sentence 'the "
    "money bank' --follow 1,2\n  ch05_training --walkthrough --follow 21 --save walked   # Train 20 steps, then "
    "inspect\n  printf '\\n\\n\\n\\n\\n\\n\\n' | ch05_training --walkthrough --pause\n  ch05_training --walkthrough "
    "--seed 0   # the widget's Reset: the same seed starts over\n  ch05_training --bench"};

/// What the reader asked for on the command line.
struct Flags {
  ch05::Mode mode = ch05::Mode::train;    ///< --walkthrough, --bench, or neither
  ch05::TrainSettings train{};            ///< --seed, --passes, --lr (Adam's, default 0.05)
  ch05::WalkSettings walk{};              ///< --seed, --lr (SGD's, default 0.3), --sentence, --updates, --follow
  bool pause = false;                     ///< --pause (walkthrough)
  bool companions = true;                 ///< not --no-companions
  std::optional<std::string> init_dir{};  ///< --init
  ch05::Outputs outputs{};                ///< --save, --loss-log
  app::PlotSettings plots{};              ///< --plots, --no-plots
};

void declare_flags(po::options_description& options) {
  // clang-format off
  options.add_options()
      ("seed", po::value<long long>()->value_name("N")->default_value(0), "seed of the initial parameters (>= 0)")
      ("passes", po::value<int>()->value_name("N")->default_value(300), "passes over the four examples (1..100000)")
      ("lr", po::value<double>()->value_name("RATE"), "learning rate: Adam's (default 0.05), or SGD's in --walkthrough (default 0.3); in (0, 10]")
      ("init", po::value<std::string>()->value_name("DIR"), "start from E.txt, Wq.txt, Wk.txt, Wv.txt, Wc.txt, bc.txt in DIR (Armadillo raw_ascii; a saved set's manifest.txt must match them: delete it to read edited files)")
      ("save", po::value<std::string>()->value_name("DIR"), "write the trained parameters into DIR, same format")
      ("loss-log", po::value<std::string>()->value_name("FILE"), "write each pass's mean loss to FILE, one line per pass, 17 significant digits")
      ("no-companions", "skip the feature-recovery and biased-dataset companions")
      ("walkthrough", "the step-through widget: one update of the 2-d model in eight stages, every number; rerunning with the same --seed is its Reset")
      ("sentence", po::value<std::string>()->value_name("TEXT"), "with --walkthrough: the first update's sentence, 'the river bank' (default) or 'the money bank'")
      ("updates", po::value<int>()->value_name("N")->default_value(0), "with --walkthrough: continue for N more updates, alternating the sentences (0..100000)")
      ("follow", po::value<std::string>()->value_name("LIST")->default_value("1"), "with --walkthrough: the updates shown stage by stage, ascending, e.g. 1,2 or 21 (the walk runs at least as many updates as the last one)")
      ("pause", "with --walkthrough: wait for Enter between stages (stdin a terminal or a pipe)")
      ("bench", "time the optimizer steps of the article's training (this machine's measurement only)");
  // clang-format on
}

Flags read_flags(const po::variables_map& vm) {
  const bool walk = vm.count("walkthrough") > 0;
  Flags f{.mode = ch05::mode_of(walk, vm.count("bench") > 0),
          .pause = vm.count("pause") > 0,
          .companions = vm.count("no-companions") == 0};
  f.train.seed = f.walk.seed = app::cli::seed(vm, "seed", std::numeric_limits<long long>::max());
  f.train.passes = static_cast<int>(app::cli::integer(vm, "passes", 1, 100000));
  f.walk.updates = static_cast<int>(app::cli::integer(vm, "updates", 0, 100000));
  if (vm.count("lr")) f.train.lr = f.walk.lr = app::cli::positive_real(vm, "lr", 10.0);
  const auto given = [&](const std::string& flag) { return vm.count(flag) && !vm[flag].defaulted(); };
  if (const std::string problem = ch05::mode_problem(f.mode, given); !problem.empty()) throw UsageError(problem);
  const std::vector<std::string> sentences = ch05::walkthrough_sentences();
  if (walk && vm.count("sentence")) f.walk.first = app::cli::choice(vm, "sentence", sentences) == sentences[1];
  const app::Parsed<std::vector<int>> follow = ch05::follow_list(vm["follow"].as<std::string>());
  if (walk && !follow.value) throw UsageError(follow.problem);
  if (walk) f.walk.follow = *follow.value;
  if (const auto p = app::cli::path(vm, "init")) f.init_dir = p->string();
  if (const auto p = app::cli::path(vm, "save")) f.outputs.save_dir = p->string();
  if (const auto p = app::cli::path(vm, "loss-log")) f.outputs.loss_log = p->string();
  if (f.mode != ch05::Mode::bench) f.plots = app::cli::plot_settings(vm);  // --bench draws nothing
  if (const std::string why = ch05::output_problem(f.outputs, f.plots, f.init_dir); !why.empty()) throw UsageError(why);
  return f;
}

int run(const Flags& flags) {
  if (flags.mode == ch05::Mode::bench) {
    ch05::print_bench(std::cout, ch05::bench(flags.train));
    return 0;
  }
  app::Plotter plots(flags.plots);
  if (flags.mode == ch05::Mode::walkthrough) {
    const ch05::Walk walk = ch05::run_walk(flags.walk);
    ch05::print_walk(std::cout, walk, ch05::stage_pause(flags.pause));
    ch05::save_walk(flags.outputs, walk);
    std::cout << '\n';
    ch05::draw_walk(plots, walk);
    plots.report(std::cout);
    return 0;
  }
  const ch05::TrainingRun run = ch05::train_article(ch05::starting_model(flags.init_dir, flags.train), flags.train);
  ch05::print_model(std::cout, run, flags.init_dir);
  ch05::print_training(std::cout, run);  // before the divergence check: a diverging run shows its losses
  app::require_converging(arma::conv_to<std::vector<double>>::from(run.log.pass_loss), "pass", flags.train.lr);
  ch05::write_outputs(flags.outputs, run.model, run.log);
  const ch05::Findings findings = ch05::examine(run);
  const ch05::Companions companions = flags.companions ? ch05::run_companions(flags.train.seed) : ch05::Companions{};
  ch05::print_findings(std::cout, findings);
  ch05::print_companions(std::cout, companions);
  ch05::print_wall_time(std::cout, run.log);
  ch05::draw_training(plots, run, findings);
  ch05::draw_companions(plots, companions);
  plots.report(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return app::cli::chapter_main<Flags>(argc, argv, {kProgram, declare_flags, read_flags, run});
}
