/// \file biased.hpp
/// \brief Chapter 05's companion "Attention learns the data, not the world": a dataset whose
/// context words are biased, the head trained on it, and which solution each seed finds.
///
/// Throws: std::invalid_argument like initial_model and train for bad settings (d = 0, passes < 1,
/// lr <= 0: train_biased, survey_biased_seeds) and for a count of 0 (survey_biased_seeds); the others
/// throw nothing beyond std::bad_alloc.
/// Sources: the article, "Attention learns the data, not the world" (its table is one seed's run).
#pragma once

#include <armadillo>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "training.hpp"

namespace ch05 {

/// Vocabulary of the biased dataset: the, bank and the six context words.
const std::vector<std::string>& biased_vocabulary();

/// Six sentences "the CONTEXT bank" with arbitrary labels: river water, money finance, vault water,
/// salmon finance, lawyer water, attorney finance.
std::vector<Example> biased_examples();

/// One row of the biased-dataset table.
struct BiasedRow {
  std::string context;         ///< the middle word
  arma::uword label = 0;       ///< assigned class
  arma::uword prediction = 0;  ///< the trained model's class
  double attention = 0.0;      ///< bank's attention weight on the context word
};

/// Trains the article's model (same settings) on the biased dataset and returns the table, one row
/// per example.
std::vector<BiasedRow> train_biased(const TrainSettings& settings);

/// How bank's weight on the context word behaves over the three sentences of one class after
/// training: all near 0 (below kNearZero), all near 1 (above 1 - kNearZero), or neither.
enum class ClassAttention { near_0, near_1, mixed };

/// "Near" 0 or 1 for the biased-dataset survey: within 0.1 of it.
inline constexpr double kNearZero = 0.1;

/// The pattern of one trained run: how the water contexts and the finance contexts are attended.
struct BiasPattern {
  ClassAttention water = ClassAttention::mixed;    ///< river, vault, lawyer
  ClassAttention finance = ClassAttention::mixed;  ///< money, salmon, attorney
  /// True if one class is attended near 0 and the other near 1: the article's contrast.
  bool contrast() const;
  /// True if both patterns are the same.
  bool operator==(const BiasPattern&) const = default;
};

/// The pattern of a table from train_biased: each class's context weights sorted into near 0,
/// near 1 or mixed.
BiasPattern bias_pattern(const std::vector<BiasedRow>& rows);

/// A pattern in words, e.g. "water near 0, finance near 1".
std::string describe(const BiasPattern& pattern);

/// One seed of the survey: its table, how many of the six it fits, its pattern.
struct BiasedRun {
  std::uint64_t seed = 0;       ///< seed of the initial parameters
  std::vector<BiasedRow> rows;  ///< the table train_biased returns
  int fitted = 0;               ///< rows whose prediction is the assigned label (of 6)
  BiasPattern pattern;          ///< bias_pattern(rows)
};

/// The biased dataset trained from `count` consecutive seeds starting at `first` (settings.seed
/// is ignored), in seed order.
std::vector<BiasedRun> survey_biased_seeds(const TrainSettings& settings, std::uint64_t first, std::uint64_t count);

}  // namespace ch05
