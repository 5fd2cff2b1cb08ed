/// \file chapters/05_training/main.cpp
/// \brief Chapter 05 program: train the article's one-head classifier with a hand-written backward
/// pass and Adam; the step-through widget (--walkthrough); the feature-recovery and biased-dataset
/// companions; a speed benchmark (--bench).
///
/// Follows the article's "Make it learn", "Follow one sentence through training", "Heads and blocks
/// train together", "Can two small matrices recover identifiable features?" and "Attention learns
/// the data, not the world". Run `ch05_training --help` for the flags.
#include <sys/stat.h>
#include <unistd.h>

#include <armadillo>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "common/apparatus/attn.hpp"
#include "common/apparatus/cli.hpp"
#include "common/apparatus/faults.hpp"
#include "common/apparatus/panels.hpp"
#include "common/attention/backprop.hpp"
#include "features.hpp"
#include "training.hpp"

namespace po = boost::program_options;
using attn::format_number;

namespace {

/// A loss in scientific notation (losses fall by many orders of magnitude): "6.24e-01".
std::string format_loss(double x) {
  std::ostringstream out;
  out << std::scientific << std::setprecision(2) << x;
  return out.str();
}

constexpr std::uint64_t kSurveySeeds = 20;  // the biased-dataset survey trains seeds 0-19

/// Section 1: the model and its parameter count.
void describe_model(const attn::OneHeadModel& m, const std::string& origin) {
  attn::print_heading(std::cout, "1. The model: lookup, one head, a classifier on the last position");
  std::cout << "  vocabulary: the, river, money, bank;  classes: water (0), finance (1);  d = " << m.E.n_cols
            << "\n  parameters " << origin << "\n";
  attn::Table t({"group", "shape", "parameters"});
  for (const auto& group : attn::kOneHeadGroups) {
    const arma::mat& M = m.*group.value;
    t.add({group.label, attn::shape(M), std::to_string(M.n_elem)});
  }
  t.add({"total", "", std::to_string(attn::parameter_count(m))});
  t.print(std::cout);
  attn::print_claim(std::cout, ch05::parameter_count_claim(m));
}

/// Section 2: the training run, with a progress line every 50 passes.
void print_training(const ch05::TrainLog& log, double lr, double final_loss) {
  const int passes = static_cast<int>(log.pass_loss.n_elem);
  attn::print_heading(std::cout, "2. Training: Adam (lr " + format_number(lr, 3) + "), " +
                                     attn::counted(passes, "pass", "passes") +
                                     " over the four examples, one step per example");
  std::cout << "  forward pass, hand-written backward pass (common/attention/backprop.hpp), one Adam step,\n"
               "  the examples in the article's order\n";
  for (int pass = 1; pass <= passes; ++pass) {
    if (pass == 1 || pass % 50 == 0 || pass == passes) {
      std::cout << "  pass " << std::setw(5) << pass << "   mean loss " << format_loss(log.pass_loss(pass - 1)) << '\n';
    }
  }
  std::cout << "  mean loss after training: " << format_loss(final_loss) << '\n';
}

/// Section 3: predictions and attention rows.
void report_predictions(const std::vector<ch05::Prediction>& predictions) {
  attn::print_heading(std::cout, "3. What the trained model does");
  std::cout << "  sentence          target -> prediction, and bank's attention row\n";
  for (const auto& [e, predicted, weights, uniform] : predictions) {
    std::string quoted = "\"";
    quoted.append(attn::join_words(e.words)).push_back('"');
    std::cout << "  " << std::left << std::setw(17) << quoted << " " << std::setw(7) << ch05::class_names()[e.label]
              << " -> " << std::setw(7) << ch05::class_names()[predicted] << std::right << "  bank attends to";
    for (arma::uword j = 0; j < e.words.size(); ++j)
      std::cout << ' ' << e.words[j] << ' ' << format_number(weights(j), 2);
    std::cout << '\n';
  }
  attn::print_claim(std::cout, ch05::predictions_claim(predictions));
  attn::print_claim(std::cout, ch05::rows_reported_claim(predictions));
  attn::print_claim(std::cout, ch05::uniform_routing_claim(predictions));
  std::cout << "  The attention rows are printed rounded and are one solution among many: the article's PyTorch\n"
               "  seed-0 run routed bank almost entirely to river / money, yet selective routing is not required\n"
               "  (the line above asks the same model again with a uniform row), and a rounded 0.00 is not an\n"
               "  exact zero. Our random numbers differ from PyTorch's, so the learned rows may differ too.\n"
               "  There is no held-out test: this shows fitting a tiny task.\n";
}

/// Section 4: one loss reaches every parameter group (`g`: the gradients of example `e`'s loss).
void heads_and_blocks(const attn::OneHeadGrads& g, const ch05::Example& e) {
  attn::print_heading(std::cout, "4. Heads and blocks train together: one loss, every parameter group");
  std::cout << "  (the first update of training, from the initial parameters)\n";
  std::cout << "  gradient sizes (Frobenius norms) from the loss of \"" << attn::join_words(e.words) << "\":\n   ";
  for (const auto& group : attn::kOneHeadGroups) {
    std::cout << ' ' << group.name << ' ' << attn::format_number(arma::norm(g.*group.grad, "fro"), 4);
  }
  std::cout << "\n  Backpropagation carries one loss through the classifier, the mixture, softmax, the scores, all\n"
               "  three projections and back to the embedding rows of the words present; one optimizer step\n"
               "  updates them together. A full transformer does the same across all heads of all blocks.\n";
}

/// Section 5: feature recovery.
void feature_recovery(const ch05::FeatureRecovery& r) {
  attn::print_heading(std::cout, "5. Companion: can two small matrices recover identifiable features?");
  std::cout << "  Only Wq and Wv (each 9 x 3) are trained; the four keys and the 3-d output space are fixed.\n"
               "  The data come from known maps: Wq* reads query features 0-2, Wv* reads source features 3-5,\n"
               "  features 6-8 are distractors read by neither. 256 training and 256 held-out examples.\n";
  attn::print_claim(std::cout, ch05::feature_fit_claim(r));
  attn::print_claim(std::cout, ch05::feature_maps_claim(r));
  attn::Table t({"feature", "role", "|Wq* row|", "|Wq row|", "|Wv* row|", "|Wv row|", "query move", "source move"});
  const arma::mat norms = ch05::feature_row_norms(r);
  for (arma::uword f = 0; f < norms.n_rows; ++f) {
    const char* role = f < 3 ? "query" : f < 6 ? "value" : "distractor";
    t.add({std::to_string(f), role, format_number(norms(f, 0), 3), format_number(norms(f, 1), 3),
           format_number(norms(f, 2), 3), format_number(norms(f, 3), 3), format_number(r.query_effect(f), 4),
           format_number(r.source_effect(f), 4)});
  }
  t.print(std::cout);
  attn::print_claim(std::cout, ch05::interventions_claim(r));
  std::cout << "  The fixed keys and targets are what make the features identifiable here; a freely trained\n"
               "  model could spread the same function over rotated, unnamed coordinates.\n";
}

/// The biased-dataset table of one run.
void print_biased_table(const std::vector<ch05::BiasedRow>& rows) {
  attn::Table t({"context", "assigned label", "prediction", "bank's attention to context"});
  for (const auto& r : rows) {
    t.add({r.context, ch05::class_names()[r.label], ch05::class_names()[r.prediction], format_number(r.attention, 2)});
  }
  t.print(std::cout);
}

/// Section 6: the biased dataset.
void biased_dataset(const std::vector<ch05::BiasedRow>& rows) {
  attn::print_heading(std::cout, "6. Companion: attention learns the data, not the world");
  std::cout << "  Six sentences \"the CONTEXT bank\" with arbitrary labels (lawyer and attorney get opposite ones);\n"
               "  the same model and settings as section 2, vocabulary the, bank and the six contexts.\n";
  print_biased_table(rows);
  attn::print_claim(std::cout, ch05::fitted_claim(rows));
  std::cout << "  What it shows: this supervised toy fits arbitrary label assignments, including opposite labels\n"
               "  for near-synonyms. What it does not show: that a language model reproduces every bias in its\n"
               "  data, or that it cannot generalize. The attention column is one run's solution (the article's\n"
               "  PyTorch run had 0.00 / 1.00 alternating); small weights, the values and the classifier all\n"
               "  take part, so a rounded weight is not an explanation of a prediction.\n";
}

/// Section 6, continued: the same data from seeds 0-19, how often each attention pattern appears,
/// and the article's contrast for the first seed that shows it.
void biased_survey(const std::vector<ch05::BiasedRun>& runs) {
  std::cout
      << "  Which solution appears depends on the initialisation. The same data and settings, seeds "
      << runs.front().seed << "-" << runs.back().seed
      << ";\n  the pattern is bank's weight on the context word over each class's three sentences (near: within\n  "
      << format_number(ch05::kNearZero, 1) << " of 0 or 1; mixed: the three are not all near the same end):\n";
  attn::Table t({"pattern", "seeds", "which (all six fitted unless marked *)"});
  std::vector<bool> listed(runs.size(), false);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (listed[i]) continue;
    int count = 0;
    std::string which;
    for (std::size_t j = i; j < runs.size(); ++j) {
      if (!(runs[j].pattern == runs[i].pattern)) continue;
      listed[j] = true;
      ++count;
      if (!which.empty()) which.push_back(' ');
      which.append(std::to_string(runs[j].seed));
      if (runs[j].fitted != 6) which.push_back('*');
    }
    t.add({ch05::describe(runs[i].pattern), std::to_string(count), which});
  }
  t.print(std::cout);
  attn::print_claim(std::cout, ch05::claim_bias_02(runs));
  for (const ch05::BiasedRun& r : runs) {
    if (r.fitted != 6 || !r.pattern.contrast()) continue;
    std::cout << "  Seed " << r.seed << ", the article's contrast (" << ch05::describe(r.pattern) << "):\n";
    print_biased_table(r.rows);
    break;
  }
  std::cout << "  Both classes are fitted either way: one run sends bank to the context word for every sentence\n"
               "  and lets the values and the classifier separate them, another attends to the context for one\n"
               "  class and away from it for the other. The data do not choose between them; the starting point\n"
               "  decides which one the optimizer finds.\n";
}

