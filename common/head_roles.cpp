/// \file head_roles.cpp
/// \brief Per-head role scores (see head_roles.hpp).
#include "common/head_roles.hpp"

#include <stdexcept>
#include <string>

#include "common/attention.hpp"

namespace attn {

// [scores]
double previous_token_score(const arma::mat& A) {
  if (A.n_rows != A.n_cols || A.n_rows < 2) {
    throw std::invalid_argument("previous_token_score: need a square pattern of at least 2 x 2, got " + attn::shape(A));
  }
  double sum = 0.0;
  for (arma::uword i = 1; i < A.n_rows; ++i) sum += A(i, i - 1);
  return sum / static_cast<double>(A.n_rows - 1);
}

double induction_score(const arma::mat& A, const Block& block) {
  const arma::uword s = block.start, n = block.length;
  if (A.n_rows != A.n_cols || n < 2 || s + 2 * n > A.n_rows) {
    throw std::invalid_argument("induction_score: a block of " + std::to_string(n) + " tokens at " + std::to_string(s) +
                                " and its repeat do not fit a " + attn::shape(A) + " pattern");
  }
  double sum = 0.0;
  for (arma::uword j = 0; j + 1 < n; ++j) sum += A(s + n + j, s + j + 1);  // query: repeat of token j
  return sum / static_cast<double>(n - 1);                                 // key: the token after its first copy
}

double duplicate_token_score(const arma::mat& A, const arma::urowvec& tokens) {
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

std::string head_name(arma::uword layer, arma::uword head) {
  std::string name = "L";  // built piece by piece: GCC 12 misreports "L" + to_string(...) (stringop-overflow)
  name += std::to_string(layer + 1);
  name += ".H";
  name += std::to_string(head);
  return name;
}

std::vector<AblationMask> single_head_and_layer_ablations(arma::uword layers, arma::uword heads) {
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
