/// \file biased.cpp
/// \brief Chapter 05's biased-dataset companion (see biased.hpp).
#include "biased.hpp"

#include <algorithm>
#include <stdexcept>

namespace ch05 {

const std::vector<std::string>& biased_vocabulary() {
  static const std::vector<std::string> words{"the", "bank", "river", "money", "vault", "salmon", "lawyer", "attorney"};
  return words;
}

std::vector<Example> biased_examples() {
  const auto& v = biased_vocabulary();
  std::vector<Example> data;
  // clang-format off
  const std::pair<const char*, arma::uword> assigned[] = {{"river", 0},  {"money", 1},  {"vault", 0},
                                                          {"salmon", 1}, {"lawyer", 0}, {"attorney", 1}};
  for (const auto& [context, label] : assigned) data.push_back(example({"the", context, "bank"}, label, v));
  // clang-format on
  return data;
}

std::vector<BiasedRow> train_biased(const TrainSettings& settings) {
  const std::vector<Example> data = biased_examples();
  attn::OneHeadModel model = initial_model(biased_vocabulary().size(), settings);
  train(model, data, settings.passes, settings.lr);
  std::vector<BiasedRow> rows;
  for (const Example& e : data) {
    const attn::OneHeadPass p = attn::one_head_forward(model, e.ids, e.label);
    rows.push_back({e.words[1], e.label, p.logits.index_max(), p.A(2, 1)});
  }
  return rows;
}

bool BiasPattern::contrast() const {
  return (water == ClassAttention::near_0 && finance == ClassAttention::near_1) ||
         (water == ClassAttention::near_1 && finance == ClassAttention::near_0);
}

BiasPattern bias_pattern(const std::vector<BiasedRow>& rows) {
  const auto sort = [&](arma::uword label) {
    bool low = true, high = true;
    for (const BiasedRow& r : rows) {
      if (r.label != label) continue;
      low = low && r.attention < kNearZero;
      high = high && r.attention > 1.0 - kNearZero;
    }
    return low ? ClassAttention::near_0 : high ? ClassAttention::near_1 : ClassAttention::mixed;
  };
  return {.water = sort(0), .finance = sort(1)};
}

std::string describe(const BiasPattern& pattern) {
  const auto word = [](ClassAttention a) {
    return a == ClassAttention::near_0 ? "near 0" : a == ClassAttention::near_1 ? "near 1" : "mixed";
  };
  return std::string("water ") + word(pattern.water) + ", finance " + word(pattern.finance);
}

std::vector<BiasedRun> survey_biased_seeds(const TrainSettings& settings, std::uint64_t first, std::uint64_t count) {
  if (count == 0) throw std::invalid_argument("survey_biased_seeds: no seeds to train");
  std::vector<BiasedRun> runs;
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    TrainSettings s = settings;
    s.seed = seed;
    std::vector<BiasedRow> rows = train_biased(s);
    int fitted = 0;
    for (const BiasedRow& r : rows) fitted += r.prediction == r.label;
    const BiasPattern pattern = bias_pattern(rows);
    BiasedRun run{.seed = seed, .rows = std::move(rows), .fitted = fitted, .pattern = pattern};
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace ch05