/// The training figures: the loss, bank's weights during training, bank's weights after it.
void draw_training(attn::Plotter& plots, const std::vector<ch05::Prediction>& predictions, const ch05::TrainLog& log) {
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
    const ch05::Example& e = predictions[k].example;
    // A word keeps its colour in both figures; the and bank both end near 0: the dashes keep both visible.
    std::vector<attn::LineStyle> styles;
    const std::vector<int> dashes{1, 2, 4};
    for (std::size_t w = 0; w < e.words.size(); ++w) {
      styles.push_back({.colour = attn::word_colour(e.words[w]), .dashtype = dashes[w % dashes.size()]});
    }
    plots.lines({.name = std::string("ch05_bank_attention_") + e.words[1],
                 .title = "bank's attention weights during training, \"" + attn::join_words(e.words) + "\"",
                 .xlabel = "passes completed (log scale; the first point, at 0.5, is before training)",
                 .ylabel = "weight from bank",
                 .x = passes_axis,
                 .y = log.tracked[k],
                 .series = e.words,
                 .logx = true,
                 .yrange = std::make_pair(0.0, 1.0),
                 .styles = styles});
  }
  const auto& vocab = ch05::vocabulary();
  std::vector<std::string> labels;
  for (const auto& p : predictions) labels.push_back(attn::join_words(p.example.words));
  plots.heatmap({.name = "ch05_final_attention",
                 .title = "bank's attention after training, one row per example",
                 .xlabel = "source word",
                 .ylabel = "example",
                 .col_labels = vocab,
                 .row_labels = labels,
                 .values = ch05::weights_by_word(predictions, vocab.size()),
                 .cbrange = std::make_pair(0.0, 1.0),
                 .nan_label = "absent"});
}

