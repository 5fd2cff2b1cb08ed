/// \file training.cpp
/// \brief Chapter 05: the classifier trained with Adam (see training.hpp).
#include "training.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "common/attention/checks.hpp"

namespace ch05 {

const std::vector<std::string>& vocabulary() {
  static const std::vector<std::string> words{"the", "river", "money", "bank"};
  return words;
}

const std::vector<std::string>& class_names() {
  static const std::vector<std::string> names{"water", "finance"};
  return names;
}

arma::uvec encode(const std::vector<std::string>& words, const std::vector<std::string>& vocab) {
  if (words.empty()) throw std::invalid_argument("empty sentence");
  arma::uvec ids(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::size_t id = 0;
    while (id < vocab.size() && vocab[id] != words[i]) ++id;
    if (id == vocab.size()) {
      throw std::invalid_argument(fmt::format("unknown word '{}' (vocabulary: {})", words[i], fmt::join(vocab, ", ")));
    }
    ids(i) = id;
  }
  return ids;
}

Example example(const std::vector<std::string>& words, arma::uword label, const std::vector<std::string>& vocab) {
  return {words, encode(words, vocab), label};
}

std::vector<Example> article_examples() {
  const auto& v = vocabulary();
  // clang-format off
  return {example({"the", "river", "bank"}, 0, v), example({"the", "money", "bank"}, 1, v),
          example({"river", "bank"}, 0, v), example({"money", "bank"}, 1, v)};
  // clang-format on
}

attn::OneHeadModel initial_model(arma::uword vocab, const TrainSettings& s) {
  return attn::init_like_pytorch(vocab, s.d, s.d, s.d, class_names().size(), s.seed);
}

Trainer::Trainer(attn::OneHeadModel& model, double lr) : model_(model), adam_(lr) {
  attn::check_model(model_);
  groups_ = attn::parameter_groups(model_, grads_);
}

// [train_step]
double Trainer::step(const Example& example) {
  attn::one_head_forward(model_, example.ids, example.label, pass_);
  attn::one_head_backward(model_, pass_, grads_);
  adam_.step(groups_);
  return pass_.loss;
}
// [train_step]

TrainLog train(attn::OneHeadModel& model, const std::vector<Example>& data, int passes, double lr,
               const std::vector<std::size_t>& track) {
  if (data.empty()) throw std::invalid_argument("train: no examples");
  if (passes < 1) throw std::invalid_argument("train: passes must be >= 1, got " + std::to_string(passes));
  for (std::size_t t : track) {
    if (t >= data.size())
      throw std::invalid_argument("train: tracked example " + std::to_string(t) + " does not exist");
  }
  TrainLog log;
  log.pass_loss.zeros(passes);
  for (std::size_t t : track) log.tracked.emplace_back(passes + 1, data[t].ids.n_elem);
  attn::OneHeadPass probe;
  const auto record = [&](int row) {
    for (std::size_t k = 0; k < track.size(); ++k) {
      const Example& e = data[track[k]];
      attn::one_head_forward(model, e.ids, e.label, probe);
      log.tracked[k].row(row) = probe.A.row(probe.A.n_rows - 1);
    }
  };
  record(0);
  Trainer trainer(model, lr);
  const auto start = std::chrono::steady_clock::now();
  // [train_loop]
  for (int pass = 0; pass < passes; ++pass) {
    double total = 0.0;
    for (const Example& e : data) total += trainer.step(e);  // one Adam step per example, in order
    log.pass_loss(pass) = total / static_cast<double>(data.size());
    record(pass + 1);
  }
  // [train_loop]
  log.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log.steps = trainer.steps();
  return log;
}

arma::uword predict(const attn::OneHeadModel& model, const Example& example) {
  return attn::one_head_forward(model, example.ids, example.label).logits.index_max();
}

std::vector<Prediction> predictions(const attn::OneHeadModel& model, const std::vector<Example>& data) {
  std::vector<Prediction> out;
  for (const Example& e : data) {
    const attn::OneHeadPass p = attn::one_head_forward(model, e.ids, e.label);
    // The uniform row 1/n gives bank the mixture mean(V); the classifier reads it as it reads h.
    const arma::rowvec uniform_logits = arma::rowvec(arma::mean(p.V, 0)) * model.Wc + model.bc;
    out.push_back({.example = e,
                   .predicted = p.logits.index_max(),
                   .weights = p.A.row(p.A.n_rows - 1),
                   .uniform = uniform_logits.index_max()});
  }
  return out;
}

arma::mat weights_by_word(const std::vector<Prediction>& predictions, arma::uword vocab) {
  arma::mat rows(predictions.size(), vocab);
  rows.fill(arma::datum::nan);
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const arma::uvec& ids = predictions[i].example.ids;
    for (arma::uword j = 0; j < ids.n_elem; ++j) rows(i, ids(j)) = predictions[i].weights(j);
  }
  return rows;
}

double mean_loss(const attn::OneHeadModel& model, const std::vector<Example>& data) {
  double total = 0.0;
  for (const Example& e : data) total += attn::one_head_forward(model, e.ids, e.label).loss;
  return total / static_cast<double>(data.size());
}

double microseconds_per_step(const TrainSettings& settings, int repeats) {
  const std::vector<Example> data = article_examples();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    attn::OneHeadModel model = initial_model(vocabulary().size(), settings);
    Trainer trainer(model, settings.lr);
    const auto start = std::chrono::steady_clock::now();
    for (int pass = 0; pass < settings.passes; ++pass) {
      for (const Example& e : data) trainer.step(e);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, 1e6 * seconds / static_cast<double>(trainer.steps()));
  }
  return best;
}

}  // namespace ch05
