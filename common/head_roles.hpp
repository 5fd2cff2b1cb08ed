/// \file head_roles.hpp
/// \brief Measured roles of one attention head: previous-token, induction and duplicate-token
/// scores of a T x T pattern (rows = receiving positions i, columns = sources j, each row sums to 1).
///
/// Source: the article, "Reverse-engineer a head you trained" (a name such as "induction head"
/// should summarize measured behaviour); Olsson et al. 2022, "In-context Learning and Induction
/// Heads", §2 (prefix matching and copying); Elhage et al. 2021 (previous-token heads).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

namespace attn {

/// Where a repeated block sits in one sequence: its first copy occupies positions
/// [start, start + length), the repeat [start + length, start + 2 length).
struct Block {
  arma::uword start = 0;   ///< first position of the first copy
  arma::uword length = 0;  ///< tokens in the block (>= 2)
};

/// Mean previous-token weight of one T x T attention pattern: mean over i = 1 .. T-1 of A[i, i-1].
/// 1 for a head that always reads the position just before; A is not modified.
/// Throws std::invalid_argument unless A is square with T >= 2.
double previous_token_score(const arma::mat& A);

/// Mean induction weight of one T x T pattern on a sequence whose block is `block`: over every
/// query in the repeat whose next token is also in the repeat (q = s + n + j, j = 0 .. n-2, with
/// s = block.start, n = block.length), the weight A[q, s + j + 1] on the position just after the
/// earlier occurrence of q's token. 1 for a perfect induction pattern; A is not modified.
/// Throws std::invalid_argument if A is not square or the block does not fit.
double induction_score(const arma::mat& A, const Block& block);

/// Mean duplicate-token weight of one T x T pattern on a sequence of T tokens: over every query i
/// whose token already occurred earlier, the total weight on those earlier positions j < i with
/// tokens[j] == tokens[i]. 0 if no token repeats; A is not modified.
/// Throws std::invalid_argument unless A is square and tokens has one entry per row.
double duplicate_token_score(const arma::mat& A, const arma::urowvec& tokens);

/// A head's name in tables and figures: "L<layer + 1>.H<head>" (layers from 1, heads from 0), e.g.
/// "L2.H1". Throws nothing (beyond std::bad_alloc).
std::string head_name(arma::uword layer, arma::uword head);

/// One ablation: its name and the keep mask (layers x heads; 0 silences a head's mixture, 1 keeps it).
struct AblationMask {
  std::string name;  ///< "L1.H0" for one head, "all of layer 2" for a whole layer
  arma::mat keep;    ///< layers x heads
};

/// The ablations chapters 08 and 09 run: each head alone (layer by layer, head by head), then each
/// whole layer. Source: the article's "Reverse-engineer a head you trained" (compare the loss before
/// and after each ablation). Throws nothing (beyond std::bad_alloc).
std::vector<AblationMask> single_head_and_layer_ablations(arma::uword layers, arma::uword heads);

}  // namespace attn