/// The biased-dataset survey: bank's weight on each context word (rows), one column per seed.
void draw_survey(attn::Plotter& plots, const std::vector<ch05::BiasedRun>& survey) {
  std::vector<std::string> contexts, seeds;
  for (const ch05::BiasedRow& r : survey.front().rows) contexts.push_back(r.context + (r.label == 0 ? " (w)" : " (f)"));
  arma::mat weights(contexts.size(), survey.size());
  for (std::size_t j = 0; j < survey.size(); ++j) {
    seeds.push_back(std::to_string(survey[j].seed));
    for (std::size_t i = 0; i < contexts.size(); ++i) weights(i, j) = survey[j].rows[i].attention;
  }
  plots.heatmap({.name = "ch05_biased_seeds",
                 .title = "Biased dataset: bank's weight on the context word after training, per seed",
                 .xlabel = "seed of the initial parameters",
                 .ylabel = "context word (w water, f finance)",
                 .col_labels = seeds,
                 .row_labels = contexts,
                 .values = weights,
                 .cbrange = std::make_pair(0.0, 1.0),
                 .cell_labels = false,
                 .cblabel = "bank's weight"});
}

/// The companions' figures: feature recovery (if run) and the biased dataset (if run).
void draw_companions(attn::Plotter& plots, const ch05::FeatureRecovery* features,
                     const std::vector<ch05::BiasedRow>& biased, const std::vector<ch05::BiasedRun>& survey) {
  if (features != nullptr) {
    const arma::mat norms = ch05::feature_row_norms(*features);
    plots.bars({.name = "ch05_feature_recovery",
                .title = "Weight each map puts on each input feature: true vs learned",
                .xlabel = "input feature (0-2 query-relevant, 3-5 value-relevant, 6-8 distractors)",
                .ylabel = "row norm",
                // clang-format off
                .categories = {"0", "1", "2", "3", "4", "5", "6", "7", "8"},
                .series = {"Wq* (true)", "Wq (learned)", "Wv* (true)", "Wv (learned)"},
                .values = norms,
                .value_labels = false,
                .key = "top right"});  // the distractor features 6-8 leave that corner empty
    // clang-format on
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
  if (!survey.empty()) draw_survey(plots, survey);
}

/// Checks before training that `save_dir` (created if needed) and the folder of `loss_log` accept
/// new files, that `loss_log` is not a folder, and that it is not one of the files --save writes.
/// Throws attn::cli::UsageError (exit 2) naming the flag and the reason.
void check_outputs(const std::optional<std::string>& save_dir, const std::optional<std::string>& loss_log) {
  namespace fs = std::filesystem;
  if (save_dir) {
    if (const std::string problem = attn::folder_problem(*save_dir); !problem.empty()) {
      throw attn::cli::UsageError("--save: " + problem);
    }
    std::vector<fs::path> written = ch05::model_files(*save_dir);
    written.push_back(fs::path(*save_dir) / attn::kManifestName);
    for (const fs::path& f : written) {
      if (const std::string problem = attn::replace_problem(f); !problem.empty()) {
        throw attn::cli::UsageError("--save: " + problem);
      }
    }
  }
  if (loss_log) {
    const fs::path log(*loss_log);
    std::error_code ec;
    if (const std::string problem = attn::replace_problem(log); !problem.empty()) {
      throw attn::cli::UsageError("--loss-log: " + problem);
    }
    if (const std::string problem = attn::folder_problem(log.parent_path(), false); !problem.empty()) {
      throw attn::cli::UsageError("--loss-log: " + problem);
    }
    if (save_dir) {
      const fs::path target = fs::weakly_canonical(log, ec);
      std::vector<fs::path> written = ch05::model_files(*save_dir);
      written.push_back(fs::path(*save_dir) / attn::kManifestName);
      for (const fs::path& f : written) {
        std::error_code ec2;
        if (fs::weakly_canonical(f, ec2) == target) {
          throw attn::cli::UsageError("--loss-log " + attn::quoted_path(log) + " is " + attn::quoted_path(f) +
                                      ", one of the files --save writes");
        }
      }
    }
  }
}

const attn::cli::ProgramInfo kProgram{
    "ch05_training", "train one attention head with a hand-written backward pass and Adam; the article's companions",
    "\"Make it learn\", \"Follow one sentence through training\", \"Heads and blocks train together\",\n"
    "  \"Can two small matrices recover identifiable features?\", \"Attention learns the data, not the world\"",
    "  ch05_training\n  ch05_training --seed 3 --passes 100 --loss-log loss.txt --save trained\n"
    "  ch05_training --init trained --passes 1\n  ch05_training --walkthrough --updates 20\n"
    "  ch05_training --walkthrough --sentence 'the money bank' --follow 1,2\n"
    "  ch05_training --walkthrough --follow 21 --save walked   # Train 20 steps, then inspect\n"
    "  printf '\\n\\n\\n\\n\\n\\n\\n' | ch05_training --walkthrough --pause\n"
    "  ch05_training --walkthrough --seed 0   # the widget's Reset: the same seed starts over\n"
    "  ch05_training --bench"};

/// What the program does: train (the article's sections), step through one update, or time steps.
enum class Mode { train, walkthrough, bench };

/// What the reader asked for on the command line.
struct Flags {
  Mode mode = Mode::train;              ///< --walkthrough, --bench, or neither
  std::uint64_t seed = 0;               ///< --seed
  int passes = 300;                     ///< --passes
  int updates = 0;                      ///< --updates (walkthrough)
  std::size_t sentence = 0;             ///< --sentence (walkthrough): index into walkthrough_examples()
  std::vector<int> follow{1};           ///< --follow (walkthrough): updates shown stage by stage
  std::optional<double> lr;             ///< --lr (the mode's default otherwise)
  bool pause = false;                   ///< --pause (walkthrough)
  bool companions = true;               ///< not --no-companions
  std::optional<std::string> init_dir;  ///< --init
  std::optional<std::string> save_dir;  ///< --save
  std::optional<std::string> loss_log;  ///< --loss-log
  attn::PlotSettings plots;             ///< --plots, --no-plots
};

po::options_description options() {
  po::options_description options("Options");
  attn::cli::add_common_options(options);
  // clang-format off
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
      ("walkthrough", "the step-through widget: one update of the 2-d model in eight stages, every number; "
       "rerunning with the same --seed is its Reset")
      ("sentence", po::value<std::string>()->value_name("TEXT"),
       "with --walkthrough: the first update's sentence, 'the river bank' (default) or 'the money bank'")
      ("updates", po::value<int>()->value_name("N")->default_value(0),
       "with --walkthrough: continue for N more updates, alternating the sentences (0..100000)")
      ("follow", po::value<std::string>()->value_name("LIST")->default_value("1"),
       "with --walkthrough: the updates shown stage by stage, ascending, e.g. 1,2 or 21 (the walk runs at least "
       "as many updates as the last one)")
      ("pause", "with --walkthrough: wait for Enter between stages (stdin a terminal or a pipe)")
      ("bench", "time the optimizer steps of the article's training (this machine's measurement only)");
  // clang-format on
  return options;
}

/// Which flags belong to which mode: refuses a flag the chosen mode does not use.
void check_mode(const po::variables_map& vm, Mode mode) {
  using attn::cli::UsageError;
  const bool walk = mode == Mode::walkthrough, bench = mode == Mode::bench;
  const std::string name = walk ? "walkthrough" : "bench";
  for (const char* flag : {"init", "save", "loss-log", "no-companions"}) {
    if ((walk || bench) && vm.count(flag) && !(walk && std::string(flag) == "save")) {
      throw UsageError(std::string("--") + flag + " applies to training, not to --" + name);
    }
  }
  if (walk && !vm["passes"].defaulted()) {
    throw UsageError("--passes applies to training and --bench; the walkthrough counts --updates");
  }
  if (bench && vm.count("plots")) throw UsageError("--bench draws no plots, so --plots has nothing to write");
  if (!walk) {
    for (const char* flag : {"updates", "pause", "sentence", "follow"}) {
      if (vm.count(flag) && !vm[flag].defaulted()) {
        throw UsageError("--updates, --sentence, --follow and --pause need --walkthrough");
      }
    }
  }
}

/// --follow's list: update numbers 1 .. 100001, ascending, separated by commas ("1,2", "21").
/// Throws attn::cli::UsageError naming the entry that is not such a number.
std::vector<int> follow_list(const std::string& text) {
  constexpr int kLast = 100001;  // 1 + the largest --updates
  std::vector<int> out;
  for (const std::string& item : attn::cli::list("--follow", text)) {  // the list rule: "1, 2" too
    int k = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), k);
    if (ec != std::errc() || end != item.data() + item.size() || k < 1 || k > kLast ||
        (!out.empty() && k <= out.back())) {
      throw attn::cli::UsageError("--follow " + attn::quoted(text) + ": " + attn::quoted(item) +
                                  " is not an update number in 1.." + std::to_string(kLast) +
                                  " after the previous one (ascending, separated by commas)");
    }
    out.push_back(k);
  }
  return out;
}

