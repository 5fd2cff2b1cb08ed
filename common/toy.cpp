/// \file toy.cpp
/// \brief Hand-set embedding tables of the article (see toy.hpp).
#include "common/toy.hpp"

#include <sstream>
#include <stdexcept>

#include "common/checks.hpp"

namespace attn {

EmbeddingTable::EmbeddingTable(std::vector<std::string> words, std::vector<std::string> axes, arma::mat E)
    : words_(std::move(words)), axes_(std::move(axes)), E_(std::move(E)) {
  if (E_.n_rows != words_.size() || E_.n_cols != axes_.size()) {
    throw std::invalid_argument("EmbeddingTable: E is " + shape(E_) + " but there are " +
                                std::to_string(words_.size()) + " words and " + std::to_string(axes_.size()) + " axes");
  }
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (words_[i].empty()) throw std::invalid_argument("EmbeddingTable: empty word");
    for (std::size_t j = 0; j < i; ++j) {
      if (words_[i] == words_[j]) throw std::invalid_argument("EmbeddingTable: '" + words_[i] + "' repeats");
    }
  }
  require_finite(E_, "EmbeddingTable: E");
}

arma::uword EmbeddingTable::index(const std::string& word) const {
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (words_[i] == word) return i;
  }
  throw std::invalid_argument("unknown word '" + printable(word) + "' (the vocabulary is: " + vocabulary_list() + ")");
}

arma::rowvec EmbeddingTable::vector(const std::string& word) const { return E_.row(index(word)); }

arma::mat EmbeddingTable::lookup(const std::vector<std::string>& sentence) const {
  if (sentence.empty()) {
    throw std::invalid_argument("empty sentence (give words from: " + vocabulary_list() + ")");
  }
  arma::mat X(sentence.size(), d());
  for (std::size_t i = 0; i < sentence.size(); ++i) X.row(i) = E_.row(index(sentence[i]));
  return X;
}

std::string EmbeddingTable::vocabulary_list() const {
  std::string out;
  for (const auto& w : words_) out += (out.empty() ? "" : ", ") + w;
  return out;
}

const EmbeddingTable& toy_embeddings() {
  //                                     finance water structure generic
  // clang-format off
  static const EmbeddingTable table({"the", "river", "money", "bank"},
                                    {"finance", "water", "structure", "generic"},
                                    arma::mat{{0.0, 0.0, 0.0, 1.0},
                                              {0.0, 1.0, 0.0, 0.2},
                                              {1.0, 0.0, 0.0, 0.2},
                                              {0.5, 0.5, 0.8, 0.2}});
  // clang-format on
  return table;
}

const EmbeddingTable& teaching_space_2d() {
  //                                               structure  Paris identity
  // clang-format off
  static const EmbeddingTable table({"the", "Eiffel", "tower"}, {"structure", "Paris identity"},
                                    arma::mat{{0.0, 0.0}, {0.0, 1.0}, {1.0, 0.0}});
  // clang-format on
  return table;
}

std::vector<std::string> split_sentence(const std::string& sentence, std::size_t max_words) {
  std::istringstream in(sentence);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) throw std::invalid_argument("empty sentence: give at least one word");
  if (words.size() > max_words) {
    throw std::invalid_argument("the sentence has " + std::to_string(words.size()) + " words; at most " +
                                std::to_string(max_words) + " are allowed");
  }
  return words;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string word_colour(const std::string& word) {
  // clang-format off
  static const std::vector<std::pair<std::string, std::string>> colours{
      {"the", "#9467bd"}, {"river", "#1f77b4"}, {"money", "#2ca02c"}, {"bank", "#d62728"}};
  // clang-format on
  for (const auto& [w, colour] : colours) {
    if (w == word) return colour;
  }
  return "#7f7f7f";
}

}  // namespace attn
