/// \file walkthrough.cpp
/// \brief Chapter 05: the step-through widget in the terminal (see training.hpp, walkthrough()).
#include <algorithm>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "common/apparatus/print.hpp"
#include "common/attention/attention.hpp"
#include "common/attention/optim.hpp"
#include "common/attention/toy.hpp"
#include "training.hpp"

namespace ch05 {
namespace {

constexpr int kDigits = 4;  // every number of the two-coordinate model, to four decimals

/// "1 update", "20 updates": attn::counted for the sizes a walk counts in.
std::string counted(std::size_t n, const std::string& noun) { return attn::counted(static_cast<long long>(n), noun); }

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

const std::vector<std::string> kCoords{"c1", "c2"};  // the two learned coordinates, unnamed on purpose

void matrix(std::ostream& out, const std::string& title, const std::vector<std::string>& rows, const arma::mat& M) {
  out << "  " << title << " (" << attn::shape(M) << ")\n";
  attn::print_matrix(out, rows, M, kDigits);
}

void stage(std::ostream& out, int number, const std::string& title, const std::function<void()>& between) {
  if (number > 1 && between) between();
  attn::print_heading(out, "Stage " + std::to_string(number) + " of 8. " + title);
}

/// The row labels of a parameter group: the vocabulary for E, the coordinates for the
/// projections and the classifier, "bias" for bc.
const std::vector<std::string>& group_rows(const attn::ParameterGroup& group) {
  static const std::vector<std::string> bias{"bias"};
  if (group.rows == attn::Dim::vocab) return vocabulary();
  return group.rows == attn::Dim::one ? bias : kCoords;
}

/// Stages 1 to 3: the sentence, the lookup, the projections.
void print_inputs(std::ostream& out, const Example& e, const WalkUpdate& u, std::uint64_t seed,
                  const std::function<void()>& between) {
  if (u.number > 1) {
    attn::print_heading(out, "Update " + std::to_string(u.number) + ": \"" + attn::join_words(e.words) +
                                 "\", with the parameters after " +
                                 counted(static_cast<std::size_t>(u.number - 1), "update"));
  }
  const auto& words = e.words;
  const attn::OneHeadPass& p = u.pass;
  stage(out, 1, "Sentence", between);
  out << "  \"" << attn::join_words(words) << "\"  token ids "
      << attn::format_vector(arma::conv_to<arma::rowvec>::from(e.ids), 0) << "   target: " << class_names()[e.label]
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
      << "'] = " << attn::format_vector(arma::rowvec(p.H.row(p.H.n_rows - 1)), kDigits) << "\n";

  stage(out, 5, "Prediction: logits = h Wc + bc", between);
  matrix(out, "Wc (parameter)", kCoords, u.before.Wc);
  matrix(out, "bc (parameter)", {"bias"}, u.before.bc);
  out << "  logits (water, finance):        " << attn::format_vector(arma::rowvec(p.logits), kDigits) << '\n'
      << "  softmax(logits) = probabilities: " << attn::format_vector(arma::rowvec(p.probs), kDigits)
      << "   predicted: " << class_names()[p.logits.index_max()] << '\n';

  stage(out, 6, "Loss: -log p[target]", between);
  out << "  loss = -log " << attn::format_number(p.probs(e.label), kDigits) << " = "
      << attn::format_number(p.loss, kDigits) << " nats (target " << class_names()[e.label] << ")\n";
}

/// Stage 7: every gradient, and the rows of dE that must be zero.
void print_gradients(std::ostream& out, const Example& e, const WalkUpdate& u, const std::function<void()>& between) {
  const auto& words = e.words;
  const auto& vocab = vocabulary();
  const attn::OneHeadGrads& g = u.grads;
  stage(out, 7, "Gradients of the loss (the parameters have not changed yet)", between);
  out << "  dlogits = p - onehot(target): " << attn::format_vector(arma::rowvec(g.dlogits), kDigits) << '\n';
  matrix(out, "dH (only the last row reaches the classifier)", words, g.dH);
  matrix(out, "dA", words, g.dA);
  matrix(out, "dS (softmax backward, full Jacobian)", words, g.dS);
  matrix(out, "dX (through Q, K and V)", words, g.dX);
  matrix(out, "dE (gathered back to vocabulary rows)", vocab, g.E);
  for (const attn::ClaimCheck& claim : absent_rows_claims(e, g)) attn::print_claim(out, claim);
  for (const auto& group : attn::kOneHeadGroups) {
    if (group.rows != attn::Dim::vocab) matrix(out, std::string("d") + group.name, group_rows(group), g.*group.grad);
  }
}

/// Stage 8: the parameters after the step, and the same sentence through them.
void print_step(std::ostream& out, const Example& e, const WalkUpdate& u, double lr,
                const std::function<void()>& between) {
  stage(out, 8, "Update: theta <- theta - " + attn::format_number(lr, 2) + " x gradient (SGD)", between);
  for (const auto& group : attn::kOneHeadGroups) {
    matrix(out, std::string(group.name) + " after", group_rows(group), u.after.*group.value);
  }
  std::ostringstream line;
  line << "  The same sentence again: loss " << attn::format_number(u.pass.loss, kDigits) << " -> "
       << attn::format_number(u.again.loss, kDigits) << ", p[" << class_names()[e.label] << "] "
       << attn::format_number(u.pass.probs(e.label), kDigits) << " -> "
       << attn::format_number(u.again.probs(e.label), kDigits) << ".";
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
  attn::print_heading(out, (run.front().number == 1 ? what : "Continuing for " + counted(run.size(), "more update")) +
                               ", alternating the two examples");
  for (const QuickUpdate& q : run) {
    const Example& x = data[q.sentence];
    out << "  update " << q.number << ": \"" << attn::join_words(x.words) << "\" (" << class_names()[x.label]
        << ")  loss before " << attn::format_number(q.loss, kDigits) << '\n';
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
        << "\": p(water, finance) = " << attn::format_vector(arma::rowvec(q.probs), kDigits) << ",\n      predicted "
        << class_names()[q.logits.index_max()] << ", " << data[0].words.back() << "'s weights "
        << attn::format_vector(arma::rowvec(q.A.row(q.A.n_rows - 1)), 2) << '\n';
  }
  attn::print_heading(out, "Parameters after " + std::to_string(walk.total()) + " updates (rerun with --seed " +
                               std::to_string(walk.settings.seed) + " to reset)");
  for (const auto& group : attn::kOneHeadGroups) {
    matrix(out, group.name, group_rows(group), walk.final.*group.value);
  }
}

/// One update applied in place: forward, backward, SGD step. Returns the loss before the step.
double apply_update(attn::OneHeadModel& model, const Example& x, const attn::Sgd& sgd, attn::OneHeadPass& p,
                    attn::OneHeadGrads& grads) {
  attn::one_head_forward(model, x.ids, x.label, p);
  attn::one_head_backward(model, p, grads);
  sgd.step(attn::parameter_groups(model, grads));
  return p.loss;
}

void check_walk(const WalkSettings& s) {
  if (s.updates < 0) {
    throw std::invalid_argument("walkthrough: the number of further updates must be >= 0, got " +
                                std::to_string(s.updates));
  }
  if (s.first > 1) throw std::invalid_argument("walkthrough: the first sentence must be 0 or 1");
  for (std::size_t k = 0; k < s.follow.size(); ++k) {
    if (s.follow[k] < 1 || (k > 0 && s.follow[k] <= s.follow[k - 1])) {
      throw std::invalid_argument("walkthrough: followed update " + std::to_string(s.follow[k]) +
                                  " is below 1 or not after the previous one");
    }
  }
}

}  // namespace

Walk run_walk(const WalkSettings& settings) {
  check_walk(settings);
  const attn::Sgd sgd(settings.lr);
  const std::vector<Example> data = walkthrough_examples();
  Walk walk{.settings = settings, .initial = walkthrough_model(settings.seed)};
  if (!settings.follow.empty()) walk.settings.updates = std::max(settings.updates, settings.follow.back() - 1);
  attn::OneHeadModel model = walk.initial;
  attn::OneHeadPass p;
  attn::OneHeadGrads grads;
  auto next_followed = settings.follow.begin();  // walk.total() counts the updates the list needs
  for (int k = 1; k <= walk.total(); ++k) {
    const std::size_t sentence = (settings.first + static_cast<std::size_t>(k) - 1) % 2;
    const Example& x = data[sentence];
    if (next_followed != settings.follow.end() && *next_followed == k) {
      ++next_followed;
      WalkUpdate u{.number = k, .example = x, .before = model, .pass = attn::one_head_forward(model, x.ids, x.label)};
      u.grads = attn::one_head_backward(model, u.pass);
      u.after = model;
      sgd.step(attn::parameter_groups(u.after, u.grads));
      u.again = attn::one_head_forward(u.after, x.ids, x.label);
      model = u.after;
      walk.followed.push_back(std::move(u));
    } else {
      walk.quick.push_back({.number = k, .sentence = sentence, .loss = apply_update(model, x, sgd, p, grads)});
    }
  }
  walk.final = model;
  for (const Example& x : data) walk.end.push_back(attn::one_head_forward(model, x.ids, x.label));
  return walk;
}

void print_walk(std::ostream& out, const Walk& walk, const std::function<void()>& between) {
  const WalkSettings& s = walk.settings;
  const std::string what = "Step-through of " + followed_updates(walk.followed) + ":";
  const std::string model = "one head, two learned coordinates (c1, c2, no hand-given meaning),";
  out << what << (what.size() + 1 + model.size() <= 100 ? " " : "\n") << model << '\n'
      << "two classes, SGD with learning rate " << attn::format_number(s.lr, 2) << ", seed " << s.seed
      << ". Completed updates: 0.\n";
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

arma::mat stack_groups(const attn::OneHeadModel& model, std::vector<std::string>* labels) {
  arma::mat stacked;
  if (labels) labels->clear();
  for (const auto& group : attn::kOneHeadGroups) {
    stacked = arma::join_cols(stacked, model.*group.value);
    if (!labels) continue;
    for (const std::string& row : group_rows(group)) {
      labels->push_back(group.rows == attn::Dim::one ? std::string(group.name) : std::string(group.name) + " " + row);
    }
  }
  return stacked;
}

arma::mat stack_groups(const attn::OneHeadGrads& grads) {
  arma::mat stacked;
  for (const auto& group : attn::kOneHeadGroups) stacked = arma::join_cols(stacked, grads.*group.grad);
  return stacked;
}

}  // namespace ch05
