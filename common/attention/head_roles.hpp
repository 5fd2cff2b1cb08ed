/// \file head_roles.hpp
/// \brief Measured roles of one attention head: previous-token, induction and duplicate-token
/// scores of a T x T pattern (rows = receiving positions i, columns = sources j, each row sums to 1).
///
/// Throws: std::invalid_argument naming the pattern's shape unless A is square with T >= 2
/// (previous_token_score), if A is not square or the block and its repeat do not fit it
/// (induction_score), unless A is square with one token per row (duplicate_token_score); the others
/// throw nothing (beyond std::bad_alloc).
/// Sources: the article, "Reverse-engineer a head you trained" (a name such as "induction head"
/// should summarize measured behaviour; compare the loss before and after each ablation); Olsson et
/// al. 2022, "In-context Learning and Induction Heads", §2 (prefix matching and copying); Elhage et
/// al. 2021 (previous-token heads).
#pragma once

#include <armadillo>
#include <stdexcept>
#include <string>
#include <vector>
#include "common/attention/attention.hpp"

namespace attn {

/// Where a repeated block sits in one sequence: its first copy occupies positions
/// [start, start + length), the repeat [start + length, start + 2 length).
struct Block {
  arma::uword start = 0;   ///< first position of the first copy
  arma::uword length = 0;  ///< tokens in the block (>= 2)
};

/// Mean previous-token weight of one T x T attention pattern: mean over i = 1 . T-1 of A[i, i-1].
/// 1 for a head that always reads the position just before; A is not modified.
double previous_token_score(const arma::mat& A);

/// Mean induction weight of one T x T pattern on a sequence whose block is `block`: over every
/// query in the repeat whose next token is also in the repeat (q = s + n + j, j = 0 . n-2, with
/// s = block.start, n = block.length), the weight A[q, s + j + 1] on the position just after the
/// earlier occurrence of q's token. 1 for a perfect induction pattern; A is not modified.
double induction_score(const arma::mat& A, const Block& block);

/// Mean duplicate-token weight of one T x T pattern on a sequence of T tokens: over every query i
/// whose token already occurred earlier, the total weight on those earlier positions j < i with
/// tokens[j] == tokens[i]. 0 if no token repeats; A is not modified.
double duplicate_token_score(const arma::mat& A, const arma::urowvec& tokens);

/// A head's name in tables and figures: "L<layer + 1>.H<head>" (layers from 1, heads from 0), e.g.
/// "L2.H1".
std::string head_name(arma::uword layer, arma::uword head);

/// One ablation: its name and the keep mask (layers x heads; 0 silences a head's mixture, 1 keeps it).
struct AblationMask {
  std::string name;  ///< "L1.H0" for one head, "all of layer 2" for a whole layer
  arma::mat keep;    ///< layers x heads
};

/// The ablations chapters 08 and 09 run: each head alone (layer by layer, head by head), then each
/// whole layer; each keep mask is layers x heads.
std::vector<AblationMask> single_head_and_layer_ablations(arma::uword layers, arma::uword heads);

// ---- definitions ---------------------------------------------------------------------------------

// [scores]
inline double previous_token_score(const arma::mat& A) {
  if (A.n_rows != A.n_cols || A.n_rows < 2) {
    throw std::invalid_argument("previous_token_score: need a square pattern of at least 2 x 2, got " + attn::shape(A));
  }
  double sum = 0.0;
  for (arma::uword i = 1; i < A.n_rows; ++i) sum += A(i, i - 1);
  return sum / static_cast<double>(A.n_rows - 1);
}

inline double induction_score(const arma::mat& A, const Block& block) {
  const arma::uword s = block.start, n = block.length;
  if (A.n_rows != A.n_cols || n < 2 || s + 2 * n > A.n_rows) {
    throw std::invalid_argument("induction_score: a block of " + std::to_string(n) + " tokens at " + std::to_string(s) +
                                " and its repeat do not fit a " + attn::shape(A) + " pattern");
  }
  double sum = 0.0;
  for (arma::uword j = 0; j + 1 < n; ++j) sum += A(s + n + j, s + j + 1);  // query: repeat of token j
  return sum / static_cast<double>(n - 1);                                 // key: the token after its first copy
}

inline double duplicate_token_score(const arma::mat& A, const arma::urowvec& tokens) {
  if (A.n_rows != A.n_cols || tokens.n_elem != A.n_rows) {
    throw std::invalid_argument("duplicate_token_score: a " + attn::shape(A) + " pattern for " +
                                std::to_string(tokens.n_elem) + " tokens");
  }
  double sum = 0.0, queries = 0.0;
  for (arma::uword i = 1; i < A.n_rows; ++i) {
    double on_copies = 0.0;
    bool repeated = false;
    for (arma::uword j = 0; j < i; ++j) {
      if (tokens(j) == tokens(i)) on_copies += A(i, j), repeated = true;
    }
    if (repeated) sum += on_copies, queries += 1.0;
  }
  return queries > 0 ? sum / queries : 0.0;
}
// [scores]

inline std::string head_name(arma::uword layer, arma::uword head) {
  std::string name = "L";
  name += std::to_string(layer + 1);
  name += ".H";
  name += std::to_string(head);
  return name;
}

inline std::vector<AblationMask> single_head_and_layer_ablations(arma::uword layers, arma::uword heads) {
  std::vector<AblationMask> out;
  for (arma::uword l = 0; l < layers; ++l) {
    for (arma::uword h = 0; h < heads; ++h) {
      arma::mat keep(layers, heads, arma::fill::ones);
      keep(l, h) = 0.0;  // this head's mixture never reaches the stream
      out.push_back({head_name(l, h), keep});
    }
  }
  for (arma::uword l = 0; l < layers; ++l) {
    arma::mat keep(layers, heads, arma::fill::ones);
    keep.row(l).zeros();
    out.push_back({"all of layer " + std::to_string(l + 1), keep});
  }
  return out;
}

}  // namespace attn
