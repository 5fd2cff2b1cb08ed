/// \file chapters/08_induction/circuit.hpp
/// \brief Chapter 08 measurements: loss on first occurrences vs repeats, per-head previous-token
/// and induction scores, and ablations.
///
/// Source: the article, "Reverse-engineer a head you trained" (record the loss and the induction
/// scores, compare the loss before and after each ablation; a name such as "induction head"
/// should summarize measured behaviour); Olsson et al. 2022, "In-context Learning and Induction
/// Heads", §2 (prefix matching and copying); Elhage et al. 2021 (previous-token heads).
#pragma once

#include <armadillo>
#include <string>
#include <vector>

#include "model.hpp"
#include "repeats.hpp"

namespace ch08 {

/// Mean previous-token weight of one T x T attention pattern: mean over i = 1 to T-1 of A[i, i-1].
/// 1 for a head that always reads the position just before; A is not modified.
/// Throws std::invalid_argument unless A is square with T >= 2. Source: Elhage et al. 2021
/// (previous-token heads).
double previous_token_score(const arma::mat& A);

/// Mean induction weight of one T x T pattern on a sequence whose block is `block`: over every
/// query in the repeat whose next token is also in the repeat (q = s + n + j, j = 0 to n-2, with
/// s = block.start, n = block.length), the weight A[q, s + j + 1] on the position just after the
/// earlier occurrence of q's token. 1 for a perfect induction pattern; A is not modified.
/// Throws std::invalid_argument if A is not square or the block does not fit. Source: Olsson et al.
/// 2022, §2 (prefix matching).
double induction_score(const arma::mat& A, const Block& block);

/// Mean duplicate-token weight of one T x T pattern on a sequence of T tokens: over every query i
/// whose token already occurred earlier, the total weight on those earlier positions j < i with
/// tokens[j] == tokens[i]. 0 if no token repeats; A is not modified.
/// Throws std::invalid_argument unless A is square and tokens has one entry per row. Source: Olsson
/// et al. 2022 (duplicate-token heads).
double duplicate_token_score(const arma::mat& A, const arma::urowvec& tokens);

/// Scores of every head, averaged over a batch.
struct HeadScores {
  arma::mat previous_token;  ///< layers x heads
  arma::mat induction;       ///< layers x heads
  arma::mat duplicate_token; ///< layers x heads
};

/// Scores of every head of the last forward pass over `batch` (run forward() on batch.tokens first).
/// Throws std::invalid_argument if the pass is not over this batch (or as the three scores).
/// Source: Olsson et al. 2022, §2.
HeadScores head_scores(const ForwardPass& pass, const RepeatBatch& batch, arma::uword heads);

/// Mean next-token losses (nats) of a pass, split by where the target sits (see Region).
struct RegionLosses {
  double overall = 0.0;  ///< every predicted position
  double first = 0.0;    ///< block tokens in the first copy
  double repeat = 0.0;   ///< block tokens in the repeat
};

/// Losses of `model` on `batch`, optionally with heads ablated (keep: layers x heads, see forward()).
/// Throws std::invalid_argument like forward(). Source: the article, "Reverse-engineer a head you trained"
/// (record the loss).
RegionLosses region_losses(const Model& model, const RepeatBatch& batch, const arma::mat* keep = nullptr);

/// One ablation: which heads were zeroed and what the held-out losses became.
struct Ablation {
  std::string name;     ///< e.g. "L1.H0" or "all of layer 2"
  arma::mat keep;       ///< layers x heads, 0 for ablated heads
  RegionLosses losses;  ///< held-out losses with those heads zeroed
};

/// Zero-ablation of each head alone, then of all heads of each layer together (in that order).
/// Throws std::invalid_argument like forward(). Source: the article, "Reverse-engineer a head you trained"
/// (ablations).
std::vector<Ablation> ablation_study(const Model& model, const RepeatBatch& held_out);

/// "L<layer+1>.H<head>", the name a head is printed under. Throws nothing. Source: Olsson et al. 2022's
/// naming (layer.head).
std::string head_name(arma::uword layer, arma::uword head);

}  // namespace ch08
