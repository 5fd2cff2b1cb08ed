/// \file toy.hpp
/// \brief Hand-set embedding tables of the article and lookup of a sentence into X.
///
/// Throws: std::invalid_argument if the sizes disagree, a word is empty or repeats, or E is not
/// finite (the EmbeddingTable constructor); for an unknown word, the message listing the vocabulary
/// (index, vector, lookup); for an empty sentence (lookup); for a sentence with no word or more than
/// `max_words` (split_sentence). The others throw nothing (beyond std::bad_alloc).
/// Sources: the article, "One forward pass, no training" (four words, four named axes, the lookup)
/// and "When raw similarity asks the wrong question" (the two-dimensional teaching space); the
/// chapters' --sentence flag (split_sentence and join_words, no paper).
#pragma once

#include <armadillo>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include "common/attention/checks.hpp"

namespace attn {

/// A vocabulary with one embedding row per word and a name per coordinate.
///
/// `E` is vocabulary size x d: row r is the vector of `words[r]`; column c is axis `axes[c]`.
class EmbeddingTable {
 public:
  /// words: vocabulary (distinct, non-empty); axes: one name per column of E; E: words x axes, finite.
  EmbeddingTable(std::vector<std::string> words, std::vector<std::string> axes, arma::mat E);

  /// The vocabulary, in row order of E.
  const std::vector<std::string>& words() const { return words_; }
  /// The axis names, in column order of E.
  const std::vector<std::string>& axes() const { return axes_; }
  /// The table itself: vocabulary size x d.
  const arma::mat& E() const { return E_; }
  /// The embedding width d.
  arma::uword d() const { return E_.n_cols; }

  /// Row index of `word`.
  arma::uword index(const std::string& word) const;
  /// The word's embedding: 1 x d.
  arma::rowvec vector(const std::string& word) const;
  /// The sentence matrix X: n x d, row i the embedding of sentence[i]. The lookup is the only
  /// step indexed by token; it does not consult the context.
  arma::mat lookup(const std::vector<std::string>& sentence) const;
  /// "the, river, money, bank": the vocabulary for messages and help texts.
  std::string vocabulary_list() const;

 private:
  std::vector<std::string> words_;
  std::vector<std::string> axes_;
  arma::mat E_;
};

/// The article's toy table: the, river, money, bank over axes finance, water, structure, generic
/// (4 x 4): the = [0,0,0,1], river = [0,1,0,0.2], money = [1,0,0,0.2], bank = [0.5,0.5,0.8,0.2].
/// Built once, on first use.
const EmbeddingTable& toy_embeddings();

/// The article's two-dimensional teaching space: the, Eiffel, tower over axes structure and
/// Paris identity (3 x 2): the = [0,0], Eiffel = [0,1], tower = [1,0]. Built once, on first use.
const EmbeddingTable& teaching_space_2d();

/// Splits a sentence on white space: "the  river bank" -> {"the", "river", "bank"}; at least one
/// word, at most `max_words` (the chapters print n x n matrices and heat maps: at most 8 words keep
/// every line within 100 columns and every cell readable).
std::vector<std::string> split_sentence(const std::string& sentence, std::size_t max_words = 8);

/// Joins words with single spaces, the inverse of split_sentence: {"the", "river", "bank"} ->
/// "the river bank"; {} -> "".
std::string join_words(const std::vector<std::string>& words);

// ---- definitions ---------------------------------------------------------------------------------

inline EmbeddingTable::EmbeddingTable(std::vector<std::string> words, std::vector<std::string> axes, arma::mat E)
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

inline arma::uword EmbeddingTable::index(const std::string& word) const {
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (words_[i] == word) return i;
  }
  throw std::invalid_argument("unknown word '" + printable(word) + "' (the vocabulary is: " + vocabulary_list() + ")");
}

inline arma::rowvec EmbeddingTable::vector(const std::string& word) const { return E_.row(index(word)); }

inline arma::mat EmbeddingTable::lookup(const std::vector<std::string>& sentence) const {
  if (sentence.empty()) {
    throw std::invalid_argument("empty sentence (give words from: " + vocabulary_list() + ")");
  }
  arma::mat X(sentence.size(), d());
  for (std::size_t i = 0; i < sentence.size(); ++i) X.row(i) = E_.row(index(sentence[i]));
  return X;
}

inline std::string EmbeddingTable::vocabulary_list() const {
  std::string out;
  for (const auto& w : words_) out += (out.empty() ? "" : ", ") + w;
  return out;
}

inline const EmbeddingTable& toy_embeddings() {
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

inline const EmbeddingTable& teaching_space_2d() {
  //                                               structure  Paris identity
  // clang-format off
  static const EmbeddingTable table({"the", "Eiffel", "tower"}, {"structure", "Paris identity"},
                                    arma::mat{{0.0, 0.0}, {0.0, 1.0}, {1.0, 0.0}});
  // clang-format on
  return table;
}

inline std::vector<std::string> split_sentence(const std::string& sentence, std::size_t max_words) {
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

inline std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace attn
