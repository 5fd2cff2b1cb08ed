/// \file chapters/05_training/report.cpp
/// \brief The printed sections (see report.hpp).
#include "report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "claims.hpp"
#include "common/apparatus/print.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/toy.hpp"

namespace ch05 {

using app::format_number;

namespace {

/// A loss in scientific notation (losses fall by many orders of magnitude): "6.24e-01".
std::string format_loss(double x) { return fmt::format("{:.2e}", x); }

/// The biased-dataset table of one run.
void print_biased_table(std::ostream& out, const std::vector<BiasedRow>& rows) {
  app::Table t({"context", "assigned label", "prediction", "bank's attention to context"});
  for (const auto& r : rows) {
    t.add({r.context, class_names()[r.label], class_names()[r.prediction], format_number(r.attention, 2)});
  }
  t.print(out);
}

/// Section 6, continued: the same data from seeds 0-19, how often each attention pattern appears,
/// and how often the article's contrast does (a rate).
void print_survey(std::ostream& out, const Companions& c) {
  const std::vector<BiasedRun>& runs = c.survey;
  fmt::print(out,
             "  Which solution appears depends on the initialisation. The same data and settings, seeds {}-{};\n"
             "  the pattern is bank's weight on the context word over each class's three sentences (near: within\n"
             "  {} of 0 or 1; mixed: the three are not all near the same end):\n",
             runs.front().seed, runs.back().seed, format_number(kNearZero, 1));
  app::Table t({"pattern", "seeds", "which (all six fitted unless marked *)"});
  for (const PatternGroup& g : c.patterns) {
    std::string which;
    for (const std::size_t i : g.members) {
      which += fmt::format("{}{}{}", which.empty() ? "" : " ", runs[i].seed, runs[i].fitted != 6 ? "*" : "");
    }
    t.add({describe(g.pattern), std::to_string(g.members.size()), which});
  }
  t.print(out);
  app::print_claim(out, claim_bias_02(runs));
  fmt::print(out, "  How rare the article's case is here: {} of {} seeds ({}%).\n", c.contrast_count, runs.size(),
             format_number(100.0 * static_cast<double>(c.contrast_count) / static_cast<double>(runs.size()), 0));
  fmt::print(out,
             "  Both classes are fitted either way: one run sends bank to the context word for every sentence\n"
             "  and lets the values and the classifier separate them, another attends to the context for one\n"
             "  class and away from it for the other. The data do not choose between them; the starting point\n"
             "  decides which one the optimizer finds.\n");
}

}  // namespace

// ---- the article's training run ------------------------------------------------------------------

void print_model(std::ostream& out, const TrainingRun& run, const std::optional<std::string>& init_dir) {
  const attn::OneHeadModel& m = run.initial;
  fmt::print(out, "Chapter 05 - Training: one head learned by hand-written backpropagation and Adam\n");
  app::print_heading(out, "1. The model: lookup, one head, a classifier on the last position");
  fmt::print(out, "  vocabulary: the, river, money, bank;  classes: water (0), finance (1);  d = {}\n", m.E.n_cols);
  if (init_dir) {
    fmt::print(out, "  parameters read from {}\n", *init_dir);
  } else {
    fmt::print(out,
               "  parameters initialized as PyTorch does (embedding N(0,1), linear U(+-1/sqrt(fan_in))), seed {}\n",
               run.settings.seed);
  }
  app::Table t({"group", "shape", "parameters"});
  for (const auto& group : attn::kOneHeadGroups) {
    const arma::mat& M = m.*group.value;
    t.add({group.label, attn::shape(M), std::to_string(M.n_elem)});
  }
  t.add({"total", "", std::to_string(attn::parameter_count(m))});
  t.print(out);
  app::print_claim(out, claim_parameter_count(m));
}

void print_training(std::ostream& out, const TrainingRun& run) {
  const int passes = static_cast<int>(run.log.pass_loss.n_elem);
  app::print_heading(out, fmt::format("2. Training: Adam (lr {}), {} over the four examples, one step per example",
                                      format_number(run.settings.lr, 3), app::counted(passes, "pass", "passes")));
  fmt::print(out,
             "  forward pass, hand-written backward pass (common/attention/backprop.hpp), one Adam step,\n"
             "  the examples in the article's order\n");
  for (int pass = 1; pass <= passes; ++pass) {
    if (pass == 1 || pass % 50 == 0 || pass == passes) {
      fmt::print(out, "  pass {:>5}   mean loss {}\n", pass, format_loss(run.log.pass_loss(pass - 1)));
    }
  }
  fmt::print(out, "  mean loss after training: {}\n", format_loss(run.final_loss));
}

void print_findings(std::ostream& out, const Findings& f) {
  app::print_heading(out, "3. What the trained model does");
  fmt::print(out, "  sentence          target -> prediction, and bank's attention row\n");
  for (const auto& [e, predicted, weights, uniform] : f.predictions) {
    fmt::print(out, "  {:<17} {:<7} -> {:<7}  bank attends to", fmt::format("\"{}\"", attn::join_words(e.words)),
               class_names()[e.label], class_names()[predicted]);
    for (arma::uword j = 0; j < e.words.size(); ++j)
      fmt::print(out, " {} {}", e.words[j], format_number(weights(j), 2));
    fmt::print(out, "\n");
  }
  app::print_claim(out, claim_predictions(f.predictions));
  app::print_claim(out, claim_rows_reported(f.predictions));
  app::print_claim(out, claim_uniform_routing(f.predictions));
  fmt::print(out,
             "  The attention rows are printed rounded and are one solution among many: the article's PyTorch\n"
             "  seed-0 run routed bank almost entirely to river / money, yet selective routing is not required\n"
             "  (the line above asks the same model again with a uniform row), and a rounded 0.00 is not an\n"
             "  exact zero. Our random numbers differ from PyTorch's, so the learned rows may differ too.\n"
             "  There is no held-out test: this shows fitting a tiny task.\n");

  app::print_heading(out, "4. Heads and blocks train together: one loss, every parameter group");
  fmt::print(out, "  (the first update of training, from the initial parameters)\n");
  fmt::print(out, "  gradient sizes (Frobenius norms) from the loss of \"{}\":\n   ",
             attn::join_words(f.first_example.words));
  for (std::size_t k = 0; k < f.first_norms.n_elem; ++k) {
    fmt::print(out, " {} {}", attn::kOneHeadGroups[k].name, format_number(f.first_norms(k), 4));
  }
  fmt::print(out,
             "\n  Backpropagation carries one loss through the classifier, the mixture, softmax, the scores, all\n"
             "  three projections and back to the embedding rows of the words present; one optimizer step\n"
             "  updates them together. A full transformer does the same across all heads of all blocks.\n");
}

void print_companions(std::ostream& out, const Companions& c) {
  if (!c.features) return;
  const FeatureRecovery& r = *c.features;
  app::print_heading(out, "5. Companion: can two small matrices recover identifiable features?");
  fmt::print(out,
             "  Only Wq and Wv (each 9 x 3) are trained; the four keys and the 3-d output space are fixed.\n"
             "  The data come from known maps: Wq* reads query features 0-2, Wv* reads source features 3-5,\n"
             "  features 6-8 are distractors read by neither. 256 training and 256 held-out examples.\n");
  app::print_claim(out, claim_feature_fit(r));
  app::print_claim(out, claim_feature_maps(r));
  app::Table t({"feature", "role", "|Wq* row|", "|Wq row|", "|Wv* row|", "|Wv row|", "query move", "source move"});
  const arma::mat& norms = c.feature_norms;
  for (arma::uword f = 0; f < norms.n_rows; ++f) {
    const char* role = f < 3 ? "query" : f < 6 ? "value" : "distractor";
    t.add({std::to_string(f), role, format_number(norms(f, 0), 3), format_number(norms(f, 1), 3),
           format_number(norms(f, 2), 3), format_number(norms(f, 3), 3), format_number(r.query_effect(f), 4),
           format_number(r.source_effect(f), 4)});
  }
  t.print(out);
  app::print_claim(out, claim_interventions(r));
  fmt::print(out,
             "  The fixed keys and targets are what make the features identifiable here; a freely trained\n"
             "  model could spread the same function over rotated, unnamed coordinates.\n");

  app::print_heading(out, "6. Companion: attention learns the data, not the world");
  fmt::print(out,
             "  Six sentences \"the CONTEXT bank\" with arbitrary labels (lawyer and attorney get opposite ones);\n"
             "  the same model and settings as section 2, vocabulary the, bank and the six contexts.\n");
  if (c.contrast) {
    const BiasedRun& r = c.survey[*c.contrast];
    fmt::print(out,
               "  The article's case, picked by a rule: the first of seeds {}-{} whose run fits all six with bank's\n"
               "  weight on the context word within {} of 0 for one class and of 1 for the other.\n"
               "  Seed {} ({}):\n",
               c.survey.front().seed, c.survey.back().seed, format_number(kNearZero, 1), r.seed, describe(r.pattern));
    print_biased_table(out, r.rows);
  } else {
    fmt::print(out,
               "  None of seeds {}-{} fits all six with one class near 0 and the other near 1 (the article's case).\n",
               c.survey.front().seed, c.survey.back().seed);
  }
  fmt::print(out, "  Your seed ({}), the same data and settings:\n", c.seed);
  print_biased_table(out, c.biased);
  app::print_claim(out, claim_fitted(c.biased));
  fmt::print(out,
             "  What it shows: this supervised toy fits arbitrary label assignments, including opposite labels\n"
             "  for near-synonyms. What it does not show: that a language model reproduces every bias in its\n"
             "  data, or that it cannot generalize. Each attention column is one run's solution; small weights,\n"
             "  the values and the classifier all take part, so a rounded weight is not an explanation of a\n"
             "  prediction.\n");
  print_survey(out, c);
}

void print_wall_time(std::ostream& out, const TrainLog& log) {
  fmt::print(out, "\nWall time (varies from run to run; see --bench): the training loop of section 2 took {} ms\n",
             format_number(1e3 * log.seconds, 2));
  fmt::print(out, "  for {} optimizer steps.\n\n", log.steps);
}

// ---- the benchmark -------------------------------------------------------------------------------

void print_bench(std::ostream& out, const Bench& bench) {
  fmt::print(out, "Chapter 05 - benchmark: time per optimizer step of the article's training\n");
  fmt::print(out, "  (d = 8, 4 examples, {}, forward + hand-written backward + Adam)\n",
             app::counted(bench.settings.passes, "pass", "passes"));
  fmt::print(out, "  best of {} runs: {} us per step on this machine\n", bench.repeats,
             format_number(bench.microseconds, 3));
  fmt::print(out, "  (wall time, so it varies with load; the article states no timing to compare with)\n");
}

// ---- the step-through ----------------------------------------------------------------------------

namespace {

constexpr int kDigits = 4;                           // every number of the two-coordinate model, to four decimals
const std::vector<std::string> kCoords{"c1", "c2"};  // the two learned coordinates, unnamed on purpose

/// "1 update", "20 updates": app::counted for the sizes a walk counts in.
std::string counted(std::size_t n, const std::string& noun) { return app::counted(static_cast<long long>(n), noun); }

/// What the step-through follows: "update 1", "updates 1 and 2", "updates 1, 2 and 21", and for
/// longer lists "7 updates, from 1 to 40" ("0 updates" for none).
std::string followed_updates(const std::vector<WalkUpdate>& followed) {
  if (followed.empty()) return counted(0, "update");
  if (followed.size() == 1) return "update " + std::to_string(followed.front().number);
  if (followed.size() > 4) {
    return counted(followed.size(), "update") + ", from " + std::to_string(followed.front().number) + " to " +
           std::to_string(followed.back().number);
  }
  std::string list = "updates ";
  for (std::size_t k = 0; k < followed.size(); ++k) {
    list += (k == 0 ? "" : k + 1 == followed.size() ? " and " : ", ") + std::to_string(followed[k].number);
  }
  return list;
}

void matrix(std::ostream& out, const std::string& title, const std::vector<std::string>& rows, const arma::mat& M) {
  out << "  " << title << " (" << attn::shape(M) << ")\n";
  app::print_matrix(out, rows, M, kDigits);
}

void stage(std::ostream& out, int number, const std::string& title, const std::function<void()>& between) {
  if (number > 1 && between) between();
  app::print_heading(out, "Stage " + std::to_string(number) + " of 8. " + title);
}

/// Stages 1 to 3: the sentence, the lookup, the projections.
void print_inputs(std::ostream& out, const Example& e, const WalkUpdate& u, std::uint64_t seed,
                  const std::function<void()>& between) {
  if (u.number > 1) {
    app::print_heading(out, "Update " + std::to_string(u.number) + ": \"" + attn::join_words(e.words) +
                                "\", with the parameters after " +
                                counted(static_cast<std::size_t>(u.number - 1), "update"));
  }
  const auto& words = e.words;
  const attn::OneHeadPass& p = u.pass;
  stage(out, 1, "Sentence", between);
  out << "  \"" << attn::join_words(words) << "\"  token ids "
      << app::format_vector(arma::conv_to<arma::rowvec>::from(e.ids), 0) << "   target: " << class_names()[e.label]
      << " (" << e.label << ")\n"
      << "  The classifier reads only the mixture at '" << words.back()
      << "'. The target enters the loss, not the attention.\n"
      << (u.number == 1
              ? "  Parameters start from repeatable random numbers (seed " + std::to_string(seed) +
                    "); the classifier bias starts at zero.\n"
              : "  Parameters: the shared ones after " + counted(static_cast<std::size_t>(u.number - 1), "update") +
                    " (the widget's Next sentence keeps them).\n");

  stage(out, 2, "Lookup: X = E[ids]", between);
  matrix(out, "embedding table E, one row per vocabulary word (a parameter)", vocabulary(), u.before.E);
  matrix(out, "X, one row per token of the sentence (computed)", words, p.X);

  stage(out, 3, "Q / K / V: Q = X Wq, K = X Wk, V = X Wv", between);
  matrix(out, "Wq (parameter)", kCoords, u.before.Wq);
  matrix(out, "Wk (parameter)", kCoords, u.before.Wk);
  matrix(out, "Wv (parameter)", kCoords, u.before.Wv);
  matrix(out, "Q (computed)", words, p.Q);
  matrix(out, "K (computed)", words, p.K);
  matrix(out, "V (computed)", words, p.V);
}

/// Stages 4 to 6: the mixture, the prediction, the loss.
void print_outputs(std::ostream& out, const Example& e, const WalkUpdate& u, const std::function<void()>& between) {
  const auto& words = e.words;
  const attn::OneHeadPass& p = u.pass;
  stage(out, 4, "Mixture: S = Q K^T / sqrt(2), A = softmax(S), H = A V", between);
  matrix(out, "S, row i: scores of position i over the sources", words, p.S);
  matrix(out, "A, row i: weights of position i (each row sums to 1)", words, p.A);
  matrix(out, "H, row i: the mixture received at position i", words, p.H);
  out << "  The classifier reads h = H['" << words.back()
      << "'] = " << app::format_vector(arma::rowvec(p.H.row(p.H.n_rows - 1)), kDigits) << "\n";

  stage(out, 5, "Prediction: logits = h Wc + bc", between);
  matrix(out, "Wc (parameter)", kCoords, u.before.Wc);
  matrix(out, "bc (parameter)", {"bias"}, u.before.bc);
  out << "  logits (water, finance):        " << app::format_vector(arma::rowvec(p.logits), kDigits) << '\n'
      << "  softmax(logits) = probabilities: " << app::format_vector(arma::rowvec(p.probs), kDigits)
      << "   predicted: " << class_names()[p.logits.index_max()] << '\n';

  stage(out, 6, "Loss: -log p[target]", between);
  out << "  loss = -log " << app::format_number(p.probs(e.label), kDigits) << " = "
      << app::format_number(p.loss, kDigits) << " nats (target " << class_names()[e.label] << ")\n";
}

/// Stage 7: every gradient, and the rows of dE that must be zero.
void print_gradients(std::ostream& out, const Example& e, const WalkUpdate& u, const std::function<void()>& between) {
  const auto& words = e.words;
  const auto& vocab = vocabulary();
  const attn::OneHeadGrads& g = u.grads;
  stage(out, 7, "Gradients of the loss (the parameters have not changed yet)", between);
  out << "  dlogits = p - onehot(target): " << app::format_vector(arma::rowvec(g.dlogits), kDigits) << '\n';
  matrix(out, "dH (only the last row reaches the classifier)", words, g.dH);
  matrix(out, "dA", words, g.dA);
  matrix(out, "dS (softmax backward, full Jacobian)", words, g.dS);
  matrix(out, "dX (through Q, K and V)", words, g.dX);
  matrix(out, "dE (gathered back to vocabulary rows)", vocab, g.E);
  for (const app::ClaimCheck& claim : claim_absent_rows(e, g)) app::print_claim(out, claim);
  for (const auto& group : attn::kOneHeadGroups) {
    if (group.rows != attn::Dim::vocab) matrix(out, std::string("d") + group.name, group_rows(group), g.*group.grad);
  }
}

/// Stage 8: the parameters after the step, and the same sentence through them.
void print_step(std::ostream& out, const Example& e, const WalkUpdate& u, double lr,
                const std::function<void()>& between) {
  stage(out, 8, "Update: theta <- theta - " + app::format_number(lr, 2) + " x gradient (SGD)", between);
  for (const auto& group : attn::kOneHeadGroups) {
    matrix(out, std::string(group.name) + " after", group_rows(group), u.after.*group.value);
  }
  std::ostringstream line;
  line << "  The same sentence again: loss " << app::format_number(u.pass.loss, kDigits) << " -> "
       << app::format_number(u.again.loss, kDigits) << ", p[" << class_names()[e.label] << "] "
       << app::format_number(u.pass.probs(e.label), kDigits) << " -> "
       << app::format_number(u.again.probs(e.label), kDigits) << ".";
  const std::string done = "Completed updates: " + std::to_string(u.number) + ".";
  out << line.str() << (line.str().size() + 1 + done.size() <= 100 ? " " : "\n  ") << done << '\n';
}

/// A run of updates shown one line each, under one heading: "Updates 1 to 20 first, ..." when they
/// come before every followed update, "Continuing for 20 more updates, ..." after one.
void print_quick(std::ostream& out, const std::vector<QuickUpdate>& run) {
  const std::vector<Example> data = walkthrough_examples();
  const std::string first = std::to_string(run.front().number), last = std::to_string(run.back().number);
  const std::string what =
      run.size() == 1 ? "Update " + first + " first, in one line"
                      : "Updates " + first + (run.size() == 2 ? " and " : " to ") + last + " first, one line each";
  app::print_heading(out, (run.front().number == 1 ? what : "Continuing for " + counted(run.size(), "more update")) +
                              ", alternating the two examples");
  for (const QuickUpdate& q : run) {
    const Example& x = data[q.sentence];
    out << "  update " << q.number << ": \"" << attn::join_words(x.words) << "\" (" << class_names()[x.label]
        << ")  loss before " << app::format_number(q.loss, kDigits) << '\n';
  }
}

/// Where the model stands after the last update, and its parameter tables (the widget's view after
/// "Train 20 steps").
void print_end(std::ostream& out, const Walk& walk) {
  const std::vector<Example> data = walkthrough_examples();
  out << "  After " << walk.total() << " updates:\n";
  for (std::size_t k = 0; k < data.size(); ++k) {
    const Example& x = data[k];
    const attn::OneHeadPass& q = walk.end[k];
    out << "    \"" << attn::join_words(x.words)
        << "\": p(water, finance) = " << app::format_vector(arma::rowvec(q.probs), kDigits) << ",\n      predicted "
        << class_names()[q.logits.index_max()] << ", " << data[0].words.back() << "'s weights "
        << app::format_vector(arma::rowvec(q.A.row(q.A.n_rows - 1)), 2) << '\n';
  }
  app::print_heading(out, "Parameters after " + std::to_string(walk.total()) + " updates (rerun with --seed " +
                              std::to_string(walk.settings.seed) + " to reset)");
  for (const auto& group : attn::kOneHeadGroups) {
    matrix(out, group.name, group_rows(group), walk.final.*group.value);
  }
}

}  // namespace

const std::vector<std::string>& group_rows(const attn::ParameterGroup& group) {
  static const std::vector<std::string> bias{"bias"};
  if (group.rows == attn::Dim::vocab) return vocabulary();
  return group.rows == attn::Dim::one ? bias : kCoords;
}

void print_walk(std::ostream& out, const Walk& walk, const std::function<void()>& between) {
  const WalkSettings& s = walk.settings;
  const std::string what = "Step-through of " + followed_updates(walk.followed) + ":";
  const std::string model = "one head, two learned coordinates (c1, c2, no hand-given meaning),";
  out << what << (what.size() + 1 + model.size() <= 100 ? " " : "\n") << model << '\n'
      << "two classes, SGD with learning rate " << app::format_number(s.lr, 2) << ", seed "
      << s.seed
      // the updates completed before the first one followed stage by stage (0 at the start)
      << ". Completed updates: " << (walk.followed.empty() ? 0 : walk.followed.front().number - 1) << ".\n";
  std::size_t q = 0;
  for (const WalkUpdate& u : walk.followed) {
    std::vector<QuickUpdate> run;
    while (q < walk.quick.size() && walk.quick[q].number < u.number) run.push_back(walk.quick[q++]);
    if (!run.empty()) print_quick(out, run);
    if (u.number > 1 && between) between();
    print_inputs(out, u.example, u, s.seed, between);
    print_outputs(out, u.example, u, between);
    print_gradients(out, u.example, u, between);
    print_step(out, u.example, u, s.lr, between);
  }
  if (q < walk.quick.size()) print_quick(out, {walk.quick.begin() + static_cast<std::ptrdiff_t>(q), walk.quick.end()});
  if (walk.total() > 1) print_end(out, walk);
}
std::function<void()> stage_pause(bool pause) {
  // Standard input can deliver Enter presses if it is a terminal or a pipe (not /dev/null or a file).
  struct stat st {};
  const bool can = ::isatty(STDIN_FILENO) || (::fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode));
  if (!pause || !can) return {};
  const auto pausing = std::make_shared<bool>(true);
  const bool echoes = ::isatty(STDIN_FILENO);
  return [pausing, echoes] {
    if (!*pausing) return;
    std::cout << "  [Enter: next stage] " << std::flush;
    std::string ignored;
    if (!std::getline(std::cin, ignored)) *pausing = false;  // the pipe ran dry: no more waiting
    if (!echoes) std::cout << '\n';                          // a terminal echoes the Enter; a pipe does not
  };
}

}  // namespace ch05