/// The walkthrough's own flags: its sentence and the updates it follows stage by stage.
void read_walk_flags(const po::variables_map& vm, Flags& f) {
  const std::vector<ch05::Example> data = ch05::walkthrough_examples();
  std::vector<std::string> sentences;
  for (const ch05::Example& e : data) sentences.push_back(attn::join_words(e.words));
  f.sentence = vm.count("sentence") && attn::cli::choice(vm, "sentence", sentences) == sentences[1] ? 1 : 0;
  f.follow = follow_list(vm["follow"].as<std::string>());
}

/// The flags, or nothing after --help.
std::optional<Flags> read_flags(int argc, char** argv) {
  po::variables_map vm;
  if (!attn::cli::parse(argc, argv, options(), kProgram, vm)) return std::nullopt;
  Flags f;
  f.seed = attn::cli::seed(vm, "seed", std::numeric_limits<long long>::max());
  f.passes = static_cast<int>(attn::cli::integer(vm, "passes", 1, 100000));
  f.updates = static_cast<int>(attn::cli::integer(vm, "updates", 0, 100000));
  if (vm.count("lr")) {
    f.lr = attn::cli::finite("--lr", vm["lr"].as<double>());
    if (!(*f.lr > 0 && *f.lr <= 10)) {
      throw attn::cli::UsageError("--lr must be in (0, 10], got " + attn::cli::as_typed("--lr", *f.lr));
    }
  }
  const bool walk = vm.count("walkthrough") > 0, bench = vm.count("bench") > 0;
  if (walk && bench) throw attn::cli::UsageError("--walkthrough and --bench are separate modes");
  f.mode = walk ? Mode::walkthrough : bench ? Mode::bench : Mode::train;
  check_mode(vm, f.mode);
  if (walk) read_walk_flags(vm, f);
  f.pause = vm.count("pause") > 0;
  f.companions = vm.count("no-companions") == 0;
  if (const auto p = attn::cli::path(vm, "init")) f.init_dir = p->string();
  if (const auto p = attn::cli::path(vm, "save")) f.save_dir = p->string();
  if (const auto p = attn::cli::path(vm, "loss-log")) f.loss_log = p->string();
  if (f.mode != Mode::bench) f.plots = attn::cli::plot_settings(vm);  // --bench draws nothing
  return f;
}

