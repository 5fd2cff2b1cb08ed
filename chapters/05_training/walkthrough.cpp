/// \file walkthrough.cpp
/// \brief Chapter 05: the step-through widget in the terminal (see training.hpp, walkthrough()).
#include <ostream>
#include <stdexcept>

#include "common/attention.hpp"
#include "common/optim.hpp"
#include "common/print.hpp"
#include "common/toy.hpp"
#include "training.hpp"

namespace ch05 {
namespace {

constexpr int kDigits = 4;  // every number of the two-coordinate model, to four decimals

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

/// Everything one SGD update computes on one example, computed once and then printed stage by stage.
struct Update {
  attn::OneHeadModel before{};  ///< the parameters going in
  attn::OneHeadPass pass{};     ///< the forward pass with them
  attn::OneHeadGrads grads{};   ///< the backward pass
  attn::OneHeadModel after{};   ///< the parameters after one SGD step
  attn::OneHeadPass again{};    ///< the same example through the updated model
};

Update one_update(const attn::OneHeadModel& model, const Example& e, const attn::Sgd& sgd) {
  Update u{.before = model, .pass = attn::one_head_forward(model, e.ids, e.label)};
  u.grads = attn::one_head_backward(model, u.pass);
  u.after = model;
  sgd.step(attn::parameter_groups(u.after, u.grads));
  u.again = attn::one_head_forward(u.after, e.ids, e.label);
  return u;
}

/// Stages 1 to 3: the sentence, the lookup, the projections.
void print_inputs(std::ostream& out, const Example& e, const Update& u, std::uint64_t seed,
                  const std::function<void()>& between) {
  const auto& words = e.words;
  const attn::OneHeadPass& p = u.pass;
  stage(out, 1, "Sentence", between);
  out << "  \"" << attn::join_words(words) << "\"  token ids "
      << attn::format_vector(arma::conv_to<arma::rowvec>::from(e.ids), 0) << "   target: " << class_names()[e.label]
      << " (" << e.label << ")\n"
      << "  The classifier reads only the mixture at '" << words.back()
      << "'. The target enters the loss, not the attention.\n"
      << "  Parameters start from repeatable random numbers (seed " << seed
      << "); the classifier bias starts at zero.\n";

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
void print_outputs(std::ostream& out, const Example& e, const Update& u, const std::function<void()>& between) {
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
void print_gradients(std::ostream& out, const Example& e, const Update& u, const std::function<void()>& between) {
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
  for (arma::uword r = 0; r < vocab.size(); ++r) {
    if (arma::any(e.ids == r)) continue;
    out << "  '" << vocab[r] << "' is absent from the sentence: its row of dE is exactly "
        << (arma::all(g.E.row(r) == 0.0) ? "zero" : "NOT zero") << "   [train_04]\n";
  }
  for (const auto& group : attn::kOneHeadGroups) {
    if (group.rows != attn::Dim::vocab) matrix(out, std::string("d") + group.name, group_rows(group), g.*group.grad);
  }
}

/// Stage 8: the parameters after the step, and the same sentence through them.
void print_step(std::ostream& out, const Example& e, const Update& u, double lr, const std::function<void()>& between) {
  stage(out, 8, "Update: theta <- theta - " + attn::format_number(lr, 2) + " x gradient (SGD)", between);
  for (const auto& group : attn::kOneHeadGroups) {
    matrix(out, std::string(group.name) + " after", group_rows(group), u.after.*group.value);
  }
  out << "  The same sentence again: loss " << attn::format_number(u.pass.loss, kDigits) << " -> "
      << attn::format_number(u.again.loss, kDigits) << ", p[" << class_names()[e.label] << "] "
      << attn::format_number(u.pass.probs(e.label), kDigits) << " -> "
      << attn::format_number(u.again.probs(e.label), kDigits) << ". Completed updates: 1.\n";
}

/// Further SGD updates alternating the two examples, one line each, then where the model stands.
void continue_updates(std::ostream& out, attn::OneHeadModel& model, const std::vector<Example>& data,
                      const attn::Sgd& sgd, int updates) {
  attn::print_heading(out, "Continuing for " + std::to_string(updates) + " more updates, alternating the two examples");
  attn::OneHeadPass p;
  attn::OneHeadGrads grads;
  for (int u = 1; u <= updates; ++u) {
    const Example& x = data[static_cast<std::size_t>(u) % 2];  // update 1 used example 0
    attn::one_head_forward(model, x.ids, x.label, p);
    attn::one_head_backward(model, p, grads);
    sgd.step(attn::parameter_groups(model, grads));
    out << "  update " << u + 1 << ": \"" << attn::join_words(x.words) << "\" (" << class_names()[x.label]
        << ")  loss before " << attn::format_number(p.loss, kDigits) << '\n';
  }
  out << "  After " << updates + 1 << " updates:\n";
  for (const Example& x : data) {
    const attn::OneHeadPass q = attn::one_head_forward(model, x.ids, x.label);
    out << "    \"" << attn::join_words(x.words)
        << "\": p(water, finance) = " << attn::format_vector(arma::rowvec(q.probs), kDigits) << ",\n      predicted "
        << class_names()[q.logits.index_max()] << ", " << data[0].words.back() << "'s weights "
        << attn::format_vector(arma::rowvec(q.A.row(q.A.n_rows - 1)), 2) << '\n';
  }
}

}  // namespace

void walkthrough(std::ostream& out, std::uint64_t seed, double lr, int updates, const std::function<void()>& between) {
  if (updates < 0)
    throw std::invalid_argument("walkthrough: the number of further updates must be >= 0, got " +
                                std::to_string(updates));
  const std::vector<Example> data = walkthrough_examples();
  const attn::Sgd sgd(lr);
  const Example& e = data[0];
  const Update u = one_update(walkthrough_model(seed), e, sgd);

  out << "Step-through of one update: one head, two learned coordinates (c1, c2, no hand-given meaning),\n"
      << "two classes, SGD with learning rate " << attn::format_number(lr, 2) << ", seed " << seed
      << ". Completed updates: 0.\n";
  print_inputs(out, e, u, seed, between);
  print_outputs(out, e, u, between);
  print_gradients(out, e, u, between);
  print_step(out, e, u, lr, between);
  if (updates == 0) return;
  attn::OneHeadModel model = u.after;
  continue_updates(out, model, data, sgd, updates);
}

}  // namespace ch05
