/// \file chapters/05_training/main.cpp
/// \brief Chapter 05 program: train the article's one-head classifier with a hand-written backward
/// pass and Adam; the step-through widget (--walkthrough); the feature-recovery and biased-dataset
/// companions; a speed benchmark (--bench).
///
/// Follows the article's "Make it learn", "Follow one sentence through training", "Heads and blocks
/// train together", "Can two small matrices recover identifiable features?" and "Attention learns
/// the data, not the world". Run `ch05_training --help` for the flags.
#include <unistd.h>

#include <armadillo>
#include <cmath>
#include <iostream>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>

#include "common/attn.hpp"
#include "common/backprop.hpp"
#include "common/faults.hpp"
#include "features.hpp"
#include "training.hpp"

namespace po = boost::program_options;
using attn::format_number;
using attn::format_vector;

namespace {

/// A loss in scientific notation (losses fall by many orders of magnitude): "6.24e-01".
std::string format_loss(double x) {
  std::ostringstream out;
  out << std::scientific << std::setprecision(2) << x;
  return out.str();
}

constexpr double kArticleMsPerStep = 0.38;  // the article's PyTorch script: 1,200 steps in 0.46 s

/// Section 1: the model and its parameter count.
void describe_model(const attn::OneHeadModel& m, const std::string& origin) {
  attn::print_heading(std::cout, "1. The model: lookup, one head, a classifier on the last position");
  std::cout << "  vocabulary: the, river, money, bank;  classes: water (0), finance (1);  d = " << m.E.n_cols
            << ";  parameters " << origin << "\n";
  attn::Table t({"group", "shape", "parameters"});
  const std::pair<const char*, const arma::mat*> groups[] = {{"E (embedding)", &m.E}, {"Wq", &m.Wq}, {"Wk", &m.Wk},
                                                             {"Wv", &m.Wv},           {"Wc", &m.Wc}, {"bc", &m.bc}};
  for (const auto& [name, M] : groups) t.add({name, attn::shape(*M), std::to_string(M->n_elem)});
  t.add({"total", "", std::to_string(attn::parameter_count(m))});
  t.print(std::cout);
  std::cout << "  trainable parameters: " << attn::parameter_count(m)
            << " (4x8 + 3x8x8 + (8x2 + 2) for d = 8). The weights A are recomputed from each input;\n"
               "  they are activations, not parameters.   [train_01]\n";
}

/// Section 2: training, with a progress line every 50 passes.
ch05::TrainLog train_article_model(attn::OneHeadModel& model, const std::vector<ch05::Example>& data, int passes,
                                   double lr) {
  attn::print_heading(std::cout, "2. Training: Adam (lr " + format_number(lr, 3) + "), " + std::to_string(passes) +
                                     " passes over the four examples, one step per example");
  std::cout << "  forward pass, hand-written backward pass (common/backprop.hpp), one Adam step, in the article's order\n";
  const ch05::TrainLog log = ch05::train(model, data, passes, lr, {0, 1});
  for (int pass = 1; pass <= passes; ++pass) {
    if (pass == 1 || pass % 50 == 0 || pass == passes) {
      std::cout << "  pass " << std::setw(5) << pass << "   mean loss " << format_loss(log.pass_loss(pass - 1)) << '\n';
    }
  }
  std::cout << "  mean loss after training: " << format_loss(ch05::mean_loss(model, data)) << '\n'
            << "  training loop wall time: " << format_number(1e3 * log.seconds, 2) << " ms for " << log.steps
            << " optimizer steps (varies from run to run; see --bench)\n";
  return log;
}

/// Section 3: predictions and attention rows.
void report_predictions(const attn::OneHeadModel& model, const std::vector<ch05::Example>& data) {
  attn::print_heading(std::cout, "3. What the trained model does");
  int right = 0;
  for (const auto& e : data) {
    const attn::OneHeadPass p = attn::one_head_forward(model, e.ids, e.label);
    const arma::uword predicted = p.logits.index_max();
    right += predicted == e.label;
    std::string quoted = "\"";
    quoted.append(attn::join_words(e.words)).push_back('"');
    std::cout << "  " << std::left << std::setw(18) << quoted << std::right
              << " target " << e.label << "  prediction " << predicted << " " << std::left << std::setw(10)
              << ("(" + ch05::class_names()[predicted] + ")") << std::right << " bank attends to";
    for (arma::uword j = 0; j < e.words.size(); ++j) {
      std::cout << ' ' << e.words[j] << ' ' << format_number(p.A(p.A.n_rows - 1, j), 2);
    }
    std::cout << "   [train_03]\n";
  }
  std::cout << "  " << right << " of 4 predictions right   [train_02]\n"
            << "  The attention rows are printed rounded and are one solution among many: the article's PyTorch\n"
               "  seed-0 run routed bank almost entirely to river / money, but a uniform mixture would also\n"
               "  carry enough to classify these four examples, and a rounded 0.00 is not an exact zero. Our\n"
               "  random numbers differ from PyTorch's, so the learned rows may differ too. There is no\n"
               "  held-out test: this shows fitting a tiny task.   [train_03]\n";
}

/// Section 4: one loss reaches every parameter group.
void heads_and_blocks(const attn::OneHeadModel& model, const ch05::Example& e) {
  attn::print_heading(std::cout, "4. Heads and blocks train together: one loss, every parameter group");
  std::cout << "  (the first update of training, from the initial parameters)\n";
  const attn::OneHeadGrads g = attn::one_head_backward(model, attn::one_head_forward(model, e.ids, e.label));
  std::cout << "  gradient sizes (Frobenius norms) from the loss of \"" << attn::join_words(e.words) << "\":\n   ";
  const std::pair<const char*, const arma::mat*> groups[] = {{"E", &g.E}, {"Wq", &g.Wq}, {"Wk", &g.Wk},
                                                             {"Wv", &g.Wv}, {"Wc", &g.Wc}, {"bc", &g.bc}};
  for (const auto& [name, M] : groups) std::cout << ' ' << name << ' ' << attn::format_number(arma::norm(*M, "fro"), 4);
  std::cout << "\n  Backpropagation carries one loss through the classifier, the mixture, softmax, the scores, all\n"
               "  three projections and back to the embedding rows of the words present; one optimizer step\n"
               "  updates them together. A full transformer does the same across all heads of all blocks.\n";
}

/// Section 5: feature recovery.
ch05::FeatureRecovery feature_recovery() {
  attn::print_heading(std::cout, "5. Companion: can two small matrices recover identifiable features?");
  const ch05::FeatureRecovery r = ch05::recover_features(256, 256, 1500, 0.02, 0);
  std::cout << "  Only Wq and Wv (each 9 x 3) are trained; the four keys and the 3-d output space are fixed.\n"
               "  The data come from known maps: Wq* reads query features 0-2, Wv* reads source features 3-5,\n"
               "  features 6-8 are distractors read by neither. 256 training and 256 held-out examples.\n";
  std::cout << "  relative squared error: training " << format_number(r.train_error, 8) << ", held out "
            << format_number(r.heldout_error, 8) << "   [feat_01]\n"
            << "  recovery |W - W*| / |W*|: Wq " << format_number(r.Wq_error, 6) << ", Wv "
            << format_number(r.Wv_error, 6) << "   [feat_01]\n";
  attn::Table t({"feature", "role", "|Wq* row|", "|Wq row|", "|Wv* row|", "|Wv row|", "query move", "source move"});
  const arma::mat tq = ch05::true_Wq(), tv = ch05::true_Wv();
  for (arma::uword f = 0; f < 9; ++f) {
    const char* role = f < 3 ? "query" : f < 6 ? "value" : "distractor";
    t.add({std::to_string(f), role, format_number(arma::norm(tq.row(f)), 3), format_number(arma::norm(r.Wq.row(f)), 3),
           format_number(arma::norm(tv.row(f)), 3), format_number(arma::norm(r.Wv.row(f)), 3),
           format_number(r.query_effect(f), 4), format_number(r.source_effect(f), 4)});
  }
  t.print(std::cout);
  std::cout << "  Interventions on held-out examples move one feature by +1 (of the query token, or of every source\n"
               "  token) and report the mean change of the output. Relevant directions move it; the others move it\n"
               "  by less than "
            << format_number(1e-2, 2)
            << ", the tolerance the tests assert.   [feat_01]\n"
               "  The fixed keys and targets are what make the features identifiable here; a freely trained\n"
               "  model could spread the same function over rotated, unnamed coordinates.\n";
  return r;
}

/// Section 6: the biased dataset.
std::vector<ch05::BiasedRow> biased_dataset(const ch05::TrainSettings& settings) {
  attn::print_heading(std::cout, "6. Companion: attention learns the data, not the world");
  std::cout << "  Six sentences \"the CONTEXT bank\" with arbitrary labels (lawyer and attorney get opposite ones);\n"
               "  the same model and settings as section 2, vocabulary the, bank and the six contexts.\n";
  const std::vector<ch05::BiasedRow> rows = ch05::train_biased(settings);
  attn::Table t({"context", "assigned label", "prediction", "bank's attention to context"});
  int fitted = 0;
  for (const auto& r : rows) {
    fitted += r.prediction == r.label;
    t.add({r.context, ch05::class_names()[r.label], ch05::class_names()[r.prediction], format_number(r.attention, 2)});
  }
  t.print(std::cout);
  std::cout << "  " << fitted << " of 6 assignments fitted   [bias_01]\n"
            << "  What it shows: this supervised toy fits arbitrary label assignments, including opposite labels\n"
               "  for near-synonyms. What it does not show: that a language model reproduces every bias in its\n"
               "  data, or that it cannot generalize. The attention column is one run's solution (the article's\n"
               "  PyTorch run had 0.00 / 1.00 alternating); small weights, the values and the classifier all\n"
               "  take part, so a rounded weight is not an explanation of a prediction.\n";
  return rows;
}

void draw_plots(attn::Plotter& plots, const attn::OneHeadModel& model, const std::vector<ch05::Example>& data,
                const ch05::TrainLog& log, const ch05::FeatureRecovery* features,
                const std::vector<ch05::BiasedRow>& biased) {
  const arma::uword passes = log.pass_loss.n_elem;
  plots.lines({.name = "ch05_loss",
               .title = "Mean training loss per pass (Adam, one step per example)",
               .xlabel = "pass over the four examples",
               .ylabel = "mean cross-entropy (nats, log scale)",
               .x = arma::regspace(1, double(passes)),
               .y = log.pass_loss,
               .series = {"mean loss"},
               .logy = true});
  arma::vec passes_axis = arma::regspace(0, double(passes));
  passes_axis(0) = 0.5;  // "before training" on a log axis
  for (std::size_t k = 0; k < 2; ++k) {
    const ch05::Example& e = data[k];
    plots.lines({.name = std::string("ch05_bank_attention_") + e.words[1],
                 .title = "bank's attention weights during training, \"" + attn::join_words(e.words) + "\"",
                 .xlabel = "passes completed (log scale; the first point, at 0.5, is before training)",
                 .ylabel = "weight from bank",
                 .x = passes_axis,
                 .y = log.tracked[k],
                 .series = e.words,
                 .logx = true,
                 .yrange = std::make_pair(0.0, 1.0)});
  }
  const auto& vocab = ch05::vocabulary();
  arma::mat rows(data.size(), vocab.size());
  rows.fill(arma::datum::nan);
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const attn::OneHeadPass p = attn::one_head_forward(model, data[i].ids, data[i].label);
    for (arma::uword j = 0; j < data[i].ids.n_elem; ++j) rows(i, data[i].ids(j)) = p.A(p.A.n_rows - 1, j);
    labels.push_back(attn::join_words(data[i].words));
  }
  plots.heatmap({.name = "ch05_final_attention",
                 .title = "bank's attention after training, one row per example",
                 .xlabel = "source word",
                 .ylabel = "example",
                 .col_labels = vocab,
                 .row_labels = labels,
                 .values = rows,
                 .cbrange = std::make_pair(0.0, 1.0),
                 .nan_label = "absent"});
  if (features != nullptr) {
    const arma::mat tq = ch05::true_Wq(), tv = ch05::true_Wv();
    arma::mat norms(9, 4);
    for (arma::uword f = 0; f < 9; ++f) {
      norms.row(f) = arma::rowvec{arma::norm(tq.row(f)), arma::norm(features->Wq.row(f)), arma::norm(tv.row(f)),
                                  arma::norm(features->Wv.row(f))};
    }
    plots.bars({.name = "ch05_feature_recovery",
                .title = "Weight each map puts on each input feature: true vs learned",
                .xlabel = "input feature (0-2 query-relevant, 3-5 value-relevant, 6-8 distractors)",
                .ylabel = "row norm",
                .categories = {"0", "1", "2", "3", "4", "5", "6", "7", "8"},
                .series = {"Wq* (true)", "Wq (learned)", "Wv* (true)", "Wv (learned)"},
                .values = norms,
                .value_labels = false,
                .key = "top right"});  // the distractor features 6-8 leave that corner empty
  }
  if (!biased.empty()) {
    arma::vec weights(biased.size());
    std::vector<std::string> contexts;
    for (std::size_t i = 0; i < biased.size(); ++i) {
      weights(i) = biased[i].attention;
      contexts.push_back(biased[i].context + (biased[i].label == 0 ? " (w)" : " (f)"));
    }
    plots.bars({.name = "ch05_biased_attention",
                .title = "Biased dataset: bank's attention to the context word after training",
                .xlabel = "context word (assigned label: w water, f finance)",
                .ylabel = "weight from bank",
                .categories = contexts,
                .series = {"weight"},
                .values = weights,
                .yrange = std::make_pair(0.0, 1.1)});
  }
}