/// True if standard input can deliver Enter presses: a terminal or a pipe (not /dev/null or a file).
bool stdin_can_pause() {
  struct stat st {};
  return ::isatty(STDIN_FILENO) || (::fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode));
}

/// The walkthrough's figures: for each followed update, every parameter group before the step, its
/// gradient and the group after; after more than one update, the parameters at the start and end.
void draw_walk(attn::Plotter& plots, const ch05::Walk& walk) {
  std::vector<std::string> rows;
  ch05::stack_groups(walk.initial, &rows);
  const std::vector<std::string> cols{"1", "2"};
  const auto panel = [&](const std::string& title, const arma::mat& values, double range, bool first = false) {
    return attn::Heatmap{.title = title,
                         .xlabel = "column: c1, c2 (Wc, bc: water, finance)",
                         .ylabel = first ? "parameter group, row" : "",
                         .col_labels = cols,
                         .row_labels = rows,
                         .values = values,
                         .cbrange = std::make_pair(-range, range)};
  };
  for (const ch05::WalkUpdate& u : walk.followed) {
    const arma::mat before = ch05::stack_groups(u.before), grad = ch05::stack_groups(u.grads),
                    after = ch05::stack_groups(u.after);
    const double range = std::max(arma::abs(before).max(), arma::abs(after).max());
    const double grange = std::max(arma::abs(grad).max(), 1e-12);
    attn::heatmap_panels(plots, "ch05_walkthrough_update_" + std::to_string(u.number),
                         "Update " + std::to_string(u.number) + ", \"" + attn::join_words(u.example.words) +
                             "\": the parameters, their gradient, the parameters after the SGD step",
                         {panel("before the step", before, range, true), panel("gradient", grad, grange),
                          panel("after the step", after, range)});
  }
  if (walk.total() == 1) return;
  const arma::mat start = ch05::stack_groups(walk.initial), end = ch05::stack_groups(walk.final);
  const double range = std::max(arma::abs(start).max(), arma::abs(end).max());
  attn::heatmap_panels(plots, "ch05_walkthrough_trained",
                       "Every parameter before update 1 and after update " + std::to_string(walk.total()),
                       {panel("at the start (seed " + std::to_string(walk.settings.seed) + ")", start, range, true),
                        panel("after " + std::to_string(walk.total()) + " updates", end, range)});
}

