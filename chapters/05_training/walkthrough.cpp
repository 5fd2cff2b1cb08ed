/// \file walkthrough.cpp
/// \brief Chapter 05: the step-through's model and updates, computed once (see walkthrough.hpp;
/// report.hpp prints them stage by stage).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/attention/attention.hpp"
#include "common/attention/optim.hpp"
#include "common/attention/toy.hpp"
#include "walkthrough.hpp"

namespace ch05 {

attn::OneHeadModel walkthrough_model(std::uint64_t seed) {
  attn::OneHeadModel m = attn::init_like_pytorch(vocabulary().size(), 2, 2, 2, class_names().size(), seed);
  m.bc.zeros();  // the widget starts its classifier bias at zero
  return m;
}

std::vector<Example> walkthrough_examples() {
  const std::vector<Example> all = article_examples();
  return {all[0], all[1]};
}
namespace {

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

std::vector<std::string> walkthrough_sentences() {
  std::vector<std::string> sentences;
  for (const Example& e : walkthrough_examples()) sentences.push_back(attn::join_words(e.words));
  return sentences;
}

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

}  // namespace ch05