template <typename T>
T in_range(const po::variables_map& vm, const std::string& flag, T lo, T hi) {
  const T v = vm[flag].as<T>();
  if (v < lo || v > hi) {
    throw attn::cli::UsageError("--" + flag + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                                ", got " + std::to_string(v));
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run("ch05_training", [&] {
    po::options_description options("Options");
    attn::cli::add_common_options(options);
    options.add_options()
        ("seed", po::value<long long>()->value_name("N")->default_value(0), "seed of the initial parameters (>= 0)")
        ("passes", po::value<int>()->value_name("N")->default_value(300), "passes over the four examples (1..100000)")
        ("lr", po::value<double>()->value_name("RATE"),
         "learning rate: Adam's (default 0.05), or SGD's in --walkthrough (default 0.3); in (0, 10]")
        ("init", po::value<std::string>()->value_name("DIR"),
         "start from E.txt, Wq.txt, Wk.txt, Wv.txt, Wc.txt, bc.txt in DIR (Armadillo raw_ascii)")
        ("save", po::value<std::string>()->value_name("DIR"), "write the trained parameters into DIR, same format")
        ("loss-log", po::value<std::string>()->value_name("FILE"),
         "write each pass's mean loss to FILE, one line per pass, 17 significant digits")
        ("no-companions", "skip the feature-recovery and biased-dataset companions")
        ("walkthrough", "the step-through widget: one update of the 2-d model in eight stages, every number")
        ("updates", po::value<int>()->value_name("N")->default_value(0),
         "with --walkthrough: continue for N more updates (0..100000)")
        ("pause", "with --walkthrough on a terminal: wait for Enter between stages")
        ("bench", "time the optimizer steps of the article's training and compare with its PyTorch script");
    po::variables_map vm;
    const attn::cli::ProgramInfo info{
        "ch05_training",
        "train one attention head with a hand-written backward pass and Adam; the article's companions",
        "\"Make it learn\", \"Follow one sentence through training\", \"Heads and blocks train together\",\n"
        "  \"Can two small matrices recover identifiable features?\", \"Attention learns the data, not the world\"",
        "  ch05_training\n  ch05_training --seed 3 --passes 100 --loss-log loss.txt --save trained\n"
        "  ch05_training --init trained --passes 1\n  ch05_training --walkthrough --updates 20\n"
        "  ch05_training --walkthrough --pause\n  ch05_training --bench"};
    if (!attn::cli::parse(argc, argv, options, info, vm)) return 0;

    const long long seed_value = vm["seed"].as<long long>();
    if (seed_value < 0) throw attn::cli::UsageError("--seed must be >= 0, got " + std::to_string(seed_value));
    const auto seed = static_cast<std::uint64_t>(seed_value);
    const int passes = in_range(vm, "passes", 1, 100000);
    const int updates = in_range(vm, "updates", 0, 100000);
    const bool walk = vm.count("walkthrough") > 0, bench = vm.count("bench") > 0;
    std::optional<double> lr;
    if (vm.count("lr")) {
      lr = attn::cli::finite("--lr", vm["lr"].as<double>());
      if (!(*lr > 0 && *lr <= 10)) throw attn::cli::UsageError("--lr must be in (0, 10], got " + attn::cli::as_typed("--lr", *lr));
    }
    if (walk && bench) throw attn::cli::UsageError("--walkthrough and --bench are separate modes");
    for (const char* flag : {"init", "save", "loss-log", "no-companions"}) {
      if ((walk || bench) && vm.count(flag)) {
        throw attn::cli::UsageError(std::string("--") + flag + " applies to training, not to --" + (walk ? "walkthrough" : "bench"));
      }
    }
    if (walk && !vm["passes"].defaulted()) {
      throw attn::cli::UsageError("--passes applies to training and --bench; the walkthrough counts --updates");
    }
    if ((walk || bench) && vm.count("plots")) {
      throw attn::cli::UsageError(std::string("--") + (walk ? "walkthrough" : "bench") + " draws no plots, so --plots has nothing to write");
    }
    if (!walk && (vm.count("pause") || !vm["updates"].defaulted())) {
      throw attn::cli::UsageError("--updates and --pause need --walkthrough");
    }

    if (walk) {
      const bool interactive = vm.count("pause") && ::isatty(STDOUT_FILENO) && ::isatty(STDIN_FILENO);
      const auto between = [&] {
        if (!interactive) return;
        std::cout << "  [Enter: next stage] " << std::flush;
        std::string ignored;
        std::getline(std::cin, ignored);
      };
      ch05::walkthrough(std::cout, seed, lr.value_or(0.3), updates, between);
      return 0;
    }

    ch05::TrainSettings settings;
    settings.seed = seed;
    settings.passes = passes;
    settings.lr = lr.value_or(0.05);

    if (bench) {
      std::cout << "Chapter 05 - benchmark: time per optimizer step of the article's training\n"
                << "  (d = 8, 4 examples, " << passes << " passes, forward + hand-written backward + Adam)\n";
      ch05::microseconds_per_step(settings, 1);  // warm up caches and allocations
      const double us = ch05::microseconds_per_step(settings, 20);
      std::cout << "  best of 20 runs: " << format_number(us, 3) << " us per step\n"
                << "  the article's PyTorch script: " << format_number(1e3 * kArticleMsPerStep, 0)
                << " us per step (1,200 steps in 0.46 s)\n"
                << "  ratio: " << format_number(1e3 * kArticleMsPerStep / us, 0) << "x faster (the target is 20x, under 20 us)\n";
      return 0;
    }

    std::optional<std::string> init_dir, save_dir, loss_log;
    if (const auto p = attn::cli::path(vm, "init")) init_dir = p->string();
    if (const auto p = attn::cli::path(vm, "save")) save_dir = p->string();
    if (const auto p = attn::cli::path(vm, "loss-log")) loss_log = p->string();
    // Fail before any work if the outputs cannot be written or would overwrite each other.
    ch05::check_outputs(save_dir, loss_log);
    const std::vector<ch05::Example> data = ch05::article_examples();
    attn::OneHeadModel model = init_dir ? ch05::load_model(*init_dir, ch05::vocabulary().size(), 2)
                                        : ch05::initial_model(ch05::vocabulary().size(), settings);
    attn::Plotter plots(attn::cli::plot_settings(vm));
    const attn::OneHeadModel initial = model;

    std::cout << "Chapter 05 - Training: one head learned by hand-written backpropagation and Adam\n";
    describe_model(model, init_dir ? "read from " + *init_dir
                                   : "initialized as PyTorch does (embedding N(0,1), linear U(+-1/sqrt(fan_in))), seed " +
                                         std::to_string(seed));
    const ch05::TrainLog log = train_article_model(model, data, passes, settings.lr);
    attn::require_converging(arma::conv_to<std::vector<double>>::from(log.pass_loss), "pass", settings.lr);
    if (loss_log) {
      ch05::write_loss_log(log.pass_loss, *loss_log);
      std::cout << "  per-pass mean losses written to " << *loss_log << '\n';
    }
    if (save_dir) {
      ch05::save_model(model, *save_dir);
      std::cout << "  trained parameters written to " << *save_dir << " (E, Wq, Wk, Wv, Wc, bc .txt)\n";
    }
    report_predictions(model, data);
    heads_and_blocks(initial, data[0]);

    std::optional<ch05::FeatureRecovery> features;
    std::vector<ch05::BiasedRow> biased;
    if (!vm.count("no-companions")) {
      features = feature_recovery();
      ch05::TrainSettings article;  // the companion keeps the article's settings, with --seed
      article.seed = seed;
      biased = biased_dataset(article);
    }

    std::cout << '\n';
    draw_plots(plots, model, data, log, features ? &*features : nullptr, biased);
    plots.report(std::cout);
    return 0;
  });
}