/// --walkthrough: the followed updates in eight stages, the others one line each, then the figures;
/// with --pause, waits for Enter between stages when standard input is a terminal or a pipe.
void run_walkthrough(const Flags& flags) {
  if (flags.save_dir) check_outputs(flags.save_dir, std::nullopt);
  attn::Plotter plots(flags.plots);
  bool pausing = flags.pause && stdin_can_pause();
  const bool echoes = ::isatty(STDIN_FILENO);
  const auto between = [&] {
    if (!pausing) return;
    std::cout << "  [Enter: next stage] " << std::flush;
    std::string ignored;
    if (!std::getline(std::cin, ignored)) pausing = false;  // the pipe ran dry: no more waiting
    if (!echoes) std::cout << '\n';                         // a terminal echoes the Enter; a pipe does not
  };
  const ch05::Walk walk = ch05::run_walk({.seed = flags.seed,
                                          .lr = flags.lr.value_or(0.3),
                                          .first = flags.sentence,
                                          .updates = flags.updates,
                                          .follow = flags.follow});
  ch05::print_walk(std::cout, walk, between);
  if (flags.save_dir) {
    ch05::save_model(walk.final, *flags.save_dir);
    std::cout << "  parameters after " << attn::counted(static_cast<long long>(walk.total()), "update")
              << " written to " << *flags.save_dir << " (E, Wq, Wk, Wv, Wc, bc .txt)\n";
  }
  std::cout << '\n';
  draw_walk(plots, walk);
  plots.report(std::cout);
}

ch05::TrainSettings train_settings(const Flags& flags) {
  ch05::TrainSettings settings;
  settings.seed = flags.seed;
  settings.passes = flags.passes;
  settings.lr = flags.lr.value_or(0.05);
  return settings;
}

/// --bench: the best of 20 timed runs of the article's training, measured here (the article reports
/// no timing, so there is nothing of its to compare with).
void run_bench(const Flags& flags) {
  const ch05::TrainSettings settings = train_settings(flags);
  std::cout << "Chapter 05 - benchmark: time per optimizer step of the article's training\n"
            << "  (d = 8, 4 examples, " << attn::counted(settings.passes, "pass", "passes")
            << ", forward + hand-written backward + Adam)\n";
  ch05::microseconds_per_step(settings, 1);  // warm up caches and allocations
  const double us = ch05::microseconds_per_step(settings, 20);
  std::cout << "  best of 20 runs: " << format_number(us, 3) << " us per step on this machine\n"
            << "  (wall time, so it varies with load; the article states no timing to compare with)\n";
}

/// Training writes its outputs (the loss log, the parameters) as soon as it is done.
void write_outputs(const Flags& flags, const attn::OneHeadModel& model, const ch05::TrainLog& log) {
  if (flags.loss_log) {
    ch05::write_loss_log(log.pass_loss, *flags.loss_log);
    std::cout << "  per-pass mean losses written to " << *flags.loss_log << '\n';
  }
  if (flags.save_dir) {
    ch05::save_model(model, *flags.save_dir);
    std::cout << "  trained parameters written to " << *flags.save_dir << " (E, Wq, Wk, Wv, Wc, bc .txt)\n";
  }
}

/// Sections 2 to 4 of the article's run: the training, the trained model's predictions, and the
/// gradients of the very first update.
struct TrainingRun {
  ch05::TrainLog log;                         ///< section 2: per-pass losses, bank's tracked rows
  double final_loss = 0.0;                    ///< section 2: mean loss of the trained model
  std::vector<ch05::Prediction> predictions;  ///< section 3
  attn::OneHeadGrads first;                   ///< section 4: from the initial parameters, example 0
};

/// Sections 5 and 6, the companions (left empty by --no-companions).
struct Companions {
  std::optional<ch05::FeatureRecovery> features{};  ///< section 5
  std::vector<ch05::BiasedRow> biased{};            ///< section 6: the --seed run
  std::vector<ch05::BiasedRun> survey{};            ///< section 6: seeds 0-19
};

/// The companions keep the article's settings, with the reader's --seed.
Companions run_companions(std::uint64_t seed) {
  ch05::TrainSettings article;
  article.seed = seed;
  return {.features = ch05::recover_features(),
          .biased = ch05::train_biased(article),
          .survey = ch05::survey_biased_seeds(article, 0, kSurveySeeds)};
}

/// The article's sections: the model, training, predictions, one loss for every group, the companions.
/// Sections 1 and 2 print before the divergence check, so a diverging run shows its losses.
void run_training(const Flags& flags) {
  const ch05::TrainSettings settings = train_settings(flags);
  check_outputs(flags.save_dir, flags.loss_log);  // fail before any work if the outputs cannot be written
  const std::vector<ch05::Example> data = ch05::article_examples();
  const attn::OneHeadModel initial = flags.init_dir ? ch05::load_model(*flags.init_dir, ch05::vocabulary().size(), 2)
                                                    : ch05::initial_model(ch05::vocabulary().size(), settings);
  attn::Plotter plots(flags.plots);
  attn::OneHeadModel model = initial;
  TrainingRun run;
  run.log = ch05::train(model, data, settings.passes, settings.lr, {0, 1});
  run.final_loss = ch05::mean_loss(model, data);

  std::cout << "Chapter 05 - Training: one head learned by hand-written backpropagation and Adam\n";
  describe_model(initial, flags.init_dir
                              ? "read from " + *flags.init_dir
                              : "initialized as PyTorch does (embedding N(0,1), linear U(+-1/sqrt(fan_in))), seed " +
                                    std::to_string(flags.seed));
  print_training(run.log, settings.lr, run.final_loss);
  attn::require_converging(arma::conv_to<std::vector<double>>::from(run.log.pass_loss), "pass", settings.lr);
  write_outputs(flags, model, run.log);

  run.predictions = ch05::predictions(model, data);
  run.first = attn::one_head_backward(initial, attn::one_head_forward(initial, data[0].ids, data[0].label));
  const Companions companions = flags.companions ? run_companions(flags.seed) : Companions{};

  report_predictions(run.predictions);
  heads_and_blocks(run.first, data[0]);
  if (companions.features) {
    feature_recovery(*companions.features);
    biased_dataset(companions.biased);
    biased_survey(companions.survey);
  }
  std::cout << "\nWall time (varies from run to run; see --bench): the training loop of section 2 took "
            << format_number(1e3 * run.log.seconds, 2) << " ms\n  for " << run.log.steps << " optimizer steps.\n\n";
  draw_training(plots, run.predictions, run.log);
  draw_companions(plots, companions.features ? &*companions.features : nullptr, companions.biased, companions.survey);
  plots.report(std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  return attn::cli::run(kProgram.name, [&] {
    const std::optional<Flags> flags = read_flags(argc, argv);
    if (!flags) return 0;
    switch (flags->mode) {
      case Mode::walkthrough:
        run_walkthrough(*flags);
        break;
      case Mode::bench:
        run_bench(*flags);
        break;
      case Mode::train:
        run_training(*flags);
        break;
    }
    return 0;
  });
}
